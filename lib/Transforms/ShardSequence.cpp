//===- ShardSequence.cpp - Ulysses sequence parallelism -------------------===//
//
// DeepSpeed-Ulysses (Jacobs et al., arXiv 2309.14509): sp chips share each
// tensor-parallel rank and each holds 1/sp of the sequence, so every
// token-wise op (norms, projections, the MLP, tp's collectives) runs on
// L/sp tokens. Attention needs every token: before it an all-to-all over
// the group trades the sequence split for a head split (each chip then
// holds all L tokens of heads/sp heads), and after it a second all-to-all
// trades back. Each chip sends (sp - 1)/sp of its Q, K, V and output
// (paper, section 3.1). Cross-attention to replicated text needs no
// exchange: each chip's queries attend to all text keys. Runs on the
// per-chip view loom-shard-heads leaves (heads here are a tp rank's).
//
// MMDiT joint attention (SD3, Flux, HunyuanVideo) attends over the text and
// image tokens together, so both streams go through the all-to-alls. As
// xDiT does (xfuser/model_executor/models/transformers/transformer_flux.py,
// `split_text_embed_in_sp`): when sp divides the text tokens the text
// stream is split like the image stream (and Flux's single blocks then see
// their concatenation split, text share first); otherwise every chip keeps
// the whole text, takes its heads' share of the text q, k, v locally and
// all-gathers the text output's heads.
//
//===----------------------------------------------------------------------===//

#include "loom/Transforms/ShardSequence.h"

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Dialect/Loom/ModuleTarget.h"
#include "loom/Transforms/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/DenseSet.h"

