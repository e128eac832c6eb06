//===- TrainingTest.cpp - the training step's gradients and optimizers ----===//
//
// - A dense layer's backward pass is twice its forward (dX = dY W^T and
//   dW = X^T dY, each the forward's matmul: Kaplan et al. 2020, 2N FLOPs
//   per token forward and 4N backward), split into its input and weight
//   parts; flash attention's is 2.5 times (FlashAttention-2: five matmuls
//   to two).
// - Every bundled model's training step derives and verifies, and its
//   backward pass costs between 2 and 2.5 times its forward.
// - The optimizers' state and update traffic follow their update rules.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Dialect/Loom/ModelCost.h"
#include "loom/Import/ModelImporter.h"
#include "loom/Transforms/Passes.h"
#include "loom/Transforms/ShardHeads.h"

#include "SmallWorkload.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace loom;

namespace {

/// The first op of type T in `module`.
template <typename T>
T first(ModuleOp module) {
  T found;
  module.walk([&](T op) {
    if (!found)
      found = op;
  });
  return found;
}

class TrainingTest : public ::testing::Test {
protected:
  TrainingTest() {
    context.loadDialect<LoomDialect, func::FuncDialect>();
  }

  OwningOpRef<ModuleOp> parse(StringRef text) {
    return parseSourceString<ModuleOp>(text, &context);
  }

  LogicalResult derive(ModuleOp module) {
    PassManager pm(&context);
    pm.addPass(createDeriveTrainingStep());
    return pm.run(module);
  }

  /// FLOPs of the gradients of the op that defines `forward`, by part.
  static std::pair<int64_t, int64_t> gradientFlops(ModuleOp module,
                                                   Operation *forward) {
    int64_t input = 0, weight = 0;
    module.walk([&](GradOp grad) {
      if (grad.getForwardOp().getOperation() != forward)
        return;
      (grad.getPart() == GradientPart::Input ? input : weight) +=
          grad.getFlops();
    });
    return {input, weight};
  }

