//===- ShardExpertsTest.cpp - invariants of expert parallelism ------------===//
//
// Issue 17, item 4, checked as ShardHeadsTest checks head-wise sharding:
// after loom-shard-heads (tp) and loom-shard-experts (ep), on Mixtral-8x7B
// (8 experts, top 2) and Qwen3-30B-A3B (128 experts, top 8):
// - every expert is held by exactly the chips its #loom.split says, each
//   chip holds experts / ep experts, and the pieces of each expert's width
//   add up to the whole;
// - the FLOPs of the experts over the tp chips are the unsharded FLOPs
//   (uniform routing), and the parameters the unsharded parameters;
// - each layer has two all-to-alls (dispatch, combine) of the busiest
//   chip's rows, computed by hand below;
// - degrees that do not divide the experts or the group are refused,
//   naming the valid ones.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Dialect/Loom/ModuleTarget.h"
#include "loom/Import/ModelImporter.h"
#include "loom/Transforms/ShardExperts.h"
#include "loom/Transforms/ShardHeads.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace mlir;
using namespace loom;

namespace {

class ShardExpertsTest : public ::testing::Test {
protected:
  OwningOpRef<ModuleOp> plan(StringRef model, StringRef topology, int64_t tp,
                             int64_t ep, double imbalance = 1.0) {
    ImportOptions options;
    options.seqLen = 256;
    options.expertImbalance = imbalance;
    auto module = importModel(model, options, &context);
    EXPECT_TRUE(module);
    if (!module)
      return module;
    (*module)->setAttr(kTargetAttrName,
                       cantFail(materializeTarget(&context, topology)));
    HeadShardingOptions heads;
    heads.tp = tp;
    EXPECT_TRUE(succeeded(shardHeads(*module, heads)));
    if (failed(shardExperts(*module, ep)))
      return nullptr;
    return module;
  }

  std::string error(StringRef model, StringRef topology, int64_t tp,
                    int64_t ep) {
    std::string message;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
      message = d.str();
      return success();
    });
    EXPECT_FALSE(plan(model, topology, tp, ep));
    return message;
  }

  MLIRContext context;
};

struct ExpertCosts {
  int64_t flops = 0, params = 0, layers = 0;
};

ExpertCosts expertCosts(ModuleOp module) {
  ExpertCosts c;
  module.walk([&](MoEExpertsOp experts) {
    c.flops += CostOpInterface(experts).getFlops();
    c.params += CostOpInterface(experts).getParameterCount();
    ++c.layers;
  });
  return c;
}

TEST_F(ShardExpertsTest, EachExpertOnTheChipsItsSplitSays) {
  for (auto [model, topology, degree] :
       {std::tuple{"mixtral-8x7b", "v5e-8", 8},
        std::tuple{"qwen3-30b-a3b", "v5e-8", 4}}) {
    int64_t tp = degree;
    ExpertCosts whole;
    {
      ImportOptions options;
      options.seqLen = 256;
      auto reference = importModel(model, options, &context);
      ASSERT_TRUE(reference);
      whole = expertCosts(*reference);
    }
    for (int64_t ep : validExpertParallelDegrees(
             *plan(model, topology, tp, 1), tp)) {
      OwningOpRef<ModuleOp> module = plan(model, topology, tp, ep);
      ASSERT_TRUE(module) << model << " ep " << ep;
      EXPECT_EQ(getParallel(*module).getEp(), ep);
      module->walk([&](MoEExpertsOp experts) {
        auto split = experts->getAttrOfType<SplitAttr>(kSplitAttrName);
        ASSERT_TRUE(split);
        int64_t e = experts.getExperts(), replicas = tp / ep;
        if (ep == 1) {
          // loom-shard-heads' layout: a 1/tp slice of every expert.
          EXPECT_EQ(split.getKind(), SplitKind::column);
          EXPECT_EQ(split.getParts(), tp);
        } else {
          EXPECT_EQ(split.getKind(), SplitKind::experts);
          EXPECT_EQ(split.getParts(), ep);
          EXPECT_EQ(split.getReplicas(), replicas);
        }
        EXPECT_EQ(experts.getLocalExperts(), e / ep);
        // Chip r holds experts [(r / replicas) * e/ep, ... + e/ep), each
        // with 1/replicas of its width: every expert is on exactly
        // `replicas` chips, whose pieces make the whole width.
        std::map<int64_t, std::set<int64_t>> chipsOf;
        for (int64_t r = 0; r < tp; ++r)
          for (int64_t i = 0; i < e / ep; ++i)
            chipsOf[(r / replicas) * (e / ep) + i].insert(r);
        EXPECT_EQ(int64_t(chipsOf.size()), e);
        for (auto &[expert, chips] : chipsOf)
          EXPECT_EQ(int64_t(chips.size()), replicas) << expert;
        int64_t hidden =
            cast<RankedTensorType>(experts.getInput().getType()).getDimSize(2);
        EXPECT_EQ(experts.getExpertInter() * replicas,
                  whole.params / whole.layers / e / 3 / hidden);
      });
      // Over the tp chips: the same FLOPs (uniform routing, no padding of
      // the buffer at these sizes) and the same parameters.
      ExpertCosts chip = expertCosts(*module);
      EXPECT_EQ(chip.params * tp, whole.params) << model << " ep " << ep;
      EXPECT_EQ(chip.flops * tp, whole.flops) << model << " ep " << ep;
    }
  }
}

