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

#include "llvm/ADT/MapVector.h"

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
/// say there. {nullptr, ""} when it can. Attentions whose keys split with
/// their heads first: a projection that does not split is usually a
/// symptom of heads that do not. (MLA's shared latent keeps its place.)
std::pair<Operation *, std::string> whyNot(ModuleOp module, int64_t tp,
                                           bool sequenceParallel) {
  std::pair<Operation *, std::string> reason{nullptr, ""};
  for (bool headsOnly : {true, false})
    module.walk([&](ShardingRuleOpInterface op) {
      if (reason.first)
        return WalkResult::interrupt();
      OpShardingRule rule = op.getShardingRule();
      if (headsOnly != (rule.isAttention() && rule.headsSplitKeys()))
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
    // Fewer KV heads than chips: the projections of the tensors made of
    // them are replicated (their rule's KV-heads factor).
    module.walk([&](ShardingRuleOpInterface op) {
      OpShardingRule rule = op.getShardingRule();
      int64_t kvHeads = rule.sizeOf(FactorKind::KVHeads);
      if (kvHeads == 0 || kvHeads >= tp)
        return;
      for (unsigned i : rule.operandsWith(FactorKind::KVHeads))
        if (LinearOp linear = producingLinear(op->getOperand(i)))
          kvProjections[linear] = {kvHeads, rule.sizeOf(FactorKind::HeadDim)};
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


//===----------------------------------------------------------------------===//
// 2-D weight-stationary (Pope et al. 2023, section 3.2.2)
//===----------------------------------------------------------------------===//
//
// The group is an X x Y block. The 1-D layout at degree Y (heads and d_ff
// over the block's rows, "tp_y") is refined by splitting d_model over its
// columns ("tp_x"): the residual stream between the blocks holds E / X of
// each token; a column-split projection (q, k, v, gate, up) reads E / X and
// its partial sums are all-reduced over tp_x; a row-split one (o, down)
// writes E / X, all-reduced over tp_y as in 1-D. Per layer that moves
// 2 B L (qkv + 2 d_ff) / Y over tp_x and 2 x 2 B L E / X over tp_y, against
// 1-D's 2 x 2 B L E over the whole group.

/// Whether `op` is an op of a layer the 2-D layout knows how to split.
bool isTwoDLayerOp(Operation *op) {
  return isa<LinearOp, AttentionOp, RMSNormOp, LayerNormOp, RoPEOp,
             ActivationOp, SwiGLUOp, AddOp, MulOp, AllReduceOp, ChunkOp,
             YieldOp>(op);
}

/// A row split (o, down): its rule sums its input's features (heads or
/// d_ff) into d_model, which its result holds; a column split reads
/// d_model.
bool sumsIntoModel(const OpShardingRule &rule) {
  return !rule.operands.empty() && !rule.operands[0].empty() &&
         !rule.operands[0].back().empty() && !rule.results.empty() &&
         rule.resultHas(0, FactorKind::Model);
}

int64_t normGroup(Operation *op) {
  if (auto norm = dyn_cast<RMSNormOp>(op))
    return norm.getGroupSize();
  return cast<LayerNormOp>(op).getGroupSize();
}

/// The first reason the layers cannot split d_model `x` ways (with their
/// heads and d_ff split `y` ways): the op and what to say there.
std::pair<Operation *, std::string> whyNotTwoD(ModuleOp module, int64_t x) {
  std::pair<Operation *, std::string> reason{nullptr, ""};
  module.walk([&](LayerOp layer) {
    for (Operation &op : layer.getBody().front()) {
      auto say = [&](const Twine &why) {
        reason = {&op, why.str()};
        return WalkResult::interrupt();
      };
      if (!isTwoDLayerOp(&op))
        return say("2-D weight-stationary tensor parallelism splits the "
                   "projections, norms and attention of decoder layers; it "
                   "does not split '" +
                   op.getName().getStringRef() + "'");
      // The role names the projection in the message; the rule says
      // where its d_model is.
      if (auto linear = dyn_cast<LinearOp>(op)) {
        OpShardingRule rule = linear.getShardingRule();
        int64_t model = sumsIntoModel(rule) ? rule.sizeOf(FactorKind::Model)
                                            : linear.getInFeatures();
        if (model % x != 0)
          return say(Twine("d_model ") + Twine(model) + " of this " +
                     stringifyLinearRole(linear.getRole()) +
                     " projection is not divisible by tp_x = " + Twine(x));
      }
      if (isa<RMSNormOp, LayerNormOp>(op)) {
        int64_t width = tensorType(op.getResult(0)).getShape().back();
        if (normGroup(&op) == width && width % x != 0)
          return say(Twine("d_model ") + Twine(width) +
                     " of this norm is not divisible by tp_x = " + Twine(x));
      }
    }
    return reason.first ? WalkResult::interrupt() : WalkResult::advance();
  });
  return reason;
}

/// Splits d_model over tp_x in a module sharded 1-D over tp_y.
class TwoDSharder {
public:
  TwoDSharder(ModuleOp module, int64_t x) : module(module), x(x),
                                             b(module.getContext()) {}

  void run() {
    // The 1-D pass ran over tp_y.
    module.walk([&](Operation *op) {
      if (auto group = op->getAttrOfType<StringAttr>("group");
          group && group.getValue() == kGroup)
        op->setAttr("group", b.getStringAttr(kTensorYGroup));
    });
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      SmallVector<LayerOp> layers(func.getBody().front().getOps<LayerOp>());
      if (layers.empty())
        continue;
      model = tensorType(layers.front().getInputs().front()).getShape().back();
      for (LayerOp layer : layers)
        shardLayer(layer);
      // Whole again for the ops after the layers.
      for (LayerOp layer : layers)
        for (OpResult result : layer->getResults()) {
          if (!split.contains(result) ||
              llvm::all_of(result.getUsers(),
                           [](Operation *u) { return isa<LayerOp>(u); }))
            continue;
          b.setInsertionPointAfter(layer);
          auto gather = AllGatherOp::create(
              b, layer.getLoc(), withLast(result, model), result,
              b.getStringAttr(kTensorXGroup), i64(x), i64(2));
          result.replaceUsesWithIf(gather, [&](OpOperand &use) {
            return use.getOwner() != gather &&
                   !isa<LayerOp>(use.getOwner());
          });
        }
    }
  }

private:
  RankedTensorType withLast(Value v, int64_t width) {
    RankedTensorType type = tensorType(v);
    return withDim(type, type.getRank() - 1, width);
  }
  bool isModelWide(Value v) {
    RankedTensorType type = tensorType(v);
    return type.getRank() == 3 && type.getShape().back() == model;
  }
  void markSplit(Value v) {
    v.setType(withLast(v, tensorType(v).getShape().back() / x));
    split.insert(v);
  }
  /// `operand` of `user`, cut locally to its E / X (it is whole over tp_x).
  void cutLocally(Operation *user, Value operand) {
    b.setInsertionPoint(user);
    auto cut = LocalShardOp::create(b, user->getLoc(),
                                    withLast(operand, model / x), operand,
                                    b.getStringAttr(kTensorXGroup), i64(x),
                                    i64(2));
    user->replaceUsesOfWith(operand, cut);
    split.insert(cut);
  }
  void setXParts(Operation *op, SplitKind kind, int64_t parts,
                 int64_t replicas) {
    op->setAttr(kSplitAttrName, SplitAttr::get(op->getContext(), kind, parts,
                                               replicas, x));
  }

  void shardLayer(LayerOp layer) {
    Block &body = layer.getBody().front();
    for (auto [i, input] : llvm::enumerate(layer.getInputs())) {
      if (!split.contains(input) && isModelWide(input))
        cutLocally(layer, input);
      if (split.contains(layer.getInputs()[i]))
        markSplit(body.getArgument(i));
    }
    for (Operation &op : llvm::make_early_inc_range(body)) {
      if (auto linear = dyn_cast<LinearOp>(op)) {
        shardLinear(linear);
        continue;
      }
      if (isa<RMSNormOp, LayerNormOp>(op)) {
        Value input = op.getOperand(0);
        if (!split.contains(input))
          continue;
        // The per-token statistic sums over all of d_model: each chip's
        // partial sum of squares (one f32 a token, two bf16 wide) is
        // all-reduced over tp_x before the norm scales its E / X.
        RankedTensorType type = tensorType(input);
        b.setInsertionPoint(&op);
        auto stats = SliceOp::create(b, op.getLoc(), withLast(input, 2), input,
                                     i64(2), i64(0));
        AllReduceOp::create(b, op.getLoc(), stats.getType(), stats,
                            b.getStringAttr(kTensorXGroup), i64(x),
                            IntegerAttr());
        (void)type;
        markSplit(op.getResult(0));
        setXParts(&op, SplitKind::column, 1, 1);
        continue;
      }
      // The attention's own attributes hold its heads (set per chip).
      if (auto attn = dyn_cast<AttentionOp>(op)) {
        splitHeadsOverX(attn);
        continue;
      }
      if (auto yield = dyn_cast<YieldOp>(op)) {
        for (auto [result, value] :
             llvm::zip(layer.getResults(), yield.getValues()))
          if (split.contains(value))
            markSplit(result);
        combineCollectives(body);
        continue;
      }
      if (isa<AllReduceOp>(op)) {
        if (split.contains(op.getOperand(0)))
          markSplit(op.getResult(0));
        continue;
      }
      // Token-wise ops: split when an operand is, the others cut to match.
      if (llvm::any_of(op.getOperands(),
                       [&](Value v) { return split.contains(v); })) {
        for (Value operand : op.getOperands())
          if (!split.contains(operand))
            cutLocally(&op, operand);
        markSplit(op.getResult(0));
      }
    }
  }

  /// The tp_x all-reduce an attention operand comes from (through RoPE,
  /// per-head norms and the chunk of a fused qkv projection, each used
  /// once), and the ops in between.
  AllReduceOp reducedOverX(Value operand, SmallVectorImpl<Operation *> &path) {
    Value v = operand;
    while (Operation *def = v.getDefiningOp()) {
      if (!v.hasOneUse())
        return nullptr;
      if (auto sum = dyn_cast<AllReduceOp>(def))
        return sum.getGroup() == kTensorXGroup ? sum : nullptr;
      if (!isa<RoPEOp, RMSNormOp, ChunkOp>(def))
        return nullptr;
      path.push_back(def);
      v = def->getOperand(0);
    }
    return nullptr;
  }

  /// Pope et al.'s form for attention (section 3.2.2): the partial sums of
  /// q, k and v are reduce-scattered over tp_x by heads instead of
  /// all-reduced, so each chip attends over heads / (X Y) (no attention
  /// computed X times, a KV cache split N ways), and the output is
  /// all-gathered over tp_x before o: the same bytes as the all-reduce.
  /// A fused qkv projection (GPT-3) is scattered whole and chunked after:
  /// its weight's columns are laid out shard-major (each tp_x shard's heads
  /// of q, k and v together, as Pope et al.'s q_wi is heads-major), so each
  /// chip's piece is its heads of all three.
  void splitHeadsOverX(AttentionOp attn) {
    // The heads and KV heads its rule splits, over the model's own sequence
    // (a cross-attention's keys are the context, whole on every chip).
    OpShardingRule rule = attn.getShardingRule();
    int64_t heads = rule.sizeOf(FactorKind::Heads);
    int64_t kvHeads = rule.sizeOf(FactorKind::KVHeads);
    if (heads % x != 0 || kvHeads % x != 0 ||
        rule.reduces(FactorKind::Context))
      return;
    SmallVector<std::pair<AllReduceOp, SmallVector<Operation *>>> chains;
    for (Value operand : attn->getOperands()) {
      SmallVector<Operation *> path;
      AllReduceOp sum = reducedOverX(operand, path);
      if (!sum)
        return;
      chains.push_back({sum, path});
    }
    // q, k and v may share a projection (one all-reduce); each once.
    DenseSet<Operation *> done;
    for (auto &[sum, path] : chains) {
      if (!done.insert(sum).second)
        continue;
      Value input = sum.getInput();
      if (tensorType(input).getShape().back() % x != 0)
        return;
    }
    done.clear();
    for (auto &[sum, path] : chains) {
      if (!done.insert(sum).second)
        continue;
      b.setInsertionPoint(sum);
      Value input = sum.getInput();
      auto scatter = ReduceScatterOp::create(
          b, sum.getLoc(), withLast(input, tensorType(input).getShape().back() / x),
          input, b.getStringAttr(kTensorXGroup), i64(x), i64(2));
      sum.getResult().replaceAllUsesWith(scatter.getResult());
      sum.erase();
    }
    // The ops between keep their operand's (narrower) type; a chunk cuts
    // it in equal pieces.
    for (auto &[sum, path] : chains)
      for (Operation *between : llvm::reverse(path)) {
        RankedTensorType in = tensorType(between->getOperand(0));
        for (OpResult result : between->getResults())
          result.setType(isa<ChunkOp>(between)
                             ? withDim(in, in.getRank() - 1,
                                       in.getShape().back() /
                                           between->getNumResults())
                             : in);
      }
    attn.setHeads(heads / x);
    attn.setKvHeads(kvHeads / x);
    if (auto how = attn->getAttrOfType<SplitAttr>(kSplitAttrName))
      setXParts(attn, how.getKind(), how.getParts(), how.getReplicas());
    Value out = attn.getResult();
    int64_t width = tensorType(out).getShape().back();
    out.setType(withLast(out, width / x));
    b.setInsertionPointAfter(attn);
    auto gather = AllGatherOp::create(b, attn.getLoc(), withLast(out, width),
                                      out, b.getStringAttr(kTensorXGroup),
                                      i64(x), i64(2));
    out.replaceAllUsesExcept(gather, gather);
  }

  /// The tp_x all-reduces the MLP's activation reads (through its
  /// elementwise ops, each used once, all `width` wide), with the ops in
  /// between; false when it reads anything else.
  bool feedForwardSums(Value value, int64_t width,
                       SmallVectorImpl<AllReduceOp> &sums,
                       SmallVectorImpl<Operation *> &between) {
    Operation *def = value.getDefiningOp();
    if (!def || !value.hasOneUse() || tensorType(value).getRank() != 3 ||
        tensorType(value).getShape().back() != width)
      return false;
    if (auto sum = dyn_cast<AllReduceOp>(def)) {
      sums.push_back(sum);
      return sum.getGroup() == kTensorXGroup;
    }
    if (!isa<SwiGLUOp, ActivationOp, MulOp>(def))
      return false;
    between.push_back(def);
    return llvm::all_of(def->getOperands(), [&](Value operand) {
      return feedForwardSums(operand, width, sums, between);
    });
  }

  /// Pope et al.'s form for the MLP (section 3.2.2, BLF_yz -> BLF_xyz): the
  /// partial sums of gate and up (fc1) are reduce-scattered over tp_x by
  /// d_ff instead of all-reduced, so the activation runs once on
  /// F / (X Y) rather than X times on F / Y, and its output is all-gathered
  /// over tp_x before down (fc2): over tp_x a SwiGLU MLP moves 3 F / Y
  /// (the all-reduces moved 2 x 2 F / Y), a GELU MLP the same 2 F / Y.
  void splitFeedForwardOverX(LinearOp down) {
    Value input = down.getInput();
    int64_t width = tensorType(input).getShape().back();
    SmallVector<AllReduceOp> sums;
    SmallVector<Operation *> between;
    if (width % x != 0 || !feedForwardSums(input, width, sums, between))
      return;
    for (AllReduceOp sum : sums) {
      b.setInsertionPoint(sum);
      Value partial = sum.getInput();
      auto scatter = ReduceScatterOp::create(
          b, sum.getLoc(), withLast(partial, width / x), partial,
          b.getStringAttr(kTensorXGroup), i64(x), i64(2));
      sum.getResult().replaceAllUsesWith(scatter.getResult());
      sum.erase();
    }
    for (Operation *op : between)
      op->getResult(0).setType(withLast(op->getResult(0), width / x));
    b.setInsertionPoint(down);
    auto gather = AllGatherOp::create(b, down.getLoc(), withLast(input, width),
                                      input, b.getStringAttr(kTensorXGroup),
                                      i64(x), i64(2));
    down.getInputMutable().assign(gather);
  }

  /// One collective for the projections that read one input (q, k and v;
  /// gate and up): their tp_x all-reduces, or reduce-scatters over one
  /// dimension, become one combined collective after the last of them, so
  /// the group pays one collective's fixed cost (synchronisation and per-step
  /// hop latency, CostModel::collectiveTime) instead of one per projection.
  void combineCollectives(Block &body) {
    // (input of the projections, collective, dim) -> the collectives.
    llvm::MapVector<std::tuple<Value, StringRef, int64_t>,
                    SmallVector<Operation *>>
        groups;
    for (Operation &op : body) {
      if (!isa<AllReduceOp, ReduceScatterOp>(op))
        continue;
      auto collective = cast<CollectiveOpInterface>(op);
      auto linear = op.getOperand(0).getDefiningOp<LinearOp>();
      if (collective.getGroup() != kTensorXGroup || !linear ||
          !op.getOperand(0).hasOneUse())
        continue;
      auto dim = op.getAttrOfType<IntegerAttr>("dim");
      groups[{linear.getInput(), op.getName().getStringRef(),
              dim ? dim.getInt() : -1}]
          .push_back(&op);
    }
    for (auto &[key, members] : groups) {
      if (members.size() < 2)
        continue;
      // Each member's users wait for the last: none may come before it.
      Operation *last = members.back();
      bool usedBefore = llvm::any_of(members, [&](Operation *member) {
        return llvm::any_of(member->getUsers(), [&](Operation *user) {
          return user->getBlock() != last->getBlock() ||
                 user->isBeforeInBlock(last);
        });
      });
      if (usedBefore)
        continue;
      SmallVector<Value> inputs;
      SmallVector<Type> types;
      for (Operation *member : members) {
        inputs.push_back(member->getOperand(0));
        types.push_back(member->getResult(0).getType());
      }
      b.setInsertionPoint(last);
      Operation *combined;
      StringAttr group = b.getStringAttr(kTensorXGroup);
      if (isa<AllReduceOp>(last))
        combined = CombinedAllReduceOp::create(b, last->getLoc(), types, inputs,
                                               group, i64(x), IntegerAttr());
      else
        combined = CombinedReduceScatterOp::create(
            b, last->getLoc(), types, inputs, group, i64(x),
            i64(std::get<2>(key)));
      for (auto [member, result] : llvm::zip(members, combined->getResults())) {
        member->getResult(0).replaceAllUsesWith(result);
        member->erase();
      }
    }
  }

  void shardLinear(LinearOp linear) {
    auto how = linear->getAttrOfType<SplitAttr>(kSplitAttrName);
    int64_t parts = how ? how.getParts() : 1;
    int64_t replicas = how ? how.getReplicas() : 1;
    SplitKind kind = how ? how.getKind() : SplitKind::column;
    if (how && how.getKind() == SplitKind::row) {
      // o, down: d_model out split over tp_x; the tp_y all-reduce after it
      // sums E / X. down (its rule sums over d_ff) also takes the MLP's
      // activation split over tp_x.
      if (linear.getShardingRule().reduces(FactorKind::FF))
        splitFeedForwardOverX(linear);
      markSplit(linear.getResult());
      setXParts(linear, kind, parts, replicas);
      return;
    }
    // q, k, v, gate, up: d_model in split over tp_x, partial sums reduced.
    Value input = linear.getInput();
    if (!split.contains(input))
      cutLocally(linear, input);
    setXParts(linear, kind, parts, replicas);
    b.setInsertionPointAfter(linear);
    Value result = linear.getResult();
    auto sum = AllReduceOp::create(b, linear.getLoc(), result.getType(),
                                   result, b.getStringAttr(kTensorXGroup),
                                   i64(x), IntegerAttr());
    result.replaceAllUsesExcept(sum, sum);
  }

  IntegerAttr i64(int64_t v) { return b.getI64IntegerAttr(v); }

  ModuleOp module;
  int64_t x;
  OpBuilder b;
  int64_t model = 0;
  /// Values whose last dimension is d_model split over tp_x.
  DenseSet<Value> split;
};

/// "2 x 8, 4 x 4": the tp_x x tp_y blocks of `tp` chips that tile
/// `topology` and split `module`.
std::string validFactorizations(ModuleOp module, const TopologyDesc &topology,
                                int64_t tp, bool sequenceParallel) {
  std::string text;
  for (int64_t x : validTensorRows(module, topology, tp, sequenceParallel))
    text += (text.empty() ? "" : ", ") + std::to_string(x) + " x " +
            std::to_string(tp / x);
  return text.empty() ? "none" : text;
}

} // namespace

SmallVector<int64_t> loom::validTensorRows(ModuleOp module,
                                           const TopologyDesc &topology,
                                           int64_t tp, bool sequenceParallel) {
  SmallVector<int64_t> rows;
  if (topology.shape.size() != 2)
    return rows;
  for (int64_t x = 2; x <= tp / 2; ++x) {
    if (tp % x != 0)
      continue;
    int64_t y = tp / x;
    if (topology.shape[0] % x != 0 || topology.shape[1] % y != 0 ||
        whyNotTwoD(module, x).first ||
        whyNot(module, y, sequenceParallel).first)
      continue;
    rows.push_back(x);
  }
  return rows;
}

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

/// loom-shard-heads with tp-x: checks the block, then shards 1-D over
/// tp_y and splits d_model over tp_x.
static LogicalResult shardTwoD(ModuleOp module,
                               const HeadShardingOptions &options,
                               const TopologyDesc &topology) {
  int64_t tp = options.tp, x = options.tpX;
  bool sp = options.sequenceParallel;
  auto valid = [&] { return validFactorizations(module, topology, tp, sp); };
  if (x < 1 || tp % x != 0)
    return module.emitError()
           << "tp-x = " << x << " does not divide tp = " << tp
           << "; valid tp_x x tp_y factorizations on " << topology.name
           << ": " << valid();
  if (x == tp || topology.shape.size() != 2 || topology.shape[0] % x != 0 ||
      topology.shape[1] % (tp / x) != 0)
    return module.emitError()
           << "tp = " << tp << " does not factor as tp_x = " << x
           << " rows by " << tp / x << " columns of a block that tiles " << topology.name << " ("
           << topology.shape[0] << "x"
           << (topology.shape.size() == 2 ? topology.shape[1] : 1)
           << "); valid tp_x x tp_y factorizations: " << valid();
  if (auto [op, message] = whyNot(module, tp / x, sp); op)
    return op->emitError() << "cannot split heads and d_ff " << tp / x
                           << " ways (tp_y of " << x << " x " << tp / x
                           << "): " << message
                           << "; valid tp_x x tp_y factorizations: "
                           << valid();
  if (auto [op, message] = whyNotTwoD(module, x); op)
    return op->emitError() << "cannot split d_model " << x << " ways (tp_x of "
                           << x << " x " << tp / x << "): " << message
                           << "; valid tp_x x tp_y factorizations: "
                           << valid();
  // With sequence parallelism the 1-D pass over tp_y (Megatron's form)
  // leaves the residual split over the sequence as well: o's and down's
  // tp_y all-reduces become reduce-scatters over the sequence, gathered
  // back over tp_y before q, k, v and gate, up (each of E / X).
  HeadSharder(module, tp / x, sp).run();
  TwoDSharder(module, x).run();
  module->setAttr(kParallelAttrName,
                  ParallelAttr::get(module.getContext(), tp, 1, sp, 1, 1, x,
                                    false, false, 1, 0, 1));
  return success();
}

/// Whether `op` reads or writes a dispatch buffer (its rule has expert
/// groups): a MoE layer's router, experts or combine.
static bool dispatchesToExperts(Operation *op) {
  auto rule = dyn_cast<ShardingRuleOpInterface>(op);
  return rule && rule.getShardingRule().has(FactorKind::ExpertGroups);
}

/// The batch of the model function: dim 0 of its first layer's input.
static int64_t layerBatch(LayerOp layer) {
  for (Value input : layer.getInputs())
    if (auto type = dyn_cast<RankedTensorType>(input.getType());
        type && type.getRank() >= 1)
      return type.getDimSize(0);
  return 0;
}

/// loom-shard-heads weight-gathered (Pope et al. 2023, section 3.2.3): the
/// tp chips split the batch; each runs whole layers on batch / tp of the
/// sequences, with the layer's weights (stored split tp ways) all-gathered
/// first. Every tensor's dim 0 is the batch and shrinks tp times.
static LogicalResult shardWeightGathered(ModuleOp module,
                                         const HeadShardingOptions &options,
                                         const TopologyDesc &topology) {
  // A tensor-parallel group lies within one slice.
  int64_t tp = options.tp, chips = topology.sliceChips();
  if (options.tpX != 1 || options.sequenceParallel)
    return module.emitError()
           << "weight-gathered splits the batch over the whole tp group and "
              "gathers whole layers' weights; drop "
           << (options.tpX != 1 ? "tp-x" : "sequence-parallel");
  SmallVector<func::FuncOp> funcs;
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal() && !func.getOps<LayerOp>().empty())
      funcs.push_back(func);
  if (funcs.empty())
    return module.emitError()
           << "weight-gathered gathers each loom.layer's weights; the module "
              "has no layers";
  int64_t batch = layerBatch(*funcs.front().getOps<LayerOp>().begin());
  auto valid = [&] {
    SmallVector<int64_t> sizes;
    for (int64_t d = 2; d <= chips; ++d)
      if (batch % d == 0 && chips % d == 0)
        sizes.push_back(d);
    return sizes.empty() ? std::string("none (a batch of ") +
                               std::to_string(batch) +
                               " does not split over 2 or more chips)"
                         : joinDegrees(sizes);
  };
  if (tp < 2 || tp > chips || chips % tp != 0 || batch % tp != 0) {
    InFlightDiagnostic diag =
        funcs.front().emitError()
        << "weight-gathered cannot split the batch of " << batch << " over tp = "
        << tp << " chips: ";
    if (tp < 2)
      diag << "it needs a group of at least 2";
    else if (tp > chips || chips % tp != 0)
      diag << "groups of " << tp << " do not tile the " << chips
           << " chips of " << topology.name;
    else
      diag << "each chip runs an equal share of the sequences";
    return diag << "; valid group sizes on " << topology.name << ": "
                << valid();
  }
  // Every tensor must lead with the batch, or the split is not a split of
  // the batch.
  Operation *wrong = nullptr;
  for (func::FuncOp func : funcs) {
    func.walk([&](Operation *op) {
      if (dispatchesToExperts(op)) {
        wrong = op;
        return WalkResult::interrupt();
      }
      for (Type type : op->getResultTypes())
        if (auto tensor = dyn_cast<RankedTensorType>(type);
            tensor && (tensor.getRank() < 1 || tensor.getDimSize(0) != batch)) {
          wrong = op;
          return WalkResult::interrupt();
        }
      return WalkResult::advance();
    });
    if (wrong)
      break;
  }
  if (wrong) {
    if (dispatchesToExperts(wrong))
      return wrong->emitError()
             << "weight-gathered gathers dense layers' weights; MoE layers "
                "are not split this way (use tp or ep)";
    return wrong->emitError()
           << "weight-gathered splits dim 0, the batch of " << batch
           << ", of every tensor, but this op's result does not lead with it";
  }
  MLIRContext *context = module.getContext();
  splitBatch(module, funcs, tp);
  SplitAttr gathered = SplitAttr::get(context, SplitKind::gathered, tp, 1, 1);
  for (func::FuncOp func : funcs) {
    for (LayerOp layer : func.getOps<LayerOp>()) {
      int64_t weights = 0;
      for (Operation &op : layer.getBody().front())
        if (auto cost = dyn_cast<CostOpInterface>(op))
          if (int64_t bytes = cost.getParameterBytes(); bytes > 0) {
            weights += bytes;
            op.setAttr(kSplitAttrName, gathered);
          }
      OpBuilder b = OpBuilder::atBlockBegin(&layer.getBody().front());
      GatherWeightsOp::create(b, layer.getLoc(), kGroup, tp, weights);
    }
  }
  module->setAttr(kParallelAttrName,
                  ParallelAttr::get(context, tp, 1, false, 1, 1, 1, true, false,
                                    1, 0, 1));
  return success();
}

void loom::splitBatch(ModuleOp module, ArrayRef<func::FuncOp> funcs,
                      int64_t parts, function_ref<bool(Value)> keep) {
  MLIRContext *context = module.getContext();
  auto shrink = [&](Type type) -> Type {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || tensor.getRank() < 1)
      return type;
    return withDim(tensor, 0, tensor.getDimSize(0) / parts);
  };
  auto shrinkValue = [&](Value value) {
    if (!keep || !keep(value))
      value.setType(shrink(value.getType()));
  };
  for (func::FuncOp func : funcs) {
    SmallVector<Type> inputs, results;
    for (Type t : func.getFunctionType().getInputs())
      inputs.push_back(shrink(t));
    for (Type t : func.getFunctionType().getResults())
      results.push_back(shrink(t));
    func.setType(FunctionType::get(context, inputs, results));
    func.walk([&](Block *block) {
      for (BlockArgument arg : block->getArguments())
        shrinkValue(arg);
    });
    func.walk([&](Operation *op) {
      for (OpResult result : op->getResults())
        shrinkValue(result);
    });
  }
  // What one chip runs: batch / parts of the sequences (as a data-parallel
  // replica's module says its share).
  if (ModelAttr model = getModel(module))
    module->setAttr(
        kModelAttrName,
        ModelAttr::get(context, model.getName(), model.getFamily(),
                       model.getMode(), model.getBatch() / parts,
                       model.getSeq(), model.getResolution(),
                       model.getTextTokens(), model.getSteps(),
                       model.getHeight(), model.getWidth(), model.getFrames()));
}

//===----------------------------------------------------------------------===//
// The KV cache split by batch beyond the KV heads (kv-batch)
//===----------------------------------------------------------------------===//
//
// The JAX scaling book, Part 7, "Sharding the KV cache": with more chips
// than KV heads, the tp / kv_heads chips that compute one KV head split its
// cache by batch, KV[2, B_Z, S, K_Y, H]. Each attention becomes
//   q' = all_to_all(q) over "kv": [B, S, h*d] -> [B/Z, S, Z*h*d]
//   k' = local_shard(k), v' = local_shard(v): [B, S, d] -> [B/Z, S, d]
//   a  = attention(q', k', v') with Z*h heads
//   out = all_to_all(a): [B/Z, S, Z*h*d] -> [B, S, h*d]
// so each chip keeps and reads the K/V of B/Z sequences.

/// The causal attentions whose KV heads are fewer than `tp` chips, with
/// their KV heads, or the first reason `kvBatch` cannot split their caches.
static FailureOr<SmallVector<AttentionOp>>
kvBatchAttentions(ModuleOp module, int64_t tp, int64_t kvBatch) {
  SmallVector<AttentionOp> found;
  Operation *wrong = nullptr;
  module.walk([&](AttentionOp attn) {
    int64_t kvHeads = attn.getKvHeads();
    if (!attn.getCausal() || kvHeads >= tp)
      return WalkResult::advance();
    int64_t holders = tp / kvHeads;
    int64_t batch = tensorType(attn.getQ()).getDimSize(0);
    if (holders % kvBatch != 0) {
      attn.emitError() << "kv-batch = " << kvBatch << " must divide the "
                       << holders << " chips that hold each of its "
                       << kvHeads << " KV heads at tp = " << tp;
      wrong = attn;
    } else if (batch % kvBatch != 0) {
      attn.emitError() << "kv-batch = " << kvBatch
                       << " splits each KV head's cache by batch, but the "
                          "batch of "
                       << batch << " does not split " << kvBatch << " ways";
      wrong = attn;
    }
    if (wrong)
      return WalkResult::interrupt();
    found.push_back(attn);
    return WalkResult::advance();
  });
  if (wrong)
    return failure();
  if (found.empty())
    return module.emitError()
           << "kv-batch = " << kvBatch
           << " splits the caches of KV heads held by several chips, but "
              "no causal attention has fewer KV heads than tp = "
           << tp << " chips";
  return found;
}

int64_t loom::fewestKvHeads(ModuleOp module) {
  int64_t fewest = 0;
  module.walk([&](AttentionOp attn) {
    int64_t kvHeads = attn.getKvHeads();
    if (attn.getCausal() && (fewest == 0 || kvHeads < fewest))
      fewest = kvHeads;
  });
  return fewest;
}

/// Rewrites a sharded attention to keep 1 / z of the batch's K/V (above).
static void splitCacheByBatch(AttentionOp attn, int64_t z) {
  OpBuilder b(attn);
  Location loc = attn.getLoc();
  StringAttr group = b.getStringAttr(kKVGroup);
  IntegerAttr size = b.getI64IntegerAttr(z);
  RankedTensorType q = tensorType(attn.getQ()), k = tensorType(attn.getK());
  int64_t batch = q.getDimSize(0);
  auto byBatch = [&](RankedTensorType type, int64_t features) {
    return RankedTensorType::get({batch / z, type.getDimSize(1), features},
                                 type.getElementType());
  };
  RankedTensorType gathered = byBatch(q, q.getDimSize(2) * z);
  Value query = AllToAllOp::create(b, loc, gathered, attn.getQ(), group, size,
                                   b.getI64IntegerAttr(0),
                                   b.getI64IntegerAttr(2));
  auto keep = [&](Value value) -> Value {
    return LocalShardOp::create(b, loc, byBatch(k, k.getDimSize(2)), value,
                                group, size, b.getI64IntegerAttr(0));
  };
  attn.getQMutable().assign(query);
  attn.getKMutable().assign(keep(attn.getK()));
  attn.getVMutable().assign(keep(attn.getV()));
  attn.setHeads(attn.getHeads() * z);
  attn.getResult().setType(gathered);
  b.setInsertionPointAfter(attn);
  auto back = AllToAllOp::create(b, loc, q, attn.getResult(), group, size,
                                 b.getI64IntegerAttr(2),
                                 b.getI64IntegerAttr(0));
  attn.getResult().replaceAllUsesExcept(back, back);
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
  // A tensor-parallel group lies within one slice.
  int64_t chips = topology->sliceChips();
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
           << "tp = " << options.tp << " needs more chips than "
           << topology->sliceName() << " has (" << chips
           << "); valid degrees: " << validDegrees();
  if (options.kvBatch < 1)
    return module.emitError() << "kv-batch must be at least 1, got "
                              << options.kvBatch;
  if (options.kvBatch > 1 &&
      (options.weightGathered || options.tpX != 1 || options.sequenceParallel))
    return module.emitError()
           << "kv-batch splits the KV cache of 1-D tensor parallelism; it "
              "runs without tp-x, weight-gathered or sequence-parallel";
  if (options.weightGathered)
    return shardWeightGathered(module, options, *topology);
  if (options.tpX != 1)
    return shardTwoD(module, options, *topology);
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
           << " chips of " << topology->sliceName()
           << ", which tensor-parallel groups must tile; valid degrees: "
           << validDegrees();

  SmallVector<AttentionOp> splitCaches;
  if (options.kvBatch > 1) {
    FailureOr<SmallVector<AttentionOp>> found =
        kvBatchAttentions(module, options.tp, options.kvBatch);
    if (failed(found))
      return failure();
    splitCaches = std::move(*found);
  }

  HeadSharder(module, options.tp, options.sequenceParallel).run();
  for (AttentionOp attn : splitCaches)
    splitCacheByBatch(attn, options.kvBatch);
  module->setAttr(kParallelAttrName,
                  ParallelAttr::get(module.getContext(), options.tp, 1,
                                    options.sequenceParallel, 1, 1, 1, false,
                                    false, 1, 0, options.kvBatch));
  return success();
}

namespace {
struct ShardHeadsPass : public loom::impl::ShardHeadsBase<ShardHeadsPass> {
  using ShardHeadsBase::ShardHeadsBase;

  void runOnOperation() override {
    HeadShardingOptions options;
    options.tp = tp;
    options.sequenceParallel = sequenceParallel;
    options.tpX = tpX;
    options.weightGathered = weightGathered;
    options.kvBatch = kvBatch;
    if (failed(shardHeads(getOperation(), options)))
      signalPassFailure();
  }
};
} // namespace
