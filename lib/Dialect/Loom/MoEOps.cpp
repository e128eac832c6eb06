//===- MoEOps.cpp - mixture of experts and latent attention ---------------===//
//
// Verifiers, costs and tensor-parallel rules of loom.moe_route,
// loom.moe_experts, loom.moe_combine (a mixture-of-experts block) and
// loom.latent_attention (DeepSeek's multi-head latent attention). Issue 17;
// the formulas are docs/research/moe-families.md's.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Dialect/Loom/MoE.h"

#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace mlir;
using namespace loom;

static RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}
static ArrayRef<int64_t> shapeOf(Value value) {
  return tensorType(value).getShape();
}
static int64_t padTo(int64_t dim, int64_t tile) {
  int64_t rest = dim % tile;
  return rest ? (Count(dim) + (tile - rest)).get() : dim;
}
static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

static LogicalResult verifyRank3(Operation *op, Value value, StringRef name,
                                 StringRef layout) {
  auto type = tensorType(value);
  if (type.getRank() != 3)
    return op->emitOpError() << "expects " << name << " of rank 3 " << layout
                             << ", got " << value.getType();
  if (!isa<FloatType>(type.getElementType()))
    return op->emitOpError() << "expects " << name
                             << " to have a floating-point element type, got "
                             << value.getType();
  return success();
}

static LogicalResult verifyTopK(Operation *op, int64_t topK, int64_t experts) {
  if (topK > experts)
    return op->emitOpError() << "top_k " << topK << " exceeds the " << experts
                             << " experts";
  return success();
}

double loom::busiestChipRows(int64_t tokens, int64_t topK, int64_t experts,
                             int64_t ep, double imbalance) {
  double copies = double(tokens) * double(topK);
  if (experts == 1)
    return copies;
  double average = copies / double(experts);
  double busiest = imbalance * average;
  double others = (copies - busiest) / double(experts - 1);
  return busiest + double(experts / ep - 1) * others;
}

//===----------------------------------------------------------------------===//
// loom.moe_route
//===----------------------------------------------------------------------===//

int64_t MoERouteOp::routedTokens(ArrayRef<int64_t> inputShape,
                                 int64_t shard) {
  return ceilDiv((Count(inputShape[0]) * inputShape[1]).get(), shard);
}

RankedTensorType MoERouteOp::dispatchBufferType(RankedTensorType input,
                                                int64_t topK) {
  int64_t rows = (Count(routedTokens(input.getShape())) * topK).get();
  return RankedTensorType::get({1, rows, input.getDimSize(2)},
                               input.getElementType());
}

int64_t MoERouteOp::getRoutedTokens() {
  return routedTokens(shapeOf(getInput()), getShard());
}

LogicalResult MoERouteOp::verify() {
  const char *buffer = "[groups, capacity, hidden]";
  if (failed(verifyRank3(*this, getInput(), "input", "[batch, seq, hidden]")) ||
      failed(verifyRank3(*this, getResult(), "result", buffer)) ||
      failed(verifyTopK(*this, getTopK(), getExperts())))
    return failure();
  ArrayRef<int64_t> in = shapeOf(getInput()), out = shapeOf(getResult());
  if (in[2] != out[2] || tensorType(getInput()).getElementType() !=
                             tensorType(getResult()).getElementType())
    return emitOpError() << "expects the buffer's rows to be tokens of the "
                            "input's hidden size and element type, got "
                         << getInput().getType() << " and "
                         << getResult().getType();
  double imbalance = getImbalance().convertToDouble();
  double most = double(getExperts()) / double(getTopK());
  if (!std::isfinite(imbalance) || imbalance < 1.0 || imbalance > most)
    return emitOpError() << "imbalance " << llvm::formatv("{0}", imbalance).str()
                         << " must be between 1 (uniform routing) and experts "
                            "/ top_k = "
                         << llvm::formatv("{0}", most).str()
                         << " (the busiest expert gets every token at most "
                            "once)";
  int64_t copies = (Count(getRoutedTokens()) * getTopK()).get();
  int64_t rows = (Count(out[0]) * out[1]).get();
  if (rows < copies)
    return emitOpError() << "dispatch buffer of " << out[0] << " x " << out[1]
                         << " rows cannot hold the " << getRoutedTokens()
                         << " routed tokens x top_k " << getTopK() << " = "
                         << copies << " copies";
  return success();
}

