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
#include "loom/Dialect/Loom/ModuleTarget.h"
#include "loom/Transforms/Passes.h"
#include "loom/Transforms/ShardHeads.h"

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

/// The experts each MoE layer holds, by its rule: an experts factor of
/// weights over a width summed per row (d_ff), the op whose experts expert
/// parallelism places. In program order.
static SmallVector<std::pair<Operation *, int64_t>>
expertLayers(ModuleOp module) {
  SmallVector<std::pair<Operation *, int64_t>> layers;
  module.walk([&](ShardingRuleOpInterface op) {
    OpShardingRule rule = op.getShardingRule();
    if (rule.has(FactorKind::Experts) && rule.reduces(FactorKind::FF))
      layers.push_back({op, rule.sizeOf(FactorKind::Experts)});
  });
  return layers;
}

/// The greatest common divisor of `start` and every layer's experts; 0
/// when the module has no experts.
static int64_t commonExperts(ModuleOp module, int64_t start) {
  SmallVector<std::pair<Operation *, int64_t>> layers = expertLayers(module);
  if (layers.empty())
    return 0;
  int64_t common = start;
  for (auto [op, experts] : layers)
    common = std::gcd(common, experts);
  return common;
}

/// Fails at the first layer whose experts `ep` does not divide.
static LogicalResult checkExpertsDivide(ModuleOp module, int64_t ep,
                                        StringRef valid) {
  for (auto [op, experts] : expertLayers(module))
    if (experts % ep != 0)
      return op->emitError()
             << "ep = " << ep << " does not divide the " << experts
             << " experts of this layer; valid degrees: " << valid;
  return success();
}

SmallVector<int64_t> loom::validExpertParallelDegrees(ModuleOp module,
                                                      int64_t tp) {
  int64_t common = commonExperts(module, tp);
  if (common == 0)
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

/// The model functions (those with layers) of `module`.
static SmallVector<func::FuncOp> modelFunctions(ModuleOp module) {
  SmallVector<func::FuncOp> funcs;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && !func.getOps<LayerOp>().empty())
      funcs.push_back(func);
  return funcs;
}

SmallVector<int64_t> loom::validExpertDataDegrees(ModuleOp module, int64_t tp,
                                                  int64_t chips) {
  SmallVector<func::FuncOp> funcs = modelFunctions(module);
  int64_t common = commonExperts(
      module, funcs.empty() ? 0 : getPipelineBatch(funcs.front()));
  SmallVector<int64_t> valid;
  for (int64_t d = 2; d <= common; ++d)
    if (common % d == 0 && tp > 0 && chips % (tp * d) == 0)
      valid.push_back(d);
  return valid;
}

/// Rewrites one chain route -> experts -> combine into its form over an
/// expert-parallel group of its own: every chip routes all of its tokens
/// (its 1/ep of the batch; the tp chips of a group route the same ones, as
/// a replicated router does under tensor parallelism) and sends each copy
/// to the chip of the same tensor rank that holds its expert, which runs
/// the expert's 1/tp of the width on every copy from the group.
static void shardChainData(MoEExpertsOp experts, int64_t ep) {
  auto route = experts.getInput().getDefiningOp<MoERouteOp>();
  OpBuilder b(experts);
  auto bufferType = cast<RankedTensorType>(route.getType());
  auto inputType = cast<RankedTensorType>(route.getInput().getType());
  int64_t hidden = bufferType.getDimSize(2), topK = experts.getTopK();
  // This chip's tokens (the batch already split) and the group's.
  int64_t local = inputType.getDimSize(0) * inputType.getDimSize(1);
  double busiest =
      busiestChipRows(experts.getTokens(), topK, experts.getExperts(), ep,
                      route.getImbalance().convertToDouble());
  // The buffer holds what a chip sends to each of the group (uniform
  // routing) and what the busiest one receives from each sender.
  int64_t sent = (local * topK + ep - 1) / ep;
  int64_t received = static_cast<int64_t>(std::ceil(busiest / double(ep)));
  int64_t capacity = std::max<int64_t>({sent, received, 1});
  auto buffer =
      RankedTensorType::get({ep, capacity, hidden}, bufferType.getElementType());
  route.setShard(1);
  route.getResult().setType(buffer);
  auto dispatch = AllToAllOp::create(b, experts.getLoc(), buffer, route,
                                     b.getStringAttr(kExpertGroup),
                                     b.getI64IntegerAttr(ep),
                                     b.getI64IntegerAttr(0), IntegerAttr());
  experts.getInputMutable().assign(dispatch);
  experts.getResult().setType(buffer);
  // The width stays split over tp as loom-shard-heads left it (its
  // #loom.split); the group splits the experts.
  experts.setEp(ep);
  b.setInsertionPointAfter(experts);
  auto combine = AllToAllOp::create(b, experts.getLoc(), buffer, experts,
                                    b.getStringAttr(kExpertGroup),
                                    b.getI64IntegerAttr(ep),
                                    b.getI64IntegerAttr(0), IntegerAttr());
  experts.getResult().replaceAllUsesExcept(combine, combine);
}

