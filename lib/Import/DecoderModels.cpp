//===- DecoderModels.cpp - decoder LLM configs to loom IR -----------------===//
//
// The builders of Hugging Face transformers' decoder-only language models.
// Each follows the PyTorch modules of transformers' modelling code
// (LlamaForCausalLM, GPT2LMHeadModel), so that parameter counts match the
// checkpoints; models/PARAMS.md lists the modules and their shapes.
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"

using namespace mlir;
using namespace loom;
using namespace loom::importer;

namespace {
struct DecoderShape {
  int64_t batch, newTokens, cached;
};
} // namespace

/// Prompt length, new tokens and cached tokens for the mode, checked
/// against the position limit.
static DecoderShape decoderShape(ImportContext &ic, StringRef maxKey,
                                 int64_t maxPositions) {
  int64_t batch = ic.options.batch.value_or(1);
  bool decode = ic.options.mode == Mode::Decode;
  // Decode appends one token, so by default the cache leaves room for it.
  int64_t seq = ic.options.seqLen.value_or(std::max<int64_t>(
      1, std::min<int64_t>(2048, decode ? maxPositions - 1 : maxPositions)));
  if (ic.options.mode == Mode::Diffusion)
    ic.config.error() << "diffusion mode applies to diffusion transformers, "
                         "not to decoder LLMs";
  for (auto [given, what] :
       {std::pair(ic.options.resolution.has_value(), "an image resolution"),
        std::pair(ic.options.steps.has_value(), "a number of denoising steps"),
        std::pair(ic.options.textLen.has_value(), "a text length")})
    if (given)
      ic.config.error() << what
                        << " applies to diffusion transformers, not "
                           "to decoder LLMs";
  int64_t total = decode ? seq + 1 : seq;
  if (total > maxPositions)
    ic.config.error(maxKey) << "sequence of " << total << " tokens exceeds '"
                            << maxKey << "' = " << maxPositions;
  ic.model.batch = batch;
  ic.model.seq = seq;
  ic.model.mode = decode ? ModelMode::decode : ModelMode::prefill;
  return {batch, decode ? 1 : seq, decode ? seq : 0};
}

/// The token ids argument and their embedding.
static Value embedTokens(ImportContext &ic, const DecoderShape &s,
                         int64_t vocab, int64_t hidden) {
  GraphBuilder &g = ic.g;
  Value tokens = ic.fn.argument(
      g.type({s.batch, s.newTokens}, g.b.getI32Type()), "input_ids");
  return EmbedOp::create(g.b, g.loc, g.type({s.batch, s.newTokens, hidden}),
                         tokens, vocab);
}

