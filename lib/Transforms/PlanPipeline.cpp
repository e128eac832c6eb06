//===- PlanPipeline.cpp - the loom-plan-pipeline named pipeline -----------===//

#include "loom/Transforms/PlanPipeline.h"

#include "loom/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace loom;

void loom::buildPlanPipeline(OpPassManager &pm,
                             const PlanPipelineOptions &options) {
  if (!options.topology.empty()) {
    SetTargetOptions target;
    target.topology = options.topology;
    target.file = options.targetFile;
    pm.addPass(createSetTarget(target));
  }
  ShardHeadsOptions shard;
  shard.tp = options.tp;
  shard.sequenceParallel = options.sequenceParallel;
  shard.tpX = options.tpX;
  shard.weightGathered = options.weightGathered;
  pm.addPass(createShardHeads(shard));
  if (options.sp != 1) {
    ShardSequenceOptions sequence;
    sequence.sp = options.sp;
    sequence.mode = options.spMode;
    pm.addPass(createShardSequence(sequence));
  }
  if (options.ep != 1) {
    ShardExpertsOptions experts;
    experts.ep = options.ep;
    experts.data = options.epData;
    pm.addPass(createShardExperts(experts));
  }
  PartitionLayersOptions partition;
  partition.stages = options.stages;
  partition.virtualStages = options.virtualStages;
  partition.dataParallel = options.dataParallel;
  partition.placement = options.placement;
  pm.addPass(createPartitionLayers(partition));
  SplitTokensOptions split;
  split.slices = options.slices;
  split.microbatches = options.microbatches;
  split.granularity = options.granularity;
  pm.addPass(createSplitTokens(split));
  CheckMemoryOptions memory;
  memory.remarks = options.memoryRemarks;
  pm.addPass(createCheckMemory(memory));
}

void loom::registerPlanPipeline() {
  PassPipelineRegistration<PlanPipelineOptions>(
      "loom-plan-pipeline",
      "Set the target (with topology=), shard heads, cut stages, choose "
      "slices and check memory",
      buildPlanPipeline);
}