// The router matmul (hidden x experts) per routed token, and Qwen2-MoE's
// shared-expert gate (hidden x 1). Top-k and packing are not counted.
static int64_t routeFlops(MoERouteOp op, int64_t tile) {
  int64_t hidden = shapeOf(op.getInput())[2];
  Count flops = Count(2) * op.getRoutedTokens() * padTo(hidden, tile) *
                padTo(op.getExperts(), tile);
  if (op.getSharedGate())
    flops += Count(2) * op.getRoutedTokens() * padTo(hidden, tile) *
             padTo(1, tile);
  return flops.get();
}
int64_t MoERouteOp::getFlops() { return routeFlops(*this, 1); }
int64_t MoERouteOp::getPaddedFlops(int64_t tile) {
  return routeFlops(*this, tile);
}

int64_t MoERouteOp::getParameterCount() {
  int64_t hidden = shapeOf(getInput())[2];
  return (Count(hidden) * getExperts() + (getSharedGate() ? hidden : 0)).get();
}

//===----------------------------------------------------------------------===//
// loom.moe_experts
//===----------------------------------------------------------------------===//

/// A storage or compute element type other than the activations': int8 or
/// bf16, as on loom.linear.
static LogicalResult verifyPrecision(Operation *op, std::optional<Type> type,
                                     StringRef name) {
  if (!type || type->isInteger(8) || type->isBF16())
    return success();
  return op->emitOpError() << "expects " << name << " i8 or bf16, got "
                           << *type;
}

LogicalResult MoEExpertsOp::verify() {
  if (failed(verifyRank3(*this, getInput(), "input",
                         "[groups, capacity, hidden]")) ||
      failed(verifyTopK(*this, getTopK(), getExperts())) ||
      failed(verifyPrecision(*this, getWeightType(), "weight_type")) ||
      failed(verifyPrecision(*this, getComputeType(), "compute_type")))
    return failure();
  if (getComputeType() && getComputeType()->isInteger(8) &&
      !(getWeightType() && getWeightType()->isInteger(8)))
    return emitOpError() << "computes int8 x int8 (compute_type = i8) but "
                            "its weights are not int8 (weight_type = i8)";
  if (getExperts() % getEp() != 0)
    return emitOpError() << "ep " << getEp() << " does not divide the "
                         << getExperts() << " experts";
  return success();
}

double loom::touchedExperts(double held, int64_t topK, int64_t experts,
                            double tokens) {
  double miss = 1.0 - double(topK) / double(experts);
  return held * (1.0 - std::pow(miss, tokens));
}

double MoEExpertsOp::getTouchedExperts() {
  return touchedExperts(double(getLocalExperts()), getTopK(), getExperts(),
                        double(getTokens()));
}

double MoEExpertsOp::getExpertBytes() {
  return 3.0 * double(shapeOf(getInput())[2]) * double(getExpertInter()) *
         double(getWeightElementBytes());
}

// Per row: gate and up (2 x 2 hidden inter), down (2 inter hidden) and the
// SwiGLU between them (5 FLOPs per element, as loom.swiglu counts).
static int64_t expertFlops(MoEExpertsOp op, int64_t tile) {
  ArrayRef<int64_t> in = shapeOf(op.getInput());
  int64_t inter = op.getExpertInter();
  Count rows = Count(in[0]) * in[1];
  return (Count(6) * rows * padTo(in[2], tile) * padTo(inter, tile) +
          Count(5) * rows * inter)
      .get();
}
int64_t MoEExpertsOp::getFlops() { return expertFlops(*this, 1); }
int64_t MoEExpertsOp::getPaddedFlops(int64_t tile) {
  return expertFlops(*this, tile);
}

