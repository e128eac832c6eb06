//===- ShardingRules.cpp - how each loom op splits over a tp group --------===//
//
// Each op's ShardingRuleOpInterface: its rule as data (the factors of its
// tensors, OpShardingRule), whether it can be split `tp` ways and what one
// chip of the group runs. Megatron-LM's layout (Shoeybi et al.
// 2019): projections split by columns then rows with one all-reduce after
// the row split; attention by heads; vocabularies by rows. The pass
// description of loom-shard-heads (Passes.td) says what is replicated and
// why.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Loom/LoomOps.h"

#include <array>

using namespace mlir;
using namespace loom;

#include "loom/Dialect/Loom/ShardingRuleOpInterface.cpp.inc"

ShardingRewriter::~ShardingRewriter() = default;

static RankedTensorType tensorType(Value v) {
  return cast<RankedTensorType>(v.getType());
}

static RankedTensorType withDim(RankedTensorType type, int64_t dim,
                                int64_t size) {
  SmallVector<int64_t> shape(type.getShape());
  shape[dim] = size;
  return RankedTensorType::get(shape, type.getElementType());
}

static int64_t ceilDiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

/// The dimensions of a rank-`rank` tensor: none split.
static OpShardingRule::Dims unsplit(int64_t rank) {
  return OpShardingRule::Dims(rank);
}

static int64_t dimOf(Value value, int64_t dim) {
  return cast<RankedTensorType>(value.getType()).getDimSize(dim);
}

static int64_t rankOf(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type ? type.getRank() : 0;
}

OpShardingRule loom::getDefaultShardingRule(Operation *op) {
  OpShardingRule rule;
  // Token-wise over [B, S, features] (or per sample, [B, features]):
  // every tensor of the result's type shares the factors; anything else
  // (a bias, a per-sample vector beside tokens) broadcasts whole.
  int64_t rank = op->hasTrait<TokenWise>() && op->getNumResults() == 1
                     ? rankOf(op->getResult(0))
                     : 0;
  SmallVector<unsigned, 3> token;
  if (rank == 3 || rank == 2) {
    Value result = op->getResult(0);
    token.push_back(rule.addFactor(FactorKind::Batch, dimOf(result, 0)));
    if (rank == 3)
      token.push_back(rule.addFactor(FactorKind::Sequence, dimOf(result, 1)));
    token.push_back(
        rule.addFactor(FactorKind::Features, dimOf(result, rank - 1)));
  }
  auto dimsOf = [&](Value value) {
    OpShardingRule::Dims dims = unsplit(rankOf(value));
    if (!token.empty() && value.getType() == op->getResult(0).getType())
      for (auto [d, factor] : llvm::enumerate(token))
        dims[d].push_back(factor);
    return dims;
  };
  for (Value operand : op->getOperands())
    rule.operands.push_back(dimsOf(operand));
  for (Value result : op->getResults())
    rule.results.push_back(dimsOf(result));
  return rule;
}

/// Maps the batch and sequence dimensions of token tensor `value` (its
/// first two) to new factors, in `in` and in `out` alike.
static void addTokenFactors(OpShardingRule &rule, Value value,
                            OpShardingRule::Dims &in,
                            OpShardingRule::Dims &out) {
  for (auto [d, kind] : llvm::enumerate(
           std::array<FactorKind, 2>{FactorKind::Batch, FactorKind::Sequence})) {
    unsigned f = rule.addFactor(kind, dimOf(value, d));
    in[d].push_back(f);
    out[d].push_back(f);
  }
}

/// Maps dim 0 of every tensor in `dims` (of `value`'s rank or not) to one
/// new batch factor of `value`'s dim 0: the samples a per-sample op keeps
/// apart. Returns the factor.
static unsigned addLeadingBatch(OpShardingRule &rule, Value value,
                                ArrayRef<OpShardingRule::Dims *> dims) {
  unsigned batch = rule.addFactor(FactorKind::Batch, dimOf(value, 0));
  for (OpShardingRule::Dims *d : dims)
    if (!d->empty())
      (*d)[0].push_back(batch);
  return batch;
}

