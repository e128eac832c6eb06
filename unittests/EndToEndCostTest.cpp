//===- EndToEndCostTest.cpp - costs of a measured runtime's own code -----===//
//
// Issue 14 item 6: what jetstream-pytorch's code makes a decode step pay
// besides the model's own work, priced through LayerSliceCost as the
// planner and the lowering price it.
//
//===----------------------------------------------------------------------===//

#include "CostOpFixture.h"

#include "loom/Analysis/StageCost.h"
#include "loom/Hardware/TargetDesc.h"

using namespace mlir;
using namespace loom;

namespace {

class EndToEndCostTest : public CostOpFixture {};

const TargetDesc &v5e() { return *lookupTarget("tpu-v5e"); }

TEST_F(EndToEndCostTest, AnInt8CacheWithScalesAcrossHeadsReducesThemAcrossChips) {
  // 16 sequences, one new token each over 1023 cached ones in an int8
  // cache, 4 heads of 128 on this chip of a tp group of 8 (a 2x4 block, a
  // ring): jetstream-pytorch's one scale a token over all heads takes a
  // cross-chip max for K's scale and one for V's, each 16 bf16 values.
  auto layer = [&](StringRef attrs) {
    return parseOp(std::string(R"(
    (%q: tensor<16x1x512xbf16>) {
      %a = loom.attention %q, %q, %q {heads = 4, kv_heads = 4, head_dim = 128, causal, cached = 1023, kv_type = i8, materialized_scores, decode_query_rows = 2)") +
                       attrs.str() + R"(}
          : tensor<16x1x512xbf16>, tensor<16x1x512xbf16> -> tensor<16x1x512xbf16>
      return
    })", "loom.attention");
  };
  CostModel model(v5e());
  SmallVector<GroupAxis> ring = {{2, false}, {4, false}};
  ASSERT_TRUE(CostModel::isRing(ring));
  auto seconds = [&](StringRef attrs, ArrayRef<GroupAxis> axes) {
    Operation *op = layer(attrs);
    return LayerSliceCost(ArrayRef<Operation *>(op), model, axes, 1)
        .seconds(1, 0);
  };
  double reduced = seconds(", kv_scales_across_heads", ring);
  double plain = seconds("", ring);
  // Two all-reduces of 16 x 2 B on the ring (CostModel::collectiveTime):
  // each twice an all-gather's sync + 7 hops + 7/8 of 32 B over two links
  // at the ring's efficiency, less one sync.
  const TargetDesc &t = v5e();
  double w = t.calibration.ringEfficiency * t.linkBandwidth;
  double gather =
      t.calibration.collectiveSync + 7 * t.hopLatency + 7.0 / 8 * 32 / (2 * w);
  double allReduce = 2 * gather - t.calibration.collectiveSync;
  EXPECT_NEAR(reduced - plain, 2 * allReduce, 1e-12);
  // About 16.4 us each with the calibrated constants.
  EXPECT_NEAR(allReduce, 16.4e-6, 0.1e-6);
  // One chip: nothing to reduce across.
  double alone = seconds(", kv_scales_across_heads", {});
  EXPECT_DOUBLE_EQ(alone, seconds("", {}));
}

} // namespace
