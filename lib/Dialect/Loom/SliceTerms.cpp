//===- SliceTerms.cpp - how each op's cost scales with a token slice ------===//
//
// Each op's CostOpInterface::getSliceTerms (the laws are in SliceTerm.h):
// most ops are one kernel whose token traffic follows the slice; causal
// attention follows the query/key pairs a slice visits; full, joint and
// ring attention read every K/V block whatever the slice.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Loom/SliceTerm.h"

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Dialect/Loom/ModelCost.h"

using namespace mlir;
using namespace loom;

static bool isTokenTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 3;
}

/// The term every law starts from: the op, its element width.
static SliceTerm baseTerm(Operation *op, SliceTerm::Kind kind) {
  SliceTerm term;
  term.kind = kind;
  term.op = op;
  term.elementBits = cast<CostOpInterface>(op).getComputeBits();
  return term;
}

SliceTerm loom::getComputeSliceTerm(Operation *op, const CostModel &model,
                                    double fixedBytes) {
  auto cost = cast<CostOpInterface>(op);
  SliceTerm term = baseTerm(op, SliceTerm::Kind::Compute);
  double moved = cost.getBytesRead() + cost.getBytesWritten();
  KernelWork work = getKernelWork(model, cost);
  term.flops = work.flops;
  term.vectorOps = work.vectorOps;
  term.steps = work.steps;
  term.fixedBytes = fixedBytes;
  if (!llvm::any_of(op->getResultTypes(), isTokenTensor)) {
    // Per-sample work (adaLN vectors, embedders): every slice repeats it.
    term.fixedBytes = moved;
    term.scales = false;
  } else {
    term.tokenBytes = moved - term.fixedBytes;
  }
  return term;
}

void loom::getDefaultSliceTerms(Operation *op, const CostModel &model,
                                SmallVectorImpl<SliceTerm> &terms) {
  auto collective = dyn_cast<CollectiveOpInterface>(op);
  if (!collective) {
    terms.push_back(getComputeSliceTerm(
        op, model, cast<CostOpInterface>(op).getParameterBytes()));
    return;
  }
  SliceTerm term = baseTerm(op, SliceTerm::Kind::Collective);
  term.collective = collective.getCollectiveKind();
  term.sequenceGroup = isBesideGroup(collective.getGroup());
  term.subAxis = collective.getGroup() == kTensorXGroup   ? 0
                 : collective.getGroup() == kTensorYGroup ? 1
                                                          : -1;
  if (collective.getGroup() == kKVGroup)
    term.blockRanks = collective.getGroupSize();
  (isTokenTensor(op->getOperand(0).getType()) ? term.tokenBytes
                                              : term.fixedBytes) =
      collective.getCollectiveBytes();
  terms.push_back(term);
}

//===----------------------------------------------------------------------===//
// Ops that run no task of their own
//===----------------------------------------------------------------------===//

void LayerOp::getSliceTerms(const CostModel &, SmallVectorImpl<SliceTerm> &) {}
void YieldOp::getSliceTerms(const CostModel &, SmallVectorImpl<SliceTerm> &) {}
void LocalShardOp::getSliceTerms(const CostModel &,
                                 SmallVectorImpl<SliceTerm> &) {}

void GatherWeightsOp::getSliceTerms(const CostModel &,
                                    SmallVectorImpl<SliceTerm> &terms) {
  // Weight-gathered: the stage prefetches it beside the layer before.
  SliceTerm term = baseTerm(*this, SliceTerm::Kind::WeightGather);
  term.fixedBytes = double(getBytes());
  terms.push_back(term);
}

//===----------------------------------------------------------------------===//
// Kernels whose weights a slice does not read whole
//===----------------------------------------------------------------------===//

void MoEExpertsOp::getSliceTerms(const CostModel &model,
                                 SmallVectorImpl<SliceTerm> &terms) {
  // Routed experts: only the weights of the experts a pass touches are read,
  // fewer when a slice routes fewer tokens.
  SliceTerm term = getComputeSliceTerm(
      *this, model,
      getBytesRead() - double(getTensorBytes(getOperation()->getOperandTypes())));
  term.experts = {double(getLocalExperts()), int64_t(getTopK()),
                  int64_t(getExperts()), double(getTokens()), getExpertBytes()};
  terms.push_back(term);
}