int64_t MoEExpertsOp::getParameterCount() {
  int64_t hidden = shapeOf(getInput())[2];
  return (Count(3) * getLocalExperts() * hidden * getExpertInter()).get();
}

int64_t MoEExpertsOp::getWeightElementBytes() {
  if (std::optional<Type> type = getWeightType())
    return getElementBytes(*type);
  return getElementBytes(getInput().getType());
}

int64_t MoEExpertsOp::getParameterBytes() {
  return (Count(getParameterCount()) * getWeightElementBytes()).get();
}

unsigned MoEExpertsOp::getComputeBits() {
  if (std::optional<Type> type = getComputeType())
    return 8 * getElementBytes(*type);
  return 8 * getElementBytes(getInput().getType());
}

// The rows, and the weights of the experts a pass touches (in expectation).
int64_t MoEExpertsOp::getBytesRead() {
  double weights = std::min(getTouchedExperts() * getExpertBytes(),
                            double(getParameterBytes()));
  return (Count(getTensorBytes(getInput().getType())) +
          static_cast<int64_t>(std::llround(weights)))
      .get();
}

//===----------------------------------------------------------------------===//
// loom.moe_combine
//===----------------------------------------------------------------------===//

LogicalResult MoECombineOp::verify() {
  if (failed(verifyRank3(*this, getInput(), "input",
                         "[groups, capacity, hidden]")) ||
      failed(verifyRank3(*this, getResult(), "result", "[batch, seq, hidden]")))
    return failure();
  if (shapeOf(getInput())[2] != shapeOf(getResult())[2] ||
      tensorType(getInput()).getElementType() !=
          tensorType(getResult()).getElementType())
    return emitOpError() << "expects rows of the result's hidden size and "
                            "element type, got "
                         << getInput().getType() << " and "
                         << getResult().getType();
  return success();
}

int64_t MoECombineOp::getFlops() {
  return (Count(2) * getNumElements(getInput().getType())).get();
}

//===----------------------------------------------------------------------===//
// loom.latent_attention
//===----------------------------------------------------------------------===//

LogicalResult LatentAttentionOp::verify() {
  if (failed(verifyRank3(*this, getQ(), "q",
                         "[batch, seq, heads * (nope + rope)]")) ||
      failed(verifyRank3(*this, getLatent(), "latent",
                         "[batch, seq, kv_lora_rank + rope]")) ||
      failed(verifyRank3(*this, getResult(), "result",
                         "[batch, seq, heads * v_head_dim]")))
    return failure();
  ArrayRef<int64_t> q = shapeOf(getQ()), c = shapeOf(getLatent()),
                    out = shapeOf(getResult());
  int64_t heads = getHeads(), rope = getQkRopeHeadDim();
  int64_t qWidth = (Count(heads) * (Count(getQkNopeHeadDim()) + rope)).get();
  int64_t cWidth = (Count(getKvLoraRank()) + rope).get();
  int64_t outWidth = (Count(heads) * getVHeadDim()).get();
  if (q[2] != qWidth)
    return emitOpError() << "expects q of width heads * (qk_nope_head_dim + "
                            "qk_rope_head_dim) = "
                         << qWidth << ", got " << q[2];
  if (c[2] != cWidth)
    return emitOpError() << "expects a latent of width kv_lora_rank + "
                            "qk_rope_head_dim = "
                         << cWidth << ", got " << c[2];
  if (out[2] != outWidth)
    return emitOpError() << "expects a result of width heads * v_head_dim = "
                         << outWidth << ", got " << out[2];
  if (q[0] != c[0] || q[1] != c[1] || q[0] != out[0] || q[1] != out[1])
    return emitOpError() << "expects q, latent and result of the same batch "
                            "and sequence";
  Type element = tensorType(getQ()).getElementType();
  if (tensorType(getLatent()).getElementType() != element ||
      tensorType(getResult()).getElementType() != element)
    return emitOpError() << "expects q, latent and result of one element type";
  if (failed(verifyPrecision(*this, getWeightType(), "weight_type")) ||
      failed(verifyPrecision(*this, getKvType(), "kv_type")))
    return failure();
  return success();
}

