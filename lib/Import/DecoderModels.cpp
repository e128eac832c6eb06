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

DecoderShape loom::importer::decoderShape(ImportContext &ic,
                                          ConfigReader &config,
                                          StringRef maxKey,
                                          int64_t maxPositions) {
  int64_t batch = ic.options.batch.value_or(1);
  bool decode = ic.options.mode == Mode::Decode;
  // Decode appends one token, so by default the cache leaves room for it.
  int64_t seq = ic.options.seqLen.value_or(std::max<int64_t>(
      1, std::min<int64_t>(2048, decode ? maxPositions - 1 : maxPositions)));
  if (ic.options.mode == Mode::Diffusion)
    config.error() << "diffusion mode applies to diffusion transformers, "
                         "not to decoder LLMs";
  for (auto [given, what] :
       {std::pair(ic.options.resolution.has_value(), "an image resolution"),
        std::pair(ic.options.height.has_value() || ic.options.width.has_value(),
                  "an image height and width"),
        std::pair(ic.options.frames.has_value(), "a number of video frames"),
        std::pair(ic.options.steps.has_value(), "a number of denoising steps"),
        std::pair(ic.options.textLen.has_value(), "a text length")})
    if (given)
      config.error() << what
                        << " applies to diffusion transformers, not "
                           "to decoder LLMs";
  int64_t total = decode ? seq + 1 : seq;
  if (total > maxPositions)
    config.error(maxKey) << "sequence of " << total << " tokens exceeds '"
                            << maxKey << "' = " << maxPositions;
  ic.model.batch = batch;
  ic.model.seq = seq;
  ic.model.mode = decode ? ModelMode::decode : ModelMode::prefill;
  return {batch, decode ? 1 : seq, decode ? seq : 0};
}

Value loom::importer::embedTokens(ImportContext &ic, const DecoderShape &s,
                                  int64_t vocab, int64_t hidden) {
  GraphBuilder &g = ic.g;
  Value tokens = ic.fn.argument(
      g.type({s.batch, s.newTokens}, g.b.getI32Type()), "input_ids");
  return EmbedOp::create(g.b, g.loc, g.type({s.batch, s.newTokens, hidden}),
                         tokens, vocab);
}

//===----------------------------------------------------------------------===//
// The LLaMA skeleton and the families derived from it
//===----------------------------------------------------------------------===//


/// The transformers activations of a gated MLP, as a GLU gate. `what`
/// names the family's MLP for the diagnostic.
static ActivationKind gatedActivation(ConfigReader &c, StringRef key,
                                      ArrayRef<StringRef> allowed,
                                      ActivationKind fallback) {
  std::string act = c.string(key);
  if (act.empty())
    return fallback;
  if (act == "silu" || act == "swish")
    if (llvm::is_contained(allowed, "silu"))
      return ActivationKind::silu;
  // transformers' "gelu" is exact, "gelu_pytorch_tanh" and "gelu_new" its
  // tanh form: numerics only, the same vector work here.
  if (act == "gelu" || act == "gelu_pytorch_tanh" || act == "gelu_new")
    if (llvm::is_contained(allowed, "gelu"))
      return ActivationKind::gelu_tanh;
  std::string list;
  for (StringRef a : allowed)
    list += (list.empty() ? "" : ", ") +
            (a == "gelu" ? std::string("gelu, gelu_pytorch_tanh, gelu_new")
                         : a.str());
  c.error(key) << "field '" << key << "' must be one of " << list
               << " for this family's gated MLP, got \"" << act << "\"";
  return fallback;
}