void EmbedOp::getSliceTerms(const CostModel &model,
                            SmallVectorImpl<SliceTerm> &terms) {
  // A gather reads the rows its tokens pick (its bytes read), not the
  // table it holds: nothing a slice reads again.
  terms.push_back(getComputeSliceTerm(*this, model, 0));
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

/// Full (DiT), cross, joint or ring attention as the flash kernel runs it:
/// a slice's query blocks each read the K/V blocks, so all of its traffic
/// scales with the slice; a ring's blocks go round whole (PipeFusion's
/// stale K/V included), `ringSteps` blocks of `ringBytes`.
static SliceTerm fullAttentionTerm(Operation *op, const CostModel &model,
                                   int64_t ringSteps, double ringBytes) {
  auto cost = cast<CostOpInterface>(op);
  SliceTerm term = getComputeSliceTerm(op, model, cost.getParameterBytes());
  if (!term.scales)
    return term;
  term.fixedBytes = 0;
  term.tokenBytes = getKernelWork(model, cost).bytes;
  term.ringSteps = ringSteps;
  term.ringBytes = ringBytes;
  return term;
}

void JointAttentionOp::getSliceTerms(const CostModel &model,
                                     SmallVectorImpl<SliceTerm> &terms) {
  bool ring = getRingSteps() > 1;
  terms.push_back(fullAttentionTerm(*this, model, ring ? getRingSteps() : 0,
                                    ring ? double(getRingBlockBytes()) : 0));
}

void AttentionOp::getSliceTerms(const CostModel &model,
                                SmallVectorImpl<SliceTerm> &terms) {
  if (!getCausal()) {
    terms.push_back(fullAttentionTerm(*this, model, 0, 0));
    return;
  }
  auto qType = cast<RankedTensorType>(getQ().getType());
  if (getKvScalesAcrossHeads() &&
      isDecodeAttention(qType.getDimSize(1), /*causal=*/true)) {
    // One scale a sequence over all heads, for K and for V: a cross-chip
    // max of each (bf16, one a sequence) before the cache write.
    SliceTerm scale = baseTerm(*this, SliceTerm::Kind::Collective);
    scale.collective = CollectiveKind::AllReduce;
    scale.fixedBytes = 2.0 * qType.getDimSize(0);
    terms.push_back(scale);
    terms.push_back(scale);
  }
  // Per pair at the full sequence, then rescaled by the pairs a slice
  // visits; the K/V of the context is read from the cache.
  SliceTerm term = baseTerm(*this, SliceTerm::Kind::CausalAttention);
  term.pairFlops = double(getPaddedFlops(model.getTarget().mxuTile)) /
                   double(getScorePairs());
  auto kType = cast<RankedTensorType>(getK().getType());
  double kvPerToken = double(getNumElements(kType)) / kType.getDimSize(1);
  term.contextBytes = 2.0 * kvPerToken * getKVElementBytes();
  term.cached = getCached();
  term.window = getWindow().value_or(0);
  term.tokenBytes = getTensorBytes(getOperation()->getOperandTypes()) +
                    getTensorBytes(getOperation()->getResultTypes());
  // The flash kernel's blocks (flashAttentionWork), sized per slice.
  term.batchHeads = kType.getDimSize(0) * getHeads();
  term.headDim = model.padToMXU(getHeadDim());
  term.kvElementBytes = getKVElementBytes();
  term.queryBytes = getTensorBytes(getQ().getType()) +
                    getTensorBytes(getResult().getType());
  term.materialized = getMaterializedScores();
  term.decodeQueryRows = getDecodeQueryRows().value_or(1);
  term.newKVBytes =
      getTensorBytes(getK().getType()) + getTensorBytes(getV().getType());
  // kv_batch: this chip's share of the batch's K/V (loom-shard-heads).
  if (auto shard = getK().getDefiningOp<LocalShardOp>();
      shard && shard.getGroup() == kKVGroup)
    term.batchShards = shard.getGroupSize();
  terms.push_back(term);
}

void RingAttentionOp::getSliceTerms(const CostModel &model,
                                    SmallVectorImpl<SliceTerm> &terms) {
  if (!getCausal()) {
    terms.push_back(fullAttentionTerm(*this, model, getGroupSize(),
                                      double(getBlockBytes())));
    return;
  }
  // Striped causal ring: per pair at the full sequence, rescaled by the
  // pairs a slice visits over its context (LayerSliceCost).
  SliceTerm term = baseTerm(*this, SliceTerm::Kind::CausalAttention);
  term.ringSteps = getGroupSize();
  term.window = getWindow().value_or(0);
  term.pairFlops = double(getPaddedFlops(model.getTarget().mxuTile)) /
                   double(getScorePairs());
  auto kType = cast<RankedTensorType>(getK().getType());
  int64_t elementBytes = getElementBytes(kType);
  double kvPerToken = double(getNumElements(kType)) / kType.getDimSize(1);
  term.contextBytes = 2.0 * kvPerToken * elementBytes;
  term.batchHeads = kType.getDimSize(0) * getHeads();
  term.headDim = model.padToMXU(getHeadDim());
  term.kvElementBytes = elementBytes;
  term.queryBytes = getTensorBytes(getQ().getType()) +
                    getTensorBytes(getResult().getType());
  terms.push_back(term);
}

void LatentAttentionOp::getSliceTerms(const CostModel &model,
                                      SmallVectorImpl<SliceTerm> &terms) {
  // Two kernels, as DeepSeek's inference runs them (DeepSeek-V2, arXiv
  // 2405.04434, section 2.1.2; deepseek-ai/DeepSeek-V3 inference/model.py,
  // MLA.forward): kv_b_proj over the slice's tokens (K and V decompressed,
  // or absorbed into the query and the output), then attention.
  int64_t tile = model.getTarget().mxuTile;
  ArrayRef<int64_t> q = cast<RankedTensorType>(getQ().getType()).getShape();
  int64_t batch = q[0], tokens = batch * q[1], heads = getHeads();
  int64_t rank = getKvLoraRank(), rope = getQkRopeHeadDim(),
          nope = getQkNopeHeadDim(), v = getVHeadDim();
  int64_t elementBytes = getElementBytes(getLatent().getType());
  SliceTerm projection = baseTerm(*this, SliceTerm::Kind::Compute);
  projection.flops = double(getProjectionFlops(tile));
  projection.fixedBytes = double(getParameterBytes());
  // What the projection writes for attention to read: the decompressed
  // K (no rope) and V; absorbed, the query in the latent's space and
  // attention's output in it, each written and read back.
  projection.tokenBytes =
      getCached() == 0
          ? double(tokens) * (rank + double(heads) * (nope + v)) * elementBytes
          : double(tokens) * 4.0 * double(heads) * rank * elementBytes;
  terms.push_back(projection);

  // Attention: a prompt's flash kernel over the decompressed K (nope +
  // rope) and V of each head; a decode's over the cached latent, once for
  // every head (scores over rank + rope, values over rank). The cache holds
  // the latent; a prompt slice after context decompresses the context's
  // latent first (vLLM's MLA chunked prefill: vllm/attention/backends/mla/
  // common.py, the prefill's context up-projected with kv_b_proj).
  SliceTerm term = baseTerm(*this, SliceTerm::Kind::CausalAttention);
  term.pairFlops = double(getPairFlops(/*absorbed=*/false, tile));
  term.absorbedPairFlops = double(getPairFlops(/*absorbed=*/true, tile));
  term.contextFlops = 2.0 * double(batch) * double(model.padToMXU(rank)) *
                      double(model.padToMXU(heads * (nope + v)));
  term.contextBytes = double(batch) * double(rank + rope) * getKVElementBytes();
  term.cached = getCached();
  term.batchHeads = batch * heads;
  // (A K block of nope + rope and a V block of v columns: their mean.)
  term.headDim = (model.padToMXU(nope + rope) + model.padToMXU(v)) / 2;
  term.kvElementBytes = elementBytes;
  term.queryBytes = getTensorBytes(getQ().getType()) +
                    getTensorBytes(getResult().getType());
  term.tokenBytes = getTensorBytes(getOperation()->getOperandTypes()) +
                    getTensorBytes(getOperation()->getResultTypes());
  term.newKVBytes = getTensorBytes(getLatent().getType());
  terms.push_back(term);
}
