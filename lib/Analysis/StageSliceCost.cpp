//===- StageSliceCost.cpp - what slices of a stage cost -------------------===//

#include "loom/Analysis/StageSliceCost.h"

#include "loom/Dialect/Loom/LoomAttributes.h"
#include "loom/Dialect/Loom/ModelCost.h"

#include <map>

using namespace mlir;
using namespace loom;

double loom::weightGatheredSeconds(double before, ArrayRef<double> compute,
                                   ArrayRef<double> gather) {
  if (compute.empty())
    return before;
  double total = std::max(before, gather.front());
  for (size_t i = 0; i + 1 < compute.size(); ++i)
    total += std::max(compute[i], gather[i + 1]);
  return total + compute.back();
}

StageSliceCost::StageSliceCost(ArrayRef<LayerOp> layers, const CostModel &model,
                               ArrayRef<GroupAxis> axes, int64_t tokens,
                               int64_t stages, ArrayRef<GroupAxis> spAxes,
                               int64_t microbatches)
    : stageLayers(stages), kindOf(stages),
      boundaryBytes(std::max<int64_t>(stages - 1, 0)),
      tokens(tokens), microbatches(std::max<int64_t>(microbatches, 1)),
      hopLatency(model.getTarget().hopLatency),
      linkBandwidth(model.linkEfficiency(/*ring=*/false) *
                    model.getTarget().linkBandwidth) {
  for (LayerOp layer : layers) {
    int64_t stage = LayerOp(layer).getStage().value_or(0);
    stageLayers[stage].emplace_back(layer, model, axes, tokens, spAxes,
                                    this->microbatches);
    // Layers are in order, so a stage's last layer writes last.
    if (stage + 1 < stages)
      boundaryBytes[stage] = getTensorBytes(layer->getResultTypes());
  }
  for (auto [stage, costs] : llvm::enumerate(stageLayers))
    for (auto [index, layer] : llvm::enumerate(costs)) {
      auto same = llvm::find_if(kinds, [&](std::pair<unsigned, unsigned> kind) {
        return stageLayers[kind.first][kind.second].pricesAs(layer);
      });
      kindOf[stage].push_back(same - kinds.begin());
      if (same == kinds.end())
        kinds.push_back({unsigned(stage), unsigned(index)});
    }
  if (layers.empty())
    return;
  SmallVector<Operation *> before, after;
  for (Operation &op : *layers.front()->getBlock()) {
    if (isa<LayerOp>(op))
      continue;
    (op.isBeforeInBlock(layers.front()) ? before : after).push_back(&op);
  }
  prologue.emplace(before, model, axes, tokens, spAxes, this->microbatches);
  epilogue.emplace(after, model, axes, tokens, spAxes, this->microbatches);
}

void StageSliceCost::setDecompose(bool on) {
  for (std::vector<LayerSliceCost> &stage : stageLayers)
    for (LayerSliceCost &layer : stage)
      layer.setDecompose(on);
  if (prologue)
    prologue->setDecompose(on);
  if (epilogue)
    epilogue->setDecompose(on);
}

int64_t StageSliceCost::tasksPerRank(int64_t length) const {
  auto count = [&](const LayerSliceCost &layer) {
    int64_t tasks = 0;
    layer.forEachWork(length, 0,
                      [&](const SliceWork &work) { tasks += tasksOf(work); });
    return tasks;
  };
  SmallVector<std::optional<int64_t>, 4> counted(kinds.size());
  int64_t tasks = 0;
  for (const SmallVector<unsigned> &stage : kindOf)
    for (unsigned kind : stage) {
      if (!counted[kind]) {
        auto [s, index] = kinds[kind];
        counted[kind] = count(stageLayers[s][index]);
      }
      tasks += *counted[kind];
      // Weight-gathered: the buffer's allocation and release and the
      // gather's start and done.
      if (stageLayers[kinds[kind].first][kinds[kind].second]
              .getGatherBytes() > 0)
        tasks += 4;
    }
  if (prologue)
    tasks += count(*prologue);
  if (epilogue)
    tasks += count(*epilogue);
  return tasks;
}

