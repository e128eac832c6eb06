//===- ModelCost.cpp - cost totals of layers and models -------------------===//

#include "loom/Dialect/Loom/ModelCost.h"
#include "loom/Dialect/Loom/LoomOps.h"

using namespace mlir;
using namespace loom;

void CostTotals::add(CostOpInterface op) {
  CostTotals one;
  one.flops = op.getFlops();
  one.parameters = op.getParameterCount();
  one.parameterBytes = op.getParameterBytes();
  one.bytesRead = op.getBytesRead();
  one.bytesWritten = op.getBytesWritten();
  one.kvCacheBytes = op.getKVCacheBytes();
  *this += one;
}

// Saturating, as every cost figure is (loom::Count).
CostTotals &CostTotals::operator+=(const CostTotals &other) {
  auto add = [](int64_t &total, int64_t more) {
    total = (Count(total) + more).get();
  };
  add(flops, other.flops);
  add(parameters, other.parameters);
  add(parameterBytes, other.parameterBytes);
  add(bytesRead, other.bytesRead);
  add(bytesWritten, other.bytesWritten);
  add(kvCacheBytes, other.kvCacheBytes);
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

double loom::estimateTime(const CostModel &model, CostOpInterface op,
                          ArrayRef<GroupAxis> groupAxes) {
  if (auto layer = dyn_cast<LayerOp>(op.getOperation())) {
    double total = 0;
    for (Operation &inner : layer.getBody().front())
      if (auto cost = dyn_cast<CostOpInterface>(inner))
        total += estimateTime(model, cost, groupAxes);
    return total;
  }
  if (auto collective = dyn_cast<CollectiveOpInterface>(op.getOperation()))
    return model.collectiveTime(collective.getCollectiveKind(), groupAxes,
                                collective.getCollectiveBytes());
  // Keeping a local piece of a replicated tensor moves nothing.
  if (isa<LocalShardOp, YieldOp>(op.getOperation()))
    return 0;
  return model.taskTime(op.getPaddedFlops(model.getTarget().mxuTile),
                        op.getBytesRead() + op.getBytesWritten(),
                        op.getComputeBits());
}
