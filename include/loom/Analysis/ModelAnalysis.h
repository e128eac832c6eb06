//===- ModelAnalysis.h - a planned module as the passes read it -*- C++ -*-===//
//
// What every planning pass, the lowering and the planner read of a module:
// its target (the figures #loom.target carries, as a TargetDesc and a
// CostModel), its model function (the layers in order, the ops before and
// after them) and its parallel layout. An MLIR analysis: a pass fetches it
// with getAnalysis<ModelAnalysis>(), and read-only passes preserve it, so a
// pipeline builds it once per change of the IR rather than once per pass.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_ANALYSIS_MODELANALYSIS_H
#define LOOM_ANALYSIS_MODELANALYSIS_H

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Hardware/CostModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <optional>

namespace loom {

/// HBM a layer pins on its chip, by kind.
struct LayerFootprint {
  double weights = 0;
  /// Causal attention's KV cache of the whole sequence, or with PipeFusion
  /// (`staleKV`) the previous step's K/V of every token that a stage keeps
  /// to attend to stale patches.
  double kvCache = 0;
  /// All intermediate results of one pass through the layer at the full
  /// sequence: an upper bound of its live activations.
  double workingSet = 0;
  /// Weight-gathered (loom.gather_weights): the whole layer's weights, the
  /// buffer they are gathered into before it runs (`weights` is then the
  /// chip's stored 1/N of them). 0 otherwise.
  double gathered = 0;
};

/// `layer`'s footprint; with `staleKV`, a denoising step cut into more
/// than one PipeFusion patch, which keeps the previous step's K/V of every
/// full attention (Wang et al., "PipeFusion", 2024: a patch attends to the
/// other patches' K/V of the step before). A step of one patch computes
/// all of them fresh and keeps none.
LayerFootprint layerFootprint(LayerOp layer, bool staleKV);

/// A model function as the planner passes see it.
struct ModelView {
  mlir::func::FuncOp func;
  llvm::SmallVector<LayerOp> layers;
  /// The ops before the first layer and after the last: their weights and
  /// estimated seconds.
  double prologueWeights = 0, epilogueWeights = 0;
  double prologueSeconds = 0, epilogueSeconds = 0;
  /// A diffusion model (PipeFusion patches) rather than a causal decoder.
  bool diffusion = false;
  int64_t tp = 1;
  /// The group beside tp: Ulysses sequence parallelism (loom-shard-sequence),
  /// sp chips sharing each tensor-parallel rank, or (expertGroup) the
  /// expert-parallel group of its own (loom-shard-experts data), ep chips
  /// splitting the batch. A stage occupies tp x sp chips.
  int64_t sp = 1;
  bool expertGroup = false;
  /// A 2-D tensor-parallel group's rows (#loom.parallel's tp_x; 1: 1-D).
  int64_t tpX = 1;
  /// Chips of the tp group splitting each KV head's cache by batch
  /// (#loom.parallel's kv_batch; group "kv").
  int64_t kvBatch = 1;
  int64_t chipsPerStage() const { return tp * sp; }
};

/// The model function of `module` (the one with layers). Emits an error
/// mentioning `passName` when there is none.
mlir::FailureOr<ModelView> getModelView(mlir::ModuleOp module,
                                        const CostModel &model,
                                        llvm::StringRef passName);

/// The axes of a stage's tensor-parallel and sequence-parallel (Ulysses)
/// groups, for a stage of tp x sp chips with `stages` stages.
struct StageGroupAxes {
  llvm::SmallVector<GroupAxis> tensor, sequence;
};
/// The groups' axes on the DeviceMesh that `placement` (the default rule
/// when default) lays the degrees out as, when they fill the slice; a line
/// each otherwise. A group alone in its stage is the stage's whole block;
/// with tp and sp both above 1 the inner group is a sub-block of
/// neighbours and the outer one strides across the sub-blocks (its axes
/// carry the stride). A degree of 1 has no axes. A 2-D group (`tpX` > 1,
/// sp 1) is a tpX x (tp / tpX) block: its axes are the block's rows then
/// its columns (the tp_x and tp_y sub-groups' axes).
StageGroupAxes stageGroupAxes(const TargetDesc &target,
                              const TopologyDesc &topology, int64_t tp,
                              int64_t sp, int64_t stages, int64_t tpX = 1,
                              const Placement &placement = {},
                              bool expertGroup = false);

/// The module's target and model function, built on first use.
class ModelAnalysis {
public:
  explicit ModelAnalysis(mlir::Operation *module);

  /// Succeeds when the module has a target; otherwise emits an error at the
  /// module that says how to set one, naming `passName`.
  mlir::LogicalResult requireTarget(llvm::StringRef passName);
  /// Succeeds when the module has a target and a well-formed model function
  /// (layers numbered in order, sharding that agrees with its tp); otherwise
  /// emits the error, naming `passName`.
  mlir::LogicalResult requireModel(llvm::StringRef passName);

  /// Valid after requireTarget.
  TargetAttr getTarget() const { return target; }
  const TargetDesc &getTargetDesc() const { return *desc; }
  const CostModel &getCostModel() const { return *model; }
  /// Valid after requireModel.
  ModelView &getView() { return *view; }
  /// The tensor-parallel group's axes with `stages` pipeline stages.
  llvm::SmallVector<GroupAxis> getTensorParallelAxes(int64_t stages) const;
  /// The sequence-parallel group's axes with `stages` pipeline stages.
  llvm::SmallVector<GroupAxis> getSequenceParallelAxes(int64_t stages) const;

private:
  mlir::ModuleOp module;
  TargetAttr target;
  std::unique_ptr<TargetDesc> desc;
  std::unique_ptr<CostModel> model;
  std::optional<ModelView> view;
};

} // namespace loom

#endif // LOOM_ANALYSIS_MODELANALYSIS_H
