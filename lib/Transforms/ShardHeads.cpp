//===- ShardHeads.cpp - head-wise tensor parallelism ----------------------===//
//
// Rewrites a model into what one chip of a tensor-parallel group runs: a
// generic driver over ShardingRuleOpInterface. Each op states whether it can
// be split and how (lib/Dialect/Loom/ShardingRules.cpp); the driver keeps
// every value's layout (loom/Dialect/Loom/ShardingRule.h) and inserts the
// collectives that convert one into another. Only foreign ops (func.return)
// are matched here.
//
//===----------------------------------------------------------------------===//

#include "loom/Transforms/ShardHeads.h"

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Dialect/Loom/ModuleTarget.h"
#include "loom/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace loom {
#define GEN_PASS_DEF_SHARDHEADS
#include "loom/Transforms/Passes.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;

namespace {

constexpr StringLiteral kGroup = "tp";

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

RankedTensorType withDim(RankedTensorType type, int64_t dim, int64_t size) {
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = size;
  return RankedTensorType::get(shape, type.getElementType());
}

/// The projection (through RoPE and per-head norms) that produces `value`.
LinearOp producingLinear(Value value) {
  Operation *op = value.getDefiningOp();
  while (op && isa<RoPEOp, RMSNormOp>(op))
    op = op->getOperand(0).getDefiningOp();
  return dyn_cast_or_null<LinearOp>(op);
}

/// The first reason `module` cannot be split `tp` ways: the op and what to
/// say there. {nullptr, ""} when it can. Heads first: a projection that
/// does not split is usually a symptom of heads that do not.
std::pair<Operation *, std::string> whyNot(ModuleOp module, int64_t tp,
                                           bool sequenceParallel) {
  std::pair<Operation *, std::string> reason{nullptr, ""};
  for (bool headsOnly : {true, false})
    module.walk([&](ShardingRuleOpInterface op) {
      if (reason.first)
        return WalkResult::interrupt();
      if (headsOnly != isa<AttentionOp, JointAttentionOp>(op))
        return WalkResult::advance();
      std::string why = op.whyNotShardable(tp, sequenceParallel);
      if (why.empty())
        return WalkResult::advance();
      reason = {op, why};
      return WalkResult::interrupt();
    });
  return reason;
}

/// The driver: the layouts of values, the collectives that convert them.
class HeadSharder : public ShardingRewriter {
public:
  HeadSharder(ModuleOp module, int64_t tp, bool sequenceParallel)
      : module(module), tp(tp), sp(sequenceParallel),
        b(module.getContext()) {}

  void run() {
    module.walk([&](AttentionOp attn) {
      if (attn.getKvHeads() >= static_cast<uint64_t>(tp))
        return;
      for (Value kv : {attn.getK(), attn.getV()})
        if (LinearOp linear = producingLinear(kv))
          kvProjections[linear] = {static_cast<int64_t>(attn.getKvHeads()),
                                   static_cast<int64_t>(attn.getHeadDim())};
    });
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      for (BlockArgument arg : func.getArguments())
        layouts[arg] = Layout::Full;
      shardBlock(func.getBody().front());
      func.setType(FunctionType::get(
          module.getContext(), func.getArgumentTypes(),
          func.getBody().front().getTerminator()->getOperandTypes()));
    }
  }

  int64_t getDegree() const override { return tp; }
  bool isSequenceParallel() const override { return sp; }
  Layout getLayout(Value v) const override { return layouts.lookup(v); }

  void setLayout(Value v, Layout layout, Type type = {}) override {
    if (type)
      v.setType(type);
    layouts[v] = layout;
  }

  /// Sums a Partial operand of `user`: an all-reduce, or a reduce-scatter
  /// over the sequence when sequence parallelism is on and it is a token
  /// tensor.
  Value reduce(Operation *user, Value partial) override {
    RankedTensorType type = tensorType(partial);
    if (sp && type.getRank() == 3)
      return insertBefore<ReduceScatterOp>(
          user, partial, withDim(type, 1, type.getDimSize(1) / tp),
          Layout::Seq, groupAttr(), i64(tp), i64(1));
    return insertBefore<AllReduceOp>(user, partial, type, Layout::Full,
                                     groupAttr(), i64(tp), IntegerAttr());
  }

