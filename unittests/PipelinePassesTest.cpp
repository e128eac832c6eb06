//===- PipelinePassesTest.cpp - the pipeline passes on real models --------===//

#include "loom/Analysis/StageCost.h"
#include "loom/Conversion/Passes.h"
#include "loom/Dialect/Sched/ScheduleIR.h"
#include "loom/Dialect/Loom/ModuleTarget.h"
#include "loom/Dialect/Loom/ModelCost.h"
#include "loom/Import/ModelImporter.h"
#include "loom/InitAll.h"
#include "loom/Hardware/TargetDesc.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace loom;

namespace {

OwningOpRef<ModuleOp> plan(MLIRContext &context, StringRef model,
                           StringRef pipeline, ImportOptions options = {}) {
  registerAllPasses();
  OwningOpRef<ModuleOp> module = importModel(model, options, &context);
  EXPECT_TRUE(module);
  (*module)->setAttr(kTargetAttrName,
                     cantFail(materializeTarget(&context, "v5e-16")));
  PassManager pm(&context);
  EXPECT_TRUE(succeeded(parsePassPipeline(pipeline, pm)));
  EXPECT_TRUE(succeeded(pm.run(*module)));
  return module;
}

/// The first layer of `module`.
LayerOp firstLayer(ModuleOp module) {
  LayerOp layer;
  module->walk([&](LayerOp op) {
    if (!layer)
      layer = op;
  });
  return layer;
}

/// The cost model of the module's target.
CostModel targetModel(ModuleOp module) {
  static TargetDesc desc;
  desc = getTarget(module).getDesc();
  return CostModel(desc);
}

TEST(PipelinePasses, SliceCostAgreesWithTheEstimateAtTheFullSequence) {
  MLIRContext context;
  OwningOpRef<ModuleOp> module =
      plan(context, "llama-65b", "loom-shard-heads{tp=4 }");
  CostModel model = targetModel(*module);
  LayerOp layer = firstLayer(*module);
  // The 4 chips of a tensor-parallel group as a 2x2 ring.
  SmallVector<GroupAxis> axes = {{2, false}, {2, false}};
  LayerSliceCost slices(layer, model, axes, 2048);
  double full = slices.seconds(2048, 0);
  EXPECT_NEAR(full, estimateTime(model, layer, axes), 1e-9 * full);
  // The two all-reduces of 32 MiB cost something.
  EXPECT_GT(full, estimateTime(model, layer, {}));
  // A later slice of the same length costs more: it attends to more context.
  EXPECT_GT(slices.seconds(512, 1536), slices.seconds(512, 0));
  // Two halves cost about the full sequence: the weights are read twice,
  // but the first half's flash kernel does not step over the second half's
  // key blocks, which the full sequence's causal grid steps through
  // (flashAttentionWork); on this layer the two nearly cancel.
  double halves = slices.seconds(1024, 0) + slices.seconds(1024, 1024);
  EXPECT_NEAR(halves, full, 0.05 * full);
  EXPECT_NE(halves, full);
}

// Decode: one new token that attends to the cache. The slice cost must see
// the cached tokens (the op's `cached`) as the estimate does.
TEST(PipelinePasses, DecodeSliceCostSeesTheCache) {
  for (int64_t cached : {1, 4000}) {
    MLIRContext context;
    ImportOptions options;
    options.mode = ImportOptions::Mode::Decode;
    options.seqLen = cached;
    options.batch = 16;
    OwningOpRef<ModuleOp> module = plan(
        context, "llama2-70b", "loom-shard-heads{tp=8 }", options);
    CostModel model = targetModel(*module);
    LayerOp layer = firstLayer(*module);
    LayerSliceCost slices(layer, model, {}, 1);
    double one = slices.seconds(1, 0);
    EXPECT_NEAR(one, estimateTime(model, layer, {}), 1e-9 * one) << cached;
  }
}

TEST(PipelinePasses, TeraPipeSlicesOnLlama65B) {
  MLIRContext context;
  OwningOpRef<ModuleOp> module =
      plan(context, "llama-65b",
           "loom-shard-heads{tp=4 },loom-partition-layers{stages=4},"
           "loom-split-tokens");
  auto func = *module->getOps<func::FuncOp>().begin();
  auto pipeline = func->getAttrOfType<PipelineAttr>("loom.pipeline");
  ASSERT_TRUE(pipeline);
  ArrayRef<int64_t> slices = pipeline.getSlices();
  EXPECT_GT(slices.size(), 1u);
  EXPECT_EQ(pipeline.getTokens(), 2048);
  // Later slices see more context, but the attention kernel reads keys in
  // blocks of 512 (flashAttentionWork), so a slice's cost rises in steps as
  // the context crosses a block: the slices stay close to equal, the last
  // no longer than the first.
  EXPECT_LE(slices.back(), slices.front());
  EXPECT_LE(*llvm::max_element(slices) - *llvm::min_element(slices), 64);
}

/// `count` units taking `work` on each of `stages` stages, with `handover`
/// into each stage but the first.
SmallVector<PipelineUnit> equalUnits(int64_t count, int64_t stages,
                                     double work, double handover) {
  PipelineUnit unit;
  unit.work.assign(stages, work);
  unit.handover.assign(stages, handover);
  unit.handover[0] = 0;
  return SmallVector<PipelineUnit>(count, unit);
}

// Pipelines played through, each worked by hand on its timeline (t = 1).
TEST(PipelinePasses, PipelineTimelines) {
  // PipeFusion's (S M + K - 1) t without handovers or warm-up...
  EXPECT_DOUBLE_EQ(playPipeline(equalUnits(4, 4, 1, 0), 50, 0).seconds, 203);
  // ...plus (K - 1) t for a warm-up step's drain: step 1 waits for the
  // last patch of step 0, which leaves at 7 instead of the first's 4.
  EXPECT_DOUBLE_EQ(playPipeline(equalUnits(4, 4, 1, 0), 50, 1).seconds, 206);
  // One patch through 4 stages: 4 t; a second step waits for its return.
  EXPECT_DOUBLE_EQ(playPipeline(equalUnits(1, 4, 1, 0), 1, 0).seconds, 4);
  EXPECT_DOUBLE_EQ(playPipeline(equalUnits(1, 4, 1, 0), 2, 0).seconds, 8);
  // 2 patches, 3 stages, 2 steps, handovers of 0.5: patch 0 leaves the last
  // stage at 1 + 0.5 + 1 + 0.5 + 1 = 4 and starts step 1 there; patch 1 of
  // step 1 runs on the last stage from 8 to 9.
  EXPECT_DOUBLE_EQ(playPipeline(equalUnits(2, 3, 1, 0.5), 2, 0).seconds, 9);
  // Warm-up beyond the last step adds no barrier after it.
  EXPECT_DOUBLE_EQ(playPipeline(equalUnits(4, 4, 1, 0), 2, 2).seconds,
                   playPipeline(equalUnits(4, 4, 1, 0), 2, 1).seconds);
  // TeraPipe's sum + (K - 1) max for slices growing along the sequence,
  // and its bubble: the busiest stage works 1 + 2 + 3 of 6 + 2 x 3.
  SmallVector<PipelineUnit> slices;
  for (double t : {1.0, 2.0, 3.0})
    slices.push_back(equalUnits(1, 3, t, 0).front());
  PipelinePrediction growing = playPipeline(slices, 1, 0);
  EXPECT_DOUBLE_EQ(growing.seconds, 12);
  EXPECT_DOUBLE_EQ(growing.bubble, 0.5);
  // An uneven stage is priced as it is, not as the slowest everywhere:
  // stages of 1 and 3 on two equal slices take 1 + 3 + 3 = 7, not 3 x 3.
  PipelineUnit uneven;
  uneven.work = {1, 3};
  uneven.handover = {0, 0};
  EXPECT_DOUBLE_EQ(playPipeline({uneven, uneven}, 1, 0).seconds, 7);
}

/// playPipeline without its steady-state shortcut: every step played.
PipelinePrediction playEveryStep(ArrayRef<PipelineUnit> units, int64_t steps,
                                 int64_t warmup) {
  size_t stages = units.front().work.size();
  SmallVector<double> free(stages, 0.0), busy(stages, 0.0);
  SmallVector<double> left(units.size(), 0.0), leaving(units.size(), 0.0);
  for (int64_t step = 0; step < steps; ++step) {
    for (auto [i, unit] : llvm::enumerate(units)) {
      double arrived = 0;
      if (step > 0 && stages > 1)
        arrived = (step - 1 < warmup ? *llvm::max_element(left) : left[i]) +
                  unit.handover[0];
      for (size_t s = 0; s < stages; ++s) {
        if (s > 0)
          arrived += unit.handover[s];
        free[s] = arrived = std::max(arrived, free[s]) + unit.work[s];
        busy[s] += unit.work[s];
      }
      leaving[i] = arrived;
    }
    std::swap(left, leaving);
  }
  return {free.back(), 1 - *llvm::max_element(busy) / free.back()};
}

// Past the warm-up a pipeline's steps repeat, and playPipeline adds the
// rest once they do: the same time and bubble as playing every step, for
// uneven stages, handovers, more or fewer patches than stages, and
// warm-ups.
TEST(PipelinePasses, SteadyStepsAreAddedAsPlayed) {
  for (int64_t patches : {1, 3, 8, 40})
    for (int64_t warmup : {0, 1, 3}) {
      SmallVector<PipelineUnit> units(patches);
      for (auto [i, unit] : llvm::enumerate(units)) {
        unit.work = {1.0, 1.25, 0.75 + 0.01 * (i % 3), 1.1};
        unit.handover = {0.05, 0.02, 0.03, 0.02};
      }
      SCOPED_TRACE(std::to_string(patches) + " patches, warm-up " +
                   std::to_string(warmup));
      PipelinePrediction fast = playPipeline(units, 50, warmup);
      PipelinePrediction full = playEveryStep(units, 50, warmup);
      EXPECT_NEAR(fast.seconds, full.seconds, 1e-9 * full.seconds);
      EXPECT_NEAR(fast.bubble, full.bubble, 1e-9);
    }
}

// A microbatch is priced as the batch it holds: every task of a slice of
// batch 4 run as 2 microbatches costs what it does with a batch of 2 (the
// weights read in full, everything else at half), the pipeline plays each
// microbatch's slices in turn from no context, and a batch of one sequence
// has only 1 microbatch.
TEST(PipelinePasses, MicrobatchesArePricedAsTheirShareOfTheBatch) {
  MLIRContext context;
  ImportOptions four, two;
  four.batch = 4;
  two.batch = 2;
  four.seqLen = two.seqLen = 256;
  StringRef pipeline = "loom-shard-heads{tp=4},loom-partition-layers{"
                       "stages=2},loom-split-tokens{slices=2}";
  OwningOpRef<ModuleOp> whole = plan(context, "llama-7b", pipeline, four);
  OwningOpRef<ModuleOp> half = plan(context, "llama-7b", pipeline, two);
  CostModel model = targetModel(*whole);
  auto stageCost = [&](ModuleOp module, int64_t microbatches) {
    SmallVector<LayerOp> layers;
    module->walk([&](LayerOp layer) { layers.push_back(layer); });
    return StageSliceCost(layers, model, {}, 256, 2, {}, microbatches);
  };
  StageSliceCost split = stageCost(*whole, 2), smaller = stageCost(*half, 1),
                 together = stageCost(*whole, 1);
  for (auto [length, context] : {std::pair<int64_t, int64_t>{128, 0},
                                 {128, 128},
                                 {64, 192}})
    for (int64_t stage : {0, 1}) {
      SmallVector<TaskTime> a = split.stageTasks(stage, length, context),
                            b = smaller.stageTasks(stage, length, context);
      ASSERT_EQ(a.size(), b.size());
      for (auto [i, x, y] : llvm::enumerate(a, b))
        EXPECT_NEAR(x.seconds, y.seconds, 1e-12 + 1e-9 * y.seconds)
            << "task " << i << " of stage " << stage << ", " << length
            << " tokens after " << context;
      // Half the batch is cheaper than all of it, but not half as cheap:
      // both read the weights.
      double all = together.stageSeconds(stage, length, context),
             share = split.stageSeconds(stage, length, context);
      EXPECT_LT(share, all);
      EXPECT_GT(share, all / 2);
    }
  EXPECT_DOUBLE_EQ(split.transferSeconds(1, 128) - split.transferSeconds(0, 0),
                   (together.transferSeconds(1, 128) -
                    together.transferSeconds(0, 0)) / 2);
  // The units: microbatch 0's slices, then microbatch 1's from context 0.
  auto attr = PipelineAttr::get(&context, 2, {128, 128}, PipelineMode::tokens,
                                0, 0, 2, 1, PipelineSchedule::GPipe);
  EXPECT_EQ(pipelineUnits(attr),
            (SmallVector<std::pair<int64_t, int64_t>>{
                {128, 0}, {128, 128}, {128, 0}, {128, 128}}));
  // Played: the 4 units through the 2 stages, as playPipeline plays them.
  SmallVector<PipelineUnit> units;
  for (auto [length, context] : pipelineUnits(attr)) {
    PipelineUnit &unit = units.emplace_back();
    for (int64_t s = 0; s < 2; ++s) {
      unit.work.push_back(split.stageSeconds(s, length, context));
      unit.handover.push_back(split.transferSeconds(s, length));
    }
  }
  EXPECT_DOUBLE_EQ(predictPipeline(split, attr).seconds,
                   playPipeline(units, 1, 0).seconds);
  // A batch of one sequence cannot be cut into microbatches.
  OwningOpRef<ModuleOp> single = plan(context, "llama-7b", pipeline);
  PassManager pm(&context);
  ASSERT_TRUE(succeeded(
      parsePassPipeline("loom-split-tokens{microbatches=2}", pm)));
  ScopedDiagnosticHandler quiet(&context, [](Diagnostic &) { return success(); });
  EXPECT_TRUE(failed(pm.run(*single)));
}

TEST(PipelinePasses, InterleavedTimelines) {
  // The closed forms of SimulatorTest's zipped units (compute c, all-reduce
  // r, A1 B1 | A2 B2 with each unit's all-reduce between): 4c when r <= c,
  // 2r + 2c when r > c (the two all-reduces share the links); one unit
  // alone is the sum of its tasks.
  auto units = [](double c, double r) {
    SmallVector<TaskTime> chain = {{false, c}, {true, r}, {false, c}};
    return SmallVector<SmallVector<TaskTime>>{chain, chain};
  };
  EXPECT_DOUBLE_EQ(playInterleaved(units(2, 1)), 8);
  EXPECT_DOUBLE_EQ(playInterleaved(units(1, 3)), 8);
  EXPECT_DOUBLE_EQ(playInterleaved({units(1, 3).front()}), 5);
  // Two collectives in a row in each unit, r <= c: the second of A's runs
  // after the first, still under B's compute.
  SmallVector<TaskTime> twice = {{false, 4}, {true, 1}, {true, 1}, {false, 4}};
  EXPECT_DOUBLE_EQ(playInterleaved({twice, twice}), 16);
  // Of r = 3, 1 is the steps' latency, which the links leave to the other
  // collective: the two share less than fully, so the run ends between the
  // links never shared (A2 after A's all-reduce at 4, B2 after B's at 5: 6)
  // and shared throughout as if all were transfer (8).
  SmallVector<TaskTime> latent = {{false, 1}, {true, 3, 1}, {false, 1}};
  double shared = playInterleaved({latent, latent});
  EXPECT_GT(shared, 6);
  EXPECT_LT(shared, 8);
  // Alone, latency or not, a collective takes its seconds.
  EXPECT_DOUBLE_EQ(playInterleaved({latent}), 5);
}

TEST(PipelinePasses, TargetsThatMakeTimesInfiniteNeverReachThePasses) {
  // A peak of 1e-300 FLOP/s would make every layer's time infinite. A target
  // built in code skips the file loader, but the #loom.target the passes
  // read checks the same ranges (loom/Hardware/TargetSchema.h).
  TargetDesc broken = *lookupTarget("tpu-v5e");
  broken.name = "broken-v5e";
  broken.peakFlopsBf16 = 1e-300;
  MLIRContext context;
  context.loadDialect<LoomDialect>();
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diag) {
    diagnostics += diag.str();
    return success();
  });
  TargetAttr target = TargetAttr::getChecked(
      [&] { return emitError(UnknownLoc::get(&context)); }, &context, broken,
      *broken.findTopology("v5e-4"));
  EXPECT_FALSE(target);
  EXPECT_EQ(diagnostics, "peak_bf16 must be at least 1 FLOP/s, got 1e-300");
}

