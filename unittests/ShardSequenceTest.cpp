//===- ShardSequenceTest.cpp - invariants of Ulysses sequence parallelism -===//
//
// Issue 19, items 1 and 8, on DiT-XL/2 at 256 px (16 heads of 72, hidden
// 1152, 256 image tokens, a CFG batch of 2) after loom-shard-sequence:
// - every self-attention is wrapped in four all-to-alls over "sp" (Q, K, V
//   in, the output back) of the bytes a chip holds, worked by hand below;
// - summed over the sp chips, the FLOPs are the unsharded FLOPs (attention
//   by heads, everything else by tokens), while the weights are whole on
//   every chip and PipeFusion's stale K/V is 1/sp of it;
// - the cost model prices the all-to-all by its closed form on the group's
//   axes, and loom-plan's prediction agrees with the simulator;
// - degrees that do not divide the heads or the tokens are refused, naming
//   the valid ones.
//
//===----------------------------------------------------------------------===//

#include "loom/Analysis/ModelAnalysis.h"
#include "loom/Analysis/StageCost.h"
#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Dialect/Loom/ModuleTarget.h"
#include "loom/Import/ModelImporter.h"
#include "loom/InitAll.h"
#include "loom/Plan/Planner.h"
#include "loom/Plan/SequenceSearch.h"
#include "loom/Transforms/ShardHeads.h"
#include "loom/Transforms/ShardSequence.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include "DiTImportFixture.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace mlir;
using namespace loom;

namespace {

class ShardSequenceTest : public DiTImportTest {
protected:
  OwningOpRef<ModuleOp> plan(StringRef topology, int64_t tp, int64_t sp) {
    OwningOpRef<ModuleOp> module = import(topology);
    HeadShardingOptions heads;
    heads.tp = tp;
    EXPECT_TRUE(succeeded(shardHeads(*module, heads)));
    if (failed(shardSequence(*module, sp)))
      return nullptr;
    return module;
  }

  std::string error(StringRef topology, int64_t tp, int64_t sp) {
    std::string message;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
      message = d.str();
      return success();
    });
    EXPECT_FALSE(plan(topology, tp, sp));
    return message;
  }
};

struct Totals {
  /// Attention; other ops over the tokens; per-sample ops (adaLN vectors).
  double attentionFlops = 0, tokenFlops = 0, sampleFlops = 0;
  double params = 0, staleKV = 0;
  int64_t allToAlls = 0, combinedAllToAlls = 0, attentions = 0;
  /// Per tensor exchanged, alone or in a combined all-to-all.
  std::vector<int64_t> allToAllBytes;
};

Totals totals(ModuleOp module) {
  Totals t;
  module.walk([&](LayerOp layer) {
    t.staleKV += layerFootprint(layer, /*patches=*/true).kvCache;
    t.params += CostOpInterface(layer.getOperation()).getParameterBytes();
    layer.walk([&](Operation *op) {
      if (auto a2a = dyn_cast<AllToAllOp>(op)) {
        ++t.allToAlls;
        t.allToAllBytes.push_back(a2a.getCollectiveBytes());
        EXPECT_EQ(a2a.getGroup(), "sp");
        return;
      }
      if (auto a2a = dyn_cast<CombinedAllToAllOp>(op)) {
        ++t.combinedAllToAlls;
        for (Value input : a2a.getInputs())
          t.allToAllBytes.push_back(getTensorBytes(input.getType()));
        EXPECT_EQ(a2a.getGroup(), "sp");
        return;
      }
      auto cost = dyn_cast<CostOpInterface>(op);
      if (!cost || isa<LayerOp>(op))
        return;
      if (isa<AttentionOp>(op)) {
        ++t.attentions;
        t.attentionFlops += cost.getFlops();
      } else if (llvm::any_of(op->getResultTypes(), [](Type type) {
                   return cast<RankedTensorType>(type).getRank() == 3;
                 })) {
        t.tokenFlops += cost.getFlops();
      } else {
        t.sampleFlops += cost.getFlops();
      }
    });
  });
  return t;
}

TEST_F(ShardSequenceTest, AllToAllsMoveWhatAChipHolds) {
  OwningOpRef<ModuleOp> module = plan("v5e-4", 1, 4);
  ASSERT_TRUE(module);
  Totals t = totals(*module);
  EXPECT_EQ(t.attentions, 28);
  // Q, K and V in one combined all-to-all, the output in its own.
  EXPECT_EQ(t.combinedAllToAlls, 28);
  EXPECT_EQ(t.allToAlls, 28);
  EXPECT_EQ(t.allToAllBytes.size(), 4u * 28);
  // Q, K, V and the output on one chip: batch 2 x 256/4 tokens x 1152
  // features x 2 bytes = 294,912 bytes each; every chip sends 3/4 of them.
  for (int64_t bytes : t.allToAllBytes)
    EXPECT_EQ(bytes, 2 * 64 * 1152 * 2);
  ParallelAttr parallel = getParallel(*module);
  ASSERT_TRUE(parallel);
  EXPECT_EQ(parallel.getSp(), 4);
  EXPECT_EQ(parallel.getTp(), 1);
}

