//===- TrainingStep.cpp - a training step as the lowering reads it --------===//

#include "loom/Analysis/TrainingStep.h"

#include "loom/Analysis/TrainingSchedule.h"

#include "loom/Dialect/Loom/KeptValues.h"
#include "loom/Dialect/Loom/LoomAttributes.h"

#include "llvm/ADT/SetVector.h"

#include <map>

using namespace mlir;
using namespace loom;

OptimizerUpdateOp TrainingView::updateOf(std::optional<int64_t> index) const {
  for (OptimizerUpdateOp update : updates)
    if (update.getLayer() == index)
      return update;
  return {};
}

double TrainingView::bytesPerParameter(std::optional<int64_t> index,
                                       bool weights) const {
  OptimizerUpdateOp update = updateOf(index);
  if (!update)
    update = updates.front();
  return double(getElementBytes(weights ? update.getWeightType()
                                        : update.getGradType()));
}

double TrainingView::expertGradientBytes(LayerGradOp grad) const {
  int64_t elements = 0;
  grad.walk(
      [&](GradOp op) { elements += getParameterUse(op).expertGradient; });
  return double(elements) * bytesPerParameter(grad.getIndex(), false);
}

bool loom::isTrainingStep(func::FuncOp func) {
  for (Operation &op : func.getBody().front())
    if (isa<LayerGradOp, OptimizerUpdateOp>(op))
      return true;
  return false;
}

FailureOr<TrainingView> loom::getTrainingView(func::FuncOp func,
                                              StringRef passName) {
  TrainingView view;
  view.func = func;
  // The parts in the order loom-derive-training-step builds them.
  enum class Part {
    ForwardPrologue,
    Layers,
    ForwardEpilogue,
    BackwardEpilogue,
    LayerGrads,
    BackwardPrologue,
    Updates
  };
  Part part = Part::ForwardPrologue;
  auto outOfPlace = [&](Operation &op) {
    return op.emitError() << passName
                          << ": this op is out of the order of a training "
                             "step (forward ops, the loss, the backward ops, "
                             "the optimizer's updates; as "
                             "loom-derive-training-step builds it)";
  };
  bool sawLoss = false;
  // Ops after a layer (a layer_grad) go to the epilogue (the backward
  // prologue), and move between it and the next when one follows.
  for (Operation &op : func.getBody().front()) {
    if (op.hasTrait<OpTrait::IsTerminator>())
      continue;
    Part next = part;
    if (isa<LayerOp>(op))
      next = Part::Layers;
    else if (isa<LayerGradOp>(op))
      next = Part::LayerGrads;
    else if (isa<OptimizerUpdateOp>(op))
      next = Part::Updates;
    else if (part == Part::Layers)
      next = Part::ForwardEpilogue;
    else if (part == Part::ForwardEpilogue && sawLoss)
      next = Part::BackwardEpilogue;
    else if (part == Part::LayerGrads)
      next = Part::BackwardPrologue;
    if (next == Part::Layers && part == Part::ForwardEpilogue && !sawLoss &&
        !view.layers.empty()) {
      // Ops between two layers.
      view.afterLayer.back().append(view.forwardEpilogue);
      view.forwardEpilogue.clear();
      part = Part::Layers;
    }
    if (next == Part::LayerGrads && part == Part::BackwardPrologue &&
        !view.layerGrads.empty()) {
      view.afterLayerGrad.back().append(view.backwardPrologue);
      view.backwardPrologue.clear();
      part = Part::LayerGrads;
    }
    if (next < part)
      return outOfPlace(op);
    // The loss ends the forward pass.
    if (isa<LossOp>(op)) {
      if (sawLoss || next > Part::ForwardEpilogue)
        return outOfPlace(op);
      sawLoss = true;
      next = Part::ForwardEpilogue;
    }
    part = next;
    switch (part) {
    case Part::ForwardPrologue:
      view.forwardPrologue.push_back(&op);
      break;
    case Part::Layers:
      view.layers.push_back(cast<LayerOp>(op));
      view.afterLayer.emplace_back();
      break;
    case Part::ForwardEpilogue:
      view.forwardEpilogue.push_back(&op);
      break;
    case Part::BackwardEpilogue:
      view.backwardEpilogue.push_back(&op);
      break;
    case Part::LayerGrads:
      view.layerGrads.push_back(cast<LayerGradOp>(op));
      view.afterLayerGrad.emplace_back();
      break;
    case Part::BackwardPrologue:
      view.backwardPrologue.push_back(&op);
      break;
    case Part::Updates:
      view.updates.push_back(cast<OptimizerUpdateOp>(op));
      break;
    }
  }
  if (!sawLoss || view.updates.empty() || view.layers.empty())
    return func.emitError()
           << passName
           << ": not a training step with layers: derive one with "
              "loom-derive-training-step from a forward graph";
  // One backward pass per layer, last layer first.
  bool paired = view.layerGrads.size() == view.layers.size();
  for (size_t i = 0; paired && i < view.layers.size(); ++i)
    paired = view.layerGrads[i].getIndex() ==
             view.layers[view.layers.size() - 1 - i].getIndex();
  if (!paired)
    return func.emitError()
           << passName
           << ": a training step has one loom.layer_grad per loom.layer, "
              "in reverse order of the layers (as "
              "loom-derive-training-step builds them); this one has "
           << view.layerGrads.size() << " for " << view.layers.size()
           << " layers, or another order";
  return view;
}

