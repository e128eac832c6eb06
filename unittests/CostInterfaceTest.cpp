//===- CostInterfaceTest.cpp - the cost interface against hand counts -----===//
//
// Each expectation is written out from the op's definition (LoomOps.td and
// docs/targets.md's cost accounting), not read back from the implementation.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Dialect/Loom/ModelCost.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "CostOpFixture.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace loom;

namespace {

using CostInterfaceTest = CostOpFixture;

TEST_F(CostInterfaceTest, LinearCountsMatmulWeightsAndBias) {
  CostOpInterface op = parseOp(R"(
    (%x: tensor<2x16x64xbf16>) {
      %y = loom.linear up %x {bias} : tensor<2x16x64xbf16> -> tensor<2x16x256xbf16>
      return
    })", "loom.linear");
  // 32 rows x 64 in x 256 out, two FLOPs per multiply-add, plus the bias add.
  EXPECT_EQ(op.getFlops(), 2 * 32 * 64 * 256 + 32 * 256);
  EXPECT_EQ(op.getParameterCount(), 64 * 256 + 256);
  EXPECT_EQ(op.getParameterBytes(), (64 * 256 + 256) * 2);
  // Input and weights in, output out (bf16).
  EXPECT_EQ(op.getBytesRead(), 2 * 16 * 64 * 2 + (64 * 256 + 256) * 2);
  EXPECT_EQ(op.getBytesWritten(), 2 * 16 * 256 * 2);
}

TEST_F(CostInterfaceTest, TiedLinearIsReadButNotCountedAgain) {
  CostOpInterface op = parseOp(R"(
    (%x: tensor<1x8x32xbf16>) {
      %y = loom.linear lm_head %x {tied} : tensor<1x8x32xbf16> -> tensor<1x8x100xbf16>
      return
    })", "loom.linear");
  EXPECT_EQ(op.getParameterCount(), 0);
  EXPECT_EQ(op.getBytesRead(), 8 * 32 * 2 + 32 * 100 * 2);
}

TEST_F(CostInterfaceTest, CausalAttentionVisitsHalfThePairs) {
  CostOpInterface op = parseOp(R"(
    (%q: tensor<1x8x64xbf16>, %k: tensor<1x8x32xbf16>) {
      %a = loom.attention %q, %k, %k {heads = 4, kv_heads = 2, head_dim = 16, causal}
          : tensor<1x8x64xbf16>, tensor<1x8x32xbf16> -> tensor<1x8x64xbf16>
      return
    })", "loom.attention");
  // Query i sees keys 1..i: 1 + 2 + ... + 8 = 36 pairs per head; QK^T and
  // PV each take 2 * head_dim FLOPs per pair.
  EXPECT_EQ(op.getFlops(), 4 * 1 * 4 * 16 * 36);
  // The cache keeps K and V of 8 tokens x 2 KV heads x 16 (bf16).
  EXPECT_EQ(op.getKVCacheBytes(), 2 * 8 * 32 * 2);
  EXPECT_EQ(op.getParameterCount(), 0);
}

TEST_F(CostInterfaceTest, CachedTokensAreAttendedAndRead) {
  CostOpInterface op = parseOp(R"(
    (%q: tensor<2x1x64xbf16>, %k: tensor<2x1x64xbf16>) {
      %a = loom.attention %q, %k, %k {heads = 4, kv_heads = 4, head_dim = 16, causal, cached = 100}
          : tensor<2x1x64xbf16>, tensor<2x1x64xbf16> -> tensor<2x1x64xbf16>
      return
    })", "loom.attention");
  // One decode query attends to 100 cached keys and itself.
  EXPECT_EQ(op.getFlops(), 4 * 2 * 4 * 16 * 101);
  // q, k, v of the new token plus K and V of 100 cached tokens.
  EXPECT_EQ(op.getBytesRead(), 3 * 2 * 1 * 64 * 2 + 2 * 2 * 100 * 64 * 2);
  EXPECT_EQ(op.getKVCacheBytes(), 2 * 2 * 101 * 64 * 2);
}

TEST_F(CostInterfaceTest, CrossAttentionIsFullAndKeepsNoCache) {
  CostOpInterface op = parseOp(R"(
    (%q: tensor<1x16x64xbf16>, %k: tensor<1x5x64xbf16>) {
      %a = loom.attention %q, %k, %k {heads = 4, kv_heads = 4, head_dim = 16, cross}
          : tensor<1x16x64xbf16>, tensor<1x5x64xbf16> -> tensor<1x16x64xbf16>
      return
    })", "loom.attention");
  EXPECT_EQ(op.getFlops(), 4 * 4 * 16 * (16 * 5));
  EXPECT_EQ(op.getKVCacheBytes(), 0);
}

TEST_F(CostInterfaceTest, JointAttentionSpansBothStreams) {
  CostOpInterface op = parseOp(R"(
    (%i: tensor<2x12x32xbf16>, %t: tensor<2x4x32xbf16>) {
      %a, %b = loom.joint_attention %i, %i, %i, %t, %t, %t {heads = 2, head_dim = 16}
          : tensor<2x12x32xbf16>, tensor<2x4x32xbf16>
      return
    })", "loom.joint_attention");
  // 16 tokens attend to 16 tokens, batch 2, 2 heads of 16.
  EXPECT_EQ(op.getFlops(), 4 * 2 * 2 * 16 * 16 * 16);
  EXPECT_EQ(op.getBytesWritten(), (2 * 12 * 32 + 2 * 4 * 32) * 2);
}

TEST_F(CostInterfaceTest, EmbeddingReadsOnlyTheLookedUpRows) {
  CostOpInterface op = parseOp(R"(
    (%ids: tensor<1x8xi32>) {
      %x = loom.embed %ids {vocab = 1000} : tensor<1x8xi32> -> tensor<1x8x16xbf16>
      return
    })", "loom.embed");
  EXPECT_EQ(op.getParameterCount(), 1000 * 16);
  EXPECT_EQ(op.getBytesRead(), 8 * 4 + 8 * 16 * 2);
  EXPECT_EQ(op.getFlops(), 0);
}

TEST_F(CostInterfaceTest, NormsPatchifyAndParams) {
  CostOpInterface ln = parseOp(R"(
    (%x: tensor<1x4x8xbf16>) {
      %y = loom.layer_norm %x : tensor<1x4x8xbf16>
      return
    })", "loom.layer_norm");
  EXPECT_EQ(ln.getParameterCount(), 2 * 8); // scale and shift
  CostOpInterface plain = parseOp(R"(
    (%x: tensor<1x4x8xbf16>) {
      %y = loom.layer_norm %x {affine = false} : tensor<1x4x8xbf16>
      return
    })", "loom.layer_norm");
  EXPECT_EQ(plain.getParameterCount(), 0);
  CostOpInterface qkNorm = parseOp(R"(
    (%x: tensor<1x4x64xbf16>) {
      %y = loom.rms_norm %x {group = 16} : tensor<1x4x64xbf16>
      return
    })", "loom.rms_norm");
  EXPECT_EQ(qkNorm.getParameterCount(), 16);
  CostOpInterface patch = parseOp(R"(
    (%x: tensor<2x4x8x8xbf16>) {
      %y = loom.patchify %x {patch_size = 2} : tensor<2x4x8x8xbf16> -> tensor<2x16x32xbf16>
      return
    })", "loom.patchify");
  // A 4x2x2 -> 32 convolution with bias.
  EXPECT_EQ(patch.getParameterCount(), 4 * 2 * 2 * 32 + 32);
  // 32 tokens: the matmul plus a bias add and a position add per output.
  EXPECT_EQ(patch.getFlops(), 2 * 32 * 16 * 32 + 2 * 32 * 32);
  CostOpInterface param = parseOp(R"(
    () {
      %t = loom.param "table" : tensor<6x8xbf16>
      return
    })", "loom.param");
  EXPECT_EQ(param.getParameterCount(), 48);
  EXPECT_EQ(param.getBytesRead(), 0);
  EXPECT_EQ(param.getBytesWritten(), 0);
}

TEST(Count, SaturatesInsteadOfWrapping) {
  constexpr int64_t max = Count::kSaturated;
  EXPECT_EQ((Count(3) * 7 + 1).get(), 22);
  EXPECT_EQ((Count(int64_t(1) << 31) * (int64_t(1) << 31)).get(),
            int64_t(1) << 62);
  EXPECT_EQ((Count(int64_t(1) << 32) * (int64_t(1) << 31)).get(), max);
  EXPECT_EQ((Count(max - 1) + 1).get(), max);
  EXPECT_EQ((Count(max - 1) + 2).get(), max);
  EXPECT_EQ((Count(max) * 0).get(), 0);
  Count sum = kCostLimit;
  sum += kCostLimit;
  sum += kCostLimit;
  EXPECT_EQ(sum.get(), max);
  EXPECT_EQ(describeCount(max), "2^63 or more");
  EXPECT_EQ(describeCount(42), "42");
}

// A tensor of 2^60 elements and a matmul over it: every figure saturates
// rather than wrapping negative. (The verifier refuses such an op; these are
// the figures it judges.)
TEST_F(CostInterfaceTest, HugeShapesSaturate) {
  module = parseSourceString<ModuleOp>(
      "func.func @f(%x: tensor<1048576x1048576x1048576xbf16>) {\n"
      "  %0 = loom.linear o %x : tensor<1048576x1048576x1048576xbf16> -> "
      "tensor<1048576x1048576x1048576xbf16>\n  return\n}",
      ParserConfig(&context, /*verifyAfterParse=*/false));
  ASSERT_TRUE(module);
  CostOpInterface op;
  module->walk([&](LinearOp linear) { op = linear; });
  ASSERT_TRUE(op);
  EXPECT_EQ(op.getFlops(), Count::kSaturated);
  EXPECT_EQ(op.getPaddedFlops(128), Count::kSaturated);
  EXPECT_EQ(op.getParameterCount(), int64_t(1) << 40);
  EXPECT_EQ(op.getBytesWritten(), int64_t(1) << 61);
  EXPECT_EQ(op.getBytesRead(), (int64_t(1) << 61) + (int64_t(1) << 41));
  std::string message;
  ScopedDiagnosticHandler capture(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_TRUE(failed(verifyCostRange(op)));
  EXPECT_EQ(message, "'loom.linear' op needs 2^63 or more FLOPs, past Loom's "
                     "64-bit cost figures (at most 2^62 for one op); use a "
                     "smaller batch, sequence or width");
}

TEST_F(CostInterfaceTest, LayerSumsItsBodyAndModelCostGroupsParts) {
  CostOpInterface layer = parseOp(R"(
    (%ids: tensor<1x8xi32>) {
      %x = loom.embed %ids {vocab = 10} : tensor<1x8xi32> -> tensor<1x8x16xbf16>
      %y = loom.layer 0 (%x) : (tensor<1x8x16xbf16>) -> tensor<1x8x16xbf16> {
      ^bb0(%in: tensor<1x8x16xbf16>):
        %h = loom.linear up %in : tensor<1x8x16xbf16> -> tensor<1x8x16xbf16>
        %r = loom.add %in, %h : tensor<1x8x16xbf16>, tensor<1x8x16xbf16>
        loom.yield %r : tensor<1x8x16xbf16>
      }
      %z = loom.rms_norm %y : tensor<1x8x16xbf16>
      return
    })", "loom.layer");
  EXPECT_EQ(layer.getFlops(), 2 * 8 * 16 * 16 + 8 * 16);
  EXPECT_EQ(layer.getParameterCount(), 16 * 16);
  // The yield moves nothing: written = linear + add results.
  EXPECT_EQ(layer.getBytesWritten(), 2 * (8 * 16 * 2));

  auto func = cast<func::FuncOp>(layer->getParentOp());
  SmallVector<PartCost> parts = collectPartCosts(func.getBody().front());
  ASSERT_EQ(parts.size(), 3u);
  EXPECT_EQ(parts[0].part, PartCost::Part::Prologue);
  EXPECT_EQ(parts[0].cost.parameters, 10 * 16);
  EXPECT_EQ(parts[1].layerIndex, 0);
  EXPECT_EQ(parts[2].part, PartCost::Part::Epilogue);
  EXPECT_EQ(parts[2].cost.parameters, 16);
  EXPECT_EQ(sumPartCosts(parts).parameters, 10 * 16 + 16 * 16 + 16);
}

TEST_F(CostInterfaceTest, CollectivesAnswerTheCollectiveInterface) {
  parseOp(R"(
    (%x: tensor<1x8x64xbf16>) {
      %r = loom.all_reduce %x {group = "tp", group_size = 4} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
      %g = loom.all_gather %r {group = "sp", group_size = 2, dim = 1} : tensor<1x8x64xbf16> -> tensor<1x16x64xbf16>
      %s = loom.reduce_scatter %g {group = "sp", group_size = 2, dim = 1} : tensor<1x16x64xbf16> -> tensor<1x8x64xbf16>
      %a = loom.all_to_all %s {group = "ep", group_size = 8, dim = 2} : tensor<1x8x64xbf16> -> tensor<1x8x64xbf16>
      %l = loom.local_shard %a {group = "sp", group_size = 2, dim = 1} : tensor<1x8x64xbf16> -> tensor<1x4x64xbf16>
      return
    })", "loom.all_reduce");
  SmallVector<CollectiveOpInterface> found;
  module->walk([&](CollectiveOpInterface op) { found.push_back(op); });
  // Keeping a local piece moves nothing, so it is not a collective.
  ASSERT_EQ(found.size(), 4u);
  // The bytes the cost model counts: 1x8x64 bf16 is 1024 bytes; the
  // all-gather counts its gathered result (2048), the others their input.
  struct Expected {
    CollectiveKind kind;
    StringRef group;
    int64_t size, bytes;
  } expected[] = {{CollectiveKind::AllReduce, "tp", 4, 1024},
                  {CollectiveKind::AllGather, "sp", 2, 2048},
                  {CollectiveKind::ReduceScatter, "sp", 2, 2048},
                  {CollectiveKind::AllToAll, "ep", 8, 1024}};
  for (auto [op, want] : llvm::zip_equal(found, expected)) {
    EXPECT_EQ(op.getCollectiveKind(), want.kind) << op->getName().getStringRef().str();
    EXPECT_EQ(op.getGroup(), want.group);
    EXPECT_EQ(op.getGroupSize(), want.size);
    EXPECT_EQ(op.getCollectiveBytes(), want.bytes);
    EXPECT_EQ(stringifyCollectiveKind(op.getCollectiveKind()),
              op->getName().stripDialect());
  }
}

} // namespace