TEST_F(ShardSequenceTest, WorkSplitsWeightsDoNot) {
  Totals whole = totals(*import("v5e-4"));
  for (int64_t sp : {2, 4}) {
    Totals part = totals(*plan("v5e-4", 1, sp));
    // Attention by heads, the rest by tokens; per-sample vectors (adaLN)
    // are computed whole on every chip.
    EXPECT_DOUBLE_EQ(part.attentionFlops * sp, whole.attentionFlops) << sp;
    EXPECT_DOUBLE_EQ(part.tokenFlops * sp, whole.tokenFlops) << sp;
    EXPECT_DOUBLE_EQ(part.sampleFlops, whole.sampleFlops) << sp;
    // Ulysses replicates the weights; the stale K/V of heads/sp heads.
    EXPECT_DOUBLE_EQ(part.params, whole.params) << sp;
    EXPECT_DOUBLE_EQ(part.staleKV * sp, whole.staleKV) << sp;
  }
  // With tp = 2 first, tp x sp chips share the work; the weights are what
  // tp alone leaves.
  Totals both = totals(*plan("v5e-4", 2, 2));
  Totals tpOnly = totals(*plan("v5e-4", 2, 1));
  EXPECT_DOUBLE_EQ(both.attentionFlops * 4, whole.attentionFlops);
  EXPECT_DOUBLE_EQ(both.tokenFlops * 2, tpOnly.tokenFlops);
  EXPECT_DOUBLE_EQ(both.params, tpOnly.params);
}

TEST_F(ShardSequenceTest, TheAllToAllIsPricedByItsClosedForm) {
  OwningOpRef<ModuleOp> module = plan("v5e-4", 1, 4);
  ASSERT_TRUE(module);
  TargetDesc desc = getTarget(*module).getDesc();
  CostModel model(desc);
  // sp = 4 fills v5e-4's 2x2 block, a ring of neighbours.
  SmallVector<GroupAxis> axes =
      stageGroupAxes(desc, desc.topologies.front(), /*tp=*/1, /*sp=*/4,
                     /*stages=*/1)
          .sequence;
  ASSERT_EQ(axes.size(), 2u);
  EXPECT_TRUE(CostModel::isRing(axes));
  // CostModel.h: an all-to-all of V bytes per chip loads each axis of k
  // chips (a line: k/4 of V on its busiest link, k - 1 hops), the axes at
  // once. The 2x2 block's two axes of 2: sync + 2 hops + V / 2 over a link
  // at the ring's efficiency (the block closes a ring).
  double v = 2 * 64 * 1152 * 2;
  double w = desc.calibration.ringEfficiency * desc.linkBandwidth;
  double expected = desc.calibration.collectiveSync + 2 * desc.hopLatency +
                    v * (2.0 / 4.0) / w;
  EXPECT_NEAR(model.collectiveTime(CollectiveKind::AllToAll, axes, v),
              expected, 1e-12);
  // LayerSliceCost prices the layer's two all-to-alls on those axes (q, k
  // and v combined: one fixed cost for the three, V / 2 each; the
  // output's): the layer's time with them minus without them.
  func::FuncOp fn = *module->getOps<func::FuncOp>().begin();
  LayerOp layer = *fn.getOps<LayerOp>().begin();
  double with = LayerSliceCost(layer, model, {}, 256, axes).seconds(256, 0);
  double without = LayerSliceCost(layer, model, {}, 256, {}).seconds(256, 0);
  double fixed = desc.calibration.collectiveSync + 2 * desc.hopLatency;
  EXPECT_NEAR(model.collectiveTime(CollectiveKind::AllToAll, axes, 3 * v),
              fixed + 3 * v * (2.0 / 4.0) / w, 1e-12);
  EXPECT_NEAR(with - without, 2 * fixed + 4 * v * (2.0 / 4.0) / w, 1e-12);
  EXPECT_LT(with - without, 4 * expected);
}

