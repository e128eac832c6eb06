//===- Gradients.cpp - each op's backward pass ----------------------------===//
//
// GradientOpInterface's default rules, the ops that state their own, and
// the training step's ops (loom.grad, loom.layer_grad, loom.loss,
// loom.optimizer_update).
//
// Sources of the rules:
// - A matmul Y = X W has two gradient matmuls of its own size, dX = dY W^T
//   and dW = X^T dY, so its backward pass is twice its forward (Kaplan et
//   al., "Scaling Laws for Neural Language Models", 2020, section 2.1: 2N
//   FLOPs per token forward, 4N backward; Narayanan et al., SC 2021,
//   appendix: "the backward pass is twice the forward").
// - Flash attention's backward pass recomputes the scores. As the TPU runs
//   it (JAX's Pallas splash attention kernel, which MaxText and
//   MaxDiffusion call, with its default unfused backward: MaxText base.yml
//   `sa_use_fused_bwd_kernel: false`, jax splash_attention_kernel.py
//   `use_fused_bwd_kernel: bool = False`) it is two kernels: dq recomputes
//   the scores and runs dP = dO V^T and dQ = dS K (three matmuls), dkv
//   recomputes them and runs dV, dP and dK (four): seven matmuls to the
//   forward's two, 3.5 times its FLOPs. (The fused kernel, and
//   FlashAttention-2 on GPUs, run five: 2.5 times; Dao, "FlashAttention-2",
//   2023, section 4.1.) Each runs at the forward's MXU efficiency: on TPUs
//   the backward kernels reach the forward's FLOP rate or more
//   (openxla/tokamax's splash benchmarks on TPU7x: the fused backward takes
//   1.9-2.3x the forward's time for 2.5x its FLOPs). Attention with its
//   scores materialised keeps them and runs four: twice.
// - A collective's gradient is its transpose: an all-gather's is a
//   reduce-scatter and back, an all-reduce's an all-reduce (Megatron's f
//   and g operators: Shoeybi et al., 2019, figure 3), an all-to-all's the
//   all-to-all back.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Loom/Gradient.h"
#include "loom/Dialect/Loom/KeptValues.h"

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Dialect/Loom/ModelCost.h"
#include "LayerBody.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace loom;

#include "loom/Dialect/Loom/GradientOpInterface.cpp.inc"