/// The rule of an op that keeps its tensors' samples apart along dim 0 and
/// mixes the rest (patchify, unpatchify, timestep embedding; concat, slice
/// and chunk along another dimension): one batch factor in dim 0 of every
/// operand and result, the other dimensions unsplit.
static OpShardingRule perSampleRule(Operation *op) {
  OpShardingRule rule;
  for (Value operand : op->getOperands())
    rule.operands.push_back(unsplit(rankOf(operand)));
  for (Value result : op->getResults())
    rule.results.push_back(unsplit(rankOf(result)));
  if (op->getNumResults() == 0 || rankOf(op->getResult(0)) < 1)
    return rule;
  SmallVector<OpShardingRule::Dims *> all;
  for (OpShardingRule::Dims &d : rule.operands)
    all.push_back(&d);
  for (OpShardingRule::Dims &d : rule.results)
    all.push_back(&d);
  addLeadingBatch(rule, op->getResult(0), all);
  return rule;
}

/// The rule of an adaLN op over tokens `[B, S, H]` with per-sample
/// vectors `[B, H]` broadcast over the sequence: the vectors share the
/// tokens' batch and features.
static OpShardingRule perSampleVectorsRule(Operation *op) {
  OpShardingRule rule = getDefaultShardingRule(op);
  if (rankOf(op->getResult(0)) != 3)
    return rule;
  // The default rule's token factors: batch, sequence, features.
  for (auto [i, operand] : llvm::enumerate(op->getOperands()))
    if (rankOf(operand) == 2)
      rule.operands[i] = {{0}, {2}};
  return rule;
}

OpShardingRule ModulateOp::getShardingRule() {
  return perSampleVectorsRule(*this);
}
OpShardingRule GateOp::getShardingRule() { return perSampleVectorsRule(*this); }

OpShardingRule PatchifyOp::getShardingRule() { return perSampleRule(*this); }
OpShardingRule UnpatchifyOp::getShardingRule() { return perSampleRule(*this); }
OpShardingRule TimestepEmbedOp::getShardingRule() {
  return perSampleRule(*this);
}

OpShardingRule ConcatOp::getShardingRule() {
  // Along dim 0 it joins samples: no batch to keep apart.
  return getDim() == 0 ? OpShardingRule{} : perSampleRule(*this);
}

OpShardingRule SliceOp::getShardingRule() {
  return getDim() == 0 ? OpShardingRule{} : perSampleRule(*this);
}

OpShardingRule ChunkOp::getShardingRule() {
  // The innermost dimension is cut; a vector's only one holds no batch.
  return rankOf(getInput()) < 2 ? OpShardingRule{} : perSampleRule(*this);
}

OpShardingRule ReshapeOp::getShardingRule() {
  // Row-major: when one dim 0 divides the other, the smaller is the major
  // factor of both ([2B, F] -> [B, 2F] keeps B samples of two rows each).
  OpShardingRule rule;
  Value in = getInput(), out = getResult();
  rule.operands.push_back(unsplit(rankOf(in)));
  rule.results.push_back(unsplit(rankOf(out)));
  if (rankOf(in) < 1 || rankOf(out) < 1)
    return rule;
  int64_t a = dimOf(in, 0), b = dimOf(out, 0);
  if (a < 1 || b < 1 || (a % b != 0 && b % a != 0))
    return rule;
  unsigned batch = rule.addFactor(FactorKind::Batch, std::min(a, b));
  rule.operands[0][0].push_back(batch);
  rule.results[0][0].push_back(batch);
  return rule;
}

static SplitAttr split(Operation *op, SplitKind kind, int64_t parts,
                       int64_t replicas = 1) {
  return SplitAttr::get(op->getContext(), kind, parts, replicas, 1);
}

void loom::applyDefaultShardingRule(Operation *op, ShardingRewriter &rewriter) {
  if (op->hasTrait<TokenWise>()) {
    Layout layout = rewriter.unify(op);
    rewriter.setLayout(op->getResult(0), layout, op->getOperand(0).getType());
    return;
  }
  // Replicated: patchify, unpatchify, timestep_embed, param, reshape.
  for (Value operand : op->getOperands())
    rewriter.toFull(op, operand);
  for (Value result : op->getResults())
    rewriter.setLayout(result, Layout::Full);
}