namespace loom {
#define GEN_PASS_DEF_SHARDSEQUENCE
#include "loom/Transforms/Passes.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;

namespace {

RankedTensorType withDim(RankedTensorType type, int64_t dim, int64_t size) {
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = size;
  return RankedTensorType::get(shape, type.getElementType());
}

/// The sequence the layers see on a chip: the first layer's first rank-3
/// input's tokens (0 when there is none).
int64_t layerTokens(ModuleOp module) {
  int64_t tokens = 0;
  module.walk([&](LayerOp layer) {
    for (Value input : layer.getInputs())
      if (auto type = dyn_cast<RankedTensorType>(input.getType());
          type && type.getRank() == 3) {
        tokens = type.getDimSize(1);
        break;
      }
    return WalkResult::interrupt();
  });
  return tokens;
}

/// The text tokens the layers carry beside the sequence: those of the
/// first MMDiT joint attention, else those a layer joins to the sequence
/// (CogVideoX's expert blocks concatenate text and video tokens along the
/// sequence for their attention and MLP); 0 when none.
int64_t textTokens(ModuleOp module, int64_t tokens) {
  int64_t text = 0;
  module.walk([&](JointAttentionOp joint) {
    text = cast<RankedTensorType>(joint.getQTxt().getType()).getDimSize(1);
    return WalkResult::interrupt();
  });
  if (text > 0)
    return text;
  module.walk([&](ConcatOp concat) {
    if (concat.getDim() != 1 || !concat->getParentOfType<LayerOp>())
      return WalkResult::advance();
    int64_t others = 0;
    bool joinsSequence = false;
    for (Value input : concat.getInputs()) {
      auto type = dyn_cast<RankedTensorType>(input.getType());
      if (!type || type.getRank() != 3)
        return WalkResult::advance();
      if (type.getDimSize(1) == tokens && !joinsSequence)
        joinsSequence = true;
      else
        others += type.getDimSize(1);
    }
    if (!joinsSequence)
      return WalkResult::advance();
    text = others;
    return WalkResult::interrupt();
  });
  return text;
}

/// The first op `mode` cannot split, and why; {nullptr, ""} when none. Read
/// from each op's rule: an attention whose keys every head shares (MLA's
/// latent) cannot trade its sequence for heads; an op holding experts
/// splits tokens by expert; an attention over a cache has one query.
std::pair<Operation *, std::string> unsupported(ModuleOp module, bool ring) {
  std::pair<Operation *, std::string> found{nullptr, ""};
  module.walk([&](ShardingRuleOpInterface op) {
    OpShardingRule rule = op.getShardingRule();
    if (rule.isAttention() && !rule.headsSplitKeys())
      found = {op, "Ulysses over latent (MLA) attention is not implemented"};
    else if (rule.has(FactorKind::Experts))
      found = {op, "mixture-of-experts layers split their tokens by expert "
                   "parallelism (loom-shard-experts), not by Ulysses"};
    else if (rule.reduces(FactorKind::Cached))
      found = {op, "attention over a KV cache (decode) has one query per "
                   "sequence, nothing to split"};
    else
      return WalkResult::advance();
    return WalkResult::interrupt();
  });
  return found;
}

/// Why `sp` does not split `module`: the op (or the module) and the reason.
std::pair<Operation *, std::string> whyNot(ModuleOp module, int64_t sp,
                                           bool ring) {
  if (auto found = unsupported(module, ring); found.first)
    return found;
  int64_t tokens = layerTokens(module);
  if (tokens == 0)
    return {module, "the model has no layer over a sequence"};
  if (tokens % sp != 0)
    return {module, "sp = " + std::to_string(sp) + " does not divide the " +
                        std::to_string(tokens) + " tokens each layer sees"};
  // A ring passes whole K/V blocks: any head count works.
  if (ring)
    return {nullptr, ""};
  std::pair<Operation *, std::string> reason{nullptr, ""};
  module.walk([&](ShardingRuleOpInterface op) {
    // An attention over the sequence (its rule sums over the sequence's
    // keys) trades the sequence split for a split of its heads.
    OpShardingRule rule = op.getShardingRule();
    if (!rule.reduces(FactorKind::Sequence) || !rule.has(FactorKind::Heads))
      return WalkResult::advance();
    int64_t heads = rule.sizeOf(FactorKind::Heads);
    int64_t kvHeads = rule.has(FactorKind::KVHeads)
                          ? rule.sizeOf(FactorKind::KVHeads)
                          : heads;
    if (heads % sp == 0 && kvHeads % sp == 0)
      return WalkResult::advance();
    reason = {op, "sp = " + std::to_string(sp) + " does not divide the " +
                      std::to_string(heads) + " heads and " +
                      std::to_string(kvHeads) +
                      " KV heads this attention holds per chip"};
    return WalkResult::interrupt();
  });
  return reason;
}

std::string joinDegrees(ArrayRef<int64_t> degrees) {
  std::string text;
  for (int64_t d : degrees)
    text += (text.empty() ? "" : ", ") + std::to_string(d);
  return text.empty() ? "none" : text;
}

/// The rewrite: which values hold 1/sp of the sequence, and the
/// collectives that enter, cross and leave that layout.
class SequenceSharder {
public:
  /// `tokens`: the image (or LLM) sequence; `text`: the text tokens beside
  /// it (textTokens) when sp divides them, else 0 (the text stays whole on
  /// every chip).
  SequenceSharder(int64_t sp, int64_t tokens, int64_t text, bool ring,
                  MLIRContext *context)
      : sp(sp), ring(ring), b(context) {
    lengths.push_back(tokens);
    if (text > 0)
      lengths.append({text, text + tokens});
  }

