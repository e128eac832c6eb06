//===- OpRulesTest.cpp - the data an op states about itself ---------------===//
//
// Each op's slice terms (how its cost scales with a token slice) and its
// sharding rule (the factors of its tensors), against what the op's
// definition says: the figures written out by hand from LoomOps.td.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Dialect/Loom/ModelCost.h"
#include "loom/Hardware/CostModel.h"

#include "CostOpFixture.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace loom;

namespace {

class OpRulesTest : public CostOpFixture {
protected:
  /// The sharding rule of the first op named `name` in `body`.
  OpShardingRule ruleOf(llvm::StringRef body, llvm::StringRef name) {
    return cast<ShardingRuleOpInterface>(parseOp(body, name).getOperation())
        .getShardingRule();
  }
};

/// Causal grouped-query attention: 4 query heads of 16 over 2 KV heads, 8
/// tokens.
constexpr const char *kCausalGQA = R"(
    (%q: tensor<1x8x64xbf16>, %k: tensor<1x8x32xbf16>) {
      %a = loom.attention %q, %k, %k {heads = 4, kv_heads = 2, head_dim = 16, causal}
          : tensor<1x8x64xbf16>, tensor<1x8x32xbf16> -> tensor<1x8x64xbf16>
      return
    })";

const TargetDesc &v5e() { return *lookupTarget("tpu-v5e"); }

llvm::SmallVector<SliceTerm> termsOf(CostOpInterface op) {
  CostModel model(v5e());
  llvm::SmallVector<SliceTerm> terms;
  op.getSliceTerms(model, terms);
  return terms;
}

TEST_F(OpRulesTest, ProjectionScalesWithTheSliceButItsWeights) {
  CostOpInterface op = parseOp(R"(
    (%x: tensor<2x16x64xbf16>) {
      %y = loom.linear up %x : tensor<2x16x64xbf16> -> tensor<2x16x256xbf16>
      return
    })", "loom.linear");
  auto terms = termsOf(op);
  ASSERT_EQ(terms.size(), 1u);
  EXPECT_EQ(terms[0].kind, SliceTerm::Kind::Compute);
  EXPECT_TRUE(terms[0].scales);
  // The 64 x 256 bf16 weights every slice reads; the input and output
  // tokens follow the slice.
  EXPECT_EQ(terms[0].fixedBytes, 64 * 256 * 2);
  EXPECT_EQ(terms[0].tokenBytes, (2 * 16 * 64 + 2 * 16 * 256) * 2);
}

TEST_F(OpRulesTest, CausalAttentionScalesByPairs) {
  CostOpInterface op = parseOp(kCausalGQA, "loom.attention");
  auto terms = termsOf(op);
  ASSERT_EQ(terms.size(), 1u);
  const SliceTerm &term = terms[0];
  EXPECT_EQ(term.kind, SliceTerm::Kind::CausalAttention);
  // QK^T and PV, 2 x 16 (padded to the MXU's 128) FLOPs each, per pair
  // and query head: 4 heads x 2 x 2 x 128.
  EXPECT_EQ(term.pairFlops, 4 * 2 * 2 * 128);
  // K and V of one cached token: 2 KV heads of 16, bf16.
  EXPECT_EQ(term.contextBytes, 2 * 32 * 2);
  EXPECT_EQ(term.batchHeads, 4);
}

TEST_F(OpRulesTest, CollectiveAndGatherAreTheirOwnLaws) {
  CostOpInterface reduce = parseOp(R"(
    (%x: tensor<1x8x64xbf16>) {
      %y = loom.all_reduce %x {group = "tp", group_size = 2} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
      return
    })", "loom.all_reduce");
  auto terms = termsOf(reduce);
  ASSERT_EQ(terms.size(), 1u);
  EXPECT_EQ(terms[0].kind, SliceTerm::Kind::Collective);
  // A token tensor: all of its bytes follow the slice.
  EXPECT_EQ(terms[0].tokenBytes, 8 * 64 * 2);
  EXPECT_EQ(terms[0].fixedBytes, 0);
}