//===----------------------------------------------------------------------===//
// Projections and embeddings
//===----------------------------------------------------------------------===//

/// What a projection's input and output features are, by its role
/// (Megatron-LM's column and row splits, ShardingRules.cpp).
static std::pair<std::optional<FactorKind>, std::optional<FactorKind>>
featureKinds(LinearRole role) {
  switch (role) {
  case LinearRole::q:
  case LinearRole::k:
  case LinearRole::v:
  case LinearRole::qkv:
    return {FactorKind::Model, FactorKind::HeadFeatures};
  case LinearRole::o:
    return {FactorKind::HeadFeatures, FactorKind::Model};
  case LinearRole::gate:
  case LinearRole::up:
  case LinearRole::fc1:
    return {FactorKind::Model, FactorKind::FF};
  case LinearRole::down:
  case LinearRole::fc2:
    return {FactorKind::FF, FactorKind::Model};
  case LinearRole::lm_head:
    return {FactorKind::Model, FactorKind::Vocab};
  case LinearRole::modulation:
    return {std::nullopt, FactorKind::Model};
  case LinearRole::embed:
  case LinearRole::cond:
  case LinearRole::context:
  case LinearRole::proj_out:
  case LinearRole::q_down:
  case LinearRole::kv_down:
    break;
  }
  return {std::nullopt, std::nullopt};
}

namespace {
enum class LinearSplit { Column, Row, Modulation, Replicated };
} // namespace

/// How a projection of each role splits, by its rule's features: the
/// output's by columns (Megatron's column split), into d_model by rows
/// (its input's features), an adaLN modulation's by columns then gathered.
static LinearSplit splitOf(LinearRole role) {
  auto [in, out] = featureKinds(role);
  if (!out)
    return LinearSplit::Replicated;
  if (!in)
    return LinearSplit::Modulation;
  return *out == FactorKind::Model ? LinearSplit::Row : LinearSplit::Column;
}

OpShardingRule LinearOp::getShardingRule() {
  // [..., in] x [in, out] -> [..., out]: the leading dims are the tokens'
  // (batch and sequence) or a sample's; `in` is summed over.
  OpShardingRule rule;
  Value input = getInput();
  int64_t rank = rankOf(input);
  OpShardingRule::Dims in = unsplit(rank), out = unsplit(rank);
  if (rank == 3) {
    addTokenFactors(rule, input, in, out);
  } else if (rank == 2) {
    // A sample's vector (a timestep's or pooled text's embedding).
    unsigned batch = rule.addFactor(FactorKind::Batch, dimOf(input, 0));
    in[0].push_back(batch);
    out[0].push_back(batch);
  }
  auto [inKind, outKind] = featureKinds(getRole());
  if (inKind)
    in.back().push_back(rule.addFactor(*inKind, getInFeatures(),
                                       /*reduction=*/true));
  if (outKind)
    out.back().push_back(rule.addFactor(*outKind, getOutFeatures()));
  rule.operands.push_back(in);
  rule.results.push_back(out);
  return rule;
}

OpShardingRule EmbedOp::getShardingRule() {
  // Token ids [B, S] -> [B, S, E] over a table split by vocabulary rows
  // (the vocabulary is summed over: each chip looks up its rows).
  OpShardingRule rule;
  Value ids = getIds();
  OpShardingRule::Dims in = unsplit(rankOf(ids)),
                       out = unsplit(rankOf(getResult()));
  if (rankOf(ids) == 2) {
    addTokenFactors(rule, ids, in, out);
    rule.addFactor(FactorKind::Vocab, getVocab(), /*reduction=*/true);
  } else if (rankOf(ids) == 1) {
    // Class labels [B] -> [B, E] from a small replicated table.
    addLeadingBatch(rule, ids, {&in, &out});
  }
  rule.operands.push_back(in);
  rule.results.push_back(out);
  return rule;
}