  void run(func::FuncOp func) {
    Block &body = func.getBody().front();
    for (Operation &op : llvm::make_early_inc_range(body)) {
      if (auto layer = dyn_cast<LayerOp>(op)) {
        shardLayer(layer);
        continue;
      }
      if (isa<func::ReturnOp>(op))
        continue; // Results stay split, as each chip's sampler reads its own.
      if (!anySplit(&op))
        continue;
      if (auto slice = dyn_cast<SliceOp>(op);
          slice && slice.getDim() == 1 && isSequence(slice.getResult()) &&
          slice.getOffset() % sp == 0) {
        // The image tokens of a split [text, image] sequence: each chip's
        // share holds its text share first (Flux's last single block).
        slice.setOffset(slice.getOffset() / sp);
        splitResults(&op);
        continue;
      }
      if (llvm::all_of(op.getResults(), [&](Value r) { return isSequence(r); }) &&
          (!isa<ConcatOp>(op) ||
           llvm::all_of(op.getOperands(),
                        [&](Value v) { return split.contains(v); })))
        splitResults(&op);
      else
        gatherOperands(&op);
    }
    func.setType(FunctionType::get(func.getContext(), func.getArgumentTypes(),
                                   body.getTerminator()->getOperandTypes()));
  }

private:
  /// A token tensor over the whole sequence.
  bool isSequence(Value value) const {
    auto type = dyn_cast<RankedTensorType>(value.getType());
    return type && type.getRank() == 3 &&
           llvm::is_contained(lengths, type.getDimSize(1));
  }
  bool anySplit(Operation *op) const {
    return llvm::any_of(op->getOperands(),
                        [&](Value v) { return split.contains(v); });
  }
  void markSplit(Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    value.setType(withDim(type, 1, type.getDimSize(1) / sp));
    split.insert(value);
  }
  void splitResults(Operation *op) {
    for (Value result : op->getResults())
      if (isSequence(result))
        markSplit(result);
  }
  void gatherOperands(Operation *op) {
    for (OpOperand &operand : op->getOpOperands()) {
      Value value = operand.get();
      if (!split.contains(value))
        continue;
      auto type = cast<RankedTensorType>(value.getType());
      b.setInsertionPoint(op);
      auto gather = AllGatherOp::create(
          b, op->getLoc(), withDim(type, 1, type.getDimSize(1) * sp), value,
          b.getStringAttr(kSequenceGroup), b.getI64IntegerAttr(sp),
          b.getI64IntegerAttr(1));
      operand.set(gather);
    }
  }

  /// `value`, a whole sequence, as this chip's share of it (no bytes
  /// move), before `at`.
  Value localShard(Operation *at, Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    b.setInsertionPoint(at);
    Value shard = LocalShardOp::create(
        b, at->getLoc(), withDim(type, 1, type.getDimSize(1) / sp), value,
        b.getStringAttr(kSequenceGroup), b.getI64IntegerAttr(sp),
        b.getI64IntegerAttr(1));
    split.insert(shard);
    return shard;
  }

  void shardLayer(LayerOp layer) {
    Block &body = layer.getBody().front();
    for (auto [i, operand] : llvm::enumerate(layer->getOpOperands())) {
      Value value = operand.get();
      if (!split.contains(value) && isSequence(value)) {
        // Each chip keeps its share of a replicated sequence (no bytes move).
        Value &shard = entered[value];
        if (!shard)
          shard = localShard(layer, value);
        operand.set(shard);
        value = shard;
      }
      if (split.contains(value)) {
        BlockArgument arg = body.getArgument(i);
        arg.setType(value.getType());
        split.insert(arg);
      }
    }
    for (Operation &op : llvm::make_early_inc_range(body)) {
      if (auto yield = dyn_cast<YieldOp>(op)) {
        for (auto [result, value] :
             llvm::zip(layer->getResults(), yield.getOperands())) {
          result.setType(value.getType());
          if (split.contains(value))
            split.insert(result);
        }
        continue;
      }
      if (auto attn = dyn_cast<AttentionOp>(op)) {
        shardAttention(attn);
        continue;
      }
      if (auto joint = dyn_cast<JointAttentionOp>(op)) {
        shardJointAttention(joint);
        continue;
      }
      if (!anySplit(&op))
        continue;
      if (auto slice = dyn_cast<SliceOp>(op);
          slice && slice.getDim() == 1) {
        // A part of a split [text, video] sequence: each chip's share
        // holds its share of each part, in order.
        if (isSequence(slice.getResult()) && slice.getOffset() % sp == 0) {
          slice.setOffset(slice.getOffset() / sp);
          splitResults(&op);
        } else {
          gatherOperands(&op);
        }
        continue;
      }
      // Parts joined along the sequence are split alike or not at all (a
      // text the sp chips do not divide stays whole, so the join does).
      if (isa<ConcatOp>(op) && cast<ConcatOp>(op).getDim() == 1 &&
          !llvm::all_of(op.getOperands(),
                        [&](Value v) { return split.contains(v); })) {
        gatherOperands(&op);
        continue;
      }
      // A whole sequence beside split ones (a part gathered for a join):
      // each chip keeps its share of it.
      for (OpOperand &operand : op.getOpOperands())
        if (!split.contains(operand.get()) && isSequence(operand.get()))
          operand.set(localShard(&op, operand.get()));
      splitResults(&op);
    }
  }

