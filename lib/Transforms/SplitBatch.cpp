//===- SplitBatch.cpp - one data-parallel replica's share -----------------===//
//
// loom-split-batch: data parallelism's split of the batch as a rewrite of
// the imported module, a generic driver over ShardingRuleOpInterface::
// splitBatch (each op's rule says which dimensions hold the batch). The
// functions' arguments take their split from the rules of the ops that
// read them; every op then splits in program order, its operands already
// split.
//
//===----------------------------------------------------------------------===//

#include "loom/Transforms/SplitBatch.h"

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"

namespace loom {
#define GEN_PASS_DEF_SPLITBATCH
#include "loom/Transforms/Passes.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;

namespace {
class Splitter final : public BatchSplitter {
public:
  explicit Splitter(int64_t replicas) : replicas(replicas) {}

  int64_t getReplicas() const override { return replicas; }
  const OpShardingRule &getRule(Operation *op) override {
    auto found = rules.find(op);
    return found == rules.end() ? none : found->second;
  }
  bool isSplit(Value value) const override { return split.contains(value); }

  /// Every op's rule on the imported types, before any changes.
  void readRules(func::FuncOp func) {
    func.walk([&](ShardingRuleOpInterface op) {
      rules.try_emplace(op, op.getShardingRule());
    });
  }
  void setType(Value value, Type type) override {
    value.setType(type);
    split.insert(value);
  }

  LogicalResult splitBlock(Block &block) override {
    for (Operation &op : block) {
      if (auto ruled = dyn_cast<ShardingRuleOpInterface>(op)) {
        if (failed(ruled.splitBatch(*this)))
          return failure();
        continue;
      }
      // A foreign op (func.return) may pass values on; one that computes
      // tensors or holds regions is not ours to split.
      if (op.getNumRegions() != 0)
        return op.emitError() << "cannot split the batch over " << replicas
                              << " replicas: an op with regions that is not "
                                 "a loom.layer";
      if (failed(splitBatchByRule(&op, *this)))
        return failure();
    }
    return success();
  }

  /// The dimensions of `arg` the rules of its users say hold the batch
  /// (looking through the layers it enters), and the batch factor's size.
  /// Empty when no user says.
  SmallVector<std::pair<int64_t, int64_t>> batchDims(BlockArgument arg) {
    SmallVector<std::pair<int64_t, int64_t>> dims;
    for (OpOperand &use : arg.getUses()) {
      Operation *user = use.getOwner();
      unsigned i = use.getOperandNumber();
      if (auto layer = dyn_cast<LayerOp>(user)) {
        dims = batchDims(layer.getBody().getArgument(i));
      } else {
        const OpShardingRule &rule = getRule(user);
        if (i < rule.operands.size())
          for (auto [d, factors] : llvm::enumerate(rule.operands[i]))
            for (unsigned f : factors)
              if (rule.factors[f].kind == FactorKind::Batch)
                dims.push_back({int64_t(d), rule.factors[f].size});
      }
      if (!dims.empty())
        return dims;
    }
    return dims;
  }

  LogicalResult splitFunction(func::FuncOp func) {
    Block &entry = func.getBody().front();
    for (BlockArgument arg : entry.getArguments()) {
      auto type = dyn_cast<RankedTensorType>(arg.getType());
      if (!type)
        continue;
      SmallVector<std::pair<int64_t, int64_t>> dims = batchDims(arg);
      if (dims.empty())
        continue;
      SmallVector<int64_t> shape(type.getShape());
      for (auto [d, size] : dims) {
        if (size % replicas != 0 || shape[d] % replicas != 0)
          return func.emitError()
                 << "cannot split the batch of " << size << " in dimension "
                 << d << " of argument #" << arg.getArgNumber() << " over "
                 << replicas << " replicas (each runs an equal share)";
        shape[d] /= replicas;
      }
      setType(arg, RankedTensorType::get(shape, type.getElementType(),
                                         type.getEncoding()));
    }
    if (failed(splitBlock(entry)))
      return failure();
    SmallVector<Type> results;
    if (Operation *terminator = entry.getTerminator())
      results.assign(terminator->getOperandTypes().begin(),
                     terminator->getOperandTypes().end());
    func.setType(FunctionType::get(func.getContext(), entry.getArgumentTypes(),
                                   results));
    return success();
  }

private:
  int64_t replicas;
  DenseSet<Value> split;
  DenseMap<Operation *, OpShardingRule> rules;
  const OpShardingRule none;
};
} // namespace

LogicalResult loom::splitReplicaBatch(ModuleOp module, int64_t replicas) {
  if (replicas < 1)
    return module.emitError()
           << "replicas must be at least 1, got " << replicas;
  if (ParallelAttr parallel = getParallel(module))
    return module.emitError()
           << "loom-split-batch splits an imported model; this module is "
              "already planned (loom.parallel = "
           << parallel << "): give replicas to the imported model";
  ModelAttr model = getModel(module);
  if (!model)
    return module.emitError() << "loom-split-batch needs the model's batch: "
                                 "the module has no loom.model";
  int64_t batch = model.getBatch();
  if (batch % replicas != 0)
    return module.emitError()
           << "replicas = " << replicas << " does not divide the batch of "
           << batch << " (each data-parallel replica runs an equal share)";
  if (replicas == 1)
    return success();
  Splitter splitter(replicas);
  for (auto func : module.getOps<func::FuncOp>())
    splitter.readRules(func);
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && failed(splitter.splitFunction(func)))
      return failure();
  module->setAttr(
      kModelAttrName,
      ModelAttr::get(module.getContext(), model.getName(), model.getFamily(),
                     model.getMode(), batch / replicas, model.getSeq(),
                     model.getResolution(), model.getTextTokens(),
                     model.getSteps(), model.getHeight(), model.getWidth(),
                     model.getFrames()));
  return success();
}

namespace {
struct SplitBatchPass : public loom::impl::SplitBatchBase<SplitBatchPass> {
  using SplitBatchBase::SplitBatchBase;
  void runOnOperation() override {
    if (failed(splitReplicaBatch(getOperation(), replicas)))
      signalPassFailure();
  }
};
} // namespace
