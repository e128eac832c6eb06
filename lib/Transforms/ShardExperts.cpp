//===- ShardExperts.cpp - expert parallelism ------------------------------===//
//
// Runs after loom-shard-heads, on the per-chip view it leaves: each MoE
// layer's experts there are split by width over the tp group (every chip
// holds a 1/tp slice of every expert and routes every token). Expert
// parallelism instead gives each chip experts / ep whole experts (whole, or
// split tp / ep ways by width when ep < tp), lets each chip route its
// 1/tp share of the tokens, and moves the token copies to the chips of
// their experts and back with two all-to-alls over the group (GShard,
// Lepikhin et al. 2020; DeepSpeed-MoE). The dispatch buffer has one group
// of rows per destination chip, sized for the busiest chip (its busiest
// expert at `imbalance` times the average load, loom/Dialect/Loom/MoE.h).
// The combine's result keeps the partial-sum layout loom-shard-heads gave
// it (each chip holds its tokens' results), which the all-reduce already
// after it completes.
//
//===----------------------------------------------------------------------===//

#include "loom/Transforms/ShardExperts.h"

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Dialect/Loom/MoE.h"
#include "loom/Transforms/Passes.h"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace loom {
#define GEN_PASS_DEF_SHARDEXPERTS
#include "loom/Transforms/Passes.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;

static std::string joinDegrees(ArrayRef<int64_t> degrees) {
  std::string text;
  for (int64_t d : degrees)
    text += (text.empty() ? "" : ", ") + std::to_string(d);
  return text;
}

SmallVector<int64_t> loom::validExpertParallelDegrees(ModuleOp module,
                                                      int64_t tp) {
  int64_t common = tp;
  bool any = false;
  module.walk([&](MoEExpertsOp experts) {
    common = std::gcd(common, int64_t(experts.getExperts()));
    any = true;
  });
  if (!any)
    return {1};
  SmallVector<int64_t> valid;
  for (int64_t d = 1; d <= common; ++d)
    if (common % d == 0)
      valid.push_back(d);
  return valid;
}

/// Rewrites one chain route -> experts -> combine into its expert-parallel
/// form over the tp group.
static void shardChain(MoEExpertsOp experts, int64_t tp, int64_t ep) {
  auto route = experts.getInput().getDefiningOp<MoERouteOp>();
  OpBuilder b(experts);
  auto bufferType = cast<RankedTensorType>(route.getType());
  int64_t hidden = bufferType.getDimSize(2);
  int64_t tokens = experts.getTokens(), topK = experts.getTopK();
  int64_t replicas = tp / ep;
  double busiest =
      busiestChipRows(tokens, topK, experts.getExperts(), ep,
                      route.getImbalance().convertToDouble());
  // Each of the tp chips routes its share of the tokens; the buffer holds
  // at least every copy a chip sends (to each of the replicas of an
  // expert's width) and what the busiest chip receives from each sender.
  int64_t share = (tokens + tp - 1) / tp;
  int64_t sent = (share * topK * replicas + tp - 1) / tp;
  int64_t received = static_cast<int64_t>(std::ceil(busiest / double(tp)));
  int64_t capacity = std::max<int64_t>({sent, received, 1});
  auto buffer =
      RankedTensorType::get({tp, capacity, hidden}, bufferType.getElementType());

  route.setShard(tp);
  route.getResult().setType(buffer);
  auto dispatch = AllToAllOp::create(b, experts.getLoc(), buffer, route,
                                     b.getStringAttr("tp"),
                                     b.getI64IntegerAttr(tp),
                                     b.getI64IntegerAttr(0), IntegerAttr());
  experts.getInputMutable().assign(dispatch);
  experts.getResult().setType(buffer);
  // loom-shard-heads left each chip 1/tp of every expert's width; now a
  // chip holds experts / ep experts, each split tp / ep ways.
  experts.setExpertInter(experts.getExpertInter() * ep);
  experts.setEp(ep);
  experts->setAttr(kSplitAttrName,
                   SplitAttr::get(b.getContext(), SplitKind::experts, ep,
                                  replicas, 1));
  b.setInsertionPointAfter(experts);
  auto combine = AllToAllOp::create(b, experts.getLoc(), buffer, experts,
                                    b.getStringAttr("tp"),
                                    b.getI64IntegerAttr(tp),
                                    b.getI64IntegerAttr(0), IntegerAttr());
  experts.getResult().replaceAllUsesExcept(combine, combine);
}

LogicalResult loom::shardExperts(ModuleOp module, int64_t ep) {
  ParallelAttr parallel = getParallelOrDefault(module);
  int64_t tp = parallel.getTp();
  SmallVector<MoEExpertsOp> chains;
  module.walk([&](MoEExpertsOp experts) { chains.push_back(experts); });
  std::string valid = joinDegrees(validExpertParallelDegrees(module, tp));
  if (ep < 1)
    return module.emitError() << "ep must be at least 1, got " << ep
                              << "; valid degrees: " << valid;
  if (ep > 1 && parallel.getTpX() > 1)
    return module.emitError()
           << "expert parallelism runs over a 1-D tensor-parallel group; this "
              "one is 2-D (tp_x = "
           << parallel.getTpX() << ")";
  if (tp % ep != 0)
    return module.emitError()
           << "ep = " << ep << " must divide the tensor-parallel degree tp = "
           << tp
           << " (experts are split over the chips of the tensor-parallel "
              "group; run loom-shard-heads first); valid degrees: "
           << valid;
  for (MoEExpertsOp experts : chains) {
    if (experts.getExperts() % ep != 0)
      return experts.emitError()
             << "ep = " << ep << " does not divide the " << experts.getExperts()
             << " experts of this layer; valid degrees: " << valid;
    if (experts.getEp() != 1 || !experts.getInput().getDefiningOp<MoERouteOp>())
      return experts.emitError()
             << "loom-shard-experts expects the experts as loom-shard-heads "
                "leaves them, fed by their loom.moe_route, not yet split";
  }
  if (ep == 1)
    return success();
  for (MoEExpertsOp experts : chains)
    shardChain(experts, tp, ep);
  module->setAttr(kParallelAttrName,
                  ParallelAttr::get(module.getContext(), tp, parallel.getDp(),
                                    parallel.getSequenceParallel(), ep,
                                    parallel.getSp(), parallel.getTpX(),
                                    parallel.getWeightGathered()));
  return success();
}

namespace {
struct ShardExpertsPass
    : public loom::impl::ShardExpertsBase<ShardExpertsPass> {
  using ShardExpertsBase::ShardExpertsBase;
  void runOnOperation() override {
    if (failed(shardExperts(getOperation(), ep)))
      signalPassFailure();
  }
};
} // namespace
