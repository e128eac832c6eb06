//===- ShardHeadsTest.cpp - invariants of head-wise sharding --------------===//
//
// For every bundled model and every valid degree N in {1, 2, 4, 8, 16}:
// - each op is either split N ways (its FLOPs and parameters are 1/N of the
//   unsharded op's) or replicated (equal), with the documented exceptions
//   spelled out below: a row split's bias, K/V replication, vocabulary
//   padding; so FLOPs over the N chips = unsharded FLOPs + (N - 1) x the
//   replicated FLOPs, and per-chip parameters = split / N + replicated;
// - each all-reduce carries batch x tokens x hidden x 2 bytes (Megatron-LM,
//   Shoeybi et al. 2019, section 3), and a decoder layer has two;
// - with sequence parallelism, each all-reduce of a layer becomes a
//   reduce-scatter and an all-gather of the same bytes.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Loom/ModuleTarget.h"
#include "loom/Import/ModelImporter.h"
#include "loom/Transforms/ShardHeads.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace loom;

namespace {

bool isCommunication(Operation *op) {
  return isa<CollectiveOpInterface, LocalShardOp>(op);
}

/// The ops whose costs are compared: everything but layers (they are sums)
/// and the communication the pass adds.
std::vector<CostOpInterface> computeOps(ModuleOp module) {
  std::vector<CostOpInterface> ops;
  module.walk([&](CostOpInterface op) {
    if (!isa<LayerOp, YieldOp>(op) && !isCommunication(op))
      ops.push_back(op);
  });
  return ops;
}

struct Totals {
  int64_t flops = 0, params = 0;
};

class ShardHeadsTest : public ::testing::TestWithParam<const char *> {
protected:
  OwningOpRef<ModuleOp> import() {
    ImportOptions options;
    // Short sequences keep the test fast; the counts scale the same way.
    if (StringRef(GetParam()).starts_with("llama") ||
        StringRef(GetParam()).starts_with("gpt"))
      options.seqLen = 256;
    else if (StringRef(GetParam()) != "dit-xl-2")
      options.resolution = 512;
    auto module = importModel(GetParam(), options, &context);
    EXPECT_TRUE(module);
    if (module)
      (*module)->setAttr(kTargetAttrName,
                         cantFail(materializeTarget(&context, "v5e-16")));
    return module;
  }

