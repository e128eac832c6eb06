//===- ShardHeads.cpp - head-wise tensor parallelism ----------------------===//
//
// Rewrites a model into what one chip of a tensor-parallel group runs. Every
// tensor value has a layout in the group:
//   Full    every chip holds all of it;
//   Seq     split along the sequence (dim 1) under sequence parallelism;
//   Feature split along its last dimension (whole heads, or a slice of an
//           MLP's width, or of the vocabulary);
//   Partial every chip holds a partial sum of it (after a row split).
// Each op takes its operands in the layouts it needs, inserting the
// collective that converts one into another, and gives its results theirs.
// The pass description (Passes.td) says what is split and what replicated,
// and why.
//
//===----------------------------------------------------------------------===//

#include "loom/Transforms/ShardHeads.h"

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Dialect/Loom/ModuleTarget.h"
#include "loom/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/TypeSwitch.h"

namespace loom {
#define GEN_PASS_DEF_SHARDHEADS
#include "loom/Transforms/Passes.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;

namespace {

enum class Layout { Full, Seq, Feature, Partial };

constexpr StringLiteral kGroup = "tp";

RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

RankedTensorType withDim(RankedTensorType type, int64_t dim, int64_t size) {
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = size;
  return RankedTensorType::get(shape, type.getElementType());
}

int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

enum class Split { Column, Row, Modulation, Replicated };

/// How loom-shard-heads treats a projection of each role.
Split splitOf(LinearRole role) {
  switch (role) {
  case LinearRole::q:
  case LinearRole::k:
  case LinearRole::v:
  case LinearRole::qkv:
  case LinearRole::gate:
  case LinearRole::up:
  case LinearRole::fc1:
  case LinearRole::lm_head:
    return Split::Column;
  case LinearRole::o:
  case LinearRole::down:
  case LinearRole::fc2:
    return Split::Row;
  case LinearRole::modulation:
    return Split::Modulation;
  case LinearRole::embed:
  case LinearRole::cond:
  case LinearRole::context:
  case LinearRole::proj_out:
    return Split::Replicated;
  }
  return Split::Replicated;
}

/// The K or V projection feeding an attention with fewer KV heads than the
/// group has chips: it is split kv_heads ways and each piece replicated.
struct KVProjection {
  int64_t kvHeads, headDim;
};

/// The projection (through RoPE and per-head norms) that produces `value`.
LinearOp producingLinear(Value value) {
  Operation *op = value.getDefiningOp();
  while (op && isa<RoPEOp, RMSNormOp>(op))
    op = op->getOperand(0).getDefiningOp();
  return dyn_cast_or_null<LinearOp>(op);
}

//===----------------------------------------------------------------------===//
// Validity of a degree
//===----------------------------------------------------------------------===//

/// The first reason `module` cannot be split `tp` ways: the op and what to
/// say there. {nullptr, ""} when it can.
std::pair<Operation *, std::string> whyNot(ModuleOp module, int64_t tp,
                                           bool sequenceParallel) {
  std::pair<Operation *, std::string> reason{nullptr, ""};
  auto fail = [&](Operation *op, const Twine &message) {
    if (!reason.first)
      reason = {op, message.str()};
  };
  // Heads first: a projection that does not split is usually a symptom of
  // heads that do not.
  auto check = [&](Operation *op, bool headsOnly) {
    if (reason.first || headsOnly != isa<AttentionOp, JointAttentionOp>(op))
      return;
    TypeSwitch<Operation *>(op)
        .Case([&](AttentionOp attn) {
          int64_t heads = attn.getHeads(), kv = attn.getKvHeads();
          if (heads % tp != 0)
            fail(op, Twine(heads) + " attention heads are not divisible by "
                                    "tp = " + Twine(tp));
          else if (kv >= tp ? kv % tp != 0 : tp % kv != 0)
            fail(op, Twine(kv) + " KV heads can be neither split nor "
                                 "replicated evenly over tp = " +
                         Twine(tp));
        })
        .Case([&](JointAttentionOp attn) {
          if (attn.getHeads() % tp != 0)
            fail(op, Twine(attn.getHeads()) +
                         " attention heads are not divisible by tp = " +
                         Twine(tp));
        })
        .Case([&](LinearOp linear) {
          Split split = splitOf(linear.getRole());
          if ((split == Split::Column || split == Split::Modulation) &&
              linear.getRole() != LinearRole::lm_head &&
              linear.getOutFeatures() % tp != 0)
            fail(op, "output width " + Twine(linear.getOutFeatures()) +
                         " of this " + stringifyLinearRole(linear.getRole()) +
                         " projection is not divisible by tp = " + Twine(tp));
          if (split == Split::Row && linear.getInFeatures() % tp != 0)
            fail(op, "input width " + Twine(linear.getInFeatures()) +
                         " of this " + stringifyLinearRole(linear.getRole()) +
                         " projection is not divisible by tp = " + Twine(tp));
        })
        .Case([&](LayerOp layer) {
          if (!sequenceParallel)
            return;
          for (Value input : layer.getInputs()) {
            RankedTensorType type = tensorType(input);
            if (type.getRank() == 3 && type.getDimSize(1) % tp != 0)
              fail(op, "sequence parallelism splits the sequence of " +
                           Twine(type.getDimSize(1)) +
                           " tokens, which is not divisible by tp = " +
                           Twine(tp));
          }
        });
  };
  module.walk([&](Operation *op) { check(op, /*headsOnly=*/true); });
  module.walk([&](Operation *op) { check(op, /*headsOnly=*/false); });
  return reason;
}

//===----------------------------------------------------------------------===//
// The rewrite
//===----------------------------------------------------------------------===//

class HeadSharder {
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

private:
  Layout layoutOf(Value v) const { return layouts.lookup(v); }