/// head_dim when given, else hidden_size / num_attention_heads (checked);
/// even either way, as RoPE rotates pairs.
static int64_t readHeadDim(ConfigReader &c, int64_t hidden, int64_t heads,
                           int64_t fallback = 0) {
  int64_t headDim = c.positive("head_dim", fallback);
  if (headDim != 0) {
    if (headDim % 2 != 0)
      c.error("head_dim") << "field 'head_dim' = " << headDim
                          << " must be even for rotary embeddings (RoPE "
                             "rotates pairs)";
    return headDim;
  }
  // An uneven division is the one error: the rounded head_dim's parity
  // would be a consequence of it.
  bool divides =
      requireDivisible(c, "hidden_size", hidden, "num_attention_heads", heads);
  headDim = std::max<int64_t>(hidden / heads, 1);
  if (divides && headDim % 2 != 0)
    c.error("num_attention_heads")
        << "head_dim = 'hidden_size' / 'num_attention_heads' = " << headDim
        << " must be even for rotary embeddings (RoPE rotates pairs)";
  return headDim;
}

void loom::importer::readSizes(ConfigReader &c, DecoderSpec &s,
                               const SizeDefaults &d) {
  auto size = [&](StringRef key, int64_t fallback) {
    return fallback ? c.positive(key, fallback) : c.positive(key);
  };
  s.hidden = size("hidden_size", d.hidden);
  s.inter = size("intermediate_size", d.inter);
  s.heads = size("num_attention_heads", d.heads);
  s.layers = d.layers && !c.has("num_hidden_layers")
                 ? d.layers
                 : c.layerCount("num_hidden_layers");
  s.kvHeads = c.positive("num_key_value_heads", d.kvHeads ? d.kvHeads : s.heads);
  s.vocab = size("vocab_size", d.vocab);
  s.maxPos = c.positive("max_position_embeddings", d.maxPos);
  s.tied = c.boolean("tie_word_embeddings", d.tied);
  requireDivisible(c, "num_attention_heads", s.heads, "num_key_value_heads",
                   s.kvHeads);
  s.headDim = readHeadDim(c, s.hidden, s.heads, d.headDim);
  // Positions only: RoPE's base and scaling (Llama 3.x "llama3", linear,
  // dynamic, yarn, longrope) rescale rotation frequencies, not cost.
  // transformers v5 writes both as rope_parameters.
  c.requireObject("rope_scaling");
  c.requireObject("rope_parameters");
  s.theta = c.number("rope_theta", d.theta);
  // A checkpoint stored quantized (quantization_config) is refused for
  // every family in importModelConfig.
}

/// `layer_types` (transformers v5, every family) when given: one of
/// "sliding_attention" or "full_attention" per layer.
static bool readLayerTypes(ConfigReader &c, DecoderSpec &s, int64_t window) {
  if (!c.has("layer_types"))
    return false;
  SmallVector<std::string> types = c.stringArray("layer_types");
  if (!c.ok())
    return true;
  if (static_cast<int64_t>(types.size()) != s.layers) {
    c.error("layer_types") << "field 'layer_types' lists " << types.size()
                           << " layers, but 'num_hidden_layers' is "
                           << s.layers;
    return true;
  }
  s.windows.assign(s.layers, 0);
  for (auto [i, type] : llvm::enumerate(types)) {
    if (type == "sliding_attention") {
      if (!window)
        c.error("layer_types") << "layer " << i
                               << " is \"sliding_attention\" but the config "
                                  "sets no 'sliding_window'";
      s.windows[i] = window;
    } else if (type != "full_attention") {
      c.error("layer_types")
          << "field 'layer_types' entry " << i << " is \"" << type
          << "\"; Loom models \"sliding_attention\" and \"full_attention\"";
      return true;
    }
  }
  return true;
}

/// `sliding_window` as a window: null or absent means none.
static int64_t readWindow(ConfigReader &c, int64_t fallback = 0) {
  return c.positive("sliding_window", fallback);
}

static void refuseBidirectional(ConfigReader &c) {
  if (c.boolean("use_bidirectional_attention", false))
    c.error("use_bidirectional_attention")
        << "field 'use_bidirectional_attention' (a non-causal encoder, e.g. "
           "EmbeddingGemma) is not supported: Loom models causal decoders";
}