  /// [B, L/sp, H*d] -> [B, L, H/sp*d] (`toHeads`), or back.
  Value exchange(Operation *at, Value value, bool toHeads) {
    auto type = cast<RankedTensorType>(value.getType());
    int64_t from = toHeads ? 2 : 1, to = toHeads ? 1 : 2;
    RankedTensorType result = withDim(
        withDim(type, from, type.getDimSize(from) / sp), to,
        type.getDimSize(to) * sp);
    auto op = AllToAllOp::create(b, at->getLoc(), result, value,
                                 b.getStringAttr(kSequenceGroup),
                                 b.getI64IntegerAttr(sp),
                                 b.getI64IntegerAttr(from),
                                 b.getI64IntegerAttr(to));
    return op;
  }

  void shardAttention(AttentionOp attn) {
    bool q = split.contains(attn.getQ()), kv = split.contains(attn.getK());
    if (!q)
      return;
    if (!kv) {
      // Cross-attention: this chip's queries over all (replicated) keys.
      attn.getResult().setType(attn.getQ().getType());
      split.insert(attn.getResult());
      return;
    }
    if (ring) {
      // Each chip keeps its block of q, k, v; the K/V blocks go round.
      b.setInsertionPoint(attn);
      auto ringOp = RingAttentionOp::create(
          b, attn.getLoc(), attn.getQ().getType(), attn.getQ(), attn.getK(),
          attn.getV(), attn.getHeads(), attn.getKvHeads(), attn.getHeadDim(),
          kSequenceGroup, sp, attn.getCausal(), attn.getWindowAttr());
      attn.getResult().replaceAllUsesWith(ringOp.getResult());
      attn.erase();
      split.insert(ringOp.getResult());
      return;
    }
    // Self-attention: all tokens of heads/sp heads on each chip. q, k and
    // v go in one combined all-to-all (one synchronisation and one set of
    // hops for the three, as XLA's combiners issue them).
    b.setInsertionPoint(attn);
    SmallVector<Value> distinct;
    for (Value operand : attn->getOperands())
      if (!llvm::is_contained(distinct, operand))
        distinct.push_back(operand);
    DenseMap<Value, Value> heads;
    if (distinct.size() == 1) {
      heads[distinct.front()] =
          exchange(attn, distinct.front(), /*toHeads=*/true);
    } else {
      SmallVector<Type> types;
      for (Value value : distinct) {
        auto type = cast<RankedTensorType>(value.getType());
        types.push_back(withDim(withDim(type, 2, type.getDimSize(2) / sp), 1,
                                type.getDimSize(1) * sp));
      }
      auto combined = CombinedAllToAllOp::create(
          b, attn.getLoc(), types, distinct, b.getStringAttr(kSequenceGroup),
          b.getI64IntegerAttr(sp), b.getI64IntegerAttr(2),
          b.getI64IntegerAttr(1));
      for (auto [value, result] : llvm::zip(distinct, combined.getResults()))
        heads[value] = result;
    }
    for (OpOperand &operand : attn->getOpOperands())
      operand.set(heads.lookup(operand.get()));
    attn.setHeads(attn.getHeads() / sp);
    attn.setKvHeads(attn.getKvHeads() / sp);
    attn.getResult().setType(attn.getQ().getType());
    b.setInsertionPointAfter(attn);
    Value back = exchange(attn, attn.getResult(), /*toHeads=*/false);
    attn.getResult().replaceAllUsesExcept(back, back.getDefiningOp());
    split.insert(back);
  }