ZeroSplit loom::getZeroSplit(ModuleOp module) {
  ParallelAttr parallel = getParallelOrDefault(module);
  return {parallel.getFsdp(), parallel.getZero()};
}

ModelStateBytes &ModelStateBytes::operator+=(const ModelStateBytes &other) {
  weights += other.weights;
  gradients += other.gradients;
  optimizerState += other.optimizerState;
  return *this;
}

ModelStateBytes loom::modelStateBytes(OptimizerUpdateOp update,
                                      const ZeroSplit &split) {
  double parameters = double(update.getParameters());
  double state = double(update.getStateElements()) *
                 getElementBytes(update.getStateType());
  if (std::optional<Type> master = update.getMasterType())
    state += parameters * getElementBytes(*master);
  ModelStateBytes bytes;
  bytes.weights =
      parameters * getElementBytes(update.getWeightType()) * split.weightsShare();
  bytes.gradients =
      parameters * getElementBytes(update.getGradType()) * split.gradientsShare();
  bytes.optimizerState = state * split.statesShare();
  return bytes;
}

double loom::keptOutsideLayers(ArrayRef<Operation *> grads) {
  llvm::SetVector<Value> kept;
  double internal = 0;
  for (Operation *op : grads)
    if (auto grad = dyn_cast<GradOp>(op))
      internal += double(forEachForwardValueRead(
          grad, [&](Value value) { kept.insert(value); }));
  double bytes = internal;
  for (Value value : kept)
    bytes += getTensorBytes(value.getType());
  return bytes;
}

double loom::keptOutsideLayers(const TrainingView &view) {
  double kept = keptOutsideLayers(view.backwardEpilogue) +
                keptOutsideLayers(view.backwardPrologue);
  for (ArrayRef<Operation *> between : view.afterLayerGrad)
    kept += keptOutsideLayers(between);
  return kept;
}

double loom::recomputedBytes(LayerGradOp layer) {
  double bytes = 0;
  for (Operation &op : layer.getBody().front())
    if (op.hasAttr(kRecomputeAttrName))
      bytes += getTensorBytes(op.getResultTypes());
  return bytes;
}

/// The parameters `op` holds, or a tied projection multiplies by.
static int64_t parametersOf(Operation *op) {
  if (auto linear = dyn_cast<LinearOp>(op); linear && linear.getTied())
    return (Count(linear.getInFeatures()) * linear.getOutFeatures()).get();
  auto cost = dyn_cast<CostOpInterface>(op);
  return cost ? cost.getParameterCount() : 0;
}

bool loom::isWeightGradient(Operation *op) {
  auto grad = dyn_cast<GradOp>(op);
  return grad && grad.getPart() == GradientPart::Weight;
}

ParameterUse loom::getParameterUse(Operation *op) {
  ParameterUse use;
  if (auto grad = dyn_cast<GradOp>(op)) {
    Operation *forward = grad.getForward().getDefiningOp();
    if (!forward)
      return use;
    (grad.getPart() == GradientPart::Input ? use.read : use.gradient) =
        parametersOf(forward);
    if (isa<MoEExpertsOp>(forward))
      use.expertGradient = use.gradient;
    return use;
  }
  if (isa<LayerOp, LayerGradOp, OptimizerUpdateOp>(op))
    return use;
  use.read = parametersOf(op);
  return use;
}