int64_t LatentAttentionOp::getWeightElementBytes() {
  if (std::optional<Type> type = getWeightType())
    return getElementBytes(*type);
  return getElementBytes(getLatent().getType());
}

int64_t LatentAttentionOp::getKVElementBytes() {
  if (std::optional<Type> type = getKvType())
    return getElementBytes(*type);
  return getElementBytes(getLatent().getType());
}

int64_t LatentAttentionOp::getScorePairs() {
  int64_t queries = shapeOf(getQ())[1], cached = getCached();
  if (!getCausal())
    return (Count(queries) * (Count(cached) + queries)).get();
  Count triangle = queries % 2 == 0 ? Count(queries / 2) * (Count(queries) + 1)
                                    : Count(queries) * (queries / 2 + 1);
  return (Count(queries) * cached + triangle).get();
}

// Prefill decompresses K and V (kv_b_proj) for every new token and attends
// with head dims nope + rope (scores) and v; decode (cached tokens) absorbs
// kv_b_proj into the query (nope x rank) and the output (rank x v) and
// attends over the latent: scores over rank + rope, values over rank
// (DeepSeek-V2 section 2.1.2).
int64_t LatentAttentionOp::getProjectionFlops(int64_t tile) {
  ArrayRef<int64_t> q = shapeOf(getQ());
  Count tokens = Count(q[0]) * q[1];
  int64_t heads = getHeads(), rank = padTo(getKvLoraRank(), tile),
          nope = getQkNopeHeadDim(), v = getVHeadDim();
  if (getCached() == 0)
    return (Count(2) * tokens * rank *
            padTo((Count(heads) * (Count(nope) + v)).get(), tile))
        .get();
  return (Count(2) * tokens * heads * rank *
          (Count(padTo(nope, tile)) + padTo(v, tile)))
      .get();
}

int64_t LatentAttentionOp::getPairFlops(bool absorbed, int64_t tile) {
  int64_t rank = getKvLoraRank(), rope = getQkRopeHeadDim();
  Count perPair = Count(2) * shapeOf(getQ())[0] * getHeads();
  if (absorbed)
    return (perPair *
            (Count(padTo(rank + rope, tile)) + padTo(rank, tile)))
        .get();
  return (perPair * (Count(padTo(getQkNopeHeadDim() + rope, tile)) +
                     padTo(getVHeadDim(), tile)))
      .get();
}

static int64_t latentFlops(LatentAttentionOp op, int64_t tile) {
  return (Count(op.getProjectionFlops(tile)) +
          Count(op.getPairFlops(op.getCached() > 0, tile)) *
              op.getScorePairs())
      .get();
}
int64_t LatentAttentionOp::getFlops() { return latentFlops(*this, 1); }
int64_t LatentAttentionOp::getPaddedFlops(int64_t tile) {
  return latentFlops(*this, tile);
}

// kv_a_layernorm and kv_b_proj.
int64_t LatentAttentionOp::getParameterCount() {
  int64_t rank = getKvLoraRank();
  return (Count(rank) + Count(rank) * getHeads() *
                            (Count(getQkNopeHeadDim()) + getVHeadDim()))
      .get();
}