  /// Joint attention: both streams' q, k, v to all tokens of heads/sp heads
  /// (a whole text stream gives each chip its heads' share locally), then
  /// each output back (a whole text stream's by an all-gather of the heads).
  void shardJointAttention(JointAttentionOp joint) {
    if (!split.contains(joint.getQImg()))
      return;
    bool textSplit = split.contains(joint.getQTxt());
    if (ring) {
      // Each chip keeps its image block (and text block, when the text
      // splits); the K/V blocks go round. A whole text is every chip's.
      joint->setAttr(joint.getGroupAttrName(),
                     b.getStringAttr(kSequenceGroup));
      joint->setAttr(joint.getGroupSizeAttrName(), b.getI64IntegerAttr(sp));
      if (textSplit)
        joint->setAttr(joint.getRingTextAttrName(), b.getUnitAttr());
      joint.getImg().setType(joint.getQImg().getType());
      joint.getTxt().setType(joint.getQTxt().getType());
      split.insert(joint.getImg());
      if (textSplit)
        split.insert(joint.getTxt());
      return;
    }
    b.setInsertionPoint(joint);
    DenseMap<Value, Value> heads;
    for (auto [i, operand] : llvm::enumerate(joint->getOpOperands())) {
      Value &exchanged = heads[operand.get()];
      if (!exchanged) {
        bool text = i >= 3;
        if (!text || textSplit) {
          exchanged = exchange(joint, operand.get(), /*toHeads=*/true);
        } else {
          auto type = cast<RankedTensorType>(operand.get().getType());
          exchanged = LocalShardOp::create(
              b, joint.getLoc(), withDim(type, 2, type.getDimSize(2) / sp),
              operand.get(), b.getStringAttr(kSequenceGroup),
              b.getI64IntegerAttr(sp), b.getI64IntegerAttr(2));
        }
      }
      operand.set(exchanged);
    }
    joint.setHeads(joint.getHeads() / sp);
    joint.getImg().setType(joint.getQImg().getType());
    joint.getTxt().setType(joint.getQTxt().getType());
    b.setInsertionPointAfter(joint);
    Value img = exchange(joint, joint.getImg(), /*toHeads=*/false);
    joint.getImg().replaceAllUsesExcept(img, img.getDefiningOp());
    split.insert(img);
    Value txt;
    if (textSplit) {
      txt = exchange(joint, joint.getTxt(), /*toHeads=*/false);
      split.insert(txt);
    } else {
      auto type = cast<RankedTensorType>(joint.getTxt().getType());
      txt = AllGatherOp::create(b, joint.getLoc(),
                                withDim(type, 2, type.getDimSize(2) * sp),
                                joint.getTxt(), b.getStringAttr(kSequenceGroup),
                                b.getI64IntegerAttr(sp),
                                b.getI64IntegerAttr(2));
    }
    joint.getTxt().replaceAllUsesExcept(txt, txt.getDefiningOp());
  }