namespace {

/// Walks a training step in the order the lowering runs it, holding what
/// the lowering allocates (TrainingMemory says what), and keeps the items
/// at the largest total.
class MemoryWalk {
public:
  MemoryWalk(const TrainingView &view, const ZeroSplit &split,
             int64_t microbatches, double inFlight, double awaitingWeights)
      : view(view), split(split), microbatches(microbatches),
        share(1.0 / double(microbatches)), inFlight(inFlight),
        awaitingWeights(awaitingWeights) {
    for (OptimizerUpdateOp update : view.updates)
      peak.states += modelStateBytes(update, split);
  }

  TrainingMemory run() {
    if (split.stage >= 3)
      planGathers();
    best = -1;
    forEachOp([&](Operation *op, std::optional<int64_t> group) {
      visit(op, group);
    });
    return peak;
  }

  /// The two largest weights any op reads (bytes).
  double gatherBudget() {
    collectReads();
    double first = 0, second = 0;
    for (double read : reads) {
      if (read > first)
        std::swap(first, read);
      second = std::max(second, read);
    }
    return first + second;
  }

private:
  /// Calls `fn(op, group)` on each op the step runs, in order, and moves
  /// the activations' allocations between them as the lowering does
  /// (`group`: the layer whose parameters the op uses, none outside).
  template <typename Fn>
  void forEachOp(Fn fn) {
    // What each layer keeps in HBM, and in host memory (staged in HBM
    // while the layer makes it and its copy to the host runs under the
    // next layer, and from its copy back, issued as the layer after it in
    // the backward pass starts, to the end of its own backward pass).
    std::map<int64_t, double> keptOf, offloadedOf;
    double hostHeld = 0;
    for (LayerGradOp grad : view.layerGrads) {
      double offloaded =
          double(grad.getOffloadedBytes()) * share * inFlight;
      keptOf[grad.getIndex()] =
          double(grad.getKeptBytes()) * share * inFlight - offloaded;
      offloadedOf[grad.getIndex()] = offloaded;
      hostHeld += offloaded;
    }
    peak.host = hostHeld;
    // The layers' indices in forward and in backward order.
    SmallVector<int64_t> forward, backward;
    for (LayerOp layer : view.layers)
      forward.push_back(layer.getIndex());
    for (LayerGradOp grad : view.layerGrads)
      backward.push_back(grad.getIndex());
    // Offloaded bytes of order[i] and of order[i + step] when there is one.
    auto offloadedAt = [&](ArrayRef<int64_t> order, size_t i, int step) {
      double bytes = offloadedOf[order[i]];
      size_t other = i + step;
      if (other < order.size())
        bytes += offloadedOf[order[other]];
      return bytes;
    };
    double outside = keptOutsideLayers(view) * share * inFlight;
    auto runs = [&](ArrayRef<Operation *> ops, std::optional<int64_t> group) {
      for (Operation *op : ops)
        fn(op, group);
    };
    // With B and W apart, the other microbatches awaiting their W hold
    // all their layers' recomputed values, the running one its layers' so
    // far.
    double allRecomputed = 0;
    if (awaitingWeights > 0)
      for (LayerGradOp grad : view.layerGrads)
        allRecomputed += recomputedBytes(grad) * share;
    // Every microbatch runs alike: the first (the step's start), a middle
    // one (a gather ahead into the next, behind into the one before) and
    // the last (nothing ahead) hold what any of them holds.
    for (int64_t mb = 0; mb < std::min<int64_t>(microbatches, 3); ++mb) {
      kept = outside;
      runs(view.forwardPrologue, std::nullopt);
      for (size_t i = 0; i < view.layers.size(); ++i) {
        LayerOp layer = view.layers[i];
        kept += keptOf[layer.getIndex()];
        staged = offloadedAt(forward, i, -1);
        for (Operation &op : layer.getBody().front().without_terminator())
          fn(&op, int64_t(layer.getIndex()));
        runs(view.afterLayer[i], std::nullopt);
      }
      // The last layer's copy to the host and the first backward layer's
      // copy back run under the loss.
      staged = 0;
      if (!forward.empty() && !backward.empty())
        staged = offloadedOf[forward.back()] + offloadedOf[backward.front()];
      runs(view.forwardEpilogue, std::nullopt);
      runs(view.backwardEpilogue, std::nullopt);
      double held =
          std::max(awaitingWeights - 1, 0.0) * allRecomputed;
      for (size_t i = 0; i < view.layerGrads.size(); ++i) {
        LayerGradOp grad = view.layerGrads[i];
        double own = recomputedBytes(grad) * share;
        recomputed = held + own;
        if (awaitingWeights > 0)
          held += own;
        staged = offloadedAt(backward, i, 1);
        for (Operation &op : grad.getBody().front().without_terminator())
          if (!op.hasAttr(kKeptAttrName))
            fn(&op, int64_t(grad.getIndex()));
        runs(view.afterLayerGrad[i], std::nullopt);
        recomputed = staged = 0;
        kept -= keptOf[grad.getIndex()];
      }
      runs(view.backwardPrologue, std::nullopt);
      // The lowering runs the next microbatch once these reduce-scatters
      // are done.
      kept = bucket = previousBucket = 0;
    }
  }