/// Records whether a ModelAnalysis was cached when it ran.
struct ProbeAnalysisPass
    : public PassWrapper<ProbeAnalysisPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(ProbeAnalysisPass)
  explicit ProbeAnalysisPass(bool &cached) : cached(cached) {}
  void runOnOperation() override {
    cached = getCachedAnalysis<ModelAnalysis>().has_value();
  }
  bool &cached;
};

// Read-only passes keep the module's analysis for the next pass; a pass
// that rewrites the ops drops it.
std::string scheduleText(const schedule::Schedule &schedule) {
  std::string text;
  llvm::raw_string_ostream os(text);
  schedule::writeSchedule(schedule, os);
  return text;
}

// The planner simulates lowerToScheduleFile's schedule, without IR;
// convert-loom-to-sched builds the same program as IR. Both are the same
// schedule, task for task, for slices, patches and zipped units.
TEST(PipelinePasses, TheScheduleTheLoweringReturnsIsTheProgramItBuilds) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  ImportOptions shortDit;
  shortDit.resolution = 256;
  shortDit.steps = 3;
  struct Case {
    StringRef model, pipeline;
    ImportOptions options;
    int64_t interleave;
    bool decompose = false;
  } cases[] = {
      {"llama-7b", "loom-plan-pipeline{tp=2 stages=2 slices=4}", {}, 1},
      {"llama-7b", "loom-plan-pipeline{tp=4 stages=2 slices=4}", {}, 2},
      {"dit-xl-2", "loom-plan-pipeline{tp=2 stages=4 slices=4}", shortDit, 2},
      {"llama-7b",
       "loom-plan-pipeline{tp=4 sequence-parallel=true stages=2 slices=4}",
       {}, 1, true},
      {"llama-7b", "loom-plan-pipeline{tp=2 stages=2 slices=4}", {}, 1, true},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.model.str() + " " + c.pipeline.str());
    OwningOpRef<ModuleOp> module =
        plan(context, c.model, c.pipeline, c.options);
    ASSERT_TRUE(module);
    FailureOr<schedule::Schedule> direct =
        lowerToScheduleFile(*module, c.interleave, c.decompose);
    ASSERT_TRUE(succeeded(direct));
    ASSERT_TRUE(
        succeeded(lowerToSchedule(*module, c.interleave, c.decompose)));
    sched::ProgramOp program;
    module->walk([&](sched::ProgramOp p) { program = p; });
    ASSERT_TRUE(program);
    EXPECT_FALSE(direct->chips.empty());
    EXPECT_EQ(scheduleText(*direct),
              scheduleText(sched::exportSchedule(program)));
  }
}