TEST_F(OpRulesTest, ProjectionRuleSumsOverItsInputFeatures) {
  OpShardingRule rule = ruleOf(R"(
    (%x: tensor<2x16x64xbf16>) {
      %y = loom.linear down %x : tensor<2x16x64xbf16> -> tensor<2x16x32xbf16>
      return
    })", "loom.linear");
  EXPECT_EQ(rule.sizeOf(FactorKind::Batch), 2);
  EXPECT_EQ(rule.sizeOf(FactorKind::Sequence), 16);
  EXPECT_EQ(rule.sizeOf(FactorKind::FF), 64);
  EXPECT_EQ(rule.sizeOf(FactorKind::Model), 32);
  EXPECT_TRUE(rule.reduces(FactorKind::FF));
  EXPECT_FALSE(rule.reduces(FactorKind::Model));
  EXPECT_FALSE(rule.has(FactorKind::Heads));
}

TEST_F(OpRulesTest, AttentionRuleNamesItsHeadsAndKeys) {
  OpShardingRule rule = ruleOf(kCausalGQA, "loom.attention");
  EXPECT_EQ(rule.sizeOf(FactorKind::Heads), 4);
  EXPECT_EQ(rule.sizeOf(FactorKind::KVHeads), 2);
  EXPECT_EQ(rule.sizeOf(FactorKind::HeadDim), 16);
  // Self-attention sums over the sequence's keys; K and V carry them.
  EXPECT_TRUE(rule.reduces(FactorKind::Sequence));
  EXPECT_EQ(rule.operandsWith(FactorKind::KVHeads),
            (llvm::SmallVector<unsigned>{1, 2}));
  std::string text;
  llvm::raw_string_ostream os(text);
  os << rule;
  EXPECT_EQ(text, "([i, m, j*l], [i, n, k*l], [i, n, k*l])->([i, m, j*l]) "
                  "{i=1 batch, j=4 heads, k=2 kv_heads, l=16 head_dim, "
                  "m=8 sequence, n=8 sequence reduction}");
}

TEST_F(OpRulesTest, CrossAttentionKeysAreTheContext) {
  OpShardingRule rule = ruleOf(R"(
    (%q: tensor<1x8x64xbf16>, %t: tensor<1x4x64xbf16>) {
      %a = loom.attention %q, %t, %t {heads = 4, kv_heads = 4, head_dim = 16, cross}
          : tensor<1x8x64xbf16>, tensor<1x4x64xbf16> -> tensor<1x8x64xbf16>
      return
    })", "loom.attention");
  EXPECT_FALSE(rule.reduces(FactorKind::Sequence));
  EXPECT_TRUE(rule.reduces(FactorKind::Context));
}

TEST_F(OpRulesTest, AttentionKeysSplitWithTheirHeads) {
  OpShardingRule rule = ruleOf(kCausalGQA, "loom.attention");
  EXPECT_TRUE(rule.isAttention());
  EXPECT_TRUE(rule.headsSplitKeys());
  EXPECT_FALSE(rule.has(FactorKind::Cached));
}

TEST_F(OpRulesTest, DecodeAttentionSumsOverItsCache) {
  OpShardingRule rule = ruleOf(R"(
    (%x: tensor<1x1x128xbf16>) {
      %a = loom.attention %x, %x, %x {heads = 2, kv_heads = 2, head_dim = 64, causal, cached = 255}
          : tensor<1x1x128xbf16>, tensor<1x1x128xbf16> -> tensor<1x1x128xbf16>
      return
    })", "loom.attention");
  EXPECT_TRUE(rule.reduces(FactorKind::Cached));
  EXPECT_EQ(rule.sizeOf(FactorKind::Cached), 255);
  // The cache is the op's state: no operand carries it.
  EXPECT_TRUE(rule.operandsWith(FactorKind::Cached).empty());
}