  /// Bytes of one parameter's weights or gradient in `group`.
  double bytesPer(std::optional<int64_t> group, bool weights) const {
    OptimizerUpdateOp update = view.updateOf(group);
    if (!update)
      update = view.updates.front();
    return double(getElementBytes(weights ? update.getWeightType()
                                          : update.getGradType()));
  }

  /// Every weight read, in order.
  void collectReads() {
    reads.clear();
    forEachOp([&](Operation *op, std::optional<int64_t> group) {
      if (int64_t read = getParameterUse(op).read)
        reads.push_back(double(read) * bytesPer(group, /*weights=*/true));
    });
  }

  /// When each read's gather starts, as the lowering starts it (at the
  /// start of the earliest read from which the buffers up to it fit the
  /// budget, one read ahead at least): `lastStarted[k]`, the last read
  /// whose gather has started while read k runs.
  void planGathers() {
    double budget = gatherBudget();
    sums.assign(reads.size() + 1, 0);
    for (size_t j = 0; j < reads.size(); ++j)
      sums[j + 1] = sums[j] + reads[j];
    lastStarted.assign(reads.size(), 0);
    size_t from = 0;
    for (size_t j = 0; j < reads.size(); ++j) {
      while (from + 1 < j && sums[j + 1] - sums[from] > budget)
        ++from;
      // Read j's gather starts as read `from` does (the first read's with
      // the first read).
      size_t at = j == 0 ? 0 : std::min(from, j - 1);
      for (size_t k = at; k <= j; ++k)
        lastStarted[k] = std::max(lastStarted[k], j);
    }
  }
  /// Bytes of the gathered buffers of reads `from` to `to`.
  double gatheredBetween(size_t from, size_t to) const {
    return from > to ? 0 : sums[to + 1] - sums[from];
  }

  /// What is held while `op` runs.
  void visit(Operation *op, std::optional<int64_t> group) {
    ParameterUse use = getParameterUse(op);
    double gathered = 0;
    if (split.stage >= 3) {
      // The op's gathered weights and the next reads' whose gathers have
      // started; between two reads, those after the last.
      if (use.read > 0) {
        gathered = gatheredBetween(nextRead, lastStarted[nextRead]);
        ++nextRead;
      } else if (nextRead > 0 && nextRead < reads.size()) {
        gathered = gatheredBetween(nextRead, lastStarted[nextRead - 1]);
      }
    }
    if (split.stage >= 2 && use.gradient > 0) {
      // A third bucket waits for the first's reduce-scatter.
      previousBucket = bucket;
      bucket = double(use.gradient) * bytesPer(group, /*weights=*/false);
    }
    double buffers = gathered + bucket + previousBucket;
    double total = kept + staged + recomputed + buffers;
    if (total > best) {
      best = total;
      peak.activations = kept + staged;
      peak.recompute = recomputed;
      peak.buffers = buffers;
    }
  }

  const TrainingView &view;
  ZeroSplit split;
  int64_t microbatches;
  double share, inFlight, awaitingWeights;
  /// Held at the op being visited.
  double kept = 0, staged = 0, recomputed = 0, bucket = 0,
         previousBucket = 0;
  std::vector<double> reads, sums;
  std::vector<size_t> lastStarted;
  size_t nextRead = 0;
  double best = -1;
  TrainingMemory peak;
};

} // namespace