  void set(Value v, Layout layout, Type type = {}) {
    if (type)
      v.setType(type);
    layouts[v] = layout;
  }

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
      set(to, layout);
    }
    user->replaceUsesOfWith(from, to);
    return to;
  }

  IntegerAttr i64(int64_t v) { return b.getI64IntegerAttr(v); }
  StringAttr groupAttr() { return b.getStringAttr(kGroup); }

  /// Sums a Partial operand of `user`: an all-reduce, or a reduce-scatter
  /// over the sequence when sequence parallelism is on and it is a token
  /// tensor.
  Value reduce(Operation *user, Value partial) {
    RankedTensorType type = tensorType(partial);
    if (sp && type.getRank() == 3)
      return insertBefore<ReduceScatterOp>(
          user, partial, withDim(type, 1, type.getDimSize(1) / tp),
          Layout::Seq, groupAttr(), i64(tp), i64(1));
    return insertBefore<AllReduceOp>(user, partial, type, Layout::Full, groupAttr(),
                                     i64(tp), IntegerAttr());
  }

  /// Makes `operand` of `user` whole on every chip.
  Value toFull(Operation *user, Value operand) {
    if (layoutOf(operand) == Layout::Partial)
      operand = reduce(user, operand);
    if (layoutOf(operand) == Layout::Seq) {
      RankedTensorType type = tensorType(operand);
      operand = insertBefore<AllGatherOp>(
          user, operand, withDim(type, 1, type.getDimSize(1) * tp),
          Layout::Full, groupAttr(), i64(tp), i64(1));
    }
    return operand;
  }

  /// Makes token tensor `operand` of `user` sequence-split.
  Value toSeq(Operation *user, Value operand) {
    if (layoutOf(operand) == Layout::Partial)
      operand = reduce(user, operand);
    if (layoutOf(operand) == Layout::Full) {
      RankedTensorType type = tensorType(operand);
      operand = insertBefore<LocalShardOp>(
          user, operand, withDim(type, 1, type.getDimSize(1) / tp),
          Layout::Seq, groupAttr(), i64(tp), i64(1));
    }
    return operand;
  }

  /// Makes `operand` of `user` split by features into `parts` pieces; a
  /// whole tensor is cut locally (every chip keeps its columns or heads).
  Value toFeature(Operation *user, Value operand, int64_t parts) {
    if (layoutOf(operand) == Layout::Feature)
      return operand;
    operand = toFull(user, operand);
    RankedTensorType type = tensorType(operand);
    int64_t last = type.getRank() - 1;
    return insertBefore<LocalShardOp>(
        user, operand, withDim(type, last, type.getShape().back() / parts),
        Layout::Feature, groupAttr(), i64(parts), i64(last));
  }

