//===- PlanPipeline.cpp - the loom-plan-pipeline named pipeline -----------===//

#include "loom/Transforms/PlanPipeline.h"

#include "loom/Transforms/Passes.h"

#include "mlir/Pass/PassRegistry.h"

using namespace mlir;
using namespace loom;

/// The passes for a layout whose slices and placement are given as their
/// passes' text.
static void addPlanPasses(OpPassManager &pm, const ParallelLayout &layout,
                          StringRef slices, StringRef placement,
                          const PlanPipelineSettings &settings) {
  if (!settings.topology.empty()) {
    SetTargetOptions target;
    target.topology = settings.topology;
    target.file = settings.targetFile;
    pm.addPass(createSetTarget(target));
  }
  ShardHeadsOptions shard;
  shard.tp = layout.tp;
  shard.sequenceParallel = layout.sequenceParallel;
  // tp-x alone asks for a 2-D block too; tp-layout=2d without its rows
  // (which only the planner chooses) is refused by the pass, with the
  // factorizations that tile.
  shard.tpX = layout.isTwoD() && layout.tpX <= 1 ? 0 : layout.tpX;
  shard.weightGathered = layout.isWeightGathered();
  shard.kvBatch = layout.kvBatch;
  pm.addPass(createShardHeads(shard));
  if (layout.sp != 1) {
    ShardSequenceOptions sequence;
    sequence.sp = layout.sp;
    sequence.mode = formatDimension(layout.spMode);
    pm.addPass(createShardSequence(sequence));
  }
  if (layout.ep != 1) {
    ShardExpertsOptions experts;
    experts.ep = layout.ep;
    experts.data = layout.hasExpertGroup();
    pm.addPass(createShardExperts(experts));
  }
  // A training step is derived from the sharded forward pass, before the
  // layers are cut (whose memory loom-check-memory then counts, model
  // states split as loom-shard-zero says).
  if (settings.training) {
    DeriveTrainingStepOptions derive;
    derive.optimizer = settings.training->optimizer;
    derive.masterType = settings.training->masterType;
    derive.stateType = settings.training->stateType;
    derive.microbatches = layout.microbatches;
    pm.addPass(createDeriveTrainingStep(derive));
  }
  // A training layout's dimensions on a forward pass reach their passes,
  // which refuse them for want of a training step.
  if (settings.training || layout.remat != RematPolicy::None) {
    RematOptions remat;
    remat.policy = formatDimension(layout.remat);
    pm.addPass(createRemat(remat));
  }
  PartitionLayersOptions partition;
  partition.stages = layout.stages;
  partition.virtualStages = layout.virtualStages;
  partition.dataParallel = layout.dataParallel;
  partition.placement = placement.str();
  pm.addPass(createPartitionLayers(partition));
  SplitTokensOptions split;
  split.slices = slices.str();
  split.microbatches = layout.microbatches;
  split.schedule = formatDimension(layout.schedule);
  split.granularity = settings.granularity;
  pm.addPass(createSplitTokens(split));
  const LayoutDimensions &d = layoutDimensions();
  if (layout.fsdp != d.fsdp.defaultValue || layout.zero != d.zero.defaultValue) {
    ShardZeroOptions zero;
    zero.fsdp = layout.fsdp;
    zero.stage = layout.zero;
    pm.addPass(createShardZero(zero));
  }
  CheckMemoryOptions memory;
  memory.remarks = settings.memoryRemarks;
  pm.addPass(createCheckMemory(memory));
}

void loom::buildPlanPipeline(OpPassManager &pm, const ParallelLayout &layout,
                             const PlanPipelineSettings &settings) {
  addPlanPasses(pm, layout, layout.slices.str(),
                formatDimension(layout.placement), settings);
}

PlanPipelineOptions::PlanPipelineOptions() {
  forEachDimension(
      [&](const auto &d) {
        using T = std::decay_t<decltype(d.defaultValue)>;
        using Stored = typename OptionText<T>::type;
        auto option = std::make_shared<Option<Stored>>(
            *this, d.name, llvm::cl::desc(d.help),
            llvm::cl::init(Stored(OptionText<T>::of(d.defaultValue))));
        if constexpr (std::is_enum_v<T>)
          for (const EnumSpelling<T> &s : enumSpellings(d.defaultValue))
            option->getParser().addLiteralOption(s.name, s.value, s.help);
        dimensions.push_back(std::move(option));
      },
      layoutDimensions());
}

void PlanPipelineOptions::build(OpPassManager &pm) const {
  ParallelLayout layout;
  std::string slices, placement;
  size_t index = 0;
  forEachDimension(
      [&](auto &value) {
        using T = std::decay_t<decltype(value)>;
        using Stored = typename OptionText<T>::type;
        const Stored &given =
            *static_cast<Option<Stored> *>(dimensions[index++].get());
        if constexpr (std::is_same_v<T, SliceSpec>)
          slices = given;
        else if constexpr (std::is_same_v<T, Placement>)
          placement = given;
        else
          value = given;
      },
      layout);
  PlanPipelineSettings settings{topology, targetFile, granularity,
                                memoryRemarks};
  if (train)
    settings.training = TrainingSettings{optimizer, masterType, stateType};
  addPlanPasses(pm, layout, slices, placement, settings);
}

void loom::registerPlanPipeline() {
  PassPipelineRegistration<PlanPipelineOptions>(
      "loom-plan-pipeline",
      "Set the target (with topology=), shard heads, cut stages, choose "
      "slices and check memory",
      [](OpPassManager &pm, const PlanPipelineOptions &options) {
        options.build(pm);
      });
}