  Value toFull(Operation *user, Value operand) override {
    if (getLayout(operand) == Layout::Partial)
      operand = reduce(user, operand);
    if (getLayout(operand) == Layout::Seq) {
      RankedTensorType type = tensorType(operand);
      operand = insertBefore<AllGatherOp>(
          user, operand, withDim(type, 1, type.getDimSize(1) * tp),
          Layout::Full, groupAttr(), i64(tp), i64(1));
    }
    return operand;
  }

  Value toSeq(Operation *user, Value operand) override {
    if (getLayout(operand) == Layout::Partial)
      operand = reduce(user, operand);
    if (getLayout(operand) == Layout::Full) {
      RankedTensorType type = tensorType(operand);
      operand = insertBefore<LocalShardOp>(
          user, operand, withDim(type, 1, type.getDimSize(1) / tp),
          Layout::Seq, groupAttr(), i64(tp), i64(1));
    }
    return operand;
  }

  /// A whole tensor is cut locally (every chip keeps its columns or heads).
  Value toFeature(Operation *user, Value operand, int64_t parts) override {
    if (getLayout(operand) == Layout::Feature)
      return operand;
    operand = toFull(user, operand);
    RankedTensorType type = tensorType(operand);
    int64_t last = type.getRank() - 1;
    return insertBefore<LocalShardOp>(
        user, operand, withDim(type, last, type.getShape().back() / parts),
        Layout::Feature, groupAttr(), i64(parts), i64(last));
  }

  /// Reduced, and sequence-split if any operand is; per-sample vectors
  /// (rank < 3) broadcast and must be whole.
  Layout unify(Operation *op) override {
    bool anySeq = false, anyFeature = false;
    for (Value operand : op->getOperands()) {
      if (getLayout(operand) == Layout::Partial)
        operand = reduce(op, operand);
      if (tensorType(operand).getRank() < 3)
        operand = toFull(op, operand);
      anySeq |= getLayout(operand) == Layout::Seq;
      anyFeature |= getLayout(operand) == Layout::Feature;
    }
    if (anyFeature) {
      // Mixed with feature-split operands, whole ones keep their columns.
      for (Value operand : op->getOperands())
        if (tensorType(operand).getRank() == 3)
          toFeature(op, operand, tp);
      return Layout::Feature;
    }
    if (!anySeq)
      return Layout::Full;
    for (Value operand : op->getOperands())
      if (tensorType(operand).getRank() == 3)
        toSeq(op, operand);
    return Layout::Seq;
  }

  void gatherAfter(Value value) override {
    auto type = cast<RankedTensorType>(value.getType());
    int64_t last = type.getRank() - 1;
    b.setInsertionPointAfterValue(value);
    RankedTensorType whole =
        withDim(type, last, type.getShape().back() * tp);
    auto gather = AllGatherOp::create(b, value.getLoc(), whole, value,
                                      groupAttr(), i64(tp), i64(last));
    value.replaceAllUsesExcept(gather, gather);
    setLayout(gather, Layout::Full);
  }

  void shardBlock(Block &block) override {
    for (Operation &op : llvm::make_early_inc_range(block)) {
      if (auto rule = dyn_cast<ShardingRuleOpInterface>(op)) {
        rule.applyShardingRule(*this);
        continue;
      }
      // Foreign ops: a function returns whole values, or the logits still
      // split over the vocabulary for a parallel softmax or sampler.
      if (auto ret = dyn_cast<func::ReturnOp>(op)) {
        for (Value operand : ret.getOperands())
          if (getLayout(operand) != Layout::Feature)
            toFull(ret, operand);
        continue;
      }
      applyDefaultShardingRule(&op, *this);
    }
  }

  std::optional<KVReplication>
  getKVReplication(Operation *linear) const override {
    auto it = kvProjections.find(linear);
    if (it == kvProjections.end())
      return std::nullopt;
    return it->second;
  }

private:
  /// Gives `user` `from` converted by an `OpT` collective: made before the
  /// first user that needs it and reused by the later ones (a conversion
  /// made before an earlier op of the same block dominates them).
  template <typename OpT, typename... Args>
  Value insertBefore(Operation *user, Value from, Type resultType,
                     Layout layout, Args &&...args) {
    Value &to = conversions[{from, unsigned(layout), resultType}];
    if (!to) {
      b.setInsertionPoint(user);
      to = OpT::create(b, user->getLoc(), resultType, from,
                       std::forward<Args>(args)...);
      setLayout(to, layout);
    }
    user->replaceUsesOfWith(from, to);
    return to;
  }

