//===- WeightGatheredTest.cpp - the weight-gathered layout ----------------===//
//
// Issue 19, item 2 (Pope et al., "Efficiently Scaling Transformer
// Inference", MLSys 2023, section 3.2.3): prefetched per-layer weight
// gathers on loom-sim against the closed form worked by hand, the bytes a
// layer gathers by shape, the stage's prediction against that closed form,
// and planned weight-gathered layouts' predictions against loom-sim.
//
//===----------------------------------------------------------------------===//

#include "loom/Analysis/ModelAnalysis.h"
#include "loom/Analysis/StageCost.h"
#include "loom/Hardware/CostModel.h"
#include "loom/Import/ModelImporter.h"
#include "loom/InitAll.h"
#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Dialect/Loom/ModuleTarget.h"
#include "loom/Plan/Planner.h"
#include "loom/Plan/Report.h"
#include "loom/Sim/Simulator.h"
#include "loom/Transforms/ShardHeads.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace mlir;
using namespace loom;

namespace {

const TargetDesc &v5e() { return *lookupTarget("tpu-v5e"); }

double relative(double a, double b) { return std::fabs(a - b) / b; }

/// One row of v5e-8 (2x4, no wraparound: a line of 4) runs `layers` layers,
/// each a compute task of `flops` after its weights, `bytes`, are
/// all-gathered over the row, the next layer's gather started as a layer
/// starts (as convert-loom-to-sched emits it). The other row idles.
double prefetchedRun(int64_t layers, double flops, double bytes) {
  schedule::Schedule s;
  s.targetName = "tpu-v5e";
  s.shape = {2, 4};
  for (int64_t id = 0; id < 8; ++id)
    s.chips.push_back({id, {}});
  for (int64_t id = 0; id < 4; ++id) {
    auto &tasks = s.chips[id].tasks;
    auto push = [&](schedule::Task t) {
      tasks.push_back(t);
      return int64_t(tasks.size()) - 1;
    };
    auto gather = [&](int64_t layer, SmallVector<int64_t, 2> deps) {
      schedule::Task start;
      start.kind = schedule::TaskKind::Collective;
      start.collective = CollectiveKind::AllGather;
      start.group = {0, 1, 2, 3};
      start.bytes = int64_t(bytes);
      start.tag = layer;
      start.deps = deps;
      schedule::Task done;
      done.kind = schedule::TaskKind::CollectiveDone;
      done.start = push(start);
      return push(done);
    };
    int64_t done = gather(0, {}), previous = -1;
    for (int64_t l = 0; l < layers; ++l) {
      int64_t next = -1;
      SmallVector<int64_t, 2> after{done};
      if (previous >= 0)
        after.push_back(previous);
      if (l + 1 < layers)
        next = gather(l + 1, after);
      schedule::Task compute;
      compute.kind = schedule::TaskKind::Compute;
      compute.name = "layer" + std::to_string(l);
      compute.flops = int64_t(flops);
      compute.deps = after;
      previous = push(compute);
      done = next;
    }
  }
  auto result = sim::simulate(v5e(), s, /*recordTrace=*/false);
  EXPECT_TRUE(bool(result)) << llvm::toString(result.takeError());
  return result ? result->makespan - result->dispatch : 0.0;
}

// By hand: a gather of B bytes on a line of n = 4 takes sync + (n - 1)
// hops + (n - 1) / n B over one link at the line's efficiency (each chip
// receives the 3/4 it does not hold); a layer's compute c alone is what
// loom-sim gives one task. Prefetched, L layers take
// g + (L - 1) max(c, g) + c: the first gather exposed, then each layer
// beside the next one's gather.
TEST(WeightGatheredSim, PrefetchedGathersMatchTheClosedForm) {
  const TargetDesc &target = v5e();
  CostModel model(target);
  const int64_t n = 4, layers = 6;
  const double bytes = 4.0e8;
  double g = target.calibration.collectiveSync + (n - 1) * target.hopLatency +
             double(n - 1) / n * bytes /
                 (model.linkEfficiency(/*ring=*/false) * target.linkBandwidth);
  // The cost model prices the gather so (CostModel::weightGatherTime).
  EXPECT_LT(relative(model.weightGatherTime({{n, false}}, bytes), g), 1e-9);
  // The gather alone on loom-sim.
  double alone = prefetchedRun(1, 0, bytes);
  EXPECT_LT(relative(alone, g), 0.02) << alone << " vs " << g;
  // Compute-bound (c = 2.5 g) and gather-bound (c = g / 3) layers.
  for (double ratio : {2.5, 1.0 / 3}) {
    double flops = ratio * g * target.peakFlopsBf16;
    double c = prefetchedRun(1, flops, 0) - prefetchedRun(1, 0, 0);
    double byHand = g + (layers - 1) * std::max(c, g) + c;
    double run = prefetchedRun(layers, flops, bytes);
    EXPECT_LT(relative(run, byHand), 0.02)
        << "c / g = " << ratio << ": " << run << " vs " << byHand;
    // And weightGatheredSeconds is that closed form.
    SmallVector<double> compute(layers, c), gather(layers, g);
    EXPECT_DOUBLE_EQ(weightGatheredSeconds(0, compute, gather), byHand);
    // Without the prefetch the gathers would add up: it hides all but one
    // of them, or all but the compute.
    EXPECT_LT(run, layers * (c + g));
  }
  // The ops before the layers run beside the first gather.
  SmallVector<double> compute{1.0, 2.0, 3.0}, gather{2.0, 2.5, 1.0};
  EXPECT_DOUBLE_EQ(weightGatheredSeconds(0.5, compute, gather),
                   2.0 + std::max(1.0, 2.5) + std::max(2.0, 1.0) + 3.0);
  EXPECT_DOUBLE_EQ(weightGatheredSeconds(4.0, compute, gather),
                   4.0 + 2.5 + 2.0 + 3.0);
}

struct WeightGatheredPlan : public ::testing::Test {
  WeightGatheredPlan() : context(registry()) {
    context.loadAllAvailableDialects();
  }
  static DialectRegistry registry() {
    DialectRegistry registry;
    registerAllDialects(registry);
    return registry;
  }
  /// LLaMA-7B, a batch of 8 prompts of 2048 tokens, tp 8 on v5e-8.
  static PlanRequest batchOf8() {
    PlanRequest request;
    request.problem.model = "llama-7b";
    request.problem.topology = "v5e-8";
    request.problem.import.batch = 8;
    request.problem.import.seqLen = 2048;
    request.layout.tp = 8;
    return request;
  }
  MLIRContext context;
};

// LLaMA-7B's layer gathers its weights, by shape: q, k, v, o (E x E each),
// gate, up, down (E x F each) and two norms (E each), bf16; each chip
// stores a quarter of them and runs its one of the 4 sequences whole.
TEST_F(WeightGatheredPlan, TheLayerGathersItsWeights) {
  ImportOptions options;
  options.batch = 4;
  options.seqLen = 256;
  auto module = importModel("llama-7b", options, &context);
  ASSERT_TRUE(module);
  auto target = materializeTarget(&context, "v5e-8", "");
  ASSERT_TRUE(bool(target)) << llvm::toString(target.takeError());
  (*module)->setAttr(kTargetAttrName, *target);
  HeadShardingOptions shard;
  shard.tp = 4;
  shard.weightGathered = true;
  ASSERT_TRUE(succeeded(shardHeads(*module, shard)));
  const double E = 4096, F = 11008, bf16 = 2;
  const double byHand = (4 * E * E + 3 * E * F + 2 * E) * bf16;
  int64_t layers = 0;
  module->walk([&](LayerOp layer) {
    ++layers;
    auto gather = dyn_cast<GatherWeightsOp>(layer.getBody().front().front());
    ASSERT_TRUE(gather);
    EXPECT_DOUBLE_EQ(double(gather.getBytes()), byHand);
    EXPECT_EQ(gather.getGroupSize(), 4u);
    LayerFootprint f = layerFootprint(layer, false);
    EXPECT_DOUBLE_EQ(f.gathered, byHand);
    EXPECT_DOUBLE_EQ(f.weights, byHand / 4);
    // No other collective: the layer runs whole on its sequence.
    layer.walk([](CollectiveOpInterface c) {
      ADD_FAILURE() << "collective in a weight-gathered layer";
    });
    layer.walk([](LinearOp linear) {
      EXPECT_EQ(cast<RankedTensorType>(linear.getType()).getDimSize(0), 1);
      EXPECT_EQ(linear.getOutFeatures() % 128, 0);
    });
  });
  EXPECT_EQ(layers, 32);
  // Priced as an all-gather of those bytes on the group's line of 4.
  CostModel model(v5e());
  module->walk([&](LayerOp layer) {
    LayerSliceCost cost(layer, model, {{4, false}}, 256);
    EXPECT_DOUBLE_EQ(cost.getGatherBytes(), byHand);
    EXPECT_DOUBLE_EQ(cost.gatherSeconds(),
                     model.collectiveTime(CollectiveKind::AllGather,
                                          {{4, false}}, byHand));
  });
}

// loom-plan's weight-gathered layouts, lowered and simulated: the
// prediction within 2% of loom-sim; the simulated peak HBM holds each
// chip's shards and two gathered layers; and on a batch of 8 long prompts
// it beats Megatron's 1-D layout on the same 8 chips (it moves a layer's
// weights, 0.4 GB, where 1-D all-reduces 2 x 8 x 2048 x 4096 bf16, 0.27 GB
// per layer, twice, at a line's half bandwidth).
TEST_F(WeightGatheredPlan, PredictionAgreesWithTheSimulation) {
  for (auto [tp, stages] :
       {std::pair<int64_t, int64_t>{8, 1}, {4, 2}, {2, 1}}) {
    PlanRequest request = batchOf8();
    request.layout.tp = tp;
    request.layout.stages = stages;
    request.layout.tpLayout = TensorLayout::WeightGathered;
    PlanOptions options;
    options.simulate = Simulation::Always;
    PlanOutcome plan = planAndSimulate(request.problem, request.layout.complete(), context, options);
    ASSERT_EQ(plan.failure, "") << tp << " x " << stages;
    ASSERT_TRUE(plan.simulated.has_value());
    EXPECT_NE(planName(plan).find("weight-gathered"), std::string::npos)
        << planName(plan);
    EXPECT_LT(relative(plan.predicted, plan.simulated->makespan), 0.02)
        << planName(plan) << ": predicted " << plan.predicted
        << ", simulated " << plan.simulated->makespan;
  }
  PlanRequest request = batchOf8();
  PlanOptions options;
  options.simulate = Simulation::Always;
  PlanOutcome oneD = planAndSimulate(request.problem, request.layout.complete(), context, options);
  request.layout.tpLayout = TensorLayout::WeightGathered;
  PlanOutcome gathered = planAndSimulate(request.problem, request.layout.complete(), context, options);
  ASSERT_EQ(oneD.failure, "");
  ASSERT_EQ(gathered.failure, "");
  EXPECT_LT(gathered.simulated->makespan, oneD.simulated->makespan);
  // Shards of the 32 layers and two whole layers, at least, per chip.
  const double layer = (4 * 4096.0 * 4096 + 3 * 4096.0 * 11008 + 2 * 4096) * 2;
  double peak = 0;
  for (const sim::ChipStats &chip : gathered.simulated->chips)
    peak = std::max(peak, chip.peakHbm);
  EXPECT_GE(peak, 32 * layer / 8 + 2 * layer);
  EXPECT_LT(peak, 32 * layer / 8 + 3 * layer + 4e9);
}

// What cannot run is refused with the reason.
TEST_F(WeightGatheredPlan, RefusesWhatCannotRun) {
  PlanRequest request = batchOf8();
  request.layout.tpLayout = TensorLayout::WeightGathered;
  request.layout.microbatches = 2;
  request.layout.stages = 2;
  PlanOptions options;
  options.simulate = Simulation::Never;
  request.layout.tp = 4;
  PlanOutcome plan = planAndSimulate(request.problem, request.layout.complete(), context, options);
  EXPECT_NE(plan.failure.find("weight-gathered layout cannot run"),
            std::string::npos)
      << plan.failure;
  request.layout.microbatches = 1;
  request.problem.import.batch = 6;
  plan = planAndSimulate(request.problem, request.layout.complete(), context, options);
  EXPECT_NE(plan.failure.find("valid group sizes on v5e-8: 2"),
            std::string::npos)
      << plan.failure;
}

} // namespace
