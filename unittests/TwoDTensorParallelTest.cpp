//===- TwoDTensorParallelTest.cpp - 2-D weight-stationary tp --------------===//
//
// Issue 19, item 2: the 2-D block's sub-rings on the mesh, their
// collectives on loom-sim against a closed form worked by hand from the
// target's figures, the communication the layout moves (by shapes), and a
// planned 2-D layout's prediction against its simulation.
//
//===----------------------------------------------------------------------===//

#include "loom/Hardware/CostModel.h"
#include "loom/Hardware/DeviceMesh.h"
#include "loom/Import/ModelImporter.h"
#include "loom/InitAll.h"
#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Dialect/Loom/ModuleTarget.h"
#include "loom/Plan/Planner.h"
#include "loom/Plan/Report.h"
#include "loom/Sim/Simulator.h"
#include "loom/Transforms/ShardHeads.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>

using namespace mlir;
using namespace loom;

namespace {

const TargetDesc &v5e() { return *lookupTarget("tpu-v5e"); }

const TopologyDesc &topologyOf(StringRef name) {
  for (const TopologyDesc &t : v5e().topologies)
    if (t.name == name)
      return t;
  ADD_FAILURE() << "no topology " << name.str();
  return v5e().topologies.front();
}

double relative(double a, double b) { return std::fabs(a - b) / b; }

// Every rank is in one column (tp_x) and one row (tp_y) sub-group of its
// block, of the block's extent, consecutive members one hop apart.
TEST(TwoDMesh, SubGroupsAreTheBlocksRowsAndColumnsInOrder) {
  CostModel model(v5e());
  for (auto [name, tp, rows] :
       {std::tuple<StringRef, int64_t, int64_t>{"v5e-16", 16, 4},
        {"v5e-16", 8, 2}, {"v5e-64", 16, 2}, {"v5e-64", 32, 4}}) {
    const TopologyDesc &topology = topologyOf(name);
    MeshShape shape{1, topology.numChips() / tp, tp};
    shape.tensorRows = rows;
    auto mesh = DeviceMesh::build(v5e(), topology, shape);
    ASSERT_TRUE(bool(mesh)) << llvm::toString(mesh.takeError());
    EXPECT_EQ(mesh->tensorParallelBlock()[0], rows);
    EXPECT_EQ(mesh->tensorParallelBlock()[1], tp / rows);
    for (unsigned axis : {0u, 1u}) {
      std::set<std::vector<int64_t>> groups;
      for (int64_t r = 0; r < tp; ++r) {
        SmallVector<int64_t> group = mesh->tensorParallelSubGroup(r, axis);
        EXPECT_EQ(int64_t(group.size()), axis == 0 ? rows : tp / rows);
        EXPECT_TRUE(llvm::is_contained(group, r));
        for (size_t i = 0; i + 1 < group.size(); ++i) {
          ChipCoord a = mesh->chip(0, 0, group[i]);
          ChipCoord b = mesh->chip(0, 0, group[i + 1]);
          EXPECT_EQ(model.hops(topology.shape, {a[0], a[1]}, {b[0], b[1]}), 1)
              << name.str() << " tp " << tp << " axis " << axis;
        }
        groups.insert(std::vector<int64_t>(group.begin(), group.end()));
      }
      // The sub-groups partition the block.
      EXPECT_EQ(int64_t(groups.size()), axis == 0 ? tp / rows : rows);
    }
  }
  // A block the topology cannot hold is refused, naming it.
  MeshShape wide{1, 1, 16};
  wide.tensorRows = 2;
  auto refused = DeviceMesh::build(v5e(), topologyOf("v5e-16"), wide);
  ASSERT_FALSE(bool(refused));
  EXPECT_NE(llvm::toString(refused.takeError()).find("2 x 8"),
            std::string::npos);
}

// On v5e-16 (4x4, no wraparound) the four columns of a 4 x 4 block each
// all-reduce B bytes at once: every column is a line of 4 chips, so by hand
// each takes sync + 2 (n - 1) hops + 2 (n - 1) / n B over one link at the
// line's efficiency. The four rows at the same time use the other links:
// no slower.
TEST(TwoDSim, SubGroupAllReducesMatchTheLineClosedForm) {
  const TargetDesc &target = v5e();
  CostModel model(target);
  const double bytes = 3.2e7;
  const int64_t n = 4;
  double byHand = target.calibration.collectiveSync +
                  2 * (n - 1) * target.hopLatency +
                  2.0 * (n - 1) / n * bytes /
                      (model.linkEfficiency(/*ring=*/false) *
                       target.linkBandwidth);
  auto program = [&](bool rowsToo) {
    schedule::Schedule s;
    s.targetName = "tpu-v5e";
    s.shape = {4, 4};
    for (int64_t id = 0; id < 16; ++id)
      s.chips.push_back({id, {}});
    auto collective = [&](int64_t chip, SmallVector<int64_t, 4> group,
                          int64_t tag) {
      auto &tasks = s.chips[chip].tasks;
      schedule::Task t;
      t.kind = schedule::TaskKind::Collective;
      t.collective = CollectiveKind::AllReduce;
      t.group.assign(group.begin(), group.end());
      t.bytes = int64_t(bytes);
      t.tag = tag;
      tasks.push_back(t);
    };
    for (int64_t id = 0; id < 16; ++id) {
      int64_t row = id / 4, col = id % 4;
      collective(id, {col, 4 + col, 8 + col, 12 + col}, col);
      if (rowsToo)
        collective(id, {4 * row, 4 * row + 1, 4 * row + 2, 4 * row + 3},
                   100 + row);
      auto &tasks = s.chips[id].tasks;
      for (int64_t k = 0, e = int64_t(tasks.size()); k < e; ++k) {
        schedule::Task done;
        done.kind = schedule::TaskKind::CollectiveDone;
        done.start = k;
        tasks.push_back(done);
      }
    }
    auto result = sim::simulate(target, s, /*recordTrace=*/false);
    EXPECT_TRUE(bool(result)) << llvm::toString(result.takeError());
    return result ? result->makespan - result->dispatch : 0.0;
  };
  double columns = program(false);
  EXPECT_LT(relative(columns, byHand), 0.02) << columns << " vs " << byHand;
  // The cost model prices a tp_x collective on the block's row axis alone.
  EXPECT_LT(relative(model.collectiveTime(CollectiveKind::AllReduce,
                                          {{4, false}}, bytes),
                     byHand),
            1e-9);
  double both = program(true);
  EXPECT_LT(relative(both, columns), 0.02) << both << " vs " << columns;
}

struct TwoDPlan : public ::testing::Test {
  TwoDPlan() : context(registry()) { context.loadAllAvailableDialects(); }
  static DialectRegistry registry() {
    DialectRegistry registry;
    registerAllDialects(registry);
    return registry;
  }
  MLIRContext context;
};

// The bytes each chip's layer moves, by shape alone (LLaMA-7B, tp 8 as a
// 2 x 4 block): over tp_x the partial sums of q, k, v (E / Y wide each,
// reduce-scattered by heads), the attention's output gathered back (E / Y),
// gate and up (F / Y each, reduce-scattered by d_ff), the SwiGLU's output
// gathered back (F / Y) and two norms' statistics (2 wide); over tp_y the
// outputs of o and down (E / X each). 1-D at tp 8 moves o's and down's
// whole E over all 8.
TEST_F(TwoDPlan, TheLayerMovesWhatTheBlockSplits) {
  ImportOptions options;
  options.batch = 1;
  options.seqLen = 256;
  auto module = importModel("llama-7b", options, &context);
  ASSERT_TRUE(module);
  auto target = materializeTarget(&context, "v5e-16", "");
  ASSERT_TRUE(bool(target)) << llvm::toString(target.takeError());
  (*module)->setAttr(kTargetAttrName, *target);
  HeadShardingOptions shard;
  shard.tp = 8;
  shard.tpX = 2;
  ASSERT_TRUE(succeeded(shardHeads(*module, shard)));
  double x = 0, y = 0;
  // Link traffic in units of one gather's bytes: an all-reduce is a
  // reduce-scatter and an all-gather.
  double xTraffic = 0;
  std::map<std::string, int> xKinds;
  LayerOp first;
  module->walk([&](LayerOp layer) {
    if (!first)
      first = layer;
  });
  ASSERT_TRUE(first);
  first.walk([&](CollectiveOpInterface c) {
    (c.getGroup() == kTensorXGroup ? x : y) += c.getCollectiveBytes();
    if (c.getGroup() == kTensorXGroup) {
      bool sum = c.getCollectiveKind() == CollectiveKind::AllReduce;
      xTraffic += (sum ? 2 : 1) * c.getCollectiveBytes();
      ++xKinds[c->getName().stripDialect().str()];
    }
    EXPECT_TRUE(c.getGroup() == kTensorXGroup || c.getGroup() == kTensorYGroup)
        << c.getGroup().str();
  });
  const double E = 4096, F = 11008, X = 2, Y = 4, tokens = 256, bf16 = 2;
  // (q, k and v reduce-scattered by heads, the attention's output gathered
  // back: 8 heads a row split 2 ways.)
  EXPECT_DOUBLE_EQ(x, (3 * E / Y + E / Y + 3 * F / Y + 2 * 2) * tokens * bf16);
  EXPECT_DOUBLE_EQ(y, 2 * E / X * tokens * bf16);
  // The MLP's traffic over tp_x: 3 F / Y where all-reducing gate and up
  // took 2 x 2 F / Y.
  EXPECT_DOUBLE_EQ(xTraffic,
                   (4 * E / Y + 3 * F / Y + 2 * 2 * 2) * tokens * bf16);
  // One combined collective for q, k and v and one for gate and up; the
  // two gathers back and the two norms' statistics.
  EXPECT_EQ(xKinds["combined_reduce_scatter"], 2);
  EXPECT_EQ(xKinds["reduce_scatter"], 0);
  EXPECT_EQ(xKinds["all_gather"], 2);
  EXPECT_EQ(xKinds["all_reduce"], 2);
  // The SwiGLU runs once on each chip's F / (X Y).
  first.walk([&](SwiGLUOp swiglu) {
    EXPECT_EQ(cast<RankedTensorType>(swiglu.getType()).getShape().back(),
              int64_t(F / (X * Y)));
  });
}

// With sequence parallelism over the block's rows (tp_y) a layer moves the
// same link traffic over tp_y as without (o's and down's all-reduces
// become reduce-scatters over the sequence and the two norms' outputs are
// gathered back: 4 E / X of L tokens either way), and its norms'
// statistics over tp_x are Y times smaller (L / Y tokens each).
TEST_F(TwoDPlan, SequenceParallelRowsMoveTheSameTraffic) {
  auto traffic = [&](bool sp) {
    ImportOptions options;
    options.batch = 1;
    options.seqLen = 256;
    auto module = importModel("llama-7b", options, &context);
    EXPECT_TRUE(module);
    auto target = materializeTarget(&context, "v5e-16", "");
    EXPECT_TRUE(bool(target)) << llvm::toString(target.takeError());
    (*module)->setAttr(kTargetAttrName, *target);
    HeadShardingOptions shard;
    shard.tp = 8;
    shard.tpX = 2;
    shard.sequenceParallel = sp;
    EXPECT_TRUE(succeeded(shardHeads(*module, shard)));
    std::map<std::string, double> bytes;
    LayerOp first;
    module->walk([&](LayerOp layer) {
      if (!first)
        first = layer;
    });
    first.walk([&](CollectiveOpInterface c) {
      bool sum = c.getCollectiveKind() == CollectiveKind::AllReduce;
      bool stats = cast<RankedTensorType>(c->getOperand(0).getType())
                       .getShape()
                       .back() == 2;
      bytes[c.getGroup().str() + (stats ? "-stats" : "")] +=
          (sum ? 2 : 1) * c.getCollectiveBytes();
    });
    return bytes;
  };
  auto whole = traffic(false), rows = traffic(true);
  const double E = 4096, X = 2, Y = 4, tokens = 256, bf16 = 2;
  EXPECT_DOUBLE_EQ(whole["tp_y"], 4 * E / X * tokens * bf16);
  EXPECT_DOUBLE_EQ(rows["tp_y"], whole["tp_y"]);
  EXPECT_DOUBLE_EQ(rows["tp_x-stats"], whole["tp_x-stats"] / Y);
  EXPECT_DOUBLE_EQ(rows["tp_x"], whole["tp_x"]);
}

// loom-plan's 2-D layout: named, lowered and simulated; the prediction
// within 2% of loom-sim (with sequence parallelism over the rows too).
TEST_F(TwoDPlan, PredictionAgreesWithTheSimulation) {
  for (auto [topology, tp, rows, stages, sp] :
       {std::tuple<StringRef, int64_t, int64_t, int64_t, bool>{"v5e-16", 16, 4,
                                                               1, false},
        {"v5e-16", 8, 2, 2, false},
        {"v5e-16", 16, 4, 1, true},
        {"v5e-16", 8, 2, 2, true}}) {
    PlanRequest request;
    request.problem.model = "llama-7b";
    request.problem.topology = topology.str();
    request.layout.tp = tp;
    request.layout.tpX = rows;
    if (rows > 1)
      request.layout.tpLayout = TensorLayout::TwoD;
    request.layout.stages = stages;
    request.layout.sequenceParallel = sp;
    PlanOptions options;
    options.simulate = Simulation::Always;
    PlanOutcome plan = planAndSimulate(request.problem, request.layout.complete(), context, options);
    ASSERT_EQ(plan.failure, "");
    ASSERT_TRUE(plan.simulated.has_value());
    EXPECT_NE(planName(plan).find(fmt::format("2-D {} x {}", rows, tp / rows)),
              std::string::npos)
        << planName(plan);
    EXPECT_LT(relative(plan.predicted, plan.simulated->makespan), 0.02)
        << planName(plan) << ": predicted " << plan.predicted << ", simulated "
        << plan.simulated->makespan;
  }
}

} // namespace