  int64_t sp;
  bool ring;
  SmallVector<int64_t, 3> lengths;
  OpBuilder b;
  llvm::DenseSet<Value> split;
  DenseMap<Value, Value> entered;
};

} // namespace

SmallVector<int64_t> loom::validSequenceParallelDegrees(ModuleOp module,
                                                        int64_t maxDegree,
                                                        StringRef mode) {
  SmallVector<int64_t> valid{1};
  bool ring = mode == "ring";
  if (unsupported(module, ring).first)
    return valid;
  for (int64_t sp = 2; sp <= maxDegree; ++sp)
    if (!whyNot(module, sp, ring).first)
      valid.push_back(sp);
  return valid;
}

LogicalResult loom::shardSequence(ModuleOp module, int64_t sp,
                                  StringRef mode) {
  if (mode != "ulysses" && mode != "ring")
    return module.emitError() << "unknown mode '" << mode
                              << "'; expected ulysses or ring";
  bool ring = mode == "ring";
  FailureOr<TargetAttr> target = requireTarget(module, "loom-shard-sequence");
  if (failed(target))
    return failure();
  ParallelAttr parallel = getParallelOrDefault(module);
  int64_t tp = parallel.getTp();
  // A stage's tp x sp group lies within one slice.
  int64_t chips = target->getTopologyDesc().sliceChips();
  auto validDegrees = [&] {
    SmallVector<int64_t> valid;
    for (int64_t d : validSequenceParallelDegrees(module, chips / tp, mode))
      if (chips % (tp * d) == 0)
        valid.push_back(d);
    return joinDegrees(valid);
  };
  if (sp < 1)
    return module.emitError() << "sp must be at least 1, got " << sp
                              << "; valid degrees: " << validDegrees();
  for (auto func : module.getOps<func::FuncOp>())
    if (func->hasAttr(kPipelineAttrName))
      return func.emitError()
             << "loom-shard-sequence runs before loom-partition-layers (the "
                "stages are laid out for tp x sp chips)";
  if (sp > 1 && parallel.getTpX() > 1)
    return module.emitError()
           << "sequence parallelism runs beside a 1-D tensor-parallel group; "
              "this one is 2-D (tp_x = "
           << parallel.getTpX() << ")";
  if (sp > 1 && parallel.getKvBatch() > 1)
    return module.emitError()
           << "sequence parallelism runs beside a tensor-parallel group "
              "whose attentions keep their whole batch; this one splits "
              "its KV cache by batch (kv_batch = "
           << parallel.getKvBatch() << ")";
  if (parallel.getSp() != 1)
    return module.emitError() << "the module is already sequence-parallel (sp = "
                              << parallel.getSp() << ")";
  if (parallel.getSequenceParallel() && sp > 1)
    return module.emitError()
           << "Megatron sequence parallelism (loom-shard-heads "
              "sequence-parallel) already splits the sequence over the "
              "tensor-parallel group; choose one";
  if (sp == 1)
    return success();
  if (auto [op, why] = whyNot(module, sp, ring); op)
    return op->emitError() << "cannot split the sequence " << sp
                           << " ways: " << why
                           << "; valid sequence-parallel degrees on "
                           << target->getTopologyDesc().name
                           << " with tp = " << tp << ": " << validDegrees();
  if (chips % (tp * sp) != 0)
    return module.emitError()
           << "tp x sp = " << tp * sp << " does not divide the " << chips
           << " chips of " << target->getTopologyDesc().name
           << ", which the stages' groups tile; valid degrees: "
           << validDegrees();
  int64_t tokens = layerTokens(module), text = textTokens(module, tokens);
  SequenceSharder sharder(sp, tokens, text % sp == 0 ? text : 0,
                          ring, module.getContext());
  for (auto func : module.getOps<func::FuncOp>())
    if (!func.isExternal())
      sharder.run(func);
  module->setAttr(kParallelAttrName,
                  ParallelAttr::get(module.getContext(), tp, parallel.getDp(),
                                    parallel.getSequenceParallel(),
                                    parallel.getEp(), sp, parallel.getTpX(),
                                    parallel.getWeightGathered(),
                                    parallel.getEpData(), 1, 0,
                                    parallel.getKvBatch()));
  return success();
}

namespace {
struct ShardSequencePass
    : public loom::impl::ShardSequenceBase<ShardSequencePass> {
  using ShardSequenceBase::ShardSequenceBase;
  void runOnOperation() override {
    if (failed(shardSequence(getOperation(), sp, mode)))
      signalPassFailure();
  }
};
} // namespace