  IntegerAttr i64(int64_t v) { return b.getI64IntegerAttr(v); }
  StringAttr groupAttr() { return b.getStringAttr(kGroup); }

  ModuleOp module;
  int64_t tp;
  bool sp;
  OpBuilder b;
  DenseMap<Value, Layout> layouts;
  /// Conversions already inserted: (value, layout and type it became).
  DenseMap<std::tuple<Value, unsigned, Type>, Value> conversions;
  DenseMap<Operation *, KVReplication> kvProjections;
};

std::string joinDegrees(ArrayRef<int64_t> degrees) {
  std::string text;
  for (int64_t d : degrees)
    text += (text.empty() ? "" : ", ") + std::to_string(d);
  return text.empty() ? "none" : text;
}

} // namespace

SmallVector<int64_t> loom::validTensorParallelDegrees(ModuleOp module,
                                                      int64_t maxDegree,
                                                      bool sequenceParallel) {
  SmallVector<int64_t> valid;
  // Sequence parallelism splits activations across the group: tp >= 2.
  for (int64_t tp = sequenceParallel ? 2 : 1; tp <= maxDegree; ++tp)
    if (!whyNot(module, tp, sequenceParallel).first)
      valid.push_back(tp);
  return valid;
}

LogicalResult loom::shardHeads(ModuleOp module,
                               const HeadShardingOptions &options) {
  if (ParallelAttr parallel = getParallel(module))
    return module.emitError()
           << "the module is already sharded (loom.parallel = " << parallel
           << ")";
  FailureOr<TargetAttr> target = requireTarget(module, "loom-shard-heads");
  if (failed(target))
    return failure();
  const TopologyDesc topologyDesc = target->getTopologyDesc();
  const TopologyDesc *topology = &topologyDesc;
  int64_t chips = topology->numChips();
  // The degrees that split the model and tile the topology.
  auto validDegrees = [&] {
    SmallVector<int64_t> valid;
    for (int64_t d :
         validTensorParallelDegrees(module, chips, options.sequenceParallel))
      if (chips % d == 0)
        valid.push_back(d);
    return joinDegrees(valid);
  };
  if (options.tp < 1)
    return module.emitError()
           << "tp must be at least 1, got " << options.tp
           << "; valid degrees on " << topology->name << ": " << validDegrees();
  if (options.tp > chips)
    return module.emitError()
           << "tp = " << options.tp << " needs more chips than " << topology->name
           << " has (" << chips << "); valid degrees: " << validDegrees();
  if (options.sequenceParallel && options.tp == 1)
    return module.emitError()
           << "sequence-parallel splits activations across the "
              "tensor-parallel group, so it needs tp >= 2; valid degrees on "
           << topology->name << ": " << validDegrees();
  auto [op, message] = whyNot(module, options.tp, options.sequenceParallel);
  if (op)
    return op->emitError() << "cannot split " << options.tp
                           << " ways: " << message
                           << "; valid tensor-parallel degrees on "
                           << topology->name << ": " << validDegrees();
  // Groups of tp chips (times the stages) must tile the topology, or no
  // later pass can lay the plan out.
  if (chips % options.tp != 0)
    return module.emitError()
           << "tp = " << options.tp << " does not divide the " << chips
           << " chips of " << topology->name
           << ", which tensor-parallel groups must tile; valid degrees: "
           << validDegrees();

  HeadSharder(module, options.tp, options.sequenceParallel).run();
  module->setAttr(kParallelAttrName,
                  ParallelAttr::get(module.getContext(), options.tp, 1,
                                    options.sequenceParallel, 1, 1));
  return success();
}

namespace {
struct ShardHeadsPass : public loom::impl::ShardHeadsBase<ShardHeadsPass> {
  using ShardHeadsBase::ShardHeadsBase;

  void runOnOperation() override {
    HeadShardingOptions options;
    options.tp = tp;
    options.sequenceParallel = sequenceParallel;
    if (failed(shardHeads(getOperation(), options)))
      signalPassFailure();
  }
};
} // namespace