  /// Brings the operands of a token-wise op (norms, residual adds,
  /// modulation) to one layout: reduced, and sequence-split if any is.
  /// Per-sample vectors (rank < 3) broadcast and must be whole.
  Layout unify(Operation *op) {
    bool anySeq = false, anyFeature = false;
    for (Value operand : op->getOperands()) {
      if (layoutOf(operand) == Layout::Partial)
        operand = reduce(op, operand);
      if (tensorType(operand).getRank() < 3)
        operand = toFull(op, operand);
      anySeq |= layoutOf(operand) == Layout::Seq;
      anyFeature |= layoutOf(operand) == Layout::Feature;
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

  SplitAttr split(SplitKind kind, int64_t parts, int64_t replicas = 1) {
    return SplitAttr::get(module.getContext(), kind, parts, replicas);
  }

  void shardBlock(Block &block) {
    for (Operation &op : llvm::make_early_inc_range(block))
      shardOp(&op);
  }

  void shardOp(Operation *op) {
    TypeSwitch<Operation *>(op)
        .Case([&](LinearOp linear) { shardLinear(linear); })
        .Case([&](EmbedOp embed) { shardEmbed(embed); })
        .Case([&](AttentionOp attn) {
          // Q by query heads, K and V by KV heads (one per chip when there
          // are fewer KV heads than chips).
          int64_t kvParts = std::min<int64_t>(attn.getKvHeads(), tp);
          toFeature(attn, attn.getQ(), tp);
          toFeature(attn, attn.getK(), kvParts);
          toFeature(attn, attn.getV(), kvParts);
          attn.setHeads(attn.getHeads() / tp);
          attn.setKvHeads(std::max<int64_t>(attn.getKvHeads() / tp, 1));
          attn->setAttr(kSplitAttrName, split(SplitKind::heads, tp));
          set(attn.getResult(), Layout::Feature, attn.getQ().getType());
        })
        .Case([&](JointAttentionOp attn) {
          for (Value operand : attn->getOperands())
            toFeature(attn, operand, tp);
          attn.setHeads(attn.getHeads() / tp);
          attn->setAttr(kSplitAttrName, split(SplitKind::heads, tp));
          set(attn.getImg(), Layout::Feature, attn.getQImg().getType());
          set(attn.getTxt(), Layout::Feature, attn.getQTxt().getType());
        })
        .Case<RoPEOp, RMSNormOp, LayerNormOp, ActivationOp, SwiGLUOp, AddOp,
              MulOp, ModulateOp, GateOp, PositionEmbedOp>([&](Operation *op) {
          Layout layout = unify(op);
          set(op->getResult(0), layout, op->getOperand(0).getType());
        })
        .Case([&](ConcatOp concat) {
          Layout layout = unify(concat);
          int64_t dim = concat.getDim(), total = 0;
          for (Value input : concat.getInputs())
            total += tensorType(input).getDimSize(dim);
          set(concat.getResult(), layout,
              withDim(tensorType(concat.getResult()), dim, total));
        })
        .Case([&](SliceOp slice) {
          Layout layout = layoutOf(slice.getInput());
          RankedTensorType type = tensorType(slice.getResult());
          if (layout == Layout::Seq && slice.getDim() == 1) {
            slice.setOffset(slice.getOffset() / tp);
            type = withDim(type, 1, type.getDimSize(1) / tp);
          } else {
            toFull(slice, slice.getInput());
            layout = Layout::Full;
          }
          set(slice.getResult(), layout, type);
        })
        .Case([&](ChunkOp chunk) {
          Layout layout = layoutOf(chunk.getInput());
          if (layout != Layout::Feature) {
            toFull(chunk, chunk.getInput());
            layout = Layout::Full;
          }
          int64_t piece = tensorType(chunk.getInput()).getShape().back() /
                          chunk.getNumResults();
          for (Value result : chunk.getResults())
            set(result, layout,
                withDim(tensorType(result), tensorType(result).getRank() - 1,
                        piece));
        })
        .Case([&](LayerOp layer) { shardLayer(layer); })
        .Case([&](YieldOp yield) {
          for (Value operand : yield.getValues())
            if (layoutOf(operand) == Layout::Partial)
              reduce(yield, operand);
        })
        .Case([&](func::ReturnOp ret) {
          for (Value operand : ret.getOperands())
            if (layoutOf(operand) != Layout::Feature)
              toFull(ret, operand);
        })
        .Default([&](Operation *op) {
          // Replicated: patchify, unpatchify, timestep_embed, param, reshape.
          for (Value operand : op->getOperands())
            toFull(op, operand);
          for (Value result : op->getResults())
            set(result, Layout::Full);
        });
  }

  void shardLinear(LinearOp linear) {
    Value input = linear.getInput();
    RankedTensorType out = tensorType(linear.getResult());
    int64_t last = out.getRank() - 1;
    switch (splitOf(linear.getRole())) {
    case Split::Column:
    case Split::Modulation: {
      toFull(linear, input);
      int64_t width = out.getShape().back();
      SplitAttr how = split(SplitKind::column, tp);
      auto kv = kvProjections.find(linear);
      if (kv != kvProjections.end()) {
        // Fewer KV heads than chips: one KV head per chip, replicated.
        how = split(SplitKind::column, kv->second.kvHeads,
                    tp / kv->second.kvHeads);
        width = kv->second.headDim;
      } else if (linear.getRole() == LinearRole::lm_head) {
        how = split(SplitKind::vocab, tp);
        width = ceilDiv(width, tp);
      } else {
        width /= tp;
      }
      linear->setAttr(kSplitAttrName, how);
      set(linear.getResult(), Layout::Feature, withDim(out, last, width));
      if (splitOf(linear.getRole()) == Split::Modulation) {
        // Every chip needs all the shift, scale and gate vectors.
        b.setInsertionPointAfter(linear);
        auto gather = AllGatherOp::create(b, linear.getLoc(), out,
                                          linear.getResult(), groupAttr(), i64(tp),
                                          i64(last));
        linear.getResult().replaceAllUsesExcept(gather, gather);
        set(gather, Layout::Full);
      }
      return;
    }
    case Split::Row: {
      // A row split takes its input split by features; input that arrives
      // whole (a hand-written graph may feed one straight from the
      // residual) is cut locally first.
      toFeature(linear, input, tp);
      linear->setAttr(kSplitAttrName, split(SplitKind::row, tp));
      set(linear.getResult(), Layout::Partial);
      return;
    }
    case Split::Replicated: {
      Layout layout = layoutOf(input);
      if (layout == Layout::Partial || layout == Layout::Feature) {
        input = toFull(linear, input);
        layout = Layout::Full;
      }
      // Token-wise: a sequence-split input gives a sequence-split result.
      set(linear.getResult(), layout,
          withDim(tensorType(input), last, out.getShape().back()));
      return;
    }
    }
  }

  void shardEmbed(EmbedOp embed) {
    // Class labels: a small table looked up once per sample; replicated.
    if (tensorType(embed.getIds()).getRank() < 2) {
      set(embed.getResult(), Layout::Full);
      return;
    }
    embed.setVocab(ceilDiv(embed.getVocab(), tp));
    embed->setAttr(kSplitAttrName, split(SplitKind::vocab, tp));
    set(embed.getResult(), Layout::Partial);
  }

  void shardLayer(LayerOp layer) {
    Block &body = layer.getBody().front();
    for (auto [i, input] : llvm::enumerate(layer.getInputs())) {
      Value value = input;
      if (layoutOf(value) == Layout::Partial)
        value = reduce(layer, value);
      // Sequence parallelism enters the split layout at the first block.
      if (sp && tensorType(value).getRank() == 3 &&
          layoutOf(value) == Layout::Full)
        value = toSeq(layer, value);
      BlockArgument arg = body.getArgument(i);
      set(arg, layoutOf(value), value.getType());
    }
    shardBlock(body);
    auto yield = cast<YieldOp>(body.getTerminator());
    for (auto [result, value] : llvm::zip(layer.getResults(), yield.getValues()))
      set(result, layoutOf(value), value.getType());
  }

  ModuleOp module;
  int64_t tp;
  bool sp;
  OpBuilder b;
  DenseMap<Value, Layout> layouts;
  /// Conversions already inserted: (value, layout and type it became).
  DenseMap<std::tuple<Value, unsigned, Type>, Value> conversions;
  DenseMap<Operation *, KVProjection> kvProjections;
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
  auto validDegrees = [&] {
    return joinDegrees(
        validTensorParallelDegrees(module, chips, options.sequenceParallel));
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

  HeadSharder(module, options.tp, options.sequenceParallel).run();
  module->setAttr(kParallelAttrName,
                  ParallelAttr::get(module.getContext(), options.tp, 1,
                                    options.sequenceParallel));
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
