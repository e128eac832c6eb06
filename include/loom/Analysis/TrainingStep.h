//===- TrainingStep.h - a training step as the lowering reads it -*- C++ -*-===//
//
// A model function after loom-derive-training-step, in the parts that run
// one after another: the forward pass (the ops before the layers, the
// layers, the ops after them through the loss), the backward pass (the
// gradients of the ops after the layers, one loom.layer_grad per layer in
// reverse, the gradients of the ops before them) and the optimizer's
// updates. And what one chip keeps in HBM for it, item by item, with the
// model states split by ZeRO (Rajbhandari et al., SC 2020) as
// #loom.parallel's fsdp and zero say.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_ANALYSIS_TRAININGSTEP_H
#define LOOM_ANALYSIS_TRAININGSTEP_H

#include "loom/Dialect/Loom/LoomOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

namespace loom {

/// The parts of a training step's model function, in program order.
struct TrainingView {
  mlir::func::FuncOp func;
  /// The forward pass: the ops before the first layer, the layers, and
  /// the ops after the last layer up to and including the loss.
  llvm::SmallVector<mlir::Operation *> forwardPrologue;
  llvm::SmallVector<LayerOp> layers;
  llvm::SmallVector<mlir::Operation *> forwardEpilogue;
  /// The backward pass: the gradients of the forward epilogue's ops, the
  /// layers' backward passes (last layer first), then the gradients of
  /// the forward prologue's ops.
  llvm::SmallVector<mlir::Operation *> backwardEpilogue;
  llvm::SmallVector<LayerGradOp> layerGrads;
  llvm::SmallVector<mlir::Operation *> backwardPrologue;
  /// The ops between one layer (or layer_grad) and the next, by the
  /// position of the one before them: a DiT's conditioning is read by every
  /// layer, so the backward pass sums its cotangents between the
  /// layer_grads.
  llvm::SmallVector<llvm::SmallVector<mlir::Operation *>> afterLayer,
      afterLayerGrad;
  /// One per layer (by its `layer`) and one for the parameters outside the
  /// layers (without).
  llvm::SmallVector<OptimizerUpdateOp> updates;