LogicalResult loom::importer::buildDecoder(ImportContext &ic, ConfigReader &c,
                                           const DecoderSpec &s) {
  if (!c.ok())
    return failure();
  DecoderShape shape = decoderShape(ic, c, "max_position_embeddings", s.maxPos);
  if (!c.ok())
    return failure();
  GraphBuilder &g = ic.g;
  int64_t headDim = s.headDim;
  Value x = embedTokens(ic, shape, s.vocab, s.hidden);
  for (int64_t i = 0; i < s.layers; ++i) {
    int64_t window = s.windows.empty() ? 0 : s.windows[i];
    double theta = window && s.localTheta ? s.localTheta : s.theta;
    x = g.layer(i, s.kind, x, [&](ValueRange args) -> SmallVector<Value> {
      Value in = args[0];
      Value h = g.rmsNorm(in);
      Value q = g.linear(LinearRole::q, h, s.heads * headDim, s.qkvBias);
      Value k = g.linear(LinearRole::k, h, s.kvHeads * headDim, s.qkvBias);
      Value v = g.linear(LinearRole::v, h, s.kvHeads * headDim, s.qkvBias);
      if (s.qkNorm) {
        q = g.rmsNorm(q, headDim);
        k = g.rmsNorm(k, headDim);
      }
      q = g.rope(q, headDim, theta);
      k = g.rope(k, headDim, theta);
      Value a = g.attention(q, k, v, s.heads, s.kvHeads, headDim,
                            /*causal=*/true, /*cross=*/false, shape.cached);
      if (window)
        a.getDefiningOp<AttentionOp>().setWindow(window);
      Value o = g.linear(LinearRole::o, a, s.hidden, s.oBias);
      if (s.sandwichNorms)
        o = g.rmsNorm(o);
      Value r = g.add(in, o);
      Value h2 = g.rmsNorm(r);
      if (s.mlp)
        return {g.add(r, s.mlp(i, h2))};
      Value gate = g.linear(LinearRole::gate, h2, s.inter, s.mlpBias);
      Value up = g.linear(LinearRole::up, h2, s.inter, s.mlpBias);
      Value m = s.act == ActivationKind::silu
                    ? Value(SwiGLUOp::create(g.b, g.loc, gate, up))
                    : Value(MulOp::create(g.b, g.loc, g.act(s.act, gate), up));
      Value d = g.linear(LinearRole::down, m, s.hidden, s.mlpBias);
      if (s.sandwichNorms)
        d = g.rmsNorm(d);
      return {g.add(r, d)};
    })[0];
  }
  Value logits =
      g.linear(LinearRole::lm_head, g.rmsNorm(x), s.vocab, false, s.tied);
  if (s.finalSoftcap)
    logits = g.act(ActivationKind::softcap, logits);
  ic.fn.finish(logits);
  return success();
}

LogicalResult loom::importer::buildLlama(ImportContext &ic) {
  ConfigReader &c = ic.config;
  DecoderSpec s;
  s.kind = "llama";
  readSizes(c, s, {});
  // transformers' LlamaConfig: attention_bias on q, k, v and o; mlp_bias on
  // gate, up and down.
  s.qkvBias = s.oBias = c.boolean("attention_bias", false);
  s.mlpBias = c.boolean("mlp_bias", false);
  s.act = gatedActivation(c, "hidden_act", {"silu"}, ActivationKind::silu);
  return buildDecoder(ic, c, s);
}

// MistralForCausalLM: LLaMA's modules, every layer local when
// sliding_window is set (Mistral 7B v0.1: 4096; later releases null).
LogicalResult loom::importer::buildMistral(ImportContext &ic) {
  ConfigReader &c = ic.config;
  DecoderSpec s;
  s.kind = "mistral";
  SizeDefaults d;
  d.maxPos = 4096 * 32;
  readSizes(c, s, d);
  s.qkvBias = s.oBias = c.boolean("attention_bias", false);
  s.act = gatedActivation(c, "hidden_act", {"silu"}, ActivationKind::silu);
  int64_t window = readWindow(c);
  if (!readLayerTypes(c, s, window) && window)
    s.windows.assign(s.layers, window);
  return buildDecoder(ic, c, s);
}

