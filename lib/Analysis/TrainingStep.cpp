//===- TrainingStep.cpp - a training step as the lowering reads it --------===//

#include "loom/Analysis/TrainingStep.h"

#include "loom/Dialect/Loom/KeptValues.h"

#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace loom;

OptimizerUpdateOp TrainingView::updateOf(std::optional<int64_t> index) const {
  for (OptimizerUpdateOp update : updates)
    if (update.getLayer() == index)
      return update;
  return {};
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

TrainingMemory loom::trainingMemory(const TrainingView &view,
                                    const ZeroSplit &split,
                                    int64_t microbatches, int64_t inFlight) {
  TrainingMemory memory;
  double gathered = 0, bucket = 0, outside = 0;
  for (OptimizerUpdateOp update : view.updates) {
    memory.states += modelStateBytes(update, split);
    // The whole layer's weights or gradients, as a collective's buffer.
    ModelStateBytes whole = modelStateBytes(update, {});
    if (update.getLayer()) {
      gathered = std::max(gathered, whole.weights);
      bucket = std::max(bucket, whole.gradients);
    } else {
      outside = whole.weights;
    }
  }
  double share = 1.0 / double(microbatches);
  double kept = keptOutsideLayers(view);
  for (LayerGradOp layer : view.layerGrads) {
    kept += double(layer.getKeptBytes());
    memory.recompute =
        std::max(memory.recompute, recomputedBytes(layer) * share);
  }
  memory.activations = kept * share * double(inFlight);
  // FSDP holds the parameters outside the layers gathered through each
  // microbatch, and two layers' (one running, the next prefetched).
  if (split.stage >= 3)
    memory.buffers += outside + 2 * gathered;
  // Under ZeRO-2 and 3 a layer's whole gradients wait in a bucket until
  // reduce-scattered, which runs under the next layer's backward pass while
  // that layer fills a bucket of its own: two at most.
  if (split.stage >= 2)
    memory.buffers += 2 * bucket;
  return memory;
}