LogicalResult loom::importer::buildLlama(ImportContext &ic) {
  ConfigReader &c = ic.config;
  int64_t hidden = c.positive("hidden_size");
  int64_t inter = c.positive("intermediate_size");
  int64_t heads = c.positive("num_attention_heads");
  int64_t layers = c.layerCount("num_hidden_layers");
  int64_t kvHeads = c.positive("num_key_value_heads", heads);
  int64_t vocab = c.positive("vocab_size");
  int64_t maxPos = c.positive("max_position_embeddings", 2048);
  double theta = c.number("rope_theta", 10000.0);
  bool tied = c.boolean("tie_word_embeddings", false);
  // transformers' LlamaConfig: biases on q, k, v, o and on the MLP.
  bool attentionBias = c.boolean("attention_bias", false);
  bool mlpBias = c.boolean("mlp_bias", false);
  std::string act = c.string("hidden_act");
  if (!act.empty() && act != "silu")
    c.error("hidden_act") << "field 'hidden_act' must be \"silu\" for a "
                             "LLaMA (SwiGLU) MLP, got \""
                          << act << "\"";
  requireDivisible(c, "num_attention_heads", heads, "num_key_value_heads",
                   kvHeads);
  // transformers' LlamaConfig: head_dim when given (e.g. Llama 3.2 and
  // Mistral-style configs), else hidden_size / num_attention_heads.
  int64_t headDim = c.positive("head_dim", 0);
  if (headDim != 0) {
    if (headDim % 2 != 0)
      c.error("head_dim") << "field 'head_dim' = " << headDim
                          << " must be even for rotary embeddings (RoPE "
                             "rotates pairs)";
  } else {
    requireDivisible(c, "hidden_size", hidden, "num_attention_heads", heads);
    headDim = hidden / heads;
    if (headDim % 2 != 0)
      c.error("num_attention_heads")
          << "head_dim = 'hidden_size' / 'num_attention_heads' = " << headDim
          << " must be even for rotary embeddings (RoPE rotates pairs)";
  }
  DecoderShape s = decoderShape(ic, "max_position_embeddings", maxPos);
  if (!c.ok())
    return failure();

  GraphBuilder &g = ic.g;
  Value x = embedTokens(ic, s, vocab, hidden);
  for (int64_t i = 0; i < layers; ++i) {
    x = g.layer(i, "llama", x, [&](ValueRange args) -> SmallVector<Value> {
      Value in = args[0];
      Value h = g.rmsNorm(in);
      Value q = g.linear(LinearRole::q, h, heads * headDim, attentionBias);
      Value k = g.linear(LinearRole::k, h, kvHeads * headDim, attentionBias);
      Value v = g.linear(LinearRole::v, h, kvHeads * headDim, attentionBias);
      q = g.rope(q, headDim, theta);
      k = g.rope(k, headDim, theta);
      Value a = g.attention(q, k, v, heads, kvHeads, headDim, /*causal=*/true,
                            /*cross=*/false, s.cached);
      Value r = g.add(in, g.linear(LinearRole::o, a, hidden, attentionBias));
      Value h2 = g.rmsNorm(r);
      Value gate = g.linear(LinearRole::gate, h2, inter, mlpBias);
      Value up = g.linear(LinearRole::up, h2, inter, mlpBias);
      Value m = SwiGLUOp::create(g.b, g.loc, gate, up);
      return {g.add(r, g.linear(LinearRole::down, m, hidden, mlpBias))};
    })[0];
  }
  Value logits =
      g.linear(LinearRole::lm_head, g.rmsNorm(x), vocab, false, tied);
  ic.fn.finish(logits);
  return success();
}

LogicalResult loom::importer::buildGPT(ImportContext &ic) {
  ConfigReader &c = ic.config;
  int64_t hidden = c.positive("n_embd");
  int64_t heads = c.positive("n_head");
  int64_t layers = c.layerCount("n_layer");
  int64_t vocab = c.positive("vocab_size");
  int64_t maxPos = c.positive("n_positions");
  int64_t inner = c.positive("n_inner", 4 * hidden);
  bool tied = c.boolean("tie_word_embeddings", true);
  std::string act = c.string("activation_function");
  ActivationKind kind = ActivationKind::gelu_tanh;
  if (act == "gelu")
    kind = ActivationKind::gelu;
  else if (act == "relu")
    kind = ActivationKind::relu;
  else if (!act.empty() && act != "gelu_new" && act != "gelu_pytorch_tanh")
    c.error("activation_function")
        << "field 'activation_function' must be one of gelu, gelu_new, "
           "gelu_pytorch_tanh, relu; got \""
        << act << "\"";
  if (c.boolean("add_cross_attention", false))
    c.error("add_cross_attention")
        << "field 'add_cross_attention' (a GPT-2 decoder attending to an "
           "encoder) is not supported: Loom models decoder-only GPT-2";
  requireDivisible(c, "n_embd", hidden, "n_head", heads);
  DecoderShape s = decoderShape(ic, "n_positions", maxPos);
  if (!c.ok())
    return failure();

  GraphBuilder &g = ic.g;
  int64_t headDim = hidden / heads;
  Value x = embedTokens(ic, s, vocab, hidden);
  x = PositionEmbedOp::create(g.b, g.loc, x, maxPos);
  for (int64_t i = 0; i < layers; ++i) {
    x = g.layer(i, "gpt", x, [&](ValueRange args) -> SmallVector<Value> {
      Value in = args[0];
      SmallVector<Value> qkv = g.chunk(
          g.linear(LinearRole::qkv, g.layerNorm(in, true), 3 * hidden), 3);
      Value a = g.attention(qkv[0], qkv[1], qkv[2], heads, heads, headDim,
                            /*causal=*/true, /*cross=*/false, s.cached);
      Value r = g.add(in, g.linear(LinearRole::o, a, hidden));
      return {g.add(r, g.feedForward(g.layerNorm(r, true), inner, kind))};
    })[0];
  }
  Value logits =
      g.linear(LinearRole::lm_head, g.layerNorm(x, true), vocab, false, tied);
  ic.fn.finish(logits);
  return success();
}
