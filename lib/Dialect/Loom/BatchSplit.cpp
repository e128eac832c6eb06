//===- BatchSplit.cpp - how each loom op splits over data-parallel replicas ===//
//
// ShardingRuleOpInterface::splitBatch: what one of N data-parallel replicas
// runs, its share of the batch (loom-split-batch drives it). By default an
// op's rule says it all: every result dimension made of a batch factor is
// divided by N. Three ops say more: a layer forwards its operands into its
// region and its yield out; a mixture of experts' router folds the batch
// into its dispatch buffer's rows, and its experts count the routed tokens,
// both recomputed with the functions the importer builds them with.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Loom/LoomOps.h"

using namespace mlir;
using namespace loom;

BatchSplitter::~BatchSplitter() = default;

static RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

LogicalResult loom::splitBatchByRule(Operation *op, BatchSplitter &splitter) {
  int64_t replicas = splitter.getReplicas();
  const OpShardingRule &rule = splitter.getRule(op);
  auto hasBatch = [&](const OpShardingRule::Dims &dims,
                      size_t d) -> std::optional<unsigned> {
    if (d >= dims.size())
      return std::nullopt;
    for (unsigned f : dims[d])
      if (rule.factors[f].kind == FactorKind::Batch)
        return f;
    return std::nullopt;
  };
  // Every operand the rule says carries the batch must have been split.
  bool anySplit = false;
  for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
    anySplit |= splitter.isSplit(operand);
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type || i >= rule.operands.size())
      continue;
    for (int64_t d = 0; d < type.getRank(); ++d)
      if (hasBatch(rule.operands[i], d) && !splitter.isSplit(operand))
        return op->emitError()
               << "cannot split the batch over " << replicas
               << " replicas: operand #" << i
               << " carries the batch in dimension " << d
               << " by the op's rule, but its producer did not split it";
  }
  for (auto [i, result] : llvm::enumerate(op->getResults())) {
    auto type = dyn_cast<RankedTensorType>(result.getType());
    if (!type)
      continue;
    SmallVector<int64_t> shape(type.getShape());
    bool split = false;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      std::optional<unsigned> batch =
          i < rule.results.size() ? hasBatch(rule.results[i], d) : std::nullopt;
      if (!batch)
        continue;
      int64_t size = rule.factors[*batch].size;
      if (size % replicas != 0 || shape[d] % replicas != 0)
        return op->emitError()
               << "cannot split the batch of " << size << " in dimension " << d
               << " of result #" << i << " over " << replicas
               << " replicas (each runs an equal share)";
      shape[d] /= replicas;
      split = true;
    }
    if (split) {
      splitter.setType(result, RankedTensorType::get(
                                   shape, type.getElementType(),
                                   type.getEncoding()));
    } else if (anySplit) {
      // Its input is a replica's share, but nothing says which dimension of
      // this result holds the samples.
      return op->emitError()
             << "cannot split the batch over " << replicas
             << " replicas: the op's sharding rule maps no batch factor to "
                "result #"
             << i << ", whose operands carry the batch";
    }
  }
  return success();
}

LogicalResult LayerOp::splitBatch(BatchSplitter &splitter) {
  // The region's arguments are the layer's inputs, its results the yield's.
  Block &body = getBody().front();
  for (auto [arg, input] : llvm::zip(body.getArguments(), getInputs()))
    if (splitter.isSplit(input))
      splitter.setType(arg, input.getType());
  if (failed(splitter.splitBlock(body)))
    return failure();
  auto yield = cast<YieldOp>(body.getTerminator());
  for (auto [result, value] : llvm::zip(getResults(), yield.getValues()))
    if (splitter.isSplit(value))
      splitter.setType(result, value.getType());
  return success();
}

LogicalResult MoERouteOp::splitBatch(BatchSplitter &splitter) {
  // The buffer's rows are the routed tokens' copies: the batch folded in.
  if (getShard() != 1 || tensorType(getResult()).getDimSize(0) != 1)
    return emitError() << "cannot split the batch of a router whose tokens "
                          "are already shared over an expert-parallel group";
  if (!splitter.isSplit(getInput()))
    return splitBatchByRule(*this, splitter);
  splitter.setType(getResult(),
                   dispatchBufferType(tensorType(getInput()), getTopK()));
  return success();
}

LogicalResult MoEExpertsOp::splitBatch(BatchSplitter &splitter) {
  // Its rows are its router's buffer, and `tokens` the tokens it routed.
  auto route = getInput().getDefiningOp<MoERouteOp>();
  if (!route)
    return emitError() << "cannot split the batch of experts that do not "
                          "read a loom.moe_route's buffer directly";
  if (!splitter.isSplit(getInput()))
    return success();
  setTokens(MoERouteOp::routedTokens(tensorType(route.getInput()).getShape()));
  splitter.setType(getResult(), getInput().getType());
  return success();
}