bool StageSliceCost::hasDecomposable() const {
  for (const std::vector<LayerSliceCost> &stage : stageLayers)
    for (const LayerSliceCost &layer : stage)
      if (layer.hasDecomposable())
        return true;
  return (prologue && prologue->hasDecomposable()) ||
         (epilogue && epilogue->hasDecomposable());
}

bool StageSliceCost::supportsBatches() const {
  auto supports = [](const LayerSliceCost &cost) {
    return cost.supportsBatches() && cost.getGatherBytes() == 0;
  };
  for (const std::vector<LayerSliceCost> &stage : stageLayers)
    if (!llvm::all_of(stage, supports))
      return false;
  return (!prologue || supports(*prologue)) &&
         (!epilogue || supports(*epilogue));
}

double StageSliceCost::kvBytesPerToken() const {
  double bytes = 0;
  for (const std::vector<LayerSliceCost> &stage : stageLayers)
    for (const LayerSliceCost &layer : stage)
      bytes += layer.kvBytesPerToken();
  return bytes;
}

double StageSliceCost::batchSeconds(ArrayRef<SequenceSlice> sequences) const {
  SmallVector<std::optional<double>, 4> priced(kinds.size());
  double total = prologue ? prologue->batchSeconds(sequences) : 0;
  for (auto [stage, layers] : llvm::enumerate(kindOf))
    for (unsigned kind : layers) {
      if (!priced[kind]) {
        auto [s, index] = kinds[kind];
        priced[kind] = stageLayers[s][index].batchSeconds(sequences);
      }
      total += *priced[kind];
    }
  if (epilogue)
    total += epilogue->batchSeconds(sequences);
  return total;
}

double StageSliceCost::transferSeconds(int64_t stage, int64_t length) const {
  if (stage == 0)
    return hopLatency;
  return hopLatency + boundaryBytesInto(stage, length) / linkBandwidth;
}

double StageSliceCost::stageSeconds(int64_t stage, int64_t length,
                                    int64_t context) const {
  SmallVector<std::optional<double>, 4> priced(kinds.size());
  return stageSeconds(stage, length, context, priced);
}

double StageSliceCost::stageSeconds(
    int64_t stage, int64_t length, int64_t context,
    SmallVectorImpl<std::optional<double>> &priced) const {
  // Each kind of layer priced once; the sum still adds every layer in
  // order, so it is the same to the bit (the search's DPs price thousands
  // of slices per plan, each over every layer).
  double total = 0;
  bool gathered = false;
  for (unsigned kind : kindOf[stage]) {
    const LayerSliceCost &layer =
        stageLayers[kinds[kind].first][kinds[kind].second];
    if (!priced[kind])
      priced[kind] = layer.seconds(length, context);
    total += *priced[kind];
    gathered |= layer.getGatherBytes() > 0;
  }
  double before =
      stage == 0 && prologue ? prologue->seconds(length, context) : 0;
  // Weight-gathered: each layer's gather prefetched under the one before
  // (the lists made only then: a stage of many layers would allocate two
  // for each of the DP's thousands of slices).
  if (gathered) {
    SmallVector<double> compute, gather;
    for (unsigned kind : kindOf[stage]) {
      const LayerSliceCost &layer =
          stageLayers[kinds[kind].first][kinds[kind].second];
      compute.push_back(*priced[kind]);
      gather.push_back(layer.gatherSeconds());
    }
    total = weightGatheredSeconds(before, compute, gather);
  } else {
    total += before;
  }
  if (stage + 1 == getStages() && epilogue)
    total += epilogue->seconds(length, context);
  return total;
}