std::string LinearOp::whyNotShardable(int64_t tp, bool) {
  LinearSplit how = splitOf(getRole());
  std::string role = stringifyLinearRole(getRole()).str();
  // The LM head's vocabulary is padded to a multiple of tp instead.
  if ((how == LinearSplit::Column || how == LinearSplit::Modulation) &&
      getRole() != LinearRole::lm_head && getOutFeatures() % tp != 0)
    return ("output width " + Twine(getOutFeatures()) + " of this " + role +
            " projection is not divisible by tp = " + Twine(tp))
        .str();
  if (how == LinearSplit::Row && getInFeatures() % tp != 0)
    return ("input width " + Twine(getInFeatures()) + " of this " + role +
            " projection is not divisible by tp = " + Twine(tp))
        .str();
  return {};
}

void LinearOp::applyShardingRule(ShardingRewriter &rewriter) {
  int64_t tp = rewriter.getDegree();
  Value input = getInput();
  RankedTensorType out = tensorType(getResult());
  int64_t last = out.getRank() - 1;
  switch (splitOf(getRole())) {
  case LinearSplit::Column:
  case LinearSplit::Modulation: {
    rewriter.toFull(*this, input);
    int64_t width = out.getShape().back();
    SplitAttr how = split(*this, SplitKind::column, tp);
    if (std::optional<KVReplication> kv = rewriter.getKVReplication(*this)) {
      // Fewer KV heads than chips: one KV head per chip, replicated.
      how = split(*this, SplitKind::column, kv->kvHeads, tp / kv->kvHeads);
      width = kv->headDim;
    } else if (getRole() == LinearRole::lm_head) {
      how = split(*this, SplitKind::vocab, tp);
      width = ceilDiv(width, tp);
    } else {
      width /= tp;
    }
    (*this)->setAttr(kSplitAttrName, how);
    rewriter.setLayout(getResult(), Layout::Feature, withDim(out, last, width));
    // Every chip needs all the shift, scale and gate vectors.
    if (splitOf(getRole()) == LinearSplit::Modulation)
      rewriter.gatherAfter(getResult());
    return;
  }
  case LinearSplit::Row:
    // A row split takes its input split by features; input that arrives
    // whole (a hand-written graph may feed one straight from the residual)
    // is cut locally first.
    rewriter.toFeature(*this, input, tp);
    (*this)->setAttr(kSplitAttrName, split(*this, SplitKind::row, tp));
    rewriter.setLayout(getResult(), Layout::Partial);
    return;
  case LinearSplit::Replicated: {
    Layout layout = rewriter.getLayout(input);
    if (layout == Layout::Partial || layout == Layout::Feature) {
      input = rewriter.toFull(*this, input);
      layout = Layout::Full;
    }
    // Token-wise: a sequence-split input gives a sequence-split result.
    rewriter.setLayout(getResult(), layout,
                       withDim(tensorType(input), last, out.getShape().back()));
    return;
  }
  }
}