TEST(PipelinePasses, ReadOnlyPassesPreserveTheModelAnalysis) {
  MLIRContext context;
  registerAllPasses();
  ImportOptions options;
  options.seqLen = 64;
  auto run = [&](StringRef pipeline) {
    OwningOpRef<ModuleOp> module = importModel("llama-7b", options, &context);
    (*module)->setAttr(kTargetAttrName,
                       cantFail(materializeTarget(&context, "v5e-4")));
    bool cached = false;
    PassManager pm(&context);
    EXPECT_TRUE(succeeded(parsePassPipeline(pipeline, pm)));
    pm.addPass(std::make_unique<ProbeAnalysisPass>(cached));
    EXPECT_TRUE(succeeded(pm.run(*module)));
    return cached;
  };
  EXPECT_TRUE(run("loom-check-memory"));
  EXPECT_TRUE(run("loom-check-memory,loom-model-summary{per-layer=false}"));
  EXPECT_TRUE(run("loom-estimate"));
  EXPECT_TRUE(run("loom-partition-layers{stages=2},loom-split-tokens"));
  EXPECT_FALSE(run("loom-shard-heads{tp=2}"));
  EXPECT_FALSE(run("loom-check-memory,loom-set-target{topology=v5e-8}"));
}

} // namespace

// Interleaved stages played through, worked by hand (chunks of t = 1).
TEST(PipelinePasses, VirtualStagesTimelines) {
  auto chunks = [](int64_t count, int64_t k, int64_t v, double handover) {
    return equalUnits(count, k * v, 1, handover);
  };
  // N = 8 units, K = 4 stages, v = 2: (N v + K - 1) t = 19, against 22 for
  // the same layers as 4 stages of 2 t each, (N + K - 1) 2 t.
  EXPECT_DOUBLE_EQ(playVirtualStages(chunks(8, 4, 2, 0), 4).seconds, 19);
  EXPECT_DOUBLE_EQ(playPipeline(equalUnits(8, 4, 2, 0), 1, 0).seconds, 22);
  // The bubble is (K - 1) t of 19: the busiest stage works 16.
  EXPECT_DOUBLE_EQ(playVirtualStages(chunks(8, 4, 2, 0), 4).bubble, 3.0 / 19);
  // v = 1 is the plain pipeline.
  EXPECT_DOUBLE_EQ(playVirtualStages(chunks(8, 4, 1, 0), 4).seconds,
                   playPipeline(equalUnits(8, 4, 1, 0), 1, 0).seconds);
  // One group of g = 3 < K = 4 units: each round waits K - g = 1 for unit
  // 0 to come round, (v - 1) K + g + K - 1 = 10.
  EXPECT_DOUBLE_EQ(playVirtualStages(chunks(3, 4, 2, 0), 4).seconds, 10);
  // Handovers of 0.5 on K = 2, v = 2, N = 2: stage 0 runs u0, u1 chunk 0
  // in [0, 2]; stage 1 chunk 1 in [1.5, 2.5], [2.5, 3.5]; stage 0 chunk 2
  // in [3, 4], [4, 5]; stage 1 chunk 3 in [4.5, 5.5], [5.5, 6.5].
  EXPECT_DOUBLE_EQ(playVirtualStages(chunks(2, 2, 2, 0.5), 2).seconds, 6.5);
}