double StageSliceCost::tensorLinkShare(int64_t stage, int64_t length) const {
  double busy = 0;
  for (const LayerSliceCost &layer : stageLayers[stage])
    busy += layer.tensorLinkSeconds(length, 0);
  double total = stageSeconds(stage, length, 0);
  return total > 0 ? std::min(1.0, busy / total) : 0.0;
}

SmallVector<TaskTime> StageSliceCost::stageTasks(int64_t stage, int64_t length,
                                                int64_t context) const {
  SmallVector<TaskTime> times;
  if (stage == 0 && prologue)
    prologue->appendTimes(length, context, times);
  for (const LayerSliceCost &layer : stageLayers[stage])
    layer.appendTimes(length, context, times);
  if (stage + 1 == getStages() && epilogue)
    epilogue->appendTimes(length, context, times);
  return times;
}

double StageSliceCost::operator()(int64_t length, int64_t context) const {
  double slowest = 0;
  SmallVector<std::optional<double>, 4> priced(kinds.size());
  for (int64_t s = 0; s < getStages(); ++s)
    slowest = std::max(slowest, stageSeconds(s, length, context, priced));
  return slowest;
}

TrainingSliceCost::TrainingSliceCost(const TrainingView &view,
                                     const CostModel &model,
                                     ArrayRef<GroupAxis> axes, int64_t tokens,
                                     int64_t chunks, ArrayRef<GroupAxis> spAxes,
                                     int64_t microbatches)
    : uses(std::max<int64_t>(chunks, 1)) {
  int64_t last = int64_t(uses.size()) - 1;
  auto run = [&](int64_t chunk, ArrayRef<Operation *> ops) {
    if (!ops.empty())
      add(chunk, LayerSliceCost(ops, model, axes, tokens, spAxes,
                                microbatches));
  };
  std::map<int64_t, int64_t> chunkOf;
  for (size_t i = 0; i < view.layers.size(); ++i) {
    LayerOp layer = view.layers[i];
    int64_t chunk = std::min<int64_t>(layer.getStage().value_or(0), last);
    chunkOf[layer.getIndex()] = chunk;
    add(chunk,
        LayerSliceCost(layer, model, axes, tokens, spAxes, microbatches));
    run(chunk, view.afterLayer[i]);
  }
  for (size_t i = 0; i < view.layerGrads.size(); ++i) {
    LayerGradOp grad = view.layerGrads[i];
    SmallVector<Operation *> ops;
    for (Operation &op : grad.getBody().front().without_terminator())
      if (!op.hasAttr(kKeptAttrName))
        ops.push_back(&op);
    int64_t chunk = chunkOf.count(grad.getIndex()) ? chunkOf[grad.getIndex()]
                                                   : 0;
    run(chunk, ops);
    run(chunk, view.afterLayerGrad[i]);
  }
  run(0, view.forwardPrologue);
  run(0, view.backwardPrologue);
  run(last, view.forwardEpilogue);
  run(last, view.backwardEpilogue);
}

void TrainingSliceCost::add(int64_t chunk, LayerSliceCost cost) {
  auto same = llvm::find_if(
      kinds, [&](const LayerSliceCost &kind) { return kind.pricesAs(cost); });
  unsigned kind = same - kinds.begin();
  if (same == kinds.end())
    kinds.push_back(std::move(cost));
  auto &counts = uses[chunk];
  auto it = llvm::find_if(counts, [&](auto use) { return use.first == kind; });
  if (it == counts.end())
    counts.push_back({kind, 1});
  else
    ++it->second;
}

double TrainingSliceCost::operator()(int64_t length, int64_t context) const {
  SmallVector<double> seconds;
  for (const LayerSliceCost &kind : kinds)
    seconds.push_back(kind.seconds(length, context));
  double slowest = 0;
  for (const auto &counts : uses) {
    double chunk = 0;
    for (auto [kind, count] : counts)
      chunk += double(count) * seconds[kind];
    slowest = std::max(slowest, chunk);
  }
  return slowest;
}
