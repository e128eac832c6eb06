//===- MoECostTest.cpp - MoE and MLA costs against hand counts ------------===//
//
// Issue 17, item 2. Each expectation is written out from the op's
// definition (LoomMoEOps.td, docs/research/moe-families.md), not read back
// from the implementation.
//
//===----------------------------------------------------------------------===//

#include "loom/Analysis/LayerSliceCost.h"
#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Dialect/Loom/MoE.h"
#include "loom/Hardware/CostModel.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "CostOpFixture.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace mlir;
using namespace loom;

namespace {

class MoECostTest : public CostOpFixture {
protected:
  CostOpInterface experts(int64_t rows, int64_t tokens, int64_t ep = 1) {
    std::string type = "tensor<1x" + std::to_string(rows) + "x64xbf16>";
    return parseOp("(%b: " + type + ") {\n %y = loom.moe_experts %b {experts = 8, top_k = 2, expert_inter = 224, tokens = " +
                       std::to_string(tokens) + ", ep = " + std::to_string(ep) +
                       "} : " + type + "\n return\n }",
                   "loom.moe_experts");
  }
};

// One expert: gate, up (64 x 224 each) and down (224 x 64), bf16.
constexpr int64_t kExpertParams = 3 * 64 * 224;
constexpr int64_t kExpertBytes = kExpertParams * 2;

TEST_F(MoECostTest, RouterCountsItsMatmulAndWeights) {
  CostOpInterface op = parseOp(R"(
    (%h: tensor<1x16x64xbf16>) {
      %b = loom.moe_route %h {experts = 8, top_k = 2} : tensor<1x16x64xbf16> -> tensor<1x32x64xbf16>
      return
    })", "loom.moe_route");
  // 16 tokens x (64 x 8) router, two FLOPs per multiply-add.
  EXPECT_EQ(op.getFlops(), 2 * 16 * 64 * 8);
  EXPECT_EQ(op.getParameterCount(), 64 * 8);
  EXPECT_EQ(op.getBytesRead(), 16 * 64 * 2 + 64 * 8 * 2);
  EXPECT_EQ(op.getBytesWritten(), 32 * 64 * 2);
}

TEST_F(MoECostTest, SharedGateAddsAHiddenVector) {
  CostOpInterface op = parseOp(R"(
    (%h: tensor<1x16x64xbf16>) {
      %b = loom.moe_route %h {experts = 8, top_k = 2, shared_gate} : tensor<1x16x64xbf16> -> tensor<1x32x64xbf16>
      return
    })", "loom.moe_route");
  EXPECT_EQ(op.getParameterCount(), 64 * 8 + 64);
  EXPECT_EQ(op.getFlops(), 2 * 16 * 64 * 8 + 2 * 16 * 64);
}

TEST_F(MoECostTest, FlopsCountTheKActiveExpertsParametersAllOfThem) {
  // 16 tokens x top_k 2 = 32 rows, each through one expert.
  CostOpInterface op = experts(32, 16);
  EXPECT_EQ(op.getFlops(), 32 * (6 * 64 * 224 + 5 * 224));
  EXPECT_EQ(op.getParameterCount(), 8 * kExpertParams);
  EXPECT_EQ(op.getParameterBytes(), 8 * kExpertBytes);
}

TEST_F(MoECostTest, BytesReadCountTheExpertsABatchTouches) {
  // One token touches exactly its top_k = 2 experts: 8 (1 - (1 - 2/8)^1).
  EXPECT_EQ(experts(2, 1).getBytesRead(), 2 * 64 * 2 + 2 * kExpertBytes);
  // 16 tokens: 8 (1 - 0.75^16) = 7.92 experts in expectation.
  double touched = 8 * (1 - std::pow(0.75, 16));
  EXPECT_NEAR(touched, 7.9198, 1e-4);
  EXPECT_EQ(experts(32, 16).getBytesRead(),
            32 * 64 * 2 + std::llround(touched * kExpertBytes));
  // A long prefill touches every expert: the weights are read once.
  EXPECT_EQ(experts(4096, 2048).getBytesRead(),
            4096 * 64 * 2 + 8 * kExpertBytes);
}

TEST_F(MoECostTest, ExpertParallelChipHoldsItsShare) {
  // ep = 4: this chip holds 2 of the 8 experts.
  CostOpInterface op = experts(32, 16, 4);
  EXPECT_EQ(op.getParameterCount(), 2 * kExpertParams);
  // One token: each held expert is touched with probability 2/8.
  EXPECT_EQ(experts(2, 1, 4).getBytesRead(),
            2 * 64 * 2 + std::llround(2 * 0.25 * kExpertBytes));
}

TEST_F(MoECostTest, CombineWeighsEveryReturnedRow) {
  CostOpInterface op = parseOp(R"(
    (%b: tensor<1x32x64xbf16>) {
      %y = loom.moe_combine %b : tensor<1x32x64xbf16> -> tensor<1x16x64xbf16>
      return
    })", "loom.moe_combine");
  EXPECT_EQ(op.getFlops(), 2 * 32 * 64);
  EXPECT_EQ(op.getParameterCount(), 0);
}

TEST_F(MoECostTest, BusiestChipRows) {
  // Uniform: 256 tokens x 8 copies over 8 chips.
  EXPECT_DOUBLE_EQ(busiestChipRows(256, 8, 256, 8, 1.0), 256.0);
  // One chip holds all experts: every copy, whatever the imbalance.
  EXPECT_DOUBLE_EQ(busiestChipRows(256, 8, 256, 1, 2.0), 2048.0);
  // One expert per chip: the busiest expert's own load, 2 x 2048 / 256.
  EXPECT_DOUBLE_EQ(busiestChipRows(256, 8, 256, 256, 2.0), 16.0);
  // Mixtral, 8 experts on 4 chips, 2048 tokens x 2, hottest at 1.5x the
  // average 512: 768 + the other expert's (4096 - 768) / 7.
  EXPECT_DOUBLE_EQ(busiestChipRows(2048, 2, 8, 4, 1.5), 768 + 3328.0 / 7);
}

TEST_F(MoECostTest, LatentAttentionPrefillDecompresses) {
  CostOpInterface op = parseOp(R"(
    (%q: tensor<1x8x96xbf16>, %c: tensor<1x8x40xbf16>) {
      %a = loom.latent_attention %q, %c {heads = 4, kv_lora_rank = 32, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, causal} : tensor<1x8x96xbf16>, tensor<1x8x40xbf16> -> tensor<1x8x64xbf16>
      return
    })", "loom.latent_attention");
  // kv_b_proj: 8 tokens x 32 x 4 (16 + 16); causal pairs 8 x 9 / 2 = 36 per
  // head, scores over 16 + 8 and values over 16.
  EXPECT_EQ(op.getFlops(), 2 * 8 * 32 * 128 + 2 * 4 * 36 * (24 + 16));
  // kv_a_layernorm + kv_b_proj.
  EXPECT_EQ(op.getParameterCount(), 32 + 32 * 4 * 32);
  // The latent, 32 + 8 elements per token.
  EXPECT_EQ(op.getKVCacheBytes(), 8 * 40 * 2);
}

TEST_F(MoECostTest, LatentAttentionDecodeAbsorbs) {
  CostOpInterface op = parseOp(R"(
    (%q: tensor<2x1x96xbf16>, %c: tensor<2x1x40xbf16>) {
      %a = loom.latent_attention %q, %c {heads = 4, kv_lora_rank = 32, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, causal, cached = 128} : tensor<2x1x96xbf16>, tensor<2x1x40xbf16> -> tensor<2x1x64xbf16>
      return
    })", "loom.latent_attention");
  // Absorbed q (16 x 32 per head) and output (32 x 16 per head) for 2
  // tokens; 129 pairs per head and sample, scores over 32 + 8, values 32.
  EXPECT_EQ(op.getFlops(),
            2 * 2 * 4 * 16 * 32 + 2 * 2 * 4 * 32 * 16 + 2 * 2 * 4 * 129 * 72);
  EXPECT_EQ(op.getKVCacheBytes(), 2 * 129 * 40 * 2);
  // q, the new latent, the weights and the cached latent.
  EXPECT_EQ(op.getBytesRead(),
            2 * 96 * 2 + 2 * 40 * 2 + (32 + 32 * 4 * 32) * 2 + 2 * 128 * 40 * 2);
}

// --weights-dtype int8 / --activations-dtype int8 / --kv-dtype int8 reach
// the experts and MLA as they reach loom.linear and loom.attention: one byte
// per expert weight, per kv_b_proj weight and per cached latent element.
TEST_F(MoECostTest, Int8ExpertWeightsHalveTheirBytes) {
  CostOpInterface op = parseOp(R"(
    (%b: tensor<1x2x64xbf16>) {
      %y = loom.moe_experts %b {experts = 8, top_k = 2, expert_inter = 224, tokens = 1, weight_type = i8, compute_type = i8} : tensor<1x2x64xbf16>
      return
    })", "loom.moe_experts");
  EXPECT_EQ(op.getParameterCount(), 8 * kExpertParams);
  EXPECT_EQ(op.getParameterBytes(), 8 * kExpertParams);
  // The rows stay bf16; the 2 experts one token touches are read in int8.
  EXPECT_EQ(op.getBytesRead(), 2 * 64 * 2 + 2 * kExpertParams);
  // int8 x int8: the MXU's int8 rate.
  EXPECT_EQ(op.getComputeBits(), 8u);
  EXPECT_EQ(experts(2, 1).getComputeBits(), 16u);
}

TEST_F(MoECostTest, Int8LatentCacheAndProjection) {
  CostOpInterface op = parseOp(R"(
    (%q: tensor<2x1x96xbf16>, %c: tensor<2x1x40xbf16>) {
      %a = loom.latent_attention %q, %c {heads = 4, kv_lora_rank = 32, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, causal, cached = 128, weight_type = i8, kv_type = i8} : tensor<2x1x96xbf16>, tensor<2x1x40xbf16> -> tensor<2x1x64xbf16>
      return
    })", "loom.latent_attention");
  // The cached latent in one byte per element; kv_b_proj in int8, its norm
  // in bf16.
  EXPECT_EQ(op.getKVCacheBytes(), 2 * 129 * 40);
  EXPECT_EQ(op.getParameterBytes(), 32 * 2 + 32 * 4 * 32);
  EXPECT_EQ(op.getBytesRead(),
            2 * 96 * 2 + 2 * 40 * 2 + (32 * 2 + 32 * 4 * 32) + 2 * 128 * 40);
}

/// The works one chip runs for `op` alone on a slice of `length` tokens
/// after `context` (LayerSliceCost on v5e, MXU tile 128).
static SmallVector<SliceWork> sliceWorks(CostOpInterface op, int64_t tokens,
                                         int64_t length, int64_t context) {
  static CostModel model(*lookupTarget("tpu-v5e"));
  Operation *ops[] = {op.getOperation()};
  LayerSliceCost cost(ops, model, {}, tokens);
  SmallVector<SliceWork> works;
  cost.forEachWork(length, context,
                   [&](const SliceWork &work) { works.push_back(work); });
  return works;
}

// A slice of fewer tokens touches fewer experts: a decode token of a batch
// planned for 2048 reads its 2 experts' weights, not all 8.
TEST_F(MoECostTest, ASliceReadsTheExpertsItsTokensTouch) {
  CostOpInterface op = experts(4096, 2048);
  SmallVector<SliceWork> whole = sliceWorks(op, 2048, 2048, 0);
  ASSERT_EQ(whole.size(), 1u);
  EXPECT_DOUBLE_EQ(whole[0].fixedBytes, 8.0 * kExpertBytes);
  SmallVector<SliceWork> one = sliceWorks(op, 2048, 1, 2047);
  ASSERT_EQ(one.size(), 1u);
  EXPECT_NEAR(one[0].fixedBytes, 2.0 * kExpertBytes, 1e-6);
  // The rows follow the slice: 2 of 4096 rows of 64 bf16 elements, read
  // and written.
  EXPECT_NEAR(one[0].bytes - one[0].fixedBytes, 2 * 2 * 64 * 2, 1e-6);
  EXPECT_DOUBLE_EQ(touchedExperts(8, 2, 8, 16), 8 * (1 - std::pow(0.75, 16)));
}

// Multi-head latent attention runs as two kernels: kv_b_proj, then
// attention. Dimensions that pad differently on the 128-wide MXU: nope +
// rope 192 -> 256, v 128, rank + rope 320 -> 384, rank 256.
TEST_F(MoECostTest, LatentAttentionSlicesDecompressOrAbsorb) {
  CostOpInterface op = parseOp(R"(
    (%q: tensor<1x8x384xbf16>, %c: tensor<1x8x320xbf16>) {
      %a = loom.latent_attention %q, %c {heads = 2, kv_lora_rank = 256, qk_nope_head_dim = 128, qk_rope_head_dim = 64, v_head_dim = 128, causal} : tensor<1x8x384xbf16>, tensor<1x8x320xbf16> -> tensor<1x8x256xbf16>
      return
    })", "loom.latent_attention");
  double kvbProj = 256.0 * 2 * 256 * 2;  // kv_b_proj's bytes
  double latentToken = 320.0 * 2;        // a cached token's latent
  // The prompt: K and V decompressed for its 8 tokens (2 x 256 x 512 each),
  // then 36 causal pairs per head over K of 256 and V of 128 columns.
  SmallVector<SliceWork> prompt = sliceWorks(op, 8, 8, 0);
  ASSERT_EQ(prompt.size(), 2u);
  EXPECT_DOUBLE_EQ(prompt[0].flops, 2.0 * 8 * 256 * 512);
  EXPECT_DOUBLE_EQ(prompt[0].fixedBytes, kvbProj + 256 * 2);
  EXPECT_DOUBLE_EQ(prompt[1].flops, 2.0 * 2 * 36 * (256 + 128));
  // Its second half after the first: 4 x 4 + 10 pairs, and the first
  // half's K and V decompressed again from the cached latent.
  SmallVector<SliceWork> half = sliceWorks(op, 8, 4, 4);
  ASSERT_EQ(half.size(), 2u);
  EXPECT_DOUBLE_EQ(half[0].flops, 2.0 * 4 * 256 * 512);
  EXPECT_DOUBLE_EQ(half[1].flops,
                   2.0 * 2 * 26 * (256 + 128) + 4 * 2.0 * 256 * 512);
  // A decode token after 100: absorbed, 101 pairs per head over the latent
  // (scores 384, values 256 columns), reading the cached latent once for
  // both heads and writing its own.
  SmallVector<SliceWork> decode = sliceWorks(op, 8, 1, 100);
  ASSERT_EQ(decode.size(), 2u);
  EXPECT_DOUBLE_EQ(decode[1].flops, 2.0 * 2 * 101 * (384 + 256));
  double tensors = (384.0 + 320 + 256) * 2; // q, latent, result: a token's
  // (The new latent read as written, then stored in the cache.)
  EXPECT_DOUBLE_EQ(decode[1].bytes,
                   tensors + 100 * latentToken + 2 * latentToken);
}

} // namespace