  MLIRContext context;
};

TEST_F(TrainingTest, ADenseLayerBackwardIsTwiceItsForward) {
  auto module = parse(R"mlir(
    func.func @dense(%x: tensor<4x128x1024xbf16>) -> tensor<4x128x4096xbf16> {
      %y = loom.linear up %x : tensor<4x128x1024xbf16> -> tensor<4x128x4096xbf16>
      %z = loom.activation gelu %y : tensor<4x128x4096xbf16>
      return %z : tensor<4x128x4096xbf16>
    })mlir");
  ASSERT_TRUE(module);
  LinearOp linear = first<LinearOp>(*module);
  int64_t forward = linear.getFlops();
  // 2 x tokens x in x out.
  EXPECT_EQ(forward, int64_t(2) * 4 * 128 * 1024 * 4096);
  // Its input is the function's (data): only the weight part is built.
  ASSERT_TRUE(succeeded(derive(*module)));
  ASSERT_TRUE(succeeded(verify(*module)));
  auto [input, weight] = gradientFlops(*module, linear);
  EXPECT_EQ(input, 0);
  EXPECT_EQ(weight, forward);

  // Inside a layer every input carries a cotangent: both parts, each the
  // forward's matmul.
  auto layered = parse(R"mlir(
    func.func @dense(%x: tensor<4x128x1024xbf16>) -> tensor<4x128x1024xbf16> {
      %0 = loom.layer 0 (%x) : (tensor<4x128x1024xbf16>) -> tensor<4x128x1024xbf16> {
      ^bb0(%in: tensor<4x128x1024xbf16>):
        %y = loom.linear up %in : tensor<4x128x1024xbf16> -> tensor<4x128x4096xbf16>
        %z = loom.linear down %y : tensor<4x128x4096xbf16> -> tensor<4x128x1024xbf16>
        loom.yield %z : tensor<4x128x1024xbf16>
      }
      return %0 : tensor<4x128x1024xbf16>
    })mlir");
  ASSERT_TRUE(layered);
  ASSERT_TRUE(succeeded(derive(*layered)));
  ASSERT_TRUE(succeeded(verify(*layered)));
  LayerOp layer = first<LayerOp>(*layered);
  LayerGradOp grad = first<LayerGradOp>(*layered);
  EXPECT_EQ(grad.getFlops(), 2 * layer.getFlops());
  // The kept forward copies cost nothing in the backward pass.
  int64_t parts = 0;
  grad.walk([&](GradOp g) {
    EXPECT_EQ(g.getFlops(), cast<CostOpInterface>(g.getForwardOp()
                                                      .getOperation())
                                .getFlops());
    ++parts;
  });
  EXPECT_EQ(parts, 4); // two projections, an input and a weight part each
}

// A head tied to the embedding has no parameters of its own, but its
// backward pass is still two matmuls of its size on the MXU (dX = dY E and
// dE += dY^T X, added to the embedding table's gradient), and an int8
// projection's run at the int8 rate as its forward does.
TEST_F(TrainingTest, ATiedHeadAndAnInt8ProjectionKeepTheirMatmuls) {
  auto module = parse(R"mlir(
    func.func @lm(%ids: tensor<2x128xi32>) -> tensor<2x128x1000xbf16> {
      %e = loom.embed %ids {vocab = 1000 : i64} : tensor<2x128xi32> -> tensor<2x128x256xbf16>
      %0 = loom.layer 0 (%e) : (tensor<2x128x256xbf16>) -> tensor<2x128x256xbf16> {
      ^bb0(%in: tensor<2x128x256xbf16>):
        %y = loom.linear up %in {compute_type = i8, weight_type = i8} : tensor<2x128x256xbf16> -> tensor<2x128x256xbf16>
        loom.yield %y : tensor<2x128x256xbf16>
      }
      %logits = loom.linear lm_head %0 {tied} : tensor<2x128x256xbf16> -> tensor<2x128x1000xbf16>
      return %logits : tensor<2x128x1000xbf16>
    })mlir");
  ASSERT_TRUE(module);
  ASSERT_TRUE(succeeded(derive(*module)));
  ASSERT_TRUE(succeeded(verify(*module)));
  LinearOp head, up;
  module->walk([&](LinearOp linear) {
    if (linear->getParentOfType<LayerGradOp>())
      return;
    (linear.getTied() ? head : up) = linear;
  });
  ASSERT_TRUE(head && up);
  EXPECT_EQ(head.getParameterCount(), 0);
  auto [input, weight] = gradientFlops(*module, head);
  EXPECT_EQ(input, head.getFlops());
  EXPECT_EQ(weight, head.getFlops());
  module->walk([&](GradOp grad) {
    Operation *forward = grad.getForwardOp().getOperation();
    if (forward == head.getOperation()) {
      // On the MXU, not the vector unit; the weight part writes the whole
      // table's gradient (1000 x 256 bf16).
      EXPECT_EQ(getVectorOps(grad), 0);
      if (grad.getPart() == GradientPart::Weight)
        EXPECT_EQ(grad.getBytesWritten(), 1000 * 256 * 2);
    }
    if (auto linear = dyn_cast<LinearOp>(forward);
        linear && linear.getRole() == LinearRole::up)
      EXPECT_EQ(grad.getComputeBits(), 8u);
  });
}

TEST_F(TrainingTest, FlashAttentionBackwardIsTwoAndAHalfTimesItsForward) {
  auto module = parse(R"mlir(
    func.func @attn(%x: tensor<1x256x512xbf16>) -> tensor<1x256x512xbf16> {
      %0 = loom.layer 0 (%x) : (tensor<1x256x512xbf16>) -> tensor<1x256x512xbf16> {
      ^bb0(%in: tensor<1x256x512xbf16>):
        %a = loom.attention %in, %in, %in {heads = 4, kv_heads = 4, head_dim = 128, causal} : tensor<1x256x512xbf16>, tensor<1x256x512xbf16> -> tensor<1x256x512xbf16>
        loom.yield %a : tensor<1x256x512xbf16>
      }
      return %0 : tensor<1x256x512xbf16>
    })mlir");
  ASSERT_TRUE(module);
  ASSERT_TRUE(succeeded(derive(*module)));
  int64_t forward = 0, backward = 0;
  module->walk([&](GradOp grad) {
    if (auto attn = dyn_cast<AttentionOp>(grad.getForwardOp().getOperation())) {
      forward = attn.getFlops();
      backward += grad.getFlops();
    }
  });
  ASSERT_GT(forward, 0);
  EXPECT_EQ(backward * 2, forward * 5);
}

TEST_F(TrainingTest, EveryBundledModelDerivesItsTrainingStep) {
  for (const BundledModel &bundled : getBundledModels()) {
    SCOPED_TRACE(bundled.name.str());
    OwningOpRef<ModuleOp> module =
        test::importSmallWorkload(bundled.name, context);
    ASSERT_TRUE(module);
    int64_t forward = 0;
    for (auto func : module->getOps<func::FuncOp>())
      for (Operation &op : func.getBody().front())
        if (auto cost = dyn_cast<CostOpInterface>(op))
          forward += cost.getFlops();
    ASSERT_TRUE(succeeded(derive(*module)));
    ASSERT_TRUE(succeeded(verify(*module)));
    int64_t backward = 0, updates = 0;
    for (auto func : module->getOps<func::FuncOp>())
      for (Operation &op : func.getBody().front()) {
        if (isa<LayerGradOp, GradOp>(op) &&
            !isa<LossOp>(op.getNumOperands()
                             ? op.getOperand(0).getDefiningOp()
                             : nullptr))
          backward += cast<CostOpInterface>(op).getFlops();
        updates += isa<OptimizerUpdateOp>(op);
      }
    // Matmuls twice their forward, flash attention 2.5 times, vector work
    // twice; the inputs of the first ops are data, so a little less.
    EXPECT_GT(double(backward), 1.9 * forward);
    EXPECT_LE(double(backward), 2.5 * forward);
    EXPECT_GT(updates, 1);
  }
}

/// A GPT-3 layer as Korthikanti et al. count it (MLSys 2023, section 4.1):
/// s tokens of b sequences, hidden h, a heads; dropout after the attention
/// probabilities, the attention's projection and the MLP; the scores
/// materialised.
constexpr int64_t kS = 128, kB = 2, kH = 256, kA = 4;
constexpr const char *kGptLayer = R"mlir(
  func.func @gpt(%x: tensor<2x128x256xbf16>) -> tensor<2x128x256xbf16> {
    %0 = loom.layer 0 (%x) {kind = "gpt"} : (tensor<2x128x256xbf16>) -> tensor<2x128x256xbf16> {
    ^bb0(%in: tensor<2x128x256xbf16>):
      %ln1 = loom.layer_norm %in : tensor<2x128x256xbf16>
      %q = loom.linear q %ln1 {bias} : tensor<2x128x256xbf16> -> tensor<2x128x256xbf16>
      %k = loom.linear k %ln1 {bias} : tensor<2x128x256xbf16> -> tensor<2x128x256xbf16>
      %v = loom.linear v %ln1 {bias} : tensor<2x128x256xbf16> -> tensor<2x128x256xbf16>
      %a = loom.attention %q, %k, %v {heads = 4, kv_heads = 4, head_dim = 64, causal, materialized_scores, dropout = 0.1} : tensor<2x128x256xbf16>, tensor<2x128x256xbf16> -> tensor<2x128x256xbf16>
      %o = loom.linear o %a {bias} : tensor<2x128x256xbf16> -> tensor<2x128x256xbf16>
      %d1 = loom.dropout %o {rate = 0.1} : tensor<2x128x256xbf16>
      %r1 = loom.add %in, %d1 : tensor<2x128x256xbf16>, tensor<2x128x256xbf16>
      %ln2 = loom.layer_norm %r1 : tensor<2x128x256xbf16>
      %f1 = loom.linear fc1 %ln2 {bias} : tensor<2x128x256xbf16> -> tensor<2x128x1024xbf16>
      %g = loom.activation gelu %f1 : tensor<2x128x1024xbf16>
      %f2 = loom.linear fc2 %g {bias} : tensor<2x128x1024xbf16> -> tensor<2x128x256xbf16>
      %d2 = loom.dropout %f2 {rate = 0.1} : tensor<2x128x256xbf16>
      %r2 = loom.add %r1, %d2 : tensor<2x128x256xbf16>, tensor<2x128x256xbf16>
      loom.yield %r2 : tensor<2x128x256xbf16>
    }
    return %0 : tensor<2x128x256xbf16>
  })mlir";

