//===- PlanPipeline.h - the loom-plan-pipeline named pipeline ---*- C++ -*-===//
//
// The planning passes in order, for tools and for compilers that embed
// Loom: loom-set-target (when a topology is given), loom-shard-heads,
// loom-shard-sequence, loom-shard-experts, loom-partition-layers,
// loom-split-tokens, for a training step loom-derive-training-step,
// loom-remat and loom-shard-zero, then loom-check-memory. The layout is a
// ParallelLayout;
// the one place that maps it onto the passes' options is
// buildPlanPipeline.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_TRANSFORMS_PLANPIPELINE_H
#define LOOM_TRANSFORMS_PLANPIPELINE_H

#include "loom/Support/TrainingSettings.h"
#include "loom/Transforms/ParallelLayout.h"

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

#include <memory>
#include <optional>
#include <vector>

namespace loom {

/// What the pipeline takes beside the layout.
struct PlanPipelineSettings {
  /// Set the module's target to this topology first (loom-set-target),
  /// from `targetFile` when given; empty: keep the module's.
  std::string topology, targetFile;
  /// loom-split-tokens: slice lengths are multiples of this (0: its rule).
  int64_t granularity = 0;
  /// loom-check-memory: a remark per stage with its memory.
  bool memoryRemarks = false;
  /// Plan a training step of the forward pass, derived with these
  /// settings (each replica's microbatches accumulate their gradients; the
  /// sequence runs whole unless the layout gives slices).
  std::optional<TrainingSettings> training;
};

/// Adds the planning passes for `layout` to `pm` (on a builtin.module).
/// The lowering's dimensions (interleave, decompose, scatter-handover) are
/// convert-loom-to-sched's options, not the pipeline's.
void buildPlanPipeline(mlir::OpPassManager &pm, const ParallelLayout &layout,
                       const PlanPipelineSettings &settings = {});

/// loom-plan-pipeline's textual options: one per layout dimension (its
/// name, default and help from layoutDimensions()) and the settings.
struct PlanPipelineOptions
    : public mlir::PassPipelineOptions<PlanPipelineOptions> {
  PlanPipelineOptions();

  Option<int64_t> granularity{
      *this, "granularity",
      llvm::cl::desc("loom-split-tokens: slice lengths are multiples of "
                     "this (0: its default rule)"),
      llvm::cl::init(0)};
  Option<bool> memoryRemarks{
      *this, "memory-remarks",
      llvm::cl::desc("loom-check-memory: a remark per stage with its memory "
                     "(loom-plan's report)"),
      llvm::cl::init(false)};
  Option<std::string> topology{
      *this, "topology",
      llvm::cl::desc("Set the module's target to this topology first (e.g. "
                     "v5e-16; loom-set-target)"),
      llvm::cl::init("")};
  Option<std::string> targetFile{
      *this, "target-file",
      llvm::cl::desc("With topology: the target file to read it from"),
      llvm::cl::init("")};
  Option<bool> train{
      *this, "train",
      llvm::cl::desc("Plan a training step of the forward pass "
                     "(loom-derive-training-step, loom-remat, "
                     "loom-shard-zero)"),
      llvm::cl::init(false)};
  Option<std::string> optimizer{
      *this, "optimizer",
      llvm::cl::desc("With train: adamw, adafactor or sgd"),
      llvm::cl::init("adamw")};
  Option<std::string> masterType{
      *this, "master-type",
      llvm::cl::desc("With train: the master weights' type (f32, bf16, "
                     "none)"),
      llvm::cl::init("f32")};
  Option<std::string> stateType{
      *this, "state-type",
      llvm::cl::desc("With train: the optimizer state's type (f32, bf16)"),
      llvm::cl::init("f32")};

  /// Adds the pipeline these options describe to `pm`.
  void build(mlir::OpPassManager &pm) const;

private:
  /// One pass option per layout dimension, in forEachDimension's order
  /// (slices and placement as text, which their passes parse and diagnose).
  std::vector<std::shared_ptr<void>> dimensions;
};

/// Registers `loom-plan-pipeline` with the pass pipeline registry.
void registerPlanPipeline();

} // namespace loom

#endif // LOOM_TRANSFORMS_PLANPIPELINE_H
