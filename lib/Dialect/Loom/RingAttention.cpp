//===- RingAttention.cpp - loom.ring_attention ----------------------------===//
//
// Verifier and cost of ring attention (Liu et al., arXiv 2310.01889):
// sequence parallelism that passes K/V blocks around a ring of chips
// instead of exchanging heads (loom-shard-sequence mode=ring).
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Loom/LoomOps.h"

using namespace mlir;
using namespace loom;

static ArrayRef<int64_t> shapeOf(Value value) {
  return cast<RankedTensorType>(value.getType()).getShape();
}

LogicalResult RingAttentionOp::verify() {
  auto q = dyn_cast<RankedTensorType>(getQ().getType());
  auto k = dyn_cast<RankedTensorType>(getK().getType());
  if (!q || !k || q.getRank() != 3 || k.getRank() != 3)
    return emitOpError() << "expects q, k and v of rank 3 ([batch, seq, heads "
                            "* head_dim])";
  int64_t heads = getHeads(), kvHeads = getKvHeads(), headDim = getHeadDim();
  if (heads % kvHeads != 0)
    return emitOpError() << "kv_heads " << kvHeads << " does not divide heads "
                         << heads;
  if ((Count(heads) * headDim).get() != q.getDimSize(2) ||
      (Count(kvHeads) * headDim).get() != k.getDimSize(2))
    return emitOpError() << "heads * head_dim and kv_heads * head_dim must "
                            "be q's and k's hidden sizes, got "
                         << q.getDimSize(2) << " and " << k.getDimSize(2);
  if (q.getDimSize(0) != k.getDimSize(0))
    return emitOpError() << "q has batch " << q.getDimSize(0)
                         << " but k has batch " << k.getDimSize(0);
  if (q.getElementType() != k.getElementType() ||
      !isa<FloatType>(q.getElementType()))
    return emitOpError() << "expects q, k and v of one float element type";
  if (getCausal() && q.getDimSize(1) != k.getDimSize(1))
    return emitOpError() << "a causal ring expects as many queries as keys "
                            "in hand, got "
                         << q.getDimSize(1) << " and " << k.getDimSize(1);
  if (getWindow() && !getCausal())
    return emitOpError() << "a sliding window (window = " << *getWindow()
                         << ") needs a causal ring";
  if (getGroupSize() < 2)
    return emitOpError() << "a ring needs at least 2 chips, got group_size "
                         << getGroupSize();
  return success();
}

int64_t RingAttentionOp::getScorePairs() {
  if (getCausal()) {
    // Striped: an equal share of the whole sequence's causal pairs (within
    // the window, if any).
    int64_t tokens = (Count(shapeOf(getQ())[1]) * getGroupSize()).get();
    int64_t pairs =
        AttentionOp::countCausalPairs(tokens, 0, getWindow().value_or(0));
    return (pairs + getGroupSize() - 1) / getGroupSize();
  }
  return (Count(shapeOf(getQ())[1]) * getGroupSize() * shapeOf(getK())[1])
      .get();
}

int64_t RingAttentionOp::getBlockBytes() {
  return (Count(2) * getTensorBytes(getK().getType())).get();
}

// The chip's stripe of the KV cache (causal prefill keeps one).
int64_t RingAttentionOp::getKVCacheBytes() {
  return getCausal() ? getBlockBytes() : 0;
}

// QK^T and PV: 4 * head_dim FLOPs per visited pair and head, as
// loom.attention counts them.
int64_t RingAttentionOp::getFlops() { return getPaddedFlops(1); }

int64_t RingAttentionOp::getPaddedFlops(int64_t tile) {
  int64_t headDim = (getHeadDim() + tile - 1) / tile * tile;
  return (Count(4) * shapeOf(getQ())[0] * getHeads() * headDim *
          getScorePairs())
      .get();
}
