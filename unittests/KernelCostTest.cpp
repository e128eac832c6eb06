//===- KernelCostTest.cpp - fusion, the vector unit and flash attention ---===//
//
// What a kernel costs beyond one op's roofline: elementwise ops fused into
// their producers (getFusedOperand), vector work on the VPU, and attention
// as the flash kernels' blocks run it (flashAttentionWork). Each
// expectation is worked from the rule's statement in ModelCost.h and
// CostModel.h.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Loom/ModelCost.h"
#include "loom/Hardware/CostModel.h"

#include "CostOpFixture.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace loom;

namespace {

using KernelCostTest = CostOpFixture;

const TargetDesc &v5e() { return *lookupTarget("tpu-v5e"); }

TEST(VectorUnit, RunsBesideTheMXUAtAThirtySecondOfItsPeak) {
  CostModel model(v5e());
  // 8 sublanes x 128 lanes x 4 ALUs a cycle against 4 x 128 x 128 x 2
  // MXU FLOPs: 197e12 / 32.
  EXPECT_DOUBLE_EQ(model.vectorRate(), 197e12 / 32);
  // Vector work alone takes ops / rate...
  EXPECT_DOUBLE_EQ(model.computeTime(0, 0, 16, 6.15625e12), 1.0);
  // ...and beside MXU and HBM work only the slowest of the three counts.
  double mxu = 1e12 / (197e12 * v5e().flopEfficiency);
  EXPECT_DOUBLE_EQ(model.computeTime(1e12, 0, 16, 1e9), mxu);
  // Grid steps each pay the kernel step.
  EXPECT_DOUBLE_EQ(model.taskTime(0, 0, 16, 0, 10) - model.taskTime(0, 0),
                   9 * v5e().calibration.kernelStep);
}

TEST(FlashAttention, FullAttentionVisitsEveryBlock) {
  // 1024 queries x 1024 keys, 2 heads of 128: 2 x 2 blocks of 512 a head.
  FlashAttentionWork work = flashAttentionWork(2, 128, 1024, 0, 1024,
                                               /*causal=*/false, 0, 2);
  EXPECT_DOUBLE_EQ(work.steps, 8);
  // Each visit brings a K and a V block of 512 x 128 x 2 B.
  EXPECT_DOUBLE_EQ(work.kvBytes, 8 * 2.0 * 512 * 128 * 2);
  // Per block: 6 ops a score, 9 a row statistic (128 lanes), 3 an
  // accumulator element.
  EXPECT_DOUBLE_EQ(work.vectorOps,
                   8 * (512.0 * 512 * 6 + 512 * 128 * 9 + 512 * 128 * 3));
}

TEST(FlashAttention, CausalStepsOverTheBlocksItSkips) {
  // 1024 causal queries: the first query block visits one key block, the
  // second two; the grid still steps through all four.
  FlashAttentionWork work =
      flashAttentionWork(1, 128, 1024, 0, 0, /*causal=*/true, 0, 2);
  EXPECT_DOUBLE_EQ(work.steps, 4);
  EXPECT_DOUBLE_EQ(work.kvBytes, 3 * 2.0 * 512 * 128 * 2);
  EXPECT_DOUBLE_EQ(work.vectorOps,
                   3 * (512.0 * 512 * 11 + 512 * 128 * 12));
  // A slice after 1024 cached tokens: one query block over 3 key blocks.
  FlashAttentionWork later =
      flashAttentionWork(1, 128, 512, 1024, 0, /*causal=*/true, 0, 2);
  EXPECT_DOUBLE_EQ(later.steps, 3);
  EXPECT_DOUBLE_EQ(later.kvBytes, 3 * 2.0 * 512 * 128 * 2);
}

TEST(FlashAttention, AWindowStepsOnlyThroughTheBlocksItReaches) {
  // 2048 queries, window 512: query block i reaches key blocks i - 1 and i
  // (the first only its own): 1 + 2 + 2 + 2 visits and steps.
  FlashAttentionWork work =
      flashAttentionWork(1, 128, 2048, 0, 0, /*causal=*/true, 512, 2);
  EXPECT_DOUBLE_EQ(work.steps, 7);
  EXPECT_DOUBLE_EQ(work.kvBytes, 7 * 2.0 * 512 * 128 * 2);
}

TEST(FlashAttention, ShortSequencesShrinkTheBlocks) {
  // 64 queries over 64 keys: one 64 x 64 block; head_dim 64 padded to 128.
  FlashAttentionWork work =
      flashAttentionWork(4, 128, 64, 0, 64, /*causal=*/false, 0, 2);
  EXPECT_DOUBLE_EQ(work.steps, 4);
  EXPECT_DOUBLE_EQ(work.kvBytes, 4 * 2.0 * 64 * 128 * 2);
  EXPECT_DOUBLE_EQ(work.vectorOps,
                   4 * (64.0 * 64 * 6 + 64 * 128 * 9 + 64 * 128 * 3));
}

TEST(MaterializedAttention, ScoresCrossHBMSixTimesAndTheMaskOnce) {
  // 4 heads, 2048 causal queries over 2048 keys, bf16 scores: the whole
  // square of 4 x 2048^2 scores, masked.
  double scores = 4.0 * 2048 * 2048;
  MaterializedAttentionWork work =
      materializedAttentionWork(4, 128, 2048, 2048, /*masked=*/true);
  // Both einsums over every score: 2 x 2 x 128 FLOPs a score.
  EXPECT_DOUBLE_EQ(work.flops, scores * 2 * 2 * 128);
  // Written by Q K^T, read by the softmax's three passes, written by its
  // normalise, read by P V (6), and the mask read beside the first (1).
  EXPECT_DOUBLE_EQ(work.scoreBytes, scores * 2 * 7);
  // 12 f32 ops a score in the scale and the softmax, 1 for the mask.
  EXPECT_DOUBLE_EQ(work.vectorOps, scores * 13);
  // Five kernels: two einsums and the softmax's three.
  EXPECT_DOUBLE_EQ(work.steps, 5);
  // Unmasked (full attention): no mask pass, no mask add.
  MaterializedAttentionWork full =
      materializedAttentionWork(4, 128, 2048, 2048, /*masked=*/false);
  EXPECT_DOUBLE_EQ(full.scoreBytes, scores * 2 * 6);
  EXPECT_DOUBLE_EQ(full.vectorOps, scores * 12);
  // Empty work costs nothing but the steps.
  EXPECT_DOUBLE_EQ(materializedAttentionWork(0, 128, 16, 16, true).scoreBytes,
                   0);
}

TEST(MaterializedAttention, CostsMoreThanFlashAndGrowsWithTheSquare) {
  CostModel model(v5e());
  // One head of 128 over 2048 causal tokens: flash reads K/V blocks and
  // never writes a score; the einsums write and re-read 2048^2 of them.
  auto time = [&](int64_t tokens) {
    MaterializedAttentionWork dense =
        materializedAttentionWork(1, 128, tokens, tokens, true);
    return model.taskTime(dense.flops, dense.scoreBytes, 16, dense.vectorOps,
                          dense.steps);
  };
  FlashAttentionWork flash =
      flashAttentionWork(1, 128, 2048, 0, 0, /*causal=*/true, 0, 2);
  double flashFlops = 2.0 * 2 * 128 * (2048.0 * 2049 / 2);
  double flashTime = model.taskTime(flashFlops, flash.kvBytes, 16,
                                    flash.vectorOps, flash.steps);
  EXPECT_GT(time(2048), flashTime);
  // HBM-bound: 7 x 2 B a score at the HBM rate, plus five kernel steps.
  const TargetDesc &t = v5e();
  double hbm = 2048.0 * 2048 * 14 / (t.hbmBandwidth * t.hbmEfficiency);
  EXPECT_NEAR(time(2048), hbm + 5 * t.calibration.kernelStep, 1e-12);
  // Twice the tokens, four times the scores.
  EXPECT_NEAR(time(4096) - 5 * t.calibration.kernelStep,
              4 * (time(2048) - 5 * t.calibration.kernelStep), 1e-12);
}

TEST_F(KernelCostTest, AMaterializedAttentionIsPricedAsItsEinsums) {
  CostOpInterface attn = parseOp(R"(
    (%q: tensor<1x1024x512xbf16>, %k: tensor<1x1024x512xbf16>, %v: tensor<1x1024x512xbf16>) {
      %a = loom.attention %q, %k, %v {heads = 4, kv_heads = 4, head_dim = 128, causal, materialized_scores}
          : tensor<1x1024x512xbf16>, tensor<1x1024x512xbf16> -> tensor<1x1024x512xbf16>
      return
    })", "loom.attention");
  CostModel model(v5e());
  KernelWork work = getKernelWork(model, attn);
  MaterializedAttentionWork dense =
      materializedAttentionWork(4, 128, 1024, 1024, /*masked=*/true);
  EXPECT_DOUBLE_EQ(work.flops, dense.flops);
  EXPECT_DOUBLE_EQ(work.vectorOps, dense.vectorOps);
  EXPECT_DOUBLE_EQ(work.steps, 5);
  // q, k, v read and the result written once, besides the scores.
  EXPECT_DOUBLE_EQ(work.bytes, 4 * 1024.0 * 512 * 2 + dense.scoreBytes);
}

TEST_F(KernelCostTest, AJetStreamPyTorchDecodeStepRunsItsEinsumsOverTwoQueries) {
  // 8 sequences, 4 heads of 128, one new token each over 1023 cached ones.
  // jetstream-pytorch broadcasts the query to two rows (decode_query_rows
  // = 2), so its einsums see 8 x 4 x 2 x 1024 = 65536 scores; einsum
  // attention that runs the query as one row (MaxText's dot_product) sees
  // 32768.
  auto decode = [&](StringRef rows) {
    return parseOp(std::string(R"(
    (%q: tensor<8x1x512xbf16>, %k: tensor<8x1x512xbf16>, %v: tensor<8x1x512xbf16>) {
      %a = loom.attention %q, %k, %v {heads = 4, kv_heads = 4, head_dim = 128, causal, cached = 1023, materialized_scores)") +
                       rows.str() + R"(}
          : tensor<8x1x512xbf16>, tensor<8x1x512xbf16> -> tensor<8x1x512xbf16>
      return
    })", "loom.attention");
  };
  CostOpInterface attn = decode(", decode_query_rows = 2");
  CostModel model(v5e());
  KernelWork work = getKernelWork(model, attn);
  double scores = 8.0 * 4 * 2 * 1024;
  EXPECT_EQ(kMaterializedDecodeQueries, 2);
  // Q K^T and P V, 2 x 128 FLOPs a score each.
  EXPECT_DOUBLE_EQ(work.flops, scores * 2 * 2 * 128);
  // 12 f32 ops a score and the mask's add.
  EXPECT_DOUBLE_EQ(work.vectorOps, scores * 13);
  // The scores' six passes and the mask's one, at 2 B, besides the
  // attention's own bytes and the cache update's (new K and V read,
  // 2 x 8 x 512 x 2 B, and stored at 2 B).
  double updates = 2 * (2 * 8 * 512 * 2.0);
  EXPECT_DOUBLE_EQ(work.bytes, double(attn.getBytesRead()) +
                                   attn.getBytesWritten() + updates +
                                   scores * 2 * 7);
  // The einsums' five kernels and the cache update's two.
  EXPECT_DOUBLE_EQ(work.steps, 5 + kDecodeCacheWriteKernels);
  // One row: half the scores, half the FLOPs.
  KernelWork one = getKernelWork(model, decode(""));
  EXPECT_DOUBLE_EQ(one.flops, work.flops / 2);
  EXPECT_DOUBLE_EQ(work.bytes - one.bytes, scores / 2 * 2 * 7);
}

TEST_F(KernelCostTest, ADecodeStepWritesTheNewKAndVIntoTheCache) {
  // 8 sequences, one new token each, over 1023 cached tokens of an int8
  // cache: two in-place update kernels besides the attention's, reading
  // the new K and V (8 x 256 x 2 B each) and storing them at 1 B.
  CostOpInterface attn = parseOp(R"(
    (%q: tensor<8x1x512xbf16>, %k: tensor<8x1x256xbf16>, %v: tensor<8x1x256xbf16>) {
      %a = loom.attention %q, %k, %v {heads = 4, kv_heads = 2, head_dim = 128, causal, cached = 1023, kv_type = i8}
          : tensor<8x1x512xbf16>, tensor<8x1x256xbf16> -> tensor<8x1x512xbf16>
      return
    })", "loom.attention");
  CostModel model(v5e());
  KernelWork work = getKernelWork(model, attn);
  EXPECT_DOUBLE_EQ(work.steps, 1 + kDecodeCacheWriteKernels);
  double newKV = 2 * 8 * 256 * 2.0, stored = 2 * 8 * 256 * 1.0;
  EXPECT_DOUBLE_EQ(work.bytes, double(attn.getBytesRead()) +
                                   attn.getBytesWritten() + newKV + stored);
  // A prefill writes its K and V as the projections' results: no update.
  CostOpInterface prefill = parseOp(R"(
    (%q: tensor<1x64x512xbf16>, %k: tensor<1x64x256xbf16>, %v: tensor<1x64x256xbf16>) {
      %a = loom.attention %q, %k, %v {heads = 4, kv_heads = 2, head_dim = 128, causal}
          : tensor<1x64x512xbf16>, tensor<1x64x256xbf16> -> tensor<1x64x512xbf16>
      return
    })", "loom.attention");
  EXPECT_DOUBLE_EQ(getKernelWork(model, prefill).steps, 4); // flash's grid
}

TEST_F(KernelCostTest, AnActivationJoinsItsMatmulsKernel) {
  CostOpInterface act = parseOp(R"(
    (%x: tensor<1x256x512xbf16>) {
      %h = loom.linear up %x : tensor<1x256x512xbf16> -> tensor<1x256x1024xbf16>
      %a = loom.activation silu %h : tensor<1x256x1024xbf16>
      return
    })", "loom.activation");
  Operation *linear = act->getOperand(0).getDefiningOp();
  CostModel model(v5e());
  EXPECT_EQ(getFusedOperand(act, linear), act->getOperand(0));
  // The activation's FLOPs run on the VPU, none on the MXU.
  EXPECT_EQ(getMXUFlops(act, 128), 0);
  EXPECT_EQ(getVectorOps(act), act.getFlops());
  // One kernel: the matmul's bytes plus the activation's, less the result
  // neither written nor read back (2 x 256 x 1024 x 2 B); one kernel step.
  auto lin = cast<CostOpInterface>(linear);
  double result = 256.0 * 1024 * 2;
  double bytes = lin.getBytesRead() + lin.getBytesWritten() +
                 act.getBytesRead() + act.getBytesWritten() - 2 * result;
  EXPECT_DOUBLE_EQ(getFusedSavings(act->getOperand(0)), 2 * result);
  double fused = model.taskTime(lin.getPaddedFlops(128), bytes, 16,
                                act.getFlops());
  SmallVector<Operation *> ops = {linear, act};
  EXPECT_DOUBLE_EQ(estimateTime(model, ops), fused);
  EXPECT_LT(fused, estimateTime(model, lin) + estimateTime(model, act));
}

TEST_F(KernelCostTest, ANormJoinsAnAddButNotAMatmul) {
  CostOpInterface norm = parseOp(R"(
    (%x: tensor<1x256x512xbf16>, %r: tensor<1x256x512xbf16>) {
      %h = loom.linear o %x : tensor<1x256x512xbf16> -> tensor<1x256x512xbf16>
      %s = loom.add %r, %h : tensor<1x256x512xbf16>, tensor<1x256x512xbf16>
      %n = loom.rms_norm %s : tensor<1x256x512xbf16>
      %m = loom.rms_norm %h : tensor<1x256x512xbf16>
      return
    })", "loom.rms_norm");
  Operation *add = norm->getOperand(0).getDefiningOp();
  Operation *linear = add->getOperand(1).getDefiningOp();
  // The add joins the matmul (an output fusion)...
  EXPECT_EQ(getFusedOperand(add, linear), add->getOperand(1));
  // ...a norm takes an elementwise producer (an input fusion)...
  EXPECT_EQ(getFusedOperand(norm, add), norm->getOperand(0));
  // ...but not a matmul's output, nor, through the add, its kernel.
  Operation *second = norm->getNextNode();
  EXPECT_FALSE(getFusedOperand(second, linear));
  auto rootIsLinear = [&](Operation *op) -> Operation * {
    return op == add || op == linear ? linear : nullptr;
  };
  EXPECT_EQ(findFusionProducer(norm, rootIsLinear), nullptr);
  auto ownKernels = [&](Operation *op) -> Operation * { return op; };
  EXPECT_EQ(findFusionProducer(norm, ownKernels), add);
  // The linear's result has two uses (the add and the second norm), so a
  // fusion through it saves only its read.
  EXPECT_DOUBLE_EQ(getFusedSavings(add->getOperand(1)), 256.0 * 512 * 2);
}

} // namespace