// kv_a_layernorm in the latent's type, kv_b_proj in weight_type's.
int64_t LatentAttentionOp::getParameterBytes() {
  int64_t rank = getKvLoraRank();
  Count projection =
      Count(rank) * getHeads() * (Count(getQkNopeHeadDim()) + getVHeadDim());
  return (Count(rank) * getElementBytes(getLatent().getType()) +
          projection * getWeightElementBytes())
      .get();
}

// The cached latent of `tokens` tokens, in kv_type's bytes.
static int64_t latentBytes(LatentAttentionOp op, int64_t tokens) {
  ArrayRef<int64_t> c = shapeOf(op.getLatent());
  return (Count(c[0]) * tokens * c[2] * op.getKVElementBytes()).get();
}

int64_t LatentAttentionOp::getBytesRead() {
  return (Count(getTensorBytes(getOperandTypes())) + getParameterBytes() +
          latentBytes(*this, getCached()))
      .get();
}

int64_t LatentAttentionOp::getKVCacheBytes() {
  if (!getCausal())
    return 0;
  return latentBytes(*this,
                     (Count(getCached()) + shapeOf(getLatent())[1]).get());
}

//===----------------------------------------------------------------------===//
// Tensor-parallel rules
//===----------------------------------------------------------------------===//

static RankedTensorType withDim(RankedTensorType type, int64_t dim,
                                int64_t size) {
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = size;
  return RankedTensorType::get(shape, type.getElementType());
}

// Every chip routes every token (the router is tiny); loom-shard-experts
// later gives each chip its share.
void MoERouteOp::applyShardingRule(ShardingRewriter &rewriter) {
  rewriter.toFull(*this, getInput());
  rewriter.setLayout(getResult(), Layout::Full);
}

std::string MoEExpertsOp::whyNotShardable(int64_t tp, bool) {
  if (getExpertInter() % tp != 0)
    return ("expert width " + Twine(getExpertInter()) +
            " is not divisible by tp = " + Twine(tp))
        .str();
  return {};
}

// Without expert parallelism each expert's width is split over the group,
// as a dense MLP's is (gate and up by columns, down by rows): the rows are
// whole on every chip and the results partial sums.
void MoEExpertsOp::applyShardingRule(ShardingRewriter &rewriter) {
  int64_t tp = rewriter.getDegree();
  rewriter.toFull(*this, getInput());
  setExpertInter(getExpertInter() / tp);
  (*this)->setAttr(kSplitAttrName,
                   SplitAttr::get(getContext(), SplitKind::column, tp, 1, 1));
  rewriter.setLayout(getResult(), Layout::Partial);
}

// A weighted sum of rows: linear, so partial rows give partial tokens.
void MoECombineOp::applyShardingRule(ShardingRewriter &rewriter) {
  Layout layout = rewriter.getLayout(getInput());
  if (layout != Layout::Partial && layout != Layout::Full) {
    rewriter.toFull(*this, getInput());
    layout = Layout::Full;
  }
  rewriter.setLayout(getResult(), layout);
}

std::string LatentAttentionOp::whyNotShardable(int64_t tp, bool) {
  if (getHeads() % tp != 0)
    return (Twine(getHeads()) + " attention heads are not divisible by tp = " +
            Twine(tp))
        .str();
  return {};
}

// By heads: q and kv_b_proj split, the latent (and its cache) whole on
// every chip, as MLA under tensor parallelism keeps it.
void LatentAttentionOp::applyShardingRule(ShardingRewriter &rewriter) {
  int64_t tp = rewriter.getDegree();
  rewriter.toFeature(*this, getQ(), tp);
  rewriter.toFull(*this, getLatent());
  setHeads(getHeads() / tp);
  (*this)->setAttr(kSplitAttrName,
                   SplitAttr::get(getContext(), SplitKind::heads, tp, 1, 1));
  RankedTensorType out = tensorType(getResult());
  rewriter.setLayout(getResult(), Layout::Feature,
                     withDim(out, 2, out.getDimSize(2) / tp));
}