  MLIRContext context;
};

TEST_P(ShardHeadsTest, SplitOrReplicatedAndMegatronBytes) {
  OwningOpRef<ModuleOp> reference = import();
  std::vector<CostOpInterface> before = computeOps(*reference);
  for (int64_t tp : {1, 2, 4, 8, 16}) {
    OwningOpRef<ModuleOp> module = import();
    SmallVector<int64_t> valid = validTensorParallelDegrees(*module, 16, false);
    if (!llvm::is_contained(valid, tp))
      continue;
    HeadShardingOptions options;
    options.tp = tp;
    ASSERT_TRUE(succeeded(shardHeads(*module, options))) << tp;
    std::vector<CostOpInterface> after = computeOps(*module);
    ASSERT_EQ(before.size(), after.size()) << "the pass only adds collectives";

    Totals unsharded, local, replicated;
    int64_t paddingParams = 0, kvExtraFlops = 0, kvExtraParams = 0;
    int64_t kvParts = 1;
    llvm::DenseSet<Value> kvReplicated;
    for (auto [u, s] : llvm::zip(before, after)) {
      ASSERT_EQ(u->getName(), s->getName());
      unsharded.flops += u.getFlops();
      unsharded.params += u.getParameterCount();
      local.flops += s.getFlops();
      local.params += s.getParameterCount();
      auto how = s->getAttrOfType<SplitAttr>("loom.split");
      if (auto linear = dyn_cast<LinearOp>(s.getOperation());
          linear && how && how.getKind() == SplitKind::row) {
        // The bias is added once, after the reduction: replicated.
        int64_t rows = linear.getRows(), out = linear.getOutFeatures();
        int64_t bias = linear.getBias() ? out : 0;
        EXPECT_EQ(s.getFlops() - rows * bias, (u.getFlops() - rows * bias) / tp);
        EXPECT_EQ(s.getParameterCount() - bias,
                  (u.getParameterCount() - bias) / tp);
        replicated.flops += rows * bias;
        replicated.params += bias;
      } else if ((how && how.getReplicas() > 1) ||
                 (isa<RoPEOp>(s.getOperation()) &&
                  kvReplicated.contains(s->getOperand(0)))) {
        // K/V heads fewer than chips: kv_heads pieces, each on r chips; the
        // RoPE of K follows its projection.
        kvReplicated.insert(s->getResult(0));
        int64_t parts = how ? how.getParts() : kvParts;
        kvParts = parts;
        EXPECT_EQ(s.getFlops() * parts, u.getFlops())
            << s->getName().getStringRef().str() << " tp=" << tp;
        kvExtraFlops += tp * s.getFlops() - u.getFlops();
        kvExtraParams += tp * s.getParameterCount() - u.getParameterCount();
      } else if (how && how.getKind() == SplitKind::vocab) {
        // Padded up to a multiple of tp rows.
        int64_t pad = tp * s.getParameterCount() - u.getParameterCount();
        paddingParams += pad;
        int64_t rowWidth =
            isa<EmbedOp>(s.getOperation())
                ? cast<RankedTensorType>(s->getResult(0).getType()).getShape().back()
                : cast<LinearOp>(s.getOperation()).getInFeatures();
        EXPECT_LT(pad, tp * rowWidth) << "fewer than tp padded rows";
      } else if (auto norm = dyn_cast<RMSNormOp>(s.getOperation());
                 norm && norm.getGroup() && s.getFlops() != u.getFlops()) {
        // Per-head QK norm on local heads: the work splits, the one
        // head_dim-sized scale every head shares is replicated.
        EXPECT_EQ(s.getFlops() * tp, u.getFlops());
        EXPECT_EQ(s.getParameterCount(), u.getParameterCount());
        replicated.params += u.getParameterCount();
      } else if (how || s.getFlops() != u.getFlops()) {
        EXPECT_EQ(s.getFlops() * tp, u.getFlops()) << s->getName().getStringRef().str();
        EXPECT_EQ(s.getParameterCount() * tp, u.getParameterCount()) << s->getName().getStringRef().str();
      } else {
        EXPECT_EQ(s.getParameterCount(), u.getParameterCount()) << s->getName().getStringRef().str();
        replicated.flops += u.getFlops();
        replicated.params += u.getParameterCount();
      }
    }
    // FLOPs over the group = unsharded + (tp - 1) x replicated (+ K/V
    // replication, + the vocabulary's padded rows' work, which is 0 in an
    // embedding and counted in the LM head's padding below).
    int64_t paddingFlops = tp * local.flops - unsharded.flops -
                           (tp - 1) * replicated.flops - kvExtraFlops;
    EXPECT_GE(paddingFlops, 0) << tp;
    EXPECT_LE(paddingFlops, unsharded.flops / 100) << tp;
    // Per-chip parameters = split / tp + replicated.
    int64_t split = unsharded.params - replicated.params;
    EXPECT_EQ(tp * local.params,
              split + tp * replicated.params + paddingParams + kvExtraParams)
        << tp;

    // Megatron's all-reduce: batch x tokens x hidden x 2 bytes.
    int64_t perLayer = -1;
    module->walk([&](LayerOp layer) {
      int64_t count = 0;
      layer.walk([&](AllReduceOp ar) {
        ArrayRef<int64_t> shape = ar.getInput().getType().getShape();
        ASSERT_EQ(shape.size(), 3u);
        EXPECT_EQ(getTensorBytes(ar.getInput().getType()),
                  shape[0] * shape[1] * shape[2] * 2);
        ++count;
      });
      if (perLayer < 0)
        perLayer = count;
    });
    bool decoderOrDiT = StringRef(GetParam()).starts_with("llama") ||
                        StringRef(GetParam()).starts_with("gpt") ||
                        StringRef(GetParam()) == "dit-xl-2";
    if (tp > 1 && decoderOrDiT) {
      EXPECT_EQ(perLayer, 2) << "two all-reduces per layer";
    }
  }
}

TEST_P(ShardHeadsTest, SequenceParallelTradesAllReducesForPairs) {
  for (int64_t tp : {2, 4, 8}) {
    OwningOpRef<ModuleOp> plain = import(), sp = import();
    if (!llvm::is_contained(validTensorParallelDegrees(*sp, 16, true), tp))
      continue;
    HeadShardingOptions options;
    options.tp = tp;
    ASSERT_TRUE(succeeded(shardHeads(*plain, options)));
    options.sequenceParallel = true;
    ASSERT_TRUE(succeeded(shardHeads(*sp, options)));
    auto firstLayer = [](ModuleOp m) {
      LayerOp first;
      m.walk([&](LayerOp l) {
        if (!first)
          first = l;
      });
      return first;
    };
    LayerOp a = firstLayer(*plain), b = firstLayer(*sp);
    int64_t allReduces = 0, allReduceBytes = 0;
    a.walk([&](AllReduceOp op) {
      ++allReduces;
      allReduceBytes += getTensorBytes(op.getInput().getType());
    });
    int64_t scatters = 0, gathers = 0, scatterBytes = 0, inLayerReduces = 0;
    b.walk([&](Operation *op) {
      if (auto rs = dyn_cast<ReduceScatterOp>(op)) {
        ++scatters;
        scatterBytes += getTensorBytes(rs.getInput().getType());
      }
      if (auto ag = dyn_cast<AllGatherOp>(op); ag && ag.getDim() == 1u)
        ++gathers;
      inLayerReduces += isa<AllReduceOp>(op);
    });
    EXPECT_EQ(inLayerReduces, 0);
    EXPECT_EQ(scatters, allReduces) << tp;
    EXPECT_GE(gathers, allReduces) << tp;
    EXPECT_EQ(scatterBytes, allReduceBytes) << tp;
  }
}

INSTANTIATE_TEST_SUITE_P(BundledModels, ShardHeadsTest,
                         ::testing::Values("llama-7b", "llama-65b",
                                           "llama2-70b", "gpt3-175b",
                                           "dit-xl-2",
                                           "pixart-alpha-xl-2-1024",
                                           "sd3-medium", "flux-dev"),
                         [](const auto &info) {
                           std::string name = info.param;
                           for (char &c : name)
                             if (!isalnum(c))
                               c = '_';
                           return name;
                         });

} // namespace