TEST_F(OpRulesTest, LatentAttentionKeysAreSharedByEveryHead) {
  OpShardingRule rule = ruleOf(R"(
    (%q: tensor<2x8x96xbf16>, %c: tensor<2x8x40xbf16>) {
      %a = loom.latent_attention %q, %c {heads = 4, kv_lora_rank = 32, qk_nope_head_dim = 16, qk_rope_head_dim = 8, v_head_dim = 16, causal}
          : tensor<2x8x96xbf16>, tensor<2x8x40xbf16> -> tensor<2x8x64xbf16>
      return
    })", "loom.latent_attention");
  EXPECT_TRUE(rule.isAttention());
  EXPECT_FALSE(rule.headsSplitKeys());
  EXPECT_EQ(rule.sizeOf(FactorKind::Heads), 4);
  EXPECT_EQ(rule.sizeOf(FactorKind::Latent), 40);
  EXPECT_TRUE(rule.reduces(FactorKind::Latent));
  EXPECT_TRUE(rule.reduces(FactorKind::Sequence));
  EXPECT_FALSE(rule.has(FactorKind::KVHeads));
  EXPECT_TRUE(rule.operandHas(0, FactorKind::Heads));
  EXPECT_FALSE(rule.operandHas(1, FactorKind::Heads));
}

/// A MoE layer of 8 experts 48 wide over 16 tokens, two copies each.
constexpr const char *kMoE = R"(
    (%h: tensor<1x16x64xbf16>) {
      %b = loom.moe_route %h {experts = 8, top_k = 2} : tensor<1x16x64xbf16> -> tensor<1x32x64xbf16>
      %e = loom.moe_experts %b {experts = 8, top_k = 2, expert_inter = 48, tokens = 16} : tensor<1x32x64xbf16>
      %c = loom.moe_combine %e : tensor<1x32x64xbf16> -> tensor<1x16x64xbf16>
      return
    })";

TEST_F(OpRulesTest, ExpertsRuleHoldsExpertsOverASummedWidth) {
  OpShardingRule rule = ruleOf(kMoE, "loom.moe_experts");
  EXPECT_EQ(rule.sizeOf(FactorKind::Experts), 8);
  EXPECT_FALSE(rule.reduces(FactorKind::Experts));
  EXPECT_EQ(rule.sizeOf(FactorKind::FF), 48);
  EXPECT_TRUE(rule.reduces(FactorKind::FF));
  // The rows keep their buffer's layout: groups first, d_model last.
  EXPECT_TRUE(rule.operandHas(0, FactorKind::ExpertGroups));
  EXPECT_TRUE(rule.resultHas(0, FactorKind::ExpertGroups));
  EXPECT_EQ(rule.sizeOf(FactorKind::ExpertGroups), 1);
  EXPECT_FALSE(rule.isAttention());
}

TEST_F(OpRulesTest, RouterAndCombineMoveTokensThroughTheBuffer) {
  OpShardingRule route = ruleOf(kMoE, "loom.moe_route");
  EXPECT_EQ(route.sizeOf(FactorKind::Experts), 8);
  EXPECT_FALSE(route.has(FactorKind::FF));
  EXPECT_TRUE(route.operandHas(0, FactorKind::Sequence));
  EXPECT_FALSE(route.operandHas(0, FactorKind::ExpertGroups));
  EXPECT_TRUE(route.resultHas(0, FactorKind::ExpertGroups));
  EXPECT_FALSE(route.resultHas(0, FactorKind::Sequence));

  OpShardingRule combine = ruleOf(kMoE, "loom.moe_combine");
  EXPECT_FALSE(combine.has(FactorKind::Experts));
  EXPECT_TRUE(combine.operandHas(0, FactorKind::ExpertGroups));
  EXPECT_FALSE(combine.resultHas(0, FactorKind::ExpertGroups));
  EXPECT_EQ(combine.sizeOf(FactorKind::Sequence), 16);
}

} // namespace