/// The GPT layer's backward pass, sharded `tp` ways with sequence
/// parallelism (1: not sharded) under rematerialisation `policy`.
LayerGradOp rematerialised(MLIRContext &context, OwningOpRef<ModuleOp> &module,
                           int64_t tp, StringRef policy) {
  module = parseSourceString<ModuleOp>(kGptLayer, &context);
  EXPECT_TRUE(module);
  PassManager pm(&context);
  if (tp > 1) {
    SetTargetOptions target;
    target.topology = "v5e-" + std::to_string(tp);
    pm.addPass(createSetTarget(target));
    ShardHeadsOptions shard;
    shard.tp = tp;
    shard.sequenceParallel = true;
    pm.addPass(createShardHeads(shard));
  }
  pm.addPass(createDeriveTrainingStep());
  RematOptions remat;
  remat.policy = policy.str();
  pm.addPass(createRemat(remat));
  EXPECT_TRUE(succeeded(pm.run(*module)));
  EXPECT_TRUE(succeeded(verify(*module)));
  return first<LayerGradOp>(*module);
}

/// What the GPT layer keeps for its backward pass (rematerialised's
/// arguments).
int64_t keptBytes(MLIRContext &context, int64_t tp, StringRef policy) {
  OwningOpRef<ModuleOp> module;
  return rematerialised(context, module, tp, policy).getKeptBytes();
}

