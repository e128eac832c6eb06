//===- PlanPipeline.h - the loom-plan-pipeline named pipeline ---*- C++ -*-===//
//
// The planning passes in order, for tools and for compilers that embed
// Loom: loom-set-target (when a topology is given), loom-shard-heads, loom-shard-sequence, loom-shard-experts, loom-partition-layers, loom-split-tokens,
// loom-check-memory.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_TRANSFORMS_PLANPIPELINE_H
#define LOOM_TRANSFORMS_PLANPIPELINE_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace loom {

struct PlanPipelineOptions
    : public mlir::PassPipelineOptions<PlanPipelineOptions> {
  Option<int64_t> tp{*this, "tp", llvm::cl::desc("Tensor-parallel degree"),
                     llvm::cl::init(1)};
  Option<int64_t> tpX{*this, "tp-x",
                      llvm::cl::desc("2-D weight-stationary: rows of the tp "
                                     "block (d_model split over them); 1: 1-D"),
                      llvm::cl::init(1)};
  Option<bool> weightGathered{
      *this, "weight-gathered",
      llvm::cl::desc("Weight-gathered (Pope et al. 2023, 3.2.3): the tp "
                     "chips split the batch, layers' weights all-gathered"),
      llvm::cl::init(false)};
  Option<bool> sequenceParallel{
      *this, "sequence-parallel",
      llvm::cl::desc("Split activations along the sequence between matmuls"),
      llvm::cl::init(false)};
  Option<int64_t> ep{*this, "ep",
                     llvm::cl::desc("Expert-parallel degree (MoE models; "
                                    "divides tp)"),
                     llvm::cl::init(1)};
  Option<bool> epData{
      *this, "ep-data",
      llvm::cl::desc("The ep chips are a group of their own beside tp "
                     "(loom-shard-experts data)"),
      llvm::cl::init(false)};
  Option<int64_t> sp{*this, "sp",
                     llvm::cl::desc("Sequence-parallel (Ulysses) degree: "
                                    "chips sharing each tensor-parallel rank"),
                     llvm::cl::init(1)};
  Option<std::string> spMode{
      *this, "sp-mode",
      llvm::cl::desc("How sp splits attention: ulysses or ring"),
      llvm::cl::init("ulysses")};
  Option<int64_t> stages{*this, "stages", llvm::cl::desc("Pipeline stages"),
                         llvm::cl::init(1)};
  Option<int64_t> virtualStages{
      *this, "virtual-stages",
      llvm::cl::desc("Interleaved stages: chunks of layers per stage"),
      llvm::cl::init(1)};
  Option<int64_t> dataParallel{*this, "data-parallel",
                               llvm::cl::desc("Data-parallel replicas"),
                               llvm::cl::init(1)};
  Option<std::string> slices{
      *this, "slices",
      llvm::cl::desc("auto, a count, or comma-separated slice lengths"),
      llvm::cl::init("auto")};
  Option<std::string> placement{
      *this, "placement",
      llvm::cl::desc("Which chips each group occupies ('4x4, tp 1x4 inside "
                     "sp'); empty: the default rule"),
      llvm::cl::init("")};
  Option<int64_t> microbatches{
      *this, "microbatches",
      llvm::cl::desc("Token slices: run the batch as this many microbatches "
                     "of equal shares, each cut into the slices"),
      llvm::cl::init(1)};
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
};

/// Adds the planning passes with `options` to `pm` (on a builtin.module).
void buildPlanPipeline(mlir::OpPassManager &pm,
                       const PlanPipelineOptions &options);

/// Registers `loom-plan-pipeline` with the pass pipeline registry.
void registerPlanPipeline();

} // namespace loom

#endif // LOOM_TRANSFORMS_PLANPIPELINE_H