/// Qwen2/Qwen3: a window only with use_sliding_window, and then only on
/// layers from max_window_layers on (Qwen2Config, Qwen3Config). Released
/// Qwen2.5 configs set sliding_window = the context with
/// use_sliding_window false: no window.
static void readQwenWindows(ConfigReader &c, DecoderSpec &s) {
  bool use = c.boolean("use_sliding_window", false);
  int64_t window = use ? readWindow(c) : 0;
  if (readLayerTypes(c, s, window) || !window)
    return;
  int64_t from = c.positive("max_window_layers", s.layers);
  s.windows.assign(s.layers, 0);
  for (int64_t i = from; i < s.layers; ++i)
    s.windows[i] = window;
}

// Qwen2ForCausalLM (Qwen2, Qwen2.5): biases on q, k and v, hard-wired in
// Qwen2Attention (no config field); none on o or the MLP.
LogicalResult loom::importer::buildQwen2(ImportContext &ic) {
  ConfigReader &c = ic.config;
  DecoderSpec s;
  s.kind = "qwen2";
  SizeDefaults d;
  d.maxPos = 32768;
  readSizes(c, s, d);
  s.qkvBias = true;
  s.act = gatedActivation(c, "hidden_act", {"silu"}, ActivationKind::silu);
  readQwenWindows(c, s);
  return buildDecoder(ic, c, s);
}

// Qwen3ForCausalLM: per-head RMSNorm of q and k, head_dim (default 128)
// independent of hidden_size, attention_bias on q, k, v and o.
LogicalResult loom::importer::buildQwen3(ImportContext &ic) {
  ConfigReader &c = ic.config;
  DecoderSpec s;
  s.kind = "qwen3";
  SizeDefaults d;
  d.maxPos = 32768;
  d.headDim = 128;
  readSizes(c, s, d);
  s.qkvBias = s.oBias = c.boolean("attention_bias", false);
  s.qkNorm = true;
  s.act = gatedActivation(c, "hidden_act", {"silu"}, ActivationKind::silu);
  readQwenWindows(c, s);
  return buildDecoder(ic, c, s);
}

/// The Gemma activation: hidden_activation, else hidden_act (Gemma 1 Hub
/// configs say "gelu"; transformers runs the tanh form either way).
static ActivationKind gemmaActivation(ConfigReader &c) {
  StringRef key = c.has("hidden_activation") ? "hidden_activation" : "hidden_act";
  return gatedActivation(c, key, {"gelu"}, ActivationKind::gelu_tanh);
}

// GemmaForCausalLM: GeGLU, head_dim 256 by default, embedding tied and
// scaled by sqrt(hidden_size) (one multiply per element, not counted).
LogicalResult loom::importer::buildGemma(ImportContext &ic) {
  ConfigReader &c = ic.config;
  DecoderSpec s;
  s.kind = "gemma";
  SizeDefaults d;
  d.maxPos = 8192;
  d.headDim = 256;
  d.tied = true;
  readSizes(c, s, d);
  s.qkvBias = s.oBias = c.boolean("attention_bias", false);
  s.act = gemmaActivation(c);
  refuseBidirectional(c);
  return buildDecoder(ic, c, s);
}

// Gemma2ForCausalLM: Gemma plus four norms per layer, local layers of
// sliding_window (default 4096) at even indices, global at odd ones
// (Gemma2DecoderLayer: is_sliding = not layer_idx % 2), and logit
// soft-capping (vector work; the attention's is inside the fused
// attention, uncounted as its softmax is).
LogicalResult loom::importer::buildGemma2(ImportContext &ic) {
  ConfigReader &c = ic.config;
  DecoderSpec s;
  s.kind = "gemma2";
  SizeDefaults d;
  d.maxPos = 8192;
  d.headDim = 256;
  d.tied = true;
  readSizes(c, s, d);
  s.qkvBias = s.oBias = c.boolean("attention_bias", false);
  s.act = gemmaActivation(c);
  s.sandwichNorms = true;
  refuseBidirectional(c);
  int64_t window = readWindow(c, 4096);
  if (!readLayerTypes(c, s, window)) {
    s.windows.assign(s.layers, 0);
    for (int64_t i = 0; i < s.layers; i += 2)
      s.windows[i] = window;
  }
  c.number("attn_logit_softcapping", 0);
  s.finalSoftcap = c.number("final_logit_softcapping", 0) > 0;
  return buildDecoder(ic, c, s);
}