bool loom::isDifferentiable(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

static Count bytesOf(ValueRange values, ArrayRef<unsigned> indices) {
  Count total = 0;
  for (unsigned i : indices)
    total += getTensorBytes(values[i].getType());
  return total;
}

static SmallVector<unsigned, 4> allIndices(unsigned count) {
  SmallVector<unsigned, 4> indices;
  for (unsigned i = 0; i < count; ++i)
    indices.push_back(i);
  return indices;
}

static SmallVector<unsigned, 4> differentiableOperands(Operation *op) {
  SmallVector<unsigned, 4> indices;
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    if (isDifferentiable(operand.getType()))
      indices.push_back(i);
  return indices;
}

/// A tied projection (a language model's head sharing the embedding's
/// table): no parameters of its own, but a matmul by weights all the same,
/// whose weight gradient adds to the table's.
static bool isTiedLinear(Operation *op) {
  auto linear = dyn_cast<LinearOp>(op);
  return linear && linear.getTied();
}

/// Bytes of the weights `op` multiplies by: its parameters', or a tied
/// projection's shared table.
static int64_t weightBytes(Operation *op) {
  if (auto linear = dyn_cast<LinearOp>(op); linear && linear.getTied())
    return (Count(linear.getInFeatures()) * linear.getOutFeatures() *
            linear.getWeightElementBytes())
        .get();
  return cast<CostOpInterface>(op).getParameterBytes();
}

/// Whether `op` is a matmul by weights (its own, or tied): its gradient is
/// two matmuls of its size.
static bool isWeightedMatmul(Operation *op) {
  return !op->hasTrait<TokenWise>() &&
         (cast<CostOpInterface>(op).getParameterCount() > 0 ||
          isTiedLinear(op));
}

bool loom::isAlwaysRecomputed(Operation *op) { return isa<AllGatherOp>(op); }

GradientWork loom::getDefaultGradientWork(Operation *op, GradientPart part,
                                          int64_t tile) {
  auto cost = cast<CostOpInterface>(op);
  GradientWork work;
  work.computeBits = cost.getComputeBits();
  bool matmul = isWeightedMatmul(op);
  int64_t parameters = weightBytes(op);
  // Every part reads the cotangents of the op's results.
  Count read = getTensorBytes(op->getResultTypes());
  if (part == GradientPart::Input) {
    SmallVector<unsigned, 4> wrt = differentiableOperands(op);
    if (wrt.empty())
      return work;
    work.exists = true;
    work.bytesWritten = bytesOf(op->getOperands(), wrt).get();
    if (matmul) {
      // dX = dY W^T: the forward's matmul, transposed.
      work.flops = cost.getFlops();
      work.paddedFlops = cost.getPaddedFlops(tile);
      read += parameters;
      work.parameterBytes = parameters;
    } else if (op->hasTrait<TokenWise>()) {
      // The derivative at the forward's operands, times the cotangent:
      // twice the forward's vector work, reading what it read.
      work.vectorOps = (Count(2) * cost.getFlops()).get();
      work.keptOperands = allIndices(op->getNumOperands());
      read += bytesOf(op->getOperands(), work.keptOperands);
      read += parameters;
      work.parameterBytes = parameters;
    } else {
      // A rearrangement (or a sum of pieces) moved back.
      work.vectorOps = cost.getFlops();
    }
    work.bytesRead = read.get();
    return work;
  }
  if (cost.getParameterCount() == 0 && !isTiedLinear(op))
    return work;
  // The parameters' cotangents (a tied projection's added to the shared
  // table's): a reduction over the tokens of the
  // forward's operands times the cotangent (dW = X^T dY for a matmul).
  work.exists = true;
  work.keptOperands = allIndices(op->getNumOperands());
  read += bytesOf(op->getOperands(), work.keptOperands);
  work.bytesRead = read.get();
  work.bytesWritten = parameters;
  if (matmul) {
    work.flops = cost.getFlops();
    work.paddedFlops = cost.getPaddedFlops(tile);
  } else {
    work.vectorOps = cost.getFlops();
  }
  return work;
}

LogicalResult loom::buildDefaultGradient(
    Operation *op, OpBuilder &builder, ValueRange cotangents,
    ArrayRef<bool> wanted, SmallVectorImpl<Value> &operandCotangents) {
  if (op->getNumResults() == 0)
    return op->emitOpError() << "has no result to differentiate";
  SmallVector<Value> given;
  SmallVector<int64_t> of;
  for (auto [i, cotangent] : llvm::enumerate(cotangents))
    if (cotangent) {
      given.push_back(cotangent);
      of.push_back(i);
    }
  SmallVector<Type> types;
  SmallVector<int64_t> wrt;
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    if (wanted[i] && isDifferentiable(operand.getType())) {
      types.push_back(operand.getType());
      wrt.push_back(i);
    }
  auto gradient = cast<GradientOpInterface>(op);
  operandCotangents.assign(op->getNumOperands(), Value());
  if (!wrt.empty() &&
      gradient.getGradientWork(GradientPart::Input, 1).exists) {
    auto grad = GradOp::create(builder, op->getLoc(), types,
                               GradientPart::Input, op->getResult(0), given,
                               of, wrt, /*accumulate=*/false);
    for (auto [i, index] : llvm::enumerate(wrt))
      operandCotangents[index] = grad.getResult(i);
  }
  if (gradient.getGradientWork(GradientPart::Weight, 1).exists)
    GradOp::create(builder, op->getLoc(), TypeRange(), GradientPart::Weight,
                   op->getResult(0), given, of, ArrayRef<int64_t>(),
                   /*accumulate=*/false);
  return success();
}

void loom::getDefaultGradientSliceTerms(Operation *grad,
                                        const CostModel &model,
                                        SmallVectorImpl<SliceTerm> &terms) {
  auto op = cast<GradOp>(grad);
  // Every slice reads the parameters again, and a weight part writes (and
  // accumulates into) the whole of their gradient.
  double fixed = op.getWork().parameterBytes;
  if (op.getPart() == GradientPart::Weight)
    fixed = double(op.getBytesWritten()) +
            (op.getAccumulate() ? op.getBytesWritten() : 0);
  SliceTerm term = getComputeSliceTerm(grad, model, fixed);
  // A weight part has no token results of its own, but its work follows
  // the forward op's tokens as the forward's does.
  Operation *forward = op.getForwardOp();
  if (!term.scales && forward &&
      llvm::any_of(forward->getResultTypes(), [](Type type) {
        auto tensor = dyn_cast<RankedTensorType>(type);
        return tensor && tensor.getRank() == 3;
      })) {
    term.scales = true;
    term.tokenBytes = term.fixedBytes - fixed;
    term.fixedBytes = fixed;
  }
  terms.push_back(term);
}

//===----------------------------------------------------------------------===//
// Ops with rules of their own
//===----------------------------------------------------------------------===//

GradientWork AddOp::getGradientWork(GradientPart part, int64_t tile) {
  GradientWork work;
  if (part != GradientPart::Input)
    return work;
  work.exists = true;
  // A sum hands its cotangent to both operands as it is; a broadcast
  // operand (a bias) sums it over the tokens.
  if (getRhs().getType() != getLhs().getType()) {
    work.vectorOps = getNumElements(getResult().getType());
    work.bytesRead = getTensorBytes(getResult().getType());
    work.bytesWritten = getTensorBytes(getRhs().getType());
  }
  return work;
}

GradientWork RoPEOp::getGradientWork(GradientPart part, int64_t tile) {
  // A rotation's transpose is the rotation back: the forward's work, on
  // the cotangent alone.
  GradientWork work;
  if (part != GradientPart::Input)
    return work;
  work.exists = true;
  work.vectorOps = getFlops();
  work.bytesRead = work.bytesWritten = getTensorBytes(getResult().getType());
  return work;
}

GradientWork DropoutOp::getGradientWork(GradientPart part, int64_t tile) {
  // The cotangent through the kept mask: one byte per element.
  GradientWork work;
  if (part != GradientPart::Input)
    return work;
  work.exists = true;
  work.internalBytes = getNumElements(getResult().getType());
  work.vectorOps = getFlops();
  work.bytesRead =
      (Count(getTensorBytes(getResult().getType())) + work.internalBytes).get();
  work.bytesWritten = getTensorBytes(getInput().getType());
  return work;
}

GradientWork EmbedOp::getGradientWork(GradientPart part, int64_t tile) {
  GradientWork work;
  if (part != GradientPart::Weight)
    return work; // token ids have no cotangent
  // The cotangents of the looked-up rows added into the table's gradient
  // (read, add, write back), by the ids kept from the forward pass.
  work.exists = true;
  int64_t rows = getTensorBytes(getResult().getType());
  work.keptOperands = {0};
  work.vectorOps = getNumElements(getResult().getType());
  work.bytesRead = (Count(rows) * 2 + getTensorBytes(getIds().getType())).get();
  work.bytesWritten = rows;
  return work;
}

/// An attention's input part: `ratio` times its forward matmuls, reading
/// q, k, v, the output and its cotangent, writing the three cotangents.
static GradientWork attentionGradient(Operation *op, GradientPart part,
                                      int64_t tile, int64_t ratioTimes2) {
  GradientWork work;
  if (part != GradientPart::Input)
    return work;
  auto cost = cast<CostOpInterface>(op);
  work.exists = true;
  work.flops = (Count(cost.getFlops()) * ratioTimes2).get() / 2;
  work.paddedFlops = (Count(cost.getPaddedFlops(tile)) * ratioTimes2).get() / 2;
  work.keptOperands = allIndices(op->getNumOperands());
  work.keptResults = allIndices(op->getNumResults());
  Count results = getTensorBytes(op->getResultTypes());
  work.bytesRead = (bytesOf(op->getOperands(), work.keptOperands) +
                    results * 2).get();
  work.bytesWritten = bytesOf(op->getOperands(), work.keptOperands).get();
  work.computeBits = cost.getComputeBits();
  return work;
}

/// Flash attention's backward pass: seven matmuls to the forward's two
/// (splash attention's unfused dq and dkv kernels, above); four with the
/// scores kept.
static int64_t attentionRatioTimes2(bool materialized) {
  return materialized ? 4 : 7;
}

GradientWork AttentionOp::getGradientWork(GradientPart part, int64_t tile) {
  GradientWork work = attentionGradient(
      *this, part, tile, attentionRatioTimes2(getMaterializedScores()));
  if (!work.exists || !getMaterializedScores())
    return work;
  // The score matrix [B, heads, Sq, Sk] in full, as the einsums write it.
  auto q = cast<RankedTensorType>(getQ().getType());
  auto k = cast<RankedTensorType>(getK().getType());
  Count scores = Count(q.getDimSize(0)) * getHeads() * q.getDimSize(1) *
                 (k.getDimSize(1) + (getCausal() ? getVisibleCached() : 0));
  // Kept: the softmax's output (bf16) and, with dropout, its mask (a byte)
  // and output (bf16): 2 or 5 bytes per score (Korthikanti et al. 2023,
  // section 4.1). Recomputed instead: the score matmul (half the forward's
  // matmuls) and the softmax again.
  if (!getRecomputeScores()) {
    work.internalBytes = (scores * (getDropout() ? 5 : 2)).get();
    return work;
  }
  work.flops = (Count(work.flops) + getFlops() / 2).get();
  work.paddedFlops = (Count(work.paddedFlops) + getPaddedFlops(tile) / 2).get();
  work.vectorOps = (Count(work.vectorOps) + scores * 4).get();
  return work;
}

GradientWork JointAttentionOp::getGradientWork(GradientPart part,
                                               int64_t tile) {
  return attentionGradient(*this, part, tile, attentionRatioTimes2(false));
}

/// An attention's backward terms: `forward`'s laws (causal: per query/key
/// pair the slice visits, so a later slice costs more both ways; TeraPipe,
/// Li et al., ICML 2021, section 3.2), each figure scaled to the backward
/// pass's, as `grad` runs it.
static void attentionGradientTerms(ArrayRef<SliceTerm> forward,
                                   Operation *grad, double ratio,
                                   SmallVectorImpl<SliceTerm> &terms) {
  for (SliceTerm term : forward) {
    term.op = grad;
    term.flops *= ratio;
    term.pairFlops *= ratio;
    term.vectorOps *= ratio;
    // It reads q, k, v, the output and its cotangent, and writes three.
    term.tokenBytes *= 2;
    term.queryBytes *= 2;
    term.newKVBytes = 0;
    terms.push_back(term);
  }
}

void AttentionOp::getGradientSliceTerms(const CostModel &model,
                                        Operation *grad,
                                        SmallVectorImpl<SliceTerm> &terms) {
  SmallVector<SliceTerm> forward;
  getSliceTerms(model, forward);
  attentionGradientTerms(
      forward, grad, attentionRatioTimes2(getMaterializedScores()) / 2.0,
      terms);
}

GradientWork RingAttentionOp::getGradientWork(GradientPart part,
                                              int64_t tile) {
  return attentionGradient(*this, part, tile, attentionRatioTimes2(false));
}

void RingAttentionOp::getGradientSliceTerms(const CostModel &model,
                                            Operation *grad,
                                            SmallVectorImpl<SliceTerm> &terms) {
  // The backward pass goes round the ring as the forward does, each step a
  // flash backward over the block in hand; the blocks passed on are the
  // keys and values with their gradients accumulated so far, twice the
  // forward's (Liu et al., "Ring Attention with Blockwise Transformers",
  // 2023, section 3: the backward pass passes K, V, dK and dV).
  SmallVector<SliceTerm> forward;
  getSliceTerms(model, forward);
  for (SliceTerm &term : forward) {
    term.contextBytes *= 2;
    term.ringBytes *= 2;
  }
  attentionGradientTerms(forward, grad, attentionRatioTimes2(false) / 2.0,
                         terms);
}

//===----------------------------------------------------------------------===//
// Collectives: their transposes
//===----------------------------------------------------------------------===//

/// The collective that transposes one of `kind`.
static StringRef transposeOf(CollectiveKind kind, bool combined) {
  switch (kind) {
  case CollectiveKind::AllReduce:
    return combined ? "loom.combined_all_reduce" : "loom.all_reduce";
  case CollectiveKind::AllGather:
    return combined ? "loom.combined_reduce_scatter" : "loom.reduce_scatter";
  case CollectiveKind::ReduceScatter:
    return combined ? "loom.combined_all_gather" : "loom.all_gather";
  case CollectiveKind::AllToAll:
    return combined ? "loom.combined_all_to_all" : "loom.all_to_all";
  }
  llvm_unreachable("unknown collective");
}

/// `op`'s transpose over the same group: the cotangents of its results in,
/// those of its operands out. An all-to-all's exchanged and concatenated
/// dimensions swap.
static LogicalResult buildTransposedCollective(
    Operation *op, StringRef name, OpBuilder &builder, ValueRange cotangents,
    SmallVectorImpl<Value> &operandCotangents) {
  operandCotangents.assign(op->getNumOperands(), Value());
  if (llvm::any_of(cotangents, [](Value v) { return !v; }))
    return op->emitOpError()
           << "has a result without a cotangent; its transpose needs all";
  OperationState state(op->getLoc(), name);
  state.addOperands(cotangents);
  state.addTypes(op->getOperandTypes());
  // The collective's own attributes (group, size, dims), not what passes
  // noted on the forward op (its split, its kept mark).
  NamedAttrList attributes;
  for (NamedAttribute attr : op->getAttrs())
    if (!op->getDiscardableAttr(attr.getName()))
      attributes.push_back(attr);
  Attribute dim = attributes.get("dim"), concat = attributes.get("concat_dim");
  if (concat) {
    attributes.set("dim", concat);
    attributes.set("concat_dim", dim);
  }
  state.addAttributes(attributes);
  Operation *transpose = builder.create(state);
  for (auto [i, result] : llvm::enumerate(transpose->getResults()))
    operandCotangents[i] = result;
  return success();
}

#define LOOM_TRANSPOSED_COLLECTIVE(Op, combined)                               \
  LogicalResult Op::buildGradient(OpBuilder &builder, ValueRange cotangents,   \
                                  ArrayRef<bool>,                              \
                                  SmallVectorImpl<Value> &operandCotangents) { \
    return buildTransposedCollective(                                         \
        *this, transposeOf(getCollectiveKind(), combined), builder,           \
        cotangents, operandCotangents);                                        \
  }
LOOM_TRANSPOSED_COLLECTIVE(AllReduceOp, false)
LOOM_TRANSPOSED_COLLECTIVE(AllGatherOp, false)
LOOM_TRANSPOSED_COLLECTIVE(ReduceScatterOp, false)
LOOM_TRANSPOSED_COLLECTIVE(AllToAllOp, false)
LOOM_TRANSPOSED_COLLECTIVE(CombinedAllReduceOp, true)
LOOM_TRANSPOSED_COLLECTIVE(CombinedReduceScatterOp, true)
LOOM_TRANSPOSED_COLLECTIVE(CombinedAllGatherOp, true)
LOOM_TRANSPOSED_COLLECTIVE(CombinedAllToAllOp, true)
#undef LOOM_TRANSPOSED_COLLECTIVE

LogicalResult
LocalShardOp::buildGradient(OpBuilder &builder, ValueRange cotangents,
                            ArrayRef<bool>,
                            SmallVectorImpl<Value> &operandCotangents) {
  // Every chip's copy of a replicated tensor gets the whole cotangent: the
  // pieces gathered.
  return buildTransposedCollective(*this, "loom.all_gather", builder,
                                   cotangents, operandCotangents);
}

//===----------------------------------------------------------------------===//
// Ops the driver differentiates itself, or cannot
//===----------------------------------------------------------------------===//

LogicalResult LayerOp::buildGradient(OpBuilder &, ValueRange, ArrayRef<bool>,
                                     SmallVectorImpl<Value> &) {
  return emitOpError() << "is differentiated op by op "
                          "(loom-derive-training-step builds its layer_grad)";
}

LogicalResult YieldOp::buildGradient(OpBuilder &, ValueRange, ArrayRef<bool>,
                                     SmallVectorImpl<Value> &) {
  return emitOpError() << "has no gradient of its own";
}

LogicalResult GatherWeightsOp::buildGradient(OpBuilder &, ValueRange,
                                             ArrayRef<bool>,
                                             SmallVectorImpl<Value> &) {
  return emitOpError()
         << "cannot be differentiated: a weight-gathered layer is not "
            "trained (plan training with tp-layout 1d or 2d)";
}

//===----------------------------------------------------------------------===//
// loom.loss
//===----------------------------------------------------------------------===//

/// Vector operations per element of the loss's input: a log-sum-exp and
/// the label's logit (max, subtract, exp, sum), or a squared difference
/// and its sum.
static int64_t lossOpsPerElement(LossKind kind) {
  return kind == LossKind::cross_entropy ? 4 : 3;
}

int64_t LossOp::getFlops() {
  return (Count(getNumElements(getInput().getType())) *
          lossOpsPerElement(getKind()))
      .get();
}

int64_t LossOp::getBytesRead() {
  // MSE reads its target beside the prediction; cross-entropy's labels are
  // one id per token, read with the logits.
  int64_t input = getTensorBytes(getInput().getType());
  return getKind() == LossKind::mse ? (Count(input) * 2).get() : input;
}

GradientWork LossOp::getGradientWork(GradientPart part, int64_t tile) {
  GradientWork work;
  if (part != GradientPart::Input)
    return work;
  // softmax(logits) - onehot(labels), or 2 (prediction - target) / n:
  // read the kept input (and the target), write its cotangent.
  work.exists = true;
  work.keptOperands = {0};
  work.vectorOps = getFlops();
  work.bytesRead = getBytesRead();
  work.bytesWritten = getTensorBytes(getInput().getType());
  return work;
}

LogicalResult LossOp::buildGradient(OpBuilder &builder, ValueRange,
                                    ArrayRef<bool> wanted,
                                    SmallVectorImpl<Value> &operandCotangents) {
  // Where the backward pass starts: the loss's own cotangent is one.
  return buildDefaultGradient(*this, builder, ValueRange{Value()}, wanted,
                              operandCotangents);
}

//===----------------------------------------------------------------------===//
// loom.grad
//===----------------------------------------------------------------------===//

GradientOpInterface GradOp::getForwardOp() {
  return dyn_cast_or_null<GradientOpInterface>(getForward().getDefiningOp());
}

GradientWork GradOp::getWork(int64_t tile) {
  GradientOpInterface forward = getForwardOp();
  if (!forward)
    return {};
  return forward.getGradientWork(getPart(), tile);
}

LogicalResult GradOp::verify() {
  GradientOpInterface forward = getForwardOp();
  if (!forward || isa<GradOp>(forward.getOperation()))
    return emitOpError() << "differentiates the op that defines its first "
                            "operand, which must be a forward loom op";
  Operation *op = forward.getOperation();
  if (getForward() != op->getResult(0))
    return emitOpError() << "takes the forward op's first result";
  ArrayRef<int64_t> of = getCotangentsOf();
  if (of.size() != getCotangents().size())
    return emitOpError() << "has " << getCotangents().size()
                         << " cotangents but cotangents_of lists "
                         << of.size() << " results";
  for (auto [index, cotangent] : llvm::zip(of, getCotangents())) {
    if (index < 0 || index >= int64_t(op->getNumResults()))
      return emitOpError() << "cotangents_of names result #" << index
                           << ", but the forward op has "
                           << op->getNumResults();
    if (cotangent.getType() != op->getResult(index).getType())
      return emitOpError() << "cotangent of result #" << index << " has type "
                           << cotangent.getType() << ", not the result's "
                           << op->getResult(index).getType();
  }
  ArrayRef<int64_t> wrt = getWrt();
  if (getPart() == GradientPart::Weight && (!wrt.empty() || getNumResults()))
    return emitOpError() << "of the weight part has no results";
  if (wrt.size() != getNumResults())
    return emitOpError() << "has " << getNumResults()
                         << " results but wrt lists " << wrt.size()
                         << " operands";
  for (auto [index, result] : llvm::zip(wrt, getResults())) {
    if (index < 0 || index >= int64_t(op->getNumOperands()))
      return emitOpError() << "wrt names operand #" << index
                           << ", but the forward op has "
                           << op->getNumOperands();
    if (result.getType() != op->getOperand(index).getType())
      return emitOpError() << "cotangent of operand #" << index
                           << " has type " << result.getType()
                           << ", not the operand's "
                           << op->getOperand(index).getType();
  }
  if (!forward.getGradientWork(getPart(), 1).exists)
    return emitOpError() << "differentiates '" << op->getName()
                         << "', which has no " << stringifyGradientPart(getPart())
                         << " part";
  return success();
}

int64_t GradOp::getFlops() {
  GradientWork work = getWork();
  return (Count(work.flops) + work.vectorOps).get();
}
int64_t GradOp::getPaddedFlops(int64_t tile) {
  return getWork(tile).paddedFlops;
}
int64_t GradOp::getParameterCount() { return 0; }
int64_t GradOp::getBytesRead() {
  GradientWork work = getWork();
  // Accumulating over microbatches reads the sum so far and adds to it.
  if (getPart() == GradientPart::Weight && getAccumulate())
    return (Count(work.bytesRead) + work.bytesWritten).get();
  return work.bytesRead;
}
int64_t GradOp::getBytesWritten() { return getWork().bytesWritten; }
unsigned GradOp::getComputeBits() { return getWork().computeBits; }

void GradOp::getSliceTerms(const CostModel &model,
                           SmallVectorImpl<SliceTerm> &terms) {
  if (GradientOpInterface forward = getForwardOp())
    forward.getGradientSliceTerms(model, *this, terms);
}

GradientWork GradOp::getGradientWork(GradientPart, int64_t) { return {}; }
LogicalResult GradOp::buildGradient(OpBuilder &, ValueRange, ArrayRef<bool>,
                                    SmallVectorImpl<Value> &) {
  return emitOpError() << "is part of a backward pass, not differentiated "
                          "again";
}

//===----------------------------------------------------------------------===//
// loom.layer_grad
//===----------------------------------------------------------------------===//

/// Whether `op`, in a layer_grad's body, is a forward op whose results were
/// kept from the forward pass (and so runs nothing there).
static bool isKept(Operation &op) { return op.hasAttr(kKeptAttrName); }

static int64_t sumRun(LayerGradOp layer,
                      llvm::function_ref<int64_t(CostOpInterface)> fn) {
  Count total = 0;
  for (Operation &op : layer.getBody().front())
    if (auto cost = dyn_cast<CostOpInterface>(op); cost && !isKept(op))
      total += fn(cost);
  return total.get();
}

int64_t loom::forEachForwardValueRead(GradOp grad,
                                      function_ref<void(Value)> read) {
  Operation *forward = grad.getForwardOp();
  if (!forward)
    return 0;
  GradientWork work = grad.getWork();
  for (unsigned i : work.keptOperands)
    read(forward->getOperand(i));
  for (unsigned i : work.keptResults)
    read(forward->getResult(i));
  return work.internalBytes;
}

static bool isOffloaded(Operation *op) {
  return op && op->hasAttr(kOffloadedAttrName);
}

/// The bytes the forward pass keeps for `layer`'s backward pass; with
/// `offloadedOnly`, those of offloaded ops alone.
static int64_t keptBytes(LayerGradOp layer, bool offloadedOnly) {
  // The values the backward pass reads that the forward pass made: the
  // layer's inputs and the results of kept ops, read by a gradient part
  // (its kept operands and results) or by an op run again; and what the
  // kept ops keep inside them.
  Block &body = layer.getBody().front();
  int64_t numResults = layer.getNumResults();
  llvm::SetVector<Value> kept;
  Count internal = 0;
  auto fromForward = [&](Value value) {
    if (auto arg = dyn_cast<BlockArgument>(value))
      return !offloadedOnly && arg.getArgNumber() < numResults;
    Operation *op = value.getDefiningOp();
    return isKept(*op) && (!offloadedOnly || isOffloaded(op));
  };
  auto keep = [&](Value value) {
    if (fromForward(value))
      kept.insert(value);
  };
  for (Operation &op : body.without_terminator()) {
    if (op.hasAttr(kRecomputeAttrName)) {
      llvm::for_each(op.getOperands(), keep);
      continue;
    }
    auto grad = dyn_cast<GradOp>(op);
    if (!grad)
      continue;
    int64_t inside = forEachForwardValueRead(grad, keep);
    Operation *forward = grad.getForwardOp();
    if (forward && isKept(*forward) && (!offloadedOnly || isOffloaded(forward)))
      internal += inside;
  }
  Count total = internal;
  for (Value value : kept)
    total += getTensorBytes(value.getType());
  return total.get();
}

int64_t LayerGradOp::getKeptBytes() { return keptBytes(*this, false); }
int64_t LayerGradOp::getOffloadedBytes() { return keptBytes(*this, true); }

LogicalResult LayerGradOp::verifyRegions() {
  Block &body = getBody().front();
  if (failed(verifyLayerBody(*this, body)))
    return failure();
  // The forward ops come first, and run nothing of the backward pass.
  bool backward = false;
  for (Operation &op : body.without_terminator()) {
    bool forward = isKept(op) || op.hasAttr(kRecomputeAttrName);
    if (isKept(op) && op.hasAttr(kRecomputeAttrName))
      return op.emitOpError() << "is both kept and recomputed";
    if (isOffloaded(&op) && !isKept(op))
      return op.emitOpError() << "is offloaded but not kept (loom.offloaded "
                                 "goes with loom.kept)";
    if (forward && backward)
      return op.emitOpError()
             << "is a forward op after the backward ops of its layer_grad";
    backward |= !forward;
    if (forward && isa<GradOp>(op))
      return op.emitOpError() << "is a backward op marked as a forward one";
  }
  return success();
}

int64_t LayerGradOp::getFlops() {
  return sumRun(*this, [](CostOpInterface op) { return op.getFlops(); });
}
int64_t LayerGradOp::getPaddedFlops(int64_t tile) {
  return sumRun(*this,
                [&](CostOpInterface op) { return op.getPaddedFlops(tile); });
}
int64_t LayerGradOp::getParameterCount() { return 0; }
int64_t LayerGradOp::getParameterBytes() { return 0; }
int64_t LayerGradOp::getBytesRead() {
  return sumRun(*this, [](CostOpInterface op) { return op.getBytesRead(); });
}
int64_t LayerGradOp::getBytesWritten() {
  return sumRun(*this, [](CostOpInterface op) { return op.getBytesWritten(); });
}
int64_t LayerGradOp::getKVCacheBytes() { return 0; }
void LayerGradOp::getSliceTerms(const CostModel &,
                                SmallVectorImpl<SliceTerm> &) {}

std::string LayerGradOp::whyNotShardable(int64_t, bool) {
  return "it is a backward pass: shard the forward graph, then derive the "
         "training step";
}
void LayerGradOp::applyShardingRule(ShardingRewriter &) {}
GradientWork LayerGradOp::getGradientWork(GradientPart, int64_t) { return {}; }
LogicalResult LayerGradOp::buildGradient(OpBuilder &, ValueRange,
                                         ArrayRef<bool>,
                                         SmallVectorImpl<Value> &) {
  return emitOpError() << "is a backward pass, not differentiated again";
}

//===----------------------------------------------------------------------===//
// loom.optimizer_update
//===----------------------------------------------------------------------===//

OptimizerRule loom::getOptimizerRule(Optimizer optimizer) {
  switch (optimizer) {
  case Optimizer::AdamW:
    // m and v per parameter (Loshchilov and Hutter, ICLR 2019). Per
    // parameter, as optax's scale_by_adam and add_decayed_weights run it:
    // m (3), v (4), the bias corrections (2), m / (sqrt(v) + eps) (3), the
    // weight decay (2) and the step (2).
    return {2, 16};
  case Optimizer::Adafactor:
    // Shazeer and Stern, ICML 2018, as optax.adafactor's defaults: no
    // first moment, the second moment of a matrix factored into its row
    // and column sums; per parameter g^2 + eps (2), the factored
    // statistics (4), v rebuilt from them (2), the scaled update (2), the
    // update clipping (3) and the decayed step (4).
    return {0, 17};
  case Optimizer::SGD:
    // SGD with momentum: one buffer (b = mu b + g; p -= lr b).
    return {1, 4};
  }
  llvm_unreachable("unknown optimizer");
}

int64_t loom::getOptimizerStateElements(Optimizer optimizer,
                                        ArrayRef<WeightShape> weights) {
  Count total = 0;
  OptimizerRule rule = getOptimizerRule(optimizer);
  for (const WeightShape &w : weights) {
    Count elements = Count(w.rows) * w.cols;
    if (optimizer == Optimizer::Adafactor && w.rows >= kAdafactorMinFactorDim &&
        w.cols >= kAdafactorMinFactorDim)
      total += Count(w.rows) + w.cols;
    else if (optimizer == Optimizer::Adafactor)
      total += elements; // a small or 1-D tensor keeps its full v
    else
      total += elements * rule.statesPerParameter;
  }
  return total.get();
}

static int64_t typeBytes(Type type) { return getElementBytes(type); }

LogicalResult OptimizerUpdateOp::verify() {
  for (auto [name, type] :
       {std::pair<StringRef, Type>{"state_type", getStateType()},
        {"weight_type", getWeightType()},
        {"grad_type", getGradType()}})
    if (!isa<FloatType>(type))
      return emitOpError() << name << " must be a float type, got " << type;
  if (auto master = getMasterType(); master && !isa<FloatType>(*master))
    return emitOpError() << "master_type must be a float type, got "
                         << *master;
  return success();
}

int64_t OptimizerUpdateOp::getFlops() {
  return (Count(getParameters()) * getVectorOpsPerParameter()).get();
}

/// Bytes per parameter of the weights the update reads and writes: the
/// master copy and the compute copy it is cast to, or the weights alone.
static Count weightBytes(OptimizerUpdateOp op) {
  Count perParameter = typeBytes(op.getWeightType());
  if (auto master = op.getMasterType())
    perParameter += typeBytes(*master);
  return perParameter * op.getParameters();
}

int64_t OptimizerUpdateOp::getBytesRead() {
  // The gradient, the weights (from the master copy when there is one:
  // the compute copy is only written) and the state.
  Count weights = getMasterType() ? Count(typeBytes(*getMasterType()))
                                  : Count(typeBytes(getWeightType()));
  return (Count(getParameters()) * typeBytes(getGradType()) +
          weights * getParameters() +
          Count(getStateElements()) * typeBytes(getStateType()))
      .get();
}

int64_t OptimizerUpdateOp::getBytesWritten() {
  return (weightBytes(*this) +
          Count(getStateElements()) * typeBytes(getStateType()))
      .get();
}

GradientWork OptimizerUpdateOp::getGradientWork(GradientPart, int64_t) {
  return {};
}
LogicalResult
OptimizerUpdateOp::buildGradient(OpBuilder &, ValueRange, ArrayRef<bool>,
                                 SmallVectorImpl<Value> &) {
  return emitOpError() << "is the optimizer's update, not differentiated";
}