/// loom-shard-experts data: the checks, the batch split, every chain.
static LogicalResult shardExpertsData(ModuleOp module, int64_t ep,
                                      ArrayRef<MoEExpertsOp> chains) {
  ParallelAttr parallel = getParallelOrDefault(module);
  int64_t tp = parallel.getTp();
  FailureOr<TargetAttr> target = requireTarget(module, "loom-shard-experts");
  if (failed(target))
    return failure();
  TopologyDesc topology = target->getTopologyDesc();
  // A stage's tp x ep group lies within one slice.
  int64_t chips = topology.sliceChips();
  std::string valid = joinDegrees(validExpertDataDegrees(module, tp, chips));
  if (valid.empty())
    valid = "none";
  if (parallel.getTpX() > 1 || parallel.getWeightGathered() ||
      parallel.getSp() > 1)
    return module.emitError()
           << "an expert-parallel group of its own (data) sits beside a 1-D "
              "tensor-parallel group, which this module's is not ("
           << parallel << ")";
  if (chains.empty())
    return module.emitError()
           << "an expert-parallel group of its own splits the routed experts "
              "of MoE layers; the module has none";
  SmallVector<func::FuncOp> funcs = modelFunctions(module);
  int64_t batch = getPipelineBatch(funcs.front());
  if (ep < 2 || batch % ep != 0 || chips % (tp * ep) != 0)
    return module.emitError()
           << "ep = " << ep << " cannot be a group of its own beside tp = "
           << tp << ": "
           << (ep < 2 ? std::string("it needs at least 2 chips")
               : batch % ep != 0
                   ? "its chips split the batch of " + std::to_string(batch)
                   : "stages of tp x ep = " + std::to_string(tp * ep) +
                         " chips do not tile the " + std::to_string(chips) +
                         " chips of " + topology.name)
           << "; valid degrees: " << valid;
  if (failed(checkExpertsDivide(module, ep, valid)))
    return failure();
  // Every tensor but the dispatch buffers must lead with the batch.
  auto isBuffer = [](Value value) {
    auto result = dyn_cast<OpResult>(value);
    auto def = result ? dyn_cast<ShardingRuleOpInterface>(result.getOwner())
                      : nullptr;
    return def && def.getShardingRule().resultHas(result.getResultNumber(),
                                                  FactorKind::ExpertGroups);
  };
  for (func::FuncOp func : funcs) {
    WalkResult walk = func.walk([&](Operation *op) {
      for (Value result : op->getResults())
        if (auto tensor = dyn_cast<RankedTensorType>(result.getType());
            tensor && !isBuffer(result) &&
            (tensor.getRank() < 1 || tensor.getDimSize(0) != batch)) {
          op->emitError() << "an expert-parallel group of its own splits "
                             "dim 0, the batch of "
                          << batch
                          << ", of every tensor, but this op's result does "
                             "not lead with it";
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return failure();
  }
  splitBatch(module, funcs, ep, isBuffer);
  for (MoEExpertsOp experts : chains)
    shardChainData(experts, ep);
  module->setAttr(kParallelAttrName,
                  ParallelAttr::get(module.getContext(), tp, parallel.getDp(),
                                    parallel.getSequenceParallel(), ep, 1, 1,
                                    false, /*epData=*/true, 1, 0,
                                    parallel.getKvBatch()));
  return success();
}

LogicalResult loom::shardExperts(ModuleOp module, int64_t ep, bool data) {
  ParallelAttr parallel = getParallelOrDefault(module);
  int64_t tp = parallel.getTp();
  // The rewrite of each chain is the MoE ops' own (router, experts).
  SmallVector<MoEExpertsOp> chains;
  for (auto [op, experts] : expertLayers(module))
    if (auto chain = dyn_cast<MoEExpertsOp>(op))
      chains.push_back(chain);
  std::string valid = joinDegrees(validExpertParallelDegrees(module, tp));
  if (ep < 1)
    return module.emitError() << "ep must be at least 1, got " << ep
                              << "; valid degrees: " << valid;
  for (MoEExpertsOp experts : chains)
    if (experts.getEp() != 1 || !experts.getInput().getDefiningOp<MoERouteOp>())
      return experts.emitError()
             << "loom-shard-experts expects the experts as loom-shard-heads "
                "leaves them, fed by their loom.moe_route, not yet split";
  if (data)
    return shardExpertsData(module, ep, chains);
  // A degree that would change nothing is refused, as options that do not
  // apply to the model are.
  if (ep > 1 && chains.empty())
    return module.emitError()
           << "ep = " << ep
           << ": expert parallelism splits the routed experts of MoE layers; "
              "the model has none (a dense model takes ep 1)";
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
  if (failed(checkExpertsDivide(module, ep, valid)))
    return failure();
  if (ep == 1)
    return success();
  for (MoEExpertsOp experts : chains)
    shardChain(experts, tp, ep);
  module->setAttr(kParallelAttrName,
                  ParallelAttr::get(module.getContext(), tp, parallel.getDp(),
                                    parallel.getSequenceParallel(), ep,
                                    parallel.getSp(), parallel.getTpX(),
                                    parallel.getWeightGathered(), false, 1,
                                    0, parallel.getKvBatch()));
  return success();
}

namespace {
struct ShardExpertsPass
    : public loom::impl::ShardExpertsBase<ShardExpertsPass> {
  using ShardExpertsBase::ShardExpertsBase;
  void runOnOperation() override {
    if (failed(shardExperts(getOperation(), ep, data)))
      signalPassFailure();
  }
};
} // namespace