/// All-to-all bytes per layer: dispatch and combine, each the chip's whole
/// buffer of [tp, capacity, hidden] bf16.
std::vector<int64_t> allToAllBytes(ModuleOp module) {
  std::vector<int64_t> bytes;
  module.walk([&](AllToAllOp a2a) {
    bytes.push_back(CollectiveOpInterface(a2a.getOperation()).getCollectiveBytes());
  });
  return bytes;
}

TEST_F(ShardExpertsTest, AllToAllBytesByHand) {
  // Mixtral, 256 tokens x top 2 = 512 copies; tp = ep = 8: a chip holds one
  // expert and receives 512 / 8 = 64 rows, 64 / 8 = 8 from each sender:
  // [8, 8, 4096] bf16 = 524,288 bytes, twice per layer, 32 layers.
  OwningOpRef<ModuleOp> module = plan("mixtral-8x7b", "v5e-8", 8, 8);
  ASSERT_TRUE(module);
  std::vector<int64_t> bytes = allToAllBytes(*module);
  EXPECT_EQ(bytes.size(), 2u * 32);
  for (int64_t b : bytes)
    EXPECT_EQ(b, 8 * 8 * 4096 * 2);
  // ep = 4 of tp = 8: two experts per chip, each split in two; the busiest
  // chip receives 2 x 64 = 128 rows, 16 from each of 8 senders.
  module = plan("mixtral-8x7b", "v5e-8", 8, 4);
  ASSERT_TRUE(module);
  EXPECT_EQ(allToAllBytes(*module).front(), 8 * 16 * 4096 * 2);
  // Imbalance 2 with one expert per chip: the busiest gets 2 x 64 = 128.
  module = plan("mixtral-8x7b", "v5e-8", 8, 8, 2.0);
  ASSERT_TRUE(module);
  EXPECT_EQ(allToAllBytes(*module).front(), 8 * 16 * 4096 * 2);
  // Imbalance 1.5, ep 4: 96 for the hottest expert plus its neighbour's
  // (512 - 96) / 7 = 59.4, 155.4 rows, ceil(155.4 / 8) = 20 per sender.
  module = plan("mixtral-8x7b", "v5e-8", 8, 4, 1.5);
  ASSERT_TRUE(module);
  EXPECT_EQ(allToAllBytes(*module).front(), 8 * 20 * 4096 * 2);
}

TEST_F(ShardExpertsTest, RefusesDegreesNamingTheValidOnes) {
  EXPECT_EQ(error("mixtral-8x7b", "v5e-16", 16, 16),
            "ep = 16 does not divide the 8 experts of this layer; valid "
            "degrees: 1, 2, 4, 8");
  EXPECT_EQ(error("mixtral-8x7b", "v5e-8", 8, 3),
            "ep = 3 must divide the tensor-parallel degree tp = 8 (experts "
            "are split over the chips of the tensor-parallel group; run "
            "loom-shard-heads first); valid degrees: 1, 2, 4, 8");
}

} // namespace
