//===- PlanPipeline.cpp - the loom-plan-pipeline named pipeline -----------===//

#include "loom/Plan/PlanPipeline.h"

#include "loom/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace loom;

void loom::buildPlanPipeline(OpPassManager &pm,
                             const PlanPipelineOptions &options) {
  ShardHeadsOptions shard;
  shard.tp = options.tp;
  shard.sequenceParallel = options.sequenceParallel;
  shard.slice = options.slice;
  pm.addPass(createShardHeads(shard));
  PartitionLayersOptions partition;
  partition.stages = options.stages;
  partition.dataParallel = options.dataParallel;
  partition.slice = options.slice;
  pm.addPass(createPartitionLayers(partition));
  SplitTokensOptions split;
  split.slices = options.slices;
  pm.addPass(createSplitTokens(split));
  pm.addPass(createCheckMemory());
}

void loom::registerPlanPipeline() {
  PassPipelineRegistration<PlanPipelineOptions>(
      "loom-plan-pipeline",
      "Shard heads, cut stages, choose slices and check memory",
      buildPlanPipeline);
}