TEST_F(ShardSequenceTest, PredictionMatchesTheSimulator) {
  // PipeFusion x Ulysses x CFG within 2%, with tensor parallelism too:
  // the placement gives the cost model the sp group's real route.
  struct Case { int64_t tp, sp, stages, dp; };
  for (Case c : {Case{1, 2, 2, 2}, Case{1, 4, 2, 1}, Case{2, 2, 2, 1}}) {
    PlanRequest request;
    request.problem.model = "dit-xl-2";
    request.problem.topology = "v5e-8";
    request.problem.import.resolution = 256;
    request.problem.import.steps = 4;
    request.layout.tp = c.tp;
    request.layout.sp = c.sp;
    request.layout.stages = c.stages;
    request.layout.dataParallel = c.dp;
    PlanOptions options;
    options.simulate = Simulation::Always;
    PlanOutcome outcome = planAndSimulate(request.problem, request.layout.complete(), context, options);
    ASSERT_EQ(outcome.failure, "") << c.tp << " " << c.sp;
    ASSERT_TRUE(outcome.simulated);
    EXPECT_NEAR(outcome.simulated->makespan / outcome.predicted, 1.0, 0.02)
        << "tp " << c.tp << " sp " << c.sp;
    // Every chip of the slice runs a program.
    EXPECT_EQ(int64_t(outcome.simulated->chips.size()),
              c.tp * c.sp * c.stages * c.dp);
  }
}

TEST_F(ShardSequenceTest, InvalidDegreesNameTheValidOnes) {
  // 16 heads and 256 tokens: the divisors of 16 that tile 8 chips.
  EXPECT_EQ(error("v5e-8", 1, 3),
            "cannot split the sequence 3 ways: sp = 3 does not divide the 256 "
            "tokens each layer sees; valid sequence-parallel degrees on v5e-8 "
            "with tp = 1: 1, 2, 4, 8");
  // With tp = 8 each chip holds 2 heads.
  EXPECT_EQ(error("v5e-16", 8, 4),
            "cannot split the sequence 4 ways: sp = 4 does not divide the 2 "
            "heads and 2 KV heads this attention holds per chip; valid "
            "sequence-parallel degrees on v5e-16 with tp = 8: 1, 2");
  OwningOpRef<ModuleOp> module = import("v5e-8");
  EXPECT_EQ(validSequenceParallelDegrees(*module, 16),
            (SmallVector<int64_t>{1, 2, 4, 8, 16}));
}

TEST_F(ShardSequenceTest, TheSearchTriesSpWhereTheWeightsCanFit) {
  auto onTarget = [&](OwningOpRef<ModuleOp> &module, StringRef topology) {
    TargetAttr target = cantFail(materializeTarget(&context, topology));
    (*module)->setAttr(kTargetAttrName, target);
    return target.getDesc().hbmBytes;
  };
  // DiT-XL/2 at 256 px: attention is a small share of the work (which
  // once ruled sp out); its 16 heads and 256 tokens allow 2, 4 and 8.
  OwningOpRef<ModuleOp> dit = import("v5e-8");
  double hbm = onTarget(dit, "v5e-8");
  SequenceDegrees small = searchedSequenceDegrees(*dit, 8, hbm);
  EXPECT_EQ(small.valid, (SmallVector<int64_t>{1, 2, 4, 8}));
  // LLaMA-3.1-8B (16.1 GB of weights) on v5e-8: sp 8 leaves one stage,
  // which cannot hold them; sp 4 x 2 stages can (8 GB a chip).
  ImportOptions llm;
  llm.seqLen = 2048;
  auto llama = importModel("llama3.1-8b", llm, &context);
  ASSERT_TRUE(llama);
  hbm = onTarget(llama, "v5e-8");
  SequenceDegrees fits = searchedSequenceDegrees(*llama, 8, hbm);
  EXPECT_GT(fits.weightBytes, hbm);
  EXPECT_LT(fits.weightBytes / 2, hbm);
  EXPECT_EQ(fits.valid, (SmallVector<int64_t>{1, 2, 4}));
  EXPECT_FALSE(fits.weightsCanFit(1, 8));
  EXPECT_TRUE(fits.weightsCanFit(2, 4));
  // Wan 2.1 1.3B at 480p, 81 frames: 32,760 tokens; its 12 heads allow
  // sp 1, 2, 4 on 16 chips (3 and 6 do not tile them).
  ImportOptions options;
  options.frames = 81;
  options.height = 480;
  options.width = 832;
  auto wan = importModel("wan21-t2v-1-3b", options, &context);
  ASSERT_TRUE(wan);
  hbm = onTarget(wan, "v5e-16");
  SequenceDegrees large = searchedSequenceDegrees(*wan, 16, hbm);
  EXPECT_EQ(large.valid, (SmallVector<int64_t>{1, 2, 4}));
  PlanRequest request;
  EXPECT_EQ(large.forTp(1, request.layout), (SmallVector<int64_t>{1, 2, 4}));
  // A searched tp > 1 is not mixed with sp > 1; a fixed one is, as far as
  // the heads allow (12 heads: tp 2 x sp 2, not tp 2 x sp 4).
  EXPECT_EQ(large.forTp(2, request.layout), (SmallVector<int64_t>{1}));
  request.layout.tp = 2;
  EXPECT_EQ(large.forTp(2, request.layout), (SmallVector<int64_t>{1, 2}));
  request.layout.sp = 4;
  EXPECT_EQ(large.forTp(2, request.layout), (SmallVector<int64_t>{4}));
}

} // namespace