void EmbedOp::applyShardingRule(ShardingRewriter &rewriter) {
  // Class labels: a small table looked up once per sample; replicated.
  if (tensorType(getIds()).getRank() < 2) {
    rewriter.setLayout(getResult(), Layout::Full);
    return;
  }
  // Vocabulary-parallel (Megatron-LM): each chip holds a padded share of
  // the rows and the partial lookups are summed.
  int64_t tp = rewriter.getDegree();
  setVocab(ceilDiv(getVocab(), tp));
  (*this)->setAttr(kSplitAttrName, split(*this, SplitKind::vocab, tp));
  rewriter.setLayout(getResult(), Layout::Partial);
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

std::string AttentionOp::whyNotShardable(int64_t tp, bool) {
  int64_t heads = getHeads(), kv = getKvHeads();
  if (heads % tp != 0)
    return (Twine(heads) + " attention heads are not divisible by tp = " +
            Twine(tp))
        .str();
  if (kv >= tp ? kv % tp != 0 : tp % kv != 0)
    return (Twine(kv) + " KV heads can be neither split nor replicated "
                        "evenly over tp = " +
            Twine(tp))
        .str();
  return {};
}

void AttentionOp::applyShardingRule(ShardingRewriter &rewriter) {
  // Q by query heads, K and V by KV heads (one per chip when there are
  // fewer KV heads than chips). The attention itself needs no exchange.
  int64_t tp = rewriter.getDegree();
  int64_t kvParts = std::min<int64_t>(getKvHeads(), tp);
  rewriter.toFeature(*this, getQ(), tp);
  rewriter.toFeature(*this, getK(), kvParts);
  rewriter.toFeature(*this, getV(), kvParts);
  setHeads(getHeads() / tp);
  setKvHeads(std::max<int64_t>(getKvHeads() / tp, 1));
  (*this)->setAttr(kSplitAttrName, split(*this, SplitKind::heads, tp));
  rewriter.setLayout(getResult(), Layout::Feature, getQ().getType());
}

std::string JointAttentionOp::whyNotShardable(int64_t tp, bool) {
  if (getHeads() % tp != 0)
    return (Twine(getHeads()) + " attention heads are not divisible by tp = " +
            Twine(tp))
        .str();
  return {};
}

void JointAttentionOp::applyShardingRule(ShardingRewriter &rewriter) {
  int64_t tp = rewriter.getDegree();
  for (Value operand : getOperands())
    rewriter.toFeature(*this, operand, tp);
  setHeads(getHeads() / tp);
  (*this)->setAttr(kSplitAttrName, split(*this, SplitKind::heads, tp));
  rewriter.setLayout(getImg(), Layout::Feature, getQImg().getType());
  rewriter.setLayout(getTxt(), Layout::Feature, getQTxt().getType());
}

//===----------------------------------------------------------------------===//
// Shape ops
//===----------------------------------------------------------------------===//

void ConcatOp::applyShardingRule(ShardingRewriter &rewriter) {
  Layout layout = rewriter.unify(*this);
  int64_t dim = getDim(), total = 0;
  for (Value input : getInputs())
    total += tensorType(input).getDimSize(dim);
  rewriter.setLayout(getResult(), layout,
                     withDim(tensorType(getResult()), dim, total));
}

void SliceOp::applyShardingRule(ShardingRewriter &rewriter) {
  int64_t tp = rewriter.getDegree();
  Layout layout = rewriter.getLayout(getInput());
  RankedTensorType type = tensorType(getResult());
  if (layout == Layout::Seq && getDim() == 1) {
    setOffset(getOffset() / tp);
    type = withDim(type, 1, type.getDimSize(1) / tp);
  } else {
    rewriter.toFull(*this, getInput());
    layout = Layout::Full;
  }
  rewriter.setLayout(getResult(), layout, type);
}

void ChunkOp::applyShardingRule(ShardingRewriter &rewriter) {
  Layout layout = rewriter.getLayout(getInput());
  if (layout != Layout::Feature) {
    rewriter.toFull(*this, getInput());
    layout = Layout::Full;
  }
  int64_t piece = tensorType(getInput()).getShape().back() / getNumResults();
  for (Value result : getResults())
    rewriter.setLayout(
        result, layout,
        withDim(tensorType(result), tensorType(result).getRank() - 1, piece));
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

std::string LayerOp::whyNotShardable(int64_t tp, bool sequenceParallel) {
  if (!sequenceParallel)
    return {};
  for (Value input : getInputs()) {
    RankedTensorType type = tensorType(input);
    if (type.getRank() == 3 && type.getDimSize(1) % tp != 0)
      return ("sequence parallelism splits the sequence of " +
              Twine(type.getDimSize(1)) +
              " tokens, which is not divisible by tp = " + Twine(tp))
          .str();
  }
  return {};
}

void LayerOp::applyShardingRule(ShardingRewriter &rewriter) {
  Block &body = getBody().front();
  for (auto [i, input] : llvm::enumerate(getInputs())) {
    Value value = input;
    if (rewriter.getLayout(value) == Layout::Partial)
      value = rewriter.reduce(*this, value);
    // Sequence parallelism enters the split layout at the first block.
    if (rewriter.isSequenceParallel() && tensorType(value).getRank() == 3 &&
        rewriter.getLayout(value) == Layout::Full)
      value = rewriter.toSeq(*this, value);
    rewriter.setLayout(body.getArgument(i), rewriter.getLayout(value),
                       value.getType());
  }
  rewriter.shardBlock(body);
  auto yield = cast<YieldOp>(body.getTerminator());
  for (auto [result, value] : llvm::zip(getResults(), yield.getValues()))
    rewriter.setLayout(result, rewriter.getLayout(value), value.getType());
}

void YieldOp::applyShardingRule(ShardingRewriter &rewriter) {
  // A layer hands on summed values; the next layer decides their layout.
  for (Value operand : getValues())
    if (rewriter.getLayout(operand) == Layout::Partial)
      rewriter.reduce(*this, operand);
}

//===----------------------------------------------------------------------===//
// Attention: the rules as data
//===----------------------------------------------------------------------===//

namespace {
/// An attention's rule under construction: q and the output of
/// [B, Sq, heads * head_dim], k and v of [B, Sk, kv_heads * head_dim]; the
/// keys' tokens are summed over (a reduction factor).
struct AttentionRule {
  OpShardingRule rule;
  unsigned batch, heads, kvHeads, headDim;

  /// Without `numKVHeads` the keys have the queries' heads.
  AttentionRule(Value q, int64_t numHeads, std::optional<int64_t> numKVHeads,
                int64_t dim) {
    batch = rule.addFactor(FactorKind::Batch, dimOf(q, 0));
    heads = rule.addFactor(FactorKind::Heads, numHeads);
    kvHeads = numKVHeads ? rule.addFactor(FactorKind::KVHeads, *numKVHeads)
                         : heads;
    headDim = rule.addFactor(FactorKind::HeadDim, dim);
  }
  /// A query (or output) tensor over `tokens`.
  OpShardingRule::Dims queries(unsigned tokens) const {
    return {{batch}, {tokens}, {heads, headDim}};
  }
  /// A key or value tensor over `tokens`.
  OpShardingRule::Dims keys(unsigned tokens) const {
    return {{batch}, {tokens}, {kvHeads, headDim}};
  }
};
} // namespace

/// Self-attention's keys are the model's sequence; cross-attention's
/// another one (the text).
static unsigned addKeyTokens(AttentionRule &attn, Value k, bool cross) {
  return attn.rule.addFactor(cross ? FactorKind::Context
                                   : FactorKind::Sequence,
                             dimOf(k, 1), /*reduction=*/true);
}

/// Decode: the earlier tokens a KV cache holds are summed over too; they
/// are the op's state, in no operand.
static void addCachedTokens(OpShardingRule &rule, int64_t cached) {
  if (cached > 0)
    rule.addFactor(FactorKind::Cached, cached, /*reduction=*/true);
}

OpShardingRule AttentionOp::getShardingRule() {
  // (The KV heads are a factor of their own even when as many as the
  // query heads: a driver asks one question of every attention.)
  AttentionRule attn(getQ(), getHeads(), getKvHeads(), getHeadDim());
  unsigned queries = attn.rule.addFactor(FactorKind::Sequence, dimOf(getQ(), 1));
  unsigned keys = addKeyTokens(attn, getK(), getCross());
  addCachedTokens(attn.rule, getCached());
  attn.rule.operands = {attn.queries(queries), attn.keys(keys),
                        attn.keys(keys)};
  attn.rule.results = {attn.queries(queries)};
  return attn.rule;
}

OpShardingRule RingAttentionOp::getShardingRule() {
  AttentionRule attn(getQ(), getHeads(), getKvHeads(), getHeadDim());
  unsigned queries = attn.rule.addFactor(FactorKind::Sequence, dimOf(getQ(), 1));
  unsigned keys = addKeyTokens(attn, getK(), /*cross=*/false);
  attn.rule.operands = {attn.queries(queries), attn.keys(keys),
                        attn.keys(keys)};
  attn.rule.results = {attn.queries(queries)};
  return attn.rule;
}

OpShardingRule JointAttentionOp::getShardingRule() {
  // Both streams' queries attend over both streams' keys, head by head.
  AttentionRule attn(getQImg(), getHeads(), std::nullopt, getHeadDim());
  OpShardingRule &rule = attn.rule;
  unsigned img = rule.addFactor(FactorKind::Sequence, dimOf(getQImg(), 1));
  unsigned txt = rule.addFactor(FactorKind::Context, dimOf(getQTxt(), 1));
  unsigned imgKeys = addKeyTokens(attn, getKImg(), /*cross=*/false);
  unsigned txtKeys = addKeyTokens(attn, getKTxt(), /*cross=*/true);
  rule.operands = {attn.queries(img),    attn.keys(imgKeys),
                   attn.keys(imgKeys),   attn.queries(txt),
                   attn.keys(txtKeys),   attn.keys(txtKeys)};
  rule.results = {attn.queries(img), attn.queries(txt)};
  return rule;
}

OpShardingRule LatentAttentionOp::getShardingRule() {
  // q [B, S, heads * (nope + rope)] over a latent [B, Sk, rank + rope]
  // that every head shares (no heads in it) -> [B, S, heads * v].
  OpShardingRule rule;
  unsigned batch = rule.addFactor(FactorKind::Batch, dimOf(getQ(), 0));
  unsigned heads = rule.addFactor(FactorKind::Heads, getHeads());
  unsigned qkDim = rule.addFactor(FactorKind::HeadDim,
                                  getQkNopeHeadDim() + getQkRopeHeadDim());
  unsigned vDim = rule.addFactor(FactorKind::HeadDim, getVHeadDim());
  unsigned queries = rule.addFactor(FactorKind::Sequence, dimOf(getQ(), 1));
  unsigned keys = rule.addFactor(FactorKind::Sequence, dimOf(getLatent(), 1),
                                 /*reduction=*/true);
  unsigned latent = rule.addFactor(FactorKind::Latent, dimOf(getLatent(), 2),
                                   /*reduction=*/true);
  addCachedTokens(rule, getCached());
  rule.operands = {{{batch}, {queries}, {heads, qkDim}},
                   {{batch}, {keys}, {latent}}};
  rule.results = {{{batch}, {queries}, {heads, vDim}}};
  return rule;
}

//===----------------------------------------------------------------------===//
// Mixture of experts: the rules as data
//===----------------------------------------------------------------------===//
//
// The dispatch buffer [groups, capacity, d_model] holds token copies, one
// row group per chip of experts (expert_groups; expert parallelism's
// all-to-alls exchange it). The experts themselves are weights, a factor in
// no dimension.

/// A dispatch buffer's dimensions: its row groups, then unsplit rows of
/// `model`.
static OpShardingRule::Dims bufferDims(OpShardingRule &rule, Value buffer,
                                       unsigned model) {
  unsigned groups = rule.addFactor(FactorKind::ExpertGroups, dimOf(buffer, 0));
  return {{groups}, {}, {model}};
}

OpShardingRule MoERouteOp::getShardingRule() {
  // Scores each token over the experts and copies it into the buffer.
  OpShardingRule rule;
  Value input = getInput();
  OpShardingRule::Dims in = unsplit(3), unused = unsplit(3);
  addTokenFactors(rule, input, in, unused);
  unsigned model = rule.addFactor(FactorKind::Model, dimOf(input, 2));
  in[2].push_back(model);
  rule.addFactor(FactorKind::Experts, getExperts());
  rule.operands.push_back(in);
  rule.results.push_back(bufferDims(rule, getResult(), model));
  return rule;
}

OpShardingRule MoEExpertsOp::getShardingRule() {
  // Each row through its expert's MLP, whose width (d_ff) is summed over.
  OpShardingRule rule;
  unsigned model = rule.addFactor(FactorKind::Model, dimOf(getInput(), 2));
  OpShardingRule::Dims rows = bufferDims(rule, getInput(), model);
  rule.addFactor(FactorKind::Experts, getExperts());
  rule.addFactor(FactorKind::FF, getExpertInter(), /*reduction=*/true);
  rule.operands.push_back(rows);
  rule.results.push_back(rows);
  return rule;
}

OpShardingRule MoECombineOp::getShardingRule() {
  // Each token's rows summed back into it.
  OpShardingRule rule;
  OpShardingRule::Dims unused = unsplit(3), out = unsplit(3);
  addTokenFactors(rule, getResult(), unused, out);
  unsigned model = rule.addFactor(FactorKind::Model, dimOf(getResult(), 2));
  out[2].push_back(model);
  rule.operands.push_back(bufferDims(rule, getInput(), model));
  rule.results.push_back(out);
  return rule;
}
