//===- ModelCost.cpp - cost totals of layers and models -------------------===//

#include "loom/Dialect/Loom/ModelCost.h"
#include "loom/Dialect/Loom/LoomOps.h"

using namespace mlir;
using namespace loom;

void CostTotals::add(CostOpInterface op) {
  flops += op.getFlops();
  parameters += op.getParameterCount();
  parameterBytes += op.getParameterBytes();
  bytesRead += op.getBytesRead();
  bytesWritten += op.getBytesWritten();
  kvCacheBytes += op.getKVCacheBytes();
}

CostTotals &CostTotals::operator+=(const CostTotals &other) {
  flops += other.flops;
  parameters += other.parameters;
  parameterBytes += other.parameterBytes;
  bytesRead += other.bytesRead;
  bytesWritten += other.bytesWritten;
  kvCacheBytes += other.kvCacheBytes;
  return *this;
}

SmallVector<PartCost> loom::collectPartCosts(Block &body) {
  PartCost prologue{PartCost::Part::Prologue, -1, "", {}};
  PartCost epilogue{PartCost::Part::Epilogue, -1, "", {}};
  bool hasPrologue = false, hasEpilogue = false;
  SmallVector<PartCost> layers;
  for (Operation &op : body) {
    auto cost = dyn_cast<CostOpInterface>(op);
    if (!cost)
      continue;
    if (auto layer = dyn_cast<LayerOp>(op)) {
      PartCost row{PartCost::Part::Layer, static_cast<int64_t>(layer.getIndex()),
                   layer.getKind().value_or("").str(), {}};
      row.cost.add(cost);
      layers.push_back(std::move(row));
    } else if (layers.empty()) {
      prologue.cost.add(cost);
      hasPrologue = true;
    } else {
      epilogue.cost.add(cost);
      hasEpilogue = true;
    }
  }
  SmallVector<PartCost> rows;
  if (hasPrologue)
    rows.push_back(std::move(prologue));
  rows.append(layers.begin(), layers.end());
  if (hasEpilogue)
    rows.push_back(std::move(epilogue));
  return rows;
}

CostTotals loom::sumPartCosts(ArrayRef<PartCost> parts) {
  CostTotals total;
  for (const PartCost &part : parts)
    total += part.cost;
  return total;
}

double loom::estimateTime(const CostModel &model, CostOpInterface op) {
  if (auto layer = dyn_cast<LayerOp>(op.getOperation())) {
    double total = 0;
    for (Operation &inner : layer.getBody().front())
      if (auto cost = dyn_cast<CostOpInterface>(inner))
        total += estimateTime(model, cost);
    return total;
  }
  unsigned bits = 16;
  if (op->getNumResults() > 0)
    bits = 8 * getElementBytes(op->getResult(0).getType());
  return model.computeTime(op.getPaddedFlops(model.getTarget().mxuTile),
                           op.getBytesRead() + op.getBytesWritten(), bits);
}