double loom::fsdpGatherBudget(const TrainingView &view) {
  return MemoryWalk(view, ZeroSplit{1, 3}, 1, 1, 0).gatherBudget();
}

TrainingView loom::stageView(const TrainingView &view, int64_t stage,
                              int64_t stages) {
  TrainingView part;
  part.func = view.func;
  auto onStage = [&](int64_t index) {
    for (LayerOp layer : view.layers)
      if (int64_t(layer.getIndex()) == index)
        return int64_t(layer.getStage().value_or(0)) % stages == stage;
    return false;
  };
  if (stage == 0) {
    part.forwardPrologue = view.forwardPrologue;
    part.backwardPrologue = view.backwardPrologue;
  }
  if (stage + 1 == stages) {
    part.forwardEpilogue = view.forwardEpilogue;
    part.backwardEpilogue = view.backwardEpilogue;
  }
  for (size_t i = 0; i < view.layers.size(); ++i)
    if (LayerOp layer = view.layers[i]; onStage(layer.getIndex())) {
      part.layers.push_back(layer);
      part.afterLayer.push_back(view.afterLayer[i]);
    }
  for (size_t i = 0; i < view.layerGrads.size(); ++i)
    if (LayerGradOp grad = view.layerGrads[i]; onStage(grad.getIndex())) {
      part.layerGrads.push_back(grad);
      part.afterLayerGrad.push_back(view.afterLayerGrad[i]);
    }
  for (OptimizerUpdateOp update : view.updates)
    if (std::optional<int64_t> layer = update.getLayer();
        !layer || onStage(*layer))
      part.updates.push_back(update);
  return part;
}

double loom::outsideShare(const TrainingView &view, int64_t stage,
                          int64_t stages) {
  if (stages <= 1)
    return 1.0;
  double first = 0, last = 0;
  for (Operation *op : view.forwardPrologue)
    first += double(getParameterUse(op).read);
  for (Operation *op : view.forwardEpilogue)
    last += double(getParameterUse(op).read);
  double firstShare = first + last > 0 ? first / (first + last) : 0.5;
  return stage == 0 ? firstShare : stage + 1 == stages ? 1.0 - firstShare : 0.0;
}

TrainingMemory loom::stageTrainingMemory(const TrainingView &view,
                                         const ZeroSplit &split,
                                         PipelineAttr pipeline, int64_t stage) {
  int64_t stages = pipeline.getStages(), m = pipeline.getMicrobatches();
  // The microbatches in flight: the schedule's order (all of them when it
  // cannot run this plan, which the lowering refuses), with token slices
  // each slice's share of one.
  double inFlight = double(m * pipeline.getVirtualStages()),
         awaitingWeights = 0;
  if (llvm::Expected<StageOrders> orders =
          scheduleOrder(pipeline.getSchedule(), stages, m,
                        pipeline.getVirtualStages())) {
    ArrayRef<int64_t> slices = pipeline.getSlices();
    int64_t k = std::max<int64_t>(slices.size(), 1);
    double tokens = double(pipeline.getTokens());
    LiveShares live = liveShares(sliceOrders(*orders, k), [&](int64_t unit) {
      return k == 1 ? 1.0 : double(slices[unit % k]) / tokens;
    })[stage];
    inFlight = live.inFlight;
    awaitingWeights = live.awaitingWeights;
  } else {
    llvm::consumeError(orders.takeError());
  }
  TrainingView part = stageView(view, stage, stages);
  TrainingMemory memory =
      trainingMemory(part, split, m, inFlight, awaitingWeights);
  // The model states: the stage's layers' and its share of the rest.
  memory.states = ModelStateBytes();
  double share = outsideShare(view, stage, stages);
  for (OptimizerUpdateOp update : part.updates) {
    ModelStateBytes bytes = modelStateBytes(update, split);
    if (!update.getLayer()) {
      bytes.weights *= share;
      bytes.gradients *= share;
      bytes.optimizerState *= share;
    }
    memory.states += bytes;
  }
  return memory;
}

TrainingMemory loom::trainingMemory(const TrainingView &view,
                                    const ZeroSplit &split,
                                    int64_t microbatches, double inFlight,
                                    double awaitingWeights) {
  return MemoryWalk(view, split, std::max<int64_t>(microbatches, 1), inFlight,
                    awaitingWeights)
      .run();
}
