//===- PlanPipeline.h - the loom-plan-pipeline named pipeline ---*- C++ -*-===//
//
// The planning passes in order, for tools and for compilers that embed
// Loom: loom-shard-heads, loom-partition-layers, loom-split-tokens,
// loom-check-memory.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PLAN_PLANPIPELINE_H
#define LOOM_PLAN_PLANPIPELINE_H

#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassOptions.h"

namespace loom {

struct PlanPipelineOptions
    : public mlir::PassPipelineOptions<PlanPipelineOptions> {
  Option<int64_t> tp{*this, "tp", llvm::cl::desc("Tensor-parallel degree"),
                     llvm::cl::init(1)};
  Option<bool> sequenceParallel{
      *this, "sequence-parallel",
      llvm::cl::desc("Split activations along the sequence between matmuls"),
      llvm::cl::init(false)};
  Option<int64_t> stages{*this, "stages", llvm::cl::desc("Pipeline stages"),
                         llvm::cl::init(1)};
  Option<int64_t> dataParallel{*this, "data-parallel",
                               llvm::cl::desc("Data-parallel replicas"),
                               llvm::cl::init(1)};
  Option<std::string> slices{
      *this, "slices",
      llvm::cl::desc("auto, a count, or comma-separated slice lengths"),
      llvm::cl::init("auto")};
  Option<std::string> slice{
      *this, "slice",
      llvm::cl::desc("Slice to plan for when the module has no loom.target"),
      llvm::cl::init("")};
};

/// Adds the planning passes with `options` to `pm` (on a builtin.module).
void buildPlanPipeline(mlir::OpPassManager &pm,
                       const PlanPipelineOptions &options);

/// Registers `loom-plan-pipeline` with the pass pipeline registry.
void registerPlanPipeline();

} // namespace loom

#endif // LOOM_PLAN_PLANPIPELINE_H