TEST_F(TrainingTest, ActivationsKeptFollowKorthikanti) {
  // 34 sbh + 5 a s^2 b bytes per layer without recomputation.
  int64_t sbh = kS * kB * kH, as2b = kA * kS * kS * kB;
  EXPECT_EQ(keptBytes(context, 1, "none"), 34 * sbh + 5 * as2b);
  // Tensor and sequence parallelism divide all of it by t.
  EXPECT_EQ(keptBytes(context, 4, "none"), (34 * sbh + 5 * as2b) / 4);
  // Selective recomputation keeps no score-sized tensor: 34 sbh / t.
  EXPECT_EQ(keptBytes(context, 1, "selective"), 34 * sbh);
  EXPECT_EQ(keptBytes(context, 4, "selective"), 34 * sbh / 4);
  // Full recomputation keeps the layer's input: 2 sbh (/ t).
  EXPECT_EQ(keptBytes(context, 1, "full"), 2 * sbh);
  EXPECT_EQ(keptBytes(context, 4, "full"), 2 * sbh / 4);
}

TEST_F(TrainingTest, OffloadedPoliciesKeepTheirNamesInHostMemory) {
  int64_t sbh = kS * kB * kH;
  OwningOpRef<ModuleOp> module;
  // qkv_proj_offloaded: q, k and v (2 sbh bytes each) in host memory; the
  // layer's input in HBM, every other op recomputed.
  LayerGradOp qkv = rematerialised(context, module, 1, "qkv_proj_offloaded");
  EXPECT_EQ(qkv.getOffloadedBytes(), 6 * sbh);
  EXPECT_EQ(qkv.getKeptBytes(), 8 * sbh);
  // minimal_offloaded: every projection's output (q, k, v, o and fc2: 2 sbh
  // each; fc1: 8 sbh) in host memory.
  LayerGradOp minimal = rematerialised(context, module, 1, "minimal_offloaded");
  EXPECT_EQ(minimal.getOffloadedBytes(), 18 * sbh);
  EXPECT_EQ(minimal.getKeptBytes(), 20 * sbh);
  // The same names kept in HBM keep the same bytes, none offloaded.
  LayerGradOp inHbm = rematerialised(context, module, 1, "minimal");
  EXPECT_EQ(inHbm.getOffloadedBytes(), 0);
  EXPECT_EQ(inHbm.getKeptBytes(), 20 * sbh);
  // Tensor and sequence parallelism divide it by t.
  LayerGradOp sharded = rematerialised(context, module, 4, "qkv_proj_offloaded");
  EXPECT_EQ(sharded.getOffloadedBytes(), 6 * sbh / 4);
}

TEST(Optimizers, StateFollowsTheUpdateRule) {
  WeightShape matrix{4096, 11008}, vector{1, 4096}, small{64, 4096};
  int64_t elements = 4096 * 11008 + 4096 + 64 * 4096;
  // AdamW: m and v for every parameter.
  EXPECT_EQ(getOptimizerStateElements(Optimizer::AdamW,
                                      {matrix, vector, small}),
            2 * elements);
  // SGD with momentum: one buffer.
  EXPECT_EQ(getOptimizerStateElements(Optimizer::SGD, {matrix, vector, small}),
            elements);
  // Adafactor: a large matrix's row and column statistics; a vector's and a
  // matrix with a side under 128 keep their full second moment.
  EXPECT_EQ(getOptimizerStateElements(Optimizer::Adafactor,
                                      {matrix, vector, small}),
            (4096 + 11008) + 4096 + 64 * 4096);
}

TEST_F(TrainingTest, MixedPrecisionAdamWUpdateMovesItsState) {
  auto module = parse(R"mlir(
    func.func @f() {
      loom.optimizer_update {optimizer = #loom<optimizer adamw>, parameters = 1000 : i64, state_elements = 2000 : i64, state_type = f32, master_type = f32, weight_type = bf16, grad_type = bf16, vector_ops_per_parameter = 16 : i64}
      return
    })mlir");
  ASSERT_TRUE(module);
  auto update = first<OptimizerUpdateOp>(*module);
  // Reads the bf16 gradient (2), the fp32 master (4), m and v (8); writes
  // the master, the bf16 compute copy and m and v (4 + 2 + 8).
  EXPECT_EQ(update.getBytesRead(), 1000 * 14);
  EXPECT_EQ(update.getBytesWritten(), 1000 * 14);
  EXPECT_EQ(update.getFlops(), 16000);
}

} // namespace