  /// The update of layer `index`'s parameters, or (nullopt) of those
  /// outside the layers; null when there is none.
  OptimizerUpdateOp updateOf(std::optional<int64_t> index) const;
  /// Bytes of one parameter's weights or gradient in the group of layer
  /// `index` (or outside the layers).
  double bytesPerParameter(std::optional<int64_t> index, bool weights) const;
  /// The bytes of gradients of experts' weights `grad` makes
  /// (ParameterUse::expertGradient).
  double expertGradientBytes(LayerGradOp grad) const;
};

/// Whether `func` holds a training step (a loom.layer_grad or a
/// loom.optimizer_update).
bool isTrainingStep(mlir::func::FuncOp func);

/// The parts of `func`, a training step. Emits an error naming `passName`
/// at the op out of place when the function is not in the order
/// loom-derive-training-step builds.
mlir::FailureOr<TrainingView> getTrainingView(mlir::func::FuncOp func,
                                              llvm::StringRef passName);

/// How the data-parallel replicas split the model states (#loom.parallel's
/// fsdp and zero): which of them each chip holds 1/fsdp of.
struct ZeroSplit {
  int64_t fsdp = 1;
  int64_t stage = 0;
  double weightsShare() const { return stage >= 3 ? 1.0 / fsdp : 1.0; }
  double gradientsShare() const { return stage >= 2 ? 1.0 / fsdp : 1.0; }
  double statesShare() const { return stage >= 1 ? 1.0 / fsdp : 1.0; }
};
ZeroSplit getZeroSplit(mlir::ModuleOp module);

/// The model states of one optimizer update's parameters on one chip:
/// the compute copy of the weights, the gradients, and the optimizer's
/// state with the master copy of the weights. Mixed-precision AdamW is
/// 2 + 2 + 12 bytes per parameter (Rajbhandari et al., section 3.1), so
/// with ZeRO over N replicas: 16 psi at stage 0, 4 psi + 12 psi / N at 1,
/// 2 psi + 14 psi / N at 2, 16 psi / N at 3 (their figure 1).
struct ModelStateBytes {
  double weights = 0, gradients = 0, optimizerState = 0;
  double total() const { return weights + gradients + optimizerState; }
  ModelStateBytes &operator+=(const ModelStateBytes &other);
};
ModelStateBytes modelStateBytes(OptimizerUpdateOp update,
                                const ZeroSplit &split);

/// What one op of a training step does with the model's parameters
/// (elements, whole): a forward op, run or recomputed, and a gradient's
/// input part (dX = dY W^T) read the op's weights; a gradient's weight part
/// makes their gradient. A tied projection reads, and makes a gradient of,
/// the table it shares. Under FSDP (ZeRO-3) each read is all-gathered just
/// before the op; under ZeRO-2 and 3 each gradient is reduce-scattered
/// just after it.
///
/// Of the gradient, `expertGradient` is that of experts' weights: under an
/// expert group of its own (ep beside tp) each of its chips holds other
/// experts, and a gradient made there is whole, where every other
/// parameter is replicated over that group as over a sequence-parallel
/// one and its gradients are reduced over it too.
struct ParameterUse {
  int64_t read = 0, gradient = 0, expertGradient = 0;
  ParameterUse &operator+=(const ParameterUse &other) {
    read += other.read;
    gradient += other.gradient;
    expertGradient += other.expertGradient;
    return *this;
  }
};
ParameterUse getParameterUse(mlir::Operation *op);

/// Whether `op` is a weight gradient (`loom.grad weight`): the W of a
/// schedule that runs a backward pass's input gradients (B) and weight
/// gradients apart.
bool isWeightGradient(mlir::Operation *op);

/// What FSDP's gathered buffers hold at most (bytes): the two largest
/// weights any op of the step reads. The lowering starts a read's gather as
/// early as the buffers from the read running up to it fit this, and at
/// least one read ahead.
double fsdpGatherBudget(const TrainingView &view);

/// What one chip of a training step holds at its peak, item by item
/// (bytes), walking the step in the order the lowering runs it
/// (convert-loom-to-sched) and holding what the lowering allocates:
/// - the model states, all step;
/// - per microbatch, each layer's kept activations from its forward pass to
///   the end of its backward pass, and those the ops outside the layers
///   keep through the microbatch;
/// - a layer's recomputed values through its backward pass;
/// - under FSDP, the gathered copies of the weights of the op running and
///   of the next ops that read weights whose gathers have started (the
///   lowering prefetches as far ahead as fsdpGatherBudget allows);
/// - under ZeRO-2 and 3, the whole gradients of the last two ops of the
///   microbatch that made gradients (one filling, the other's
///   reduce-scatter in flight: the lowering frees a bucket when its
///   reduce-scatter is done, fills a third only once the first is freed,
///   and starts the next microbatch once the last two are).
/// The peak is an upper bound of the lowered step's, which it reaches but
/// for what the schedule's timing frees early or allocates late (a bucket
/// whose reduce-scatter ends early, a gather still waiting for the one
/// before it).
struct TrainingMemory {
  ModelStateBytes states;
  /// Kept from the forward pass for the backward pass at the peak, per
  /// microbatch in flight; with activation offload, the offloaded values
  /// staged in HBM on their way to and from the host too.
  double activations = 0;
  /// Values recomputed (and held) by the backward pass at the peak.
  double recompute = 0;
  /// Collective buffers at the peak: FSDP's gathered weights and the
  /// gradient buckets.
  double buffers = 0;
  double total() const {
    return states.total() + activations + recompute + buffers;
  }
  /// Held in host memory, not HBM (not in total()): the offloaded values
  /// of every layer of the microbatches in flight.
  double host = 0;
};

/// The memory of `view`'s step on one chip, with `microbatches`
/// microbatches per step (each keeps 1/microbatches of the function's
/// batch) of which `inFlight` are between their forward and backward
/// passes at once (1 without a pipeline; with token slices, a fraction:
/// each slice holds its share). With a schedule that runs a
/// backward pass's input gradients (B) and weight gradients (W) apart,
/// `awaitingWeights` microbatches at most have run their B and not their
/// W (the one running counted): each holds the recomputed values of all
/// its layers until its W.
TrainingMemory trainingMemory(const TrainingView &view, const ZeroSplit &split,
                              int64_t microbatches, double inFlight = 1,
                              double awaitingWeights = 0);

/// The part of `view` that pipeline stage `stage` of `stages` runs: the
/// layers whose `stage` (their chunk) is `stage` mod `stages`, with the
/// ops between them, the ops before the layers (and their gradients) on
/// the first stage, those after them on the last. Its `updates` are its
/// layers' and the one of the parameters outside the layers, whose states
/// the first and last stages share (outsideShare).
TrainingView stageView(const TrainingView &view, int64_t stage,
                       int64_t stages);

/// The share of the parameters outside the layers that stage `stage` of
/// `stages` holds and updates: the first stage those the ops before the
/// layers read (the embedding), the last the rest (1 on one stage).
double outsideShare(const TrainingView &view, int64_t stage, int64_t stages);

/// What one chip of pipeline stage `stage` holds at its peak, its
/// microbatches in flight those of `pipeline`'s schedule on that stage
/// (runSchedule's peakInFlight: from a microbatch's forward pass to its
/// weight gradients; with virtual stages, counted in chunks, each as if it
/// kept all the stage's layers: an upper bound).
TrainingMemory stageTrainingMemory(const TrainingView &view,
                                   const ZeroSplit &split,
                                   PipelineAttr pipeline, int64_t stage);

/// Bytes the forward ops in `ops` (outside the layers) keep for their
/// gradients in `grads`: each forward value a gradient part reads, once.
double keptOutsideLayers(llvm::ArrayRef<mlir::Operation *> grads);

/// Bytes the forward ops outside the layers of `view` keep for the backward
/// pass (keptOutsideLayers of every backward op outside the layer_grads).
double keptOutsideLayers(const TrainingView &view);

/// Bytes a layer's backward pass holds of values it recomputes: the
/// results of its ops marked loom.recompute.
double recomputedBytes(LayerGradOp layer);

} // namespace loom

#endif // LOOM_ANALYSIS_TRAININGSTEP_H