/// Gemma3TextConfig's fields, with its defaults (the Hub's multimodal
/// configs leave most of text_config to them).
static LogicalResult buildGemma3Language(ImportContext &ic, ConfigReader &c) {
  DecoderSpec s;
  s.kind = "gemma3";
  SizeDefaults d;
  d.hidden = 2304;
  d.inter = 9216;
  d.layers = 26;
  d.heads = 8;
  d.kvHeads = 4;
  d.vocab = 262208;
  d.maxPos = 131072;
  d.headDim = 256;
  d.theta = 1000000.0;
  d.tied = true;
  readSizes(c, s, d);
  s.qkvBias = s.oBias = c.boolean("attention_bias", false);
  s.act = gemmaActivation(c);
  s.sandwichNorms = true;
  s.qkNorm = true;
  s.localTheta = c.number("rope_local_base_freq", 10000.0);
  refuseBidirectional(c);
  int64_t window = readWindow(c, 4096);
  if (!readLayerTypes(c, s, window)) {
    // Legacy: every pattern-th layer global, the rest local (5:1 for 6).
    StringRef key = c.has("sliding_window_pattern") ? "sliding_window_pattern"
                                                    : "_sliding_window_pattern";
    int64_t pattern = c.positive(key, 6);
    s.windows.assign(s.layers, 0);
    for (int64_t i = 0; i < s.layers; ++i)
      if ((i + 1) % pattern != 0)
        s.windows[i] = window;
  }
  c.number("attn_logit_softcapping", 0);
  s.finalSoftcap = c.number("final_logit_softcapping", 0) > 0;
  return buildDecoder(ic, c, s);
}

LogicalResult loom::importer::buildGemma3Text(ImportContext &ic) {
  return buildGemma3Language(ic, ic.config);
}

// Gemma3ForConditionalGeneration: the language model is text_config; the
// SigLIP vision tower and its projector are not modelled (Loom plans text
// decoding), which docs/models.md says.
LogicalResult loom::importer::buildGemma3(ImportContext &ic) {
  std::unique_ptr<ConfigReader> text = ic.config.nested("text_config");
  if (!text)
    return failure();
  std::string type = text->string("model_type");
  if (!type.empty() && type != "gemma3_text")
    text->error("model_type") << "a gemma3 config's text_config must have "
                                 "'model_type' \"gemma3_text\", got \""
                              << type << "\"";
  return buildGemma3Language(ic, *text);
}

// Phi3ForCausalLM: LLaMA's block with q, k, v fused into qkv_proj and gate,
// up into gate_up_proj. The fused weights are imported as their parts:
// the same parameters and FLOPs, and loom-shard-heads splits q, k and v
// by heads and gate, up by columns, as transformers' TP plan does after
// gathering the fused output. Every layer is local when sliding_window is
// set (Phi-3-mini-4k: 2047).
LogicalResult loom::importer::buildPhi3(ImportContext &ic) {
  ConfigReader &c = ic.config;
  DecoderSpec s;
  s.kind = "phi3";
  SizeDefaults d;
  d.maxPos = 4096;
  readSizes(c, s, d);
  s.act = gatedActivation(c, "hidden_act", {"silu"}, ActivationKind::silu);
  if (c.boolean("attention_bias", false))
    c.error("attention_bias") << "field 'attention_bias' is not read by "
                                 "Phi3Attention (qkv_proj has no bias); "
                                 "refusing rather than guessing";
  int64_t window = readWindow(c);
  if (!readLayerTypes(c, s, window) && window)
    s.windows.assign(s.layers, window);
  return buildDecoder(ic, c, s);
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
  DecoderShape s = decoderShape(ic, c, "n_positions", maxPos);
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
