//===- ModelImporter.cpp - model configs to loom IR -----------------------===//
//
// One builder per architecture family. Each follows the PyTorch modules of
// the reference implementation (transformers' LlamaForCausalLM and
// GPT2LMHeadModel; diffusers' DiT, PixArt-alpha, SD3 and Flux transformers),
// so that parameter counts match the checkpoints; models/PARAMS.md lists
// the modules and their shapes.
//
//===----------------------------------------------------------------------===//

#include "loom/Import/ModelImporter.h"
#include "ConfigReader.h"
#include "loom/Support/JsonReader.h"

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Dialect/Loom/ModelCost.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <functional>

using namespace mlir;
using namespace loom;

static const BundledModel bundledModels[] = {
#include "BundledModels.inc"
};

ArrayRef<BundledModel> loom::getBundledModels() { return bundledModels; }

std::optional<ImportOptions::Mode> loom::parseImportMode(StringRef mode) {
  return llvm::StringSwitch<std::optional<ImportOptions::Mode>>(mode)
      .Case("prefill", ImportOptions::Mode::Prefill)
      .Case("decode", ImportOptions::Mode::Decode)
      .Case("diffusion", ImportOptions::Mode::Diffusion)
      .Default(std::nullopt);
}

namespace {

using Mode = ImportOptions::Mode;

/// Builds loom ops at the end of a block, with the shorthand the family
/// builders share.
class GraphBuilder {
public:
  GraphBuilder(OpBuilder &builder, Location loc)
      : b(builder), loc(loc), bf16(builder.getBF16Type()) {}

  RankedTensorType type(ArrayRef<int64_t> shape, Type element = {}) {
    return RankedTensorType::get(shape, element ? element : bf16);
  }
  static ArrayRef<int64_t> shape(Value v) {
    return cast<RankedTensorType>(v.getType()).getShape();
  }
  RankedTensorType withLast(Value v, int64_t last) {
    SmallVector<int64_t> dims(shape(v));
    dims.back() = last;
    return type(dims);
  }

  Value linear(LinearRole role, Value x, int64_t out, bool bias = true,
               bool tied = false) {
    return LinearOp::create(b, loc, withLast(x, out), role, x, bias, tied);
  }
  Value act(ActivationKind kind, Value x) {
    return ActivationOp::create(b, loc, kind, x);
  }
  Value add(Value x, Value y) { return AddOp::create(b, loc, x, y); }
  Value rmsNorm(Value x, std::optional<int64_t> group = std::nullopt) {
    auto op = RMSNormOp::create(b, loc, x);
    if (group)
      op.setGroup(*group);
    return op;
  }
  Value layerNorm(Value x, bool affine) {
    auto op = LayerNormOp::create(b, loc, x);
    op.setAffine(affine);
    return op;
  }
  Value rope(Value x, int64_t headDim, double theta) {
    return RoPEOp::create(b, loc, x, b.getI64IntegerAttr(headDim),
                          b.getF64FloatAttr(theta));
  }
  Value modulate(Value x, Value shift, Value scale) {
    return ModulateOp::create(b, loc, x, shift, scale);
  }
  Value gate(Value x, Value g) { return GateOp::create(b, loc, x, g); }
  SmallVector<Value> chunk(Value x, int64_t count) {
    SmallVector<Type> types(count, withLast(x, shape(x).back() / count));
    auto op = ChunkOp::create(b, loc, types, x);
    return SmallVector<Value>(op.getResults());
  }
  Value attention(Value q, Value k, Value v, int64_t heads, int64_t kvHeads,
                  int64_t headDim, bool causal, bool cross, int64_t cached) {
    auto op = AttentionOp::create(b, loc, q, k, v, heads, kvHeads, headDim);
    if (causal)
      op.setCausal(true);
    if (cross)
      op.setCross(true);
    if (cached)
      op.setCached(cached);
    return op;
  }
  /// A DiT block's full self-attention over `h`: q, k, v (biased when
  /// `bias`), attention and the (always biased) output projection.
  Value selfAttention(Value h, int64_t heads, int64_t headDim, bool bias) {
    int64_t hidden = heads * headDim;
    Value q = linear(LinearRole::q, h, hidden, bias);
    Value k = linear(LinearRole::k, h, hidden, bias);
    Value v = linear(LinearRole::v, h, hidden, bias);
    Value a = attention(q, k, v, heads, heads, headDim, false, false, 0);
    return linear(LinearRole::o, a, hidden);
  }
  /// Two linears with an activation between: the timestep, pooled-text and
  /// caption MLPs of the DiT families.
  Value mlp2(Value x, int64_t hidden, int64_t out, ActivationKind kind,
             LinearRole role = LinearRole::cond) {
    Value h = act(kind, linear(role, x, hidden));
    return linear(role, h, out);
  }
  /// fc1, activation, fc2.
  Value feedForward(Value x, int64_t inner, ActivationKind kind) {
    Value h = act(kind, linear(LinearRole::fc1, x, inner));
    return linear(LinearRole::fc2, h, shape(x).back());
  }
  /// `silu(c)` then a modulation linear to `count * hidden`, split in `count`.
  SmallVector<Value> adaLN(Value c, int64_t hidden, int64_t count) {
    Value m = linear(LinearRole::modulation, act(ActivationKind::silu, c),
                     count * hidden);
    return chunk(m, count);
  }

  /// A loom.layer whose body `body` builds from the block arguments and
  /// returns the values to yield.
  SmallVector<Value>
  layer(int64_t index, StringRef kind, ValueRange inputs,
        const std::function<SmallVector<Value>(ValueRange)> &body) {
    auto block = std::make_unique<Block>();
    for (Value input : inputs)
      block->addArgument(input.getType(), loc);
    SmallVector<Value> results;
    {
      OpBuilder::InsertionGuard guard(b);
      b.setInsertionPointToEnd(block.get());
      results = body(block->getArguments());
      YieldOp::create(b, loc, results);
    }
    auto op = LayerOp::create(b, loc, ValueRange(results).getTypes(), index,
                              inputs, b.getStringAttr(kind), IntegerAttr());
    op.getBody().push_back(block.release());
    return SmallVector<Value>(op.getResults());
  }

  OpBuilder &b;
  Location loc;
  Type bf16;
};

/// The function being built: its arguments are declared first, then the
/// body is built, then the results close it.
struct ModelFunction {
  ModelFunction(ModuleOp module, StringRef name, OpBuilder &builder,
                Location loc)
      : builder(builder), loc(loc) {
    builder.setInsertionPointToEnd(module.getBody());
    func = func::FuncOp::create(builder, loc, name,
                                builder.getFunctionType({}, {}));
    builder.setInsertionPointToEnd(func.addEntryBlock());
  }
  Value argument(Type type, StringRef argName) {
    unsigned index = func.getNumArguments();
    (void)func.insertArgument(index, type, {}, loc);
    func.setArgAttr(index, kArgNameAttrName, builder.getStringAttr(argName));
    return func.getArgument(index);
  }
  void finish(ValueRange results) {
    func::ReturnOp::create(builder, loc, results);
    func.setType(builder.getFunctionType(func.getArgumentTypes(),
                                         ValueRange(results).getTypes()));
  }
  OpBuilder &builder;
  Location loc;
  func::FuncOp func;
};

/// Everything a family builder needs: the config, the options, and where
/// to put ops.
struct ImportContext {
  ConfigReader &config;
  const ImportOptions &options;
  ModelFunction &fn;
  GraphBuilder &g;
  /// What becomes the module's #loom.model.
  struct {
    ModelMode mode = ModelMode::prefill;
    int64_t batch = 1, seq = 1, resolution = 0, textTokens = 0, steps = 0;
  } model = {};
};

//===----------------------------------------------------------------------===//
// Decoder LLMs
//===----------------------------------------------------------------------===//

struct DecoderShape {
  int64_t batch, newTokens, cached;
};

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
      ic.config.error() << what << " applies to diffusion transformers, not "
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

/// Reports at `divisorKey` unless `divisorKey`'s value divides `key`'s.
static void requireDivisible(ConfigReader &c, StringRef key, int64_t value,
                             StringRef divisorKey, int64_t divisor) {
  if (value % divisor != 0)
    c.error(divisorKey) << "'" << key << "' " << value
                        << " is not divisible by '" << divisorKey << "' "
                        << divisor;
}

/// Reports at `key` when it names a variant other than the one the
/// builder models (absent means the diffusers default, which is that one).
static void requireVariant(ConfigReader &c, StringRef key, StringRef modelled) {
  std::string given = c.string(key);
  if (!given.empty() && given != modelled)
    c.error(key) << "field '" << key << "' must be \"" << modelled
                 << "\", the variant Loom models; got \"" << given << "\"";
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

static LogicalResult buildLlama(ImportContext &ic) {
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
                             "LLaMA (SwiGLU) MLP, got \"" << act << "\"";
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
  Value logits = g.linear(LinearRole::lm_head, g.rmsNorm(x), vocab, false, tied);
  ic.fn.finish(logits);
  return success();
}

static LogicalResult buildGPT(ImportContext &ic) {
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
           "gelu_pytorch_tanh, relu; got \"" << act << "\"";
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
      SmallVector<Value> qkv =
          g.chunk(g.linear(LinearRole::qkv, g.layerNorm(in, true), 3 * hidden), 3);
      Value a = g.attention(qkv[0], qkv[1], qkv[2], heads, heads, headDim,
                            /*causal=*/true, /*cross=*/false, s.cached);
      Value r = g.add(in, g.linear(LinearRole::o, a, hidden));
      return {g.add(r, g.feedForward(g.layerNorm(r, true), inner, kind))};
    })[0];
  }
  Value logits = g.linear(LinearRole::lm_head, g.layerNorm(x, true), vocab,
                          false, tied);
  ic.fn.finish(logits);
  return success();
}

//===----------------------------------------------------------------------===//
// Diffusion transformers
//===----------------------------------------------------------------------===//

/// The latent and token geometry of one denoising step.
struct DiffusionShape {
  int64_t batch, latent, tokens, textTokens, steps;
};

/// Latent side = resolution / 8 (the SD VAE's downsampling factor, shared by
/// all four families; models/SOURCES.md), tokens = (latent / patch)^2.
static DiffusionShape diffusionShape(ImportContext &ic, int64_t patch,
                                     int64_t defaultBatch, int64_t defaultSteps,
                                     int64_t defaultText) {
  ConfigReader &c = ic.config;
  int64_t sample = c.positive("sample_size", 128);
  int64_t resolution = ic.options.resolution.value_or(sample * 8);
  if (resolution % (8 * patch) != 0) {
    // Blame --resolution when it was given, else the config's sample_size.
    InFlightDiagnostic diag =
        ic.options.resolution ? c.error() : c.error("sample_size");
    diag << "resolution " << resolution << " px";
    if (!ic.options.resolution)
      diag << " ('sample_size' " << sample << " x 8)";
    diag << " is not a multiple of " << 8 * patch
         << " (VAE factor 8 times patch_size " << patch << ")";
    resolution = 8 * patch;
  }
  if (ic.options.mode == Mode::Decode)
    c.error() << "decode mode applies to decoder LLMs, not to diffusion "
                 "transformers";
  if (ic.options.seqLen)
    c.error() << "a sequence length applies to decoder LLMs; a diffusion "
                 "transformer's tokens follow from the resolution";
  if (ic.options.textLen && defaultText == 0)
    c.error() << "a text length applies to text-conditioned models; this "
                 "one has no text input";
  DiffusionShape s;
  s.batch = ic.options.batch.value_or(defaultBatch);
  s.latent = resolution / 8;
  s.tokens = (s.latent / patch) * (s.latent / patch);
  // Attention FLOPs grow with tokens^2; past a million tokens they would
  // overflow the 64-bit counts.
  constexpr int64_t maxTokens = int64_t(1) << 20;
  if (s.tokens > maxTokens) {
    c.error() << "resolution " << resolution << " px makes " << s.tokens
              << " patch tokens; Loom models up to " << maxTokens;
    s.tokens = 1;
  }
  s.textTokens = ic.options.textLen.value_or(defaultText);
  s.steps = ic.options.steps.value_or(defaultSteps);
  ic.model.batch = s.batch;
  ic.model.resolution = resolution;
  ic.model.seq = s.tokens;
  if (defaultText)
    ic.model.textTokens = s.textTokens;
  ic.model.steps = s.steps;
  ic.model.mode = ModelMode::diffusion;
  return s;
}

/// Sinusoidal features of a per-sample scalar, then the two-layer SiLU MLP
/// (diffusers TimestepEmbedding).
static Value embedScalar(ImportContext &ic, Value scalar, int64_t hidden) {
  GraphBuilder &g = ic.g;
  Value f = TimestepEmbedOp::create(g.b, g.loc,
                                    g.type({GraphBuilder::shape(scalar)[0], 256}),
                                    scalar);
  return g.mlp2(f, hidden, hidden, ActivationKind::silu);
}

/// Final adaLN (shift, scale from `c`), projection to patches, unpatchify.
static Value finalLayer(ImportContext &ic, Value x, ArrayRef<Value> shiftScale,
                        int64_t patch, int64_t outChannels,
                        const DiffusionShape &s) {
  GraphBuilder &g = ic.g;
  Value h = g.modulate(g.layerNorm(x, false), shiftScale[0], shiftScale[1]);
  Value p = g.linear(LinearRole::proj_out, h, patch * patch * outChannels);
  return UnpatchifyOp::create(g.b, g.loc,
                              g.type({s.batch, outChannels, s.latent, s.latent}),
                              p, patch);
}

/// The arguments every DiT family takes first, the latent image and the
/// timestep, and the patch tokens of the latent.
struct DiTInputs {
  Value latent, timestep, tokens;
};
static DiTInputs ditInputs(ImportContext &ic, const DiffusionShape &s,
                           int64_t channels, int64_t hidden, int64_t patch) {
  GraphBuilder &g = ic.g;
  DiTInputs in;
  in.latent = ic.fn.argument(g.type({s.batch, channels, s.latent, s.latent}),
                             "latent");
  in.timestep = ic.fn.argument(g.type({s.batch}, g.b.getF32Type()), "timestep");
  in.tokens = PatchifyOp::create(g.b, g.loc, g.type({s.batch, s.tokens, hidden}),
                                 in.latent, patch);
  return in;
}

/// The fields DiT, PixArt and SD3 configs share: a patch-embedded
/// transformer of `layers` blocks, `heads` x `headDim` wide.
struct PatchDiT {
  int64_t heads, headDim, hidden, layers, inChannels, outChannels, patch;
  /// diffusers' attention_bias: biases on the q, k and v projections (the
  /// output projection always has one). DiT's and PixArt's default: true.
  bool attentionBias;
};

static PatchDiT readPatchDiT(ConfigReader &c) {
  PatchDiT d;
  d.heads = c.positive("num_attention_heads");
  d.headDim = c.positive("attention_head_dim");
  d.hidden = d.heads * d.headDim;
  d.layers = c.layerCount("num_layers");
  d.inChannels = c.positive("in_channels");
  d.outChannels = c.positive("out_channels", d.inChannels);
  d.patch = c.positive("patch_size");
  d.attentionBias = c.boolean("attention_bias", true);
  return d;
}

/// DiT (Peebles & Xie 2023), as the original code builds it: one shared
/// timestep and class embedder (diffusers copies them into every block; the
/// copies hold the same weights, so they are counted once).
static LogicalResult buildDiT(ImportContext &ic) {
  ConfigReader &c = ic.config;
  requireVariant(c, "norm_type", "ada_norm_zero");
  requireVariant(c, "activation_fn", "gelu-approximate");
  const PatchDiT d = readPatchDiT(c);
  const int64_t heads = d.heads, headDim = d.headDim, hidden = d.hidden,
                layers = d.layers, inChannels = d.inChannels,
                outChannels = d.outChannels, patch = d.patch;
  int64_t classes = c.positive("num_embeds_ada_norm");
  // Class-conditional DiT samples with classifier-free guidance: batch 2.
  DiffusionShape s = diffusionShape(ic, patch, 2, 50, 0);
  if (!c.ok())
    return failure();
  GraphBuilder &g = ic.g;
  DiTInputs in = ditInputs(ic, s, inChannels, hidden, patch);
  Value t = in.timestep;
  Value label = ic.fn.argument(g.type({s.batch}, g.b.getI32Type()), "class_labels");
  Value x = in.tokens;
  // num_classes + 1 rows: the extra one is the null class for guidance.
  Value y = EmbedOp::create(g.b, g.loc, g.type({s.batch, hidden}), label,
                            classes + 1);
  Value cond = g.add(embedScalar(ic, t, hidden), y);
  for (int64_t i = 0; i < layers; ++i) {
    x = g.layer(i, "dit", {x, cond}, [&](ValueRange args) -> SmallVector<Value> {
      Value in = args[0], cnd = args[1];
      SmallVector<Value> m = g.adaLN(cnd, hidden, 6);
      Value h = g.modulate(g.layerNorm(in, false), m[0], m[1]);
      Value a = g.selfAttention(h, heads, headDim, d.attentionBias);
      Value r = g.add(in, g.gate(a, m[2]));
      Value h2 = g.modulate(g.layerNorm(r, false), m[3], m[4]);
      Value f = g.feedForward(h2, 4 * hidden, ActivationKind::gelu_tanh);
      return {g.add(r, g.gate(f, m[5]))};
    })[0];
  }
  SmallVector<Value> shiftScale = g.adaLN(cond, hidden, 2);
  ic.fn.finish(finalLayer(ic, x, shiftScale, patch, outChannels, s));
  return success();
}

/// PixArt-alpha (Chen et al. 2023): adaLN-single (one shared modulation
/// linear plus a learned per-block table), cross-attention to T5 tokens.
static LogicalResult buildPixArt(ImportContext &ic) {
  ConfigReader &c = ic.config;
  requireVariant(c, "norm_type", "ada_norm_single");
  requireVariant(c, "activation_fn", "gelu-approximate");
  const PatchDiT d = readPatchDiT(c);
  const int64_t heads = d.heads, headDim = d.headDim, hidden = d.hidden,
                layers = d.layers, inChannels = d.inChannels,
                outChannels = d.outChannels, patch = d.patch;
  int64_t captionChannels = c.positive("caption_channels");
  int64_t crossDim = c.positive("cross_attention_dim", hidden);
  int64_t sample = c.positive("sample_size", 128);
  // diffusers: use_additional_conditions defaults to sample_size == 128.
  bool extraConds = c.boolean("use_additional_conditions", sample == 128);
  // Guided sampling (batch 2), 20 steps and 120 T5 tokens: the diffusers
  // PixArtAlphaPipeline defaults (models/SOURCES.md).
  DiffusionShape s = diffusionShape(ic, patch, 2, 20, 120);
  if (crossDim != hidden)
    c.error("cross_attention_dim")
        << "'cross_attention_dim' " << crossDim << " must equal heads * "
        << "head_dim = " << hidden;
  if (extraConds && hidden % 3 != 0)
    c.error("use_additional_conditions")
        << "additional conditions need a hidden size divisible by 3, got "
        << hidden;
  if (!c.ok())
    return failure();
  GraphBuilder &g = ic.g;
  DiTInputs in = ditInputs(ic, s, inChannels, hidden, patch);
  Value t = in.timestep;
  Value caption = ic.fn.argument(
      g.type({s.batch, s.textTokens, captionChannels}), "encoder_hidden_states");
  Value x = in.tokens;
  Value temb = embedScalar(ic, t, hidden);
  if (extraConds) {
    // Resolution (height, width) and aspect ratio, each through its own
    // 256 -> hidden/3 MLP, concatenated onto the timestep embedding.
    int64_t third = hidden / 3;
    Value res = ic.fn.argument(g.type({2 * s.batch}, g.b.getF32Type()), "resolution");
    Value ar = ic.fn.argument(g.type({s.batch}, g.b.getF32Type()), "aspect_ratio");
    auto embedSmall = [&](Value v) {
      Value f = TimestepEmbedOp::create(
          g.b, g.loc, g.type({GraphBuilder::shape(v)[0], 256}), v);
      return g.mlp2(f, third, third, ActivationKind::silu);
    };
    Value resEmb = ReshapeOp::create(g.b, g.loc, g.type({s.batch, 2 * third}),
                                     embedSmall(res));
    Value extra = ConcatOp::create(g.b, g.loc, g.type({s.batch, hidden}),
                                   ValueRange{resEmb, embedSmall(ar)}, 1);
    temb = g.add(temb, extra);
  }
  Value t6 = g.linear(LinearRole::modulation,
                      g.act(ActivationKind::silu, temb), 6 * hidden);
  Value text = g.mlp2(caption, hidden, hidden, ActivationKind::gelu_tanh);
  for (int64_t i = 0; i < layers; ++i) {
    x = g.layer(i, "pixart", {x, t6, text},
                [&](ValueRange args) -> SmallVector<Value> {
      Value in = args[0], mod = args[1], txt = args[2];
      Value table = ParamOp::create(g.b, g.loc, g.type({6 * hidden}),
                                    "scale_shift_table");
      SmallVector<Value> m = g.chunk(g.add(mod, table), 6);
      Value h = g.modulate(g.layerNorm(in, false), m[0], m[1]);
      Value a = g.selfAttention(h, heads, headDim, d.attentionBias);
      Value r = g.add(in, g.gate(a, m[2]));
      // Cross-attention reads the block input unnormalised (ada_norm_single).
      Value cq = g.linear(LinearRole::q, r, hidden, d.attentionBias);
      Value ck = g.linear(LinearRole::k, txt, hidden, d.attentionBias);
      Value cv = g.linear(LinearRole::v, txt, hidden, d.attentionBias);
      Value ca = g.attention(cq, ck, cv, heads, heads, headDim, false, true, 0);
      Value r2 = g.add(r, g.linear(LinearRole::o, ca, hidden));
      Value h2 = g.modulate(g.layerNorm(r2, false), m[3], m[4]);
      Value f = g.feedForward(h2, 4 * hidden, ActivationKind::gelu_tanh);
      return {g.add(r2, g.gate(f, m[5]))};
    })[0];
  }
  // Final shift and scale: the learned [2, hidden] table plus the embedded
  // timestep, broadcast to both rows.
  Value table = ParamOp::create(g.b, g.loc, g.type({2 * hidden}), "scale_shift_table");
  Value twice = ConcatOp::create(g.b, g.loc, g.type({s.batch, 2 * hidden}),
                                 ValueRange{temb, temb}, 1);
  SmallVector<Value> shiftScale = g.chunk(g.add(twice, table), 2);
  ic.fn.finish(finalLayer(ic, x, shiftScale, patch, outChannels, s));
  return success();
}

/// One stream (image or text) of an MMDiT block after attention: output
/// projection, gated residual, modulated feed-forward, gated residual.
static Value mmditStreamTail(GraphBuilder &g, Value in, Value attn,
                             ArrayRef<Value> m, int64_t hidden) {
  Value r = g.add(in, g.gate(g.linear(LinearRole::o, attn, hidden), m[2]));
  Value h = g.modulate(g.layerNorm(r, false), m[3], m[4]);
  Value f = g.feedForward(h, 4 * hidden, ActivationKind::gelu_tanh);
  return g.add(r, g.gate(f, m[5]));
}

/// SD3 (Esser et al. 2024) MMDiT: joint attention over text and image
/// tokens; the last block only reads the text stream ("context_pre_only").
/// The position embedding is a fixed sin-cos table cropped to the grid (a
/// buffer, not a parameter, in diffusers), which patchify implies.
static LogicalResult buildSD3(ImportContext &ic) {
  ConfigReader &c = ic.config;
  const PatchDiT d = readPatchDiT(c);
  const int64_t heads = d.heads, headDim = d.headDim, hidden = d.hidden,
                layers = d.layers, inChannels = d.inChannels,
                outChannels = d.outChannels, patch = d.patch;
  int64_t jointDim = c.positive("joint_attention_dim");
  int64_t pooledDim = c.positive("pooled_projection_dim");
  int64_t captionDim = c.positive("caption_projection_dim");
  int64_t maxGrid = c.positive("pos_embed_max_size", 96);
  if (c.has("qk_norm"))
    c.error("qk_norm") << "field 'qk_norm' (SD3.5) is not supported yet";
  // SD3.5's MMDiT-X: extra self-attention in the listed blocks.
  if (c.hasItems("dual_attention_layers"))
    c.error("dual_attention_layers")
        << "field 'dual_attention_layers' (SD3.5's MMDiT-X) is not supported "
           "yet";
  // Guided sampling (batch 2), 28 steps, 77 CLIP + 256 T5 tokens: the
  // diffusers StableDiffusion3Pipeline defaults (models/SOURCES.md).
  DiffusionShape s = diffusionShape(ic, patch, 2, 28, 333);
  if (captionDim != hidden)
    c.error("caption_projection_dim")
        << "'caption_projection_dim' " << captionDim
        << " must equal heads * head_dim = " << hidden;
  if (s.latent / patch > maxGrid)
    c.error("pos_embed_max_size")
        << "a " << s.latent / patch << "x" << s.latent / patch
        << " patch grid exceeds 'pos_embed_max_size' " << maxGrid;
  if (!c.ok())
    return failure();
  GraphBuilder &g = ic.g;
  DiTInputs in = ditInputs(ic, s, inChannels, hidden, patch);
  Value t = in.timestep;
  Value text = ic.fn.argument(g.type({s.batch, s.textTokens, jointDim}),
                              "encoder_hidden_states");
  Value pooled = ic.fn.argument(g.type({s.batch, pooledDim}), "pooled_projections");
  Value x = in.tokens;
  Value temb = embedScalar(ic, t, hidden);
  Value cond = g.add(temb, g.mlp2(pooled, hidden, hidden, ActivationKind::silu));
  Value ctx = g.linear(LinearRole::context, text, hidden);
  for (int64_t i = 0; i < layers; ++i) {
    bool last = i + 1 == layers;
    SmallVector<Value> out = g.layer(
        i, "mmdit", {x, ctx, cond}, [&](ValueRange args) -> SmallVector<Value> {
          Value img = args[0], txt = args[1], cnd = args[2];
          SmallVector<Value> mi = g.adaLN(cnd, hidden, 6);
          SmallVector<Value> mt = g.adaLN(cnd, hidden, last ? 2 : 6);
          Value hi = g.modulate(g.layerNorm(img, false), mi[0], mi[1]);
          // AdaLayerNormContinuous orders its chunks (scale, shift).
          Value ht = last ? g.modulate(g.layerNorm(txt, false), mt[1], mt[0])
                          : g.modulate(g.layerNorm(txt, false), mt[0], mt[1]);
          // Named one by one: argument evaluation order is unspecified.
          Value qi = g.linear(LinearRole::q, hi, hidden);
          Value ki = g.linear(LinearRole::k, hi, hidden);
          Value vi = g.linear(LinearRole::v, hi, hidden);
          Value qt = g.linear(LinearRole::q, ht, hidden);
          Value kt = g.linear(LinearRole::k, ht, hidden);
          Value vt = g.linear(LinearRole::v, ht, hidden);
          auto joint = JointAttentionOp::create(g.b, g.loc, qi, ki, vi, qt, kt,
                                                vt, heads, headDim);
          Value newImg = mmditStreamTail(g, img, joint.getImg(), mi, hidden);
          if (last)
            return {newImg};
          return {newImg, mmditStreamTail(g, txt, joint.getTxt(), mt, hidden)};
        });
    x = out[0];
    if (!last)
      ctx = out[1];
  }
  SmallVector<Value> scaleShift = g.adaLN(cond, hidden, 2);
  ic.fn.finish(finalLayer(ic, x, {scaleShift[1], scaleShift[0]}, patch,
                          outChannels, s));
  return success();
}

/// Flux (Black Forest Labs 2024): 19 double-stream MMDiT blocks with QK
/// RMSNorm and RoPE, then 38 single-stream blocks over the concatenated
/// tokens with attention and MLP in parallel. Flux packs 2x2 latent patches
/// into 64 channels before its x_embedder linear, which is patchify with
/// patch 2 over the 16-channel latent (the same weights).
static LogicalResult buildFlux(ImportContext &ic) {
  ConfigReader &c = ic.config;
  int64_t heads = c.positive("num_attention_heads");
  int64_t headDim = c.positive("attention_head_dim");
  int64_t doubleLayers = c.layerCount("num_layers");
  int64_t singleLayers = c.layerCount("num_single_layers");
  int64_t packed = c.positive("in_channels");
  int64_t outPacked = c.positive("out_channels", packed);
  int64_t patchSize = c.positive("patch_size", 1);
  int64_t jointDim = c.positive("joint_attention_dim");
  int64_t pooledDim = c.positive("pooled_projection_dim");
  bool guidance = c.boolean("guidance_embeds", false);
  if (packed % 4 != 0 || outPacked != packed)
    c.error("in_channels") << "'in_channels' " << packed
                           << " must be 4 x latent channels (2x2 packing) "
                              "and equal 'out_channels'";
  if (patchSize != 1)
    c.error("patch_size") << "'patch_size' must be 1 (Flux packs 2x2 patches "
                             "outside the transformer), got " << patchSize;
  if (headDim % 2 != 0)
    c.error("attention_head_dim")
        << "'attention_head_dim' " << headDim
        << " must be even for rotary embeddings (RoPE rotates pairs)";
  // The rotary axes (text index, height, width) split the head dimension.
  SmallVector<int64_t> ropeAxes = c.positiveArray("axes_dims_rope");
  if (!ropeAxes.empty() && llvm::sum_of(ropeAxes) != headDim)
    c.error("axes_dims_rope") << "'axes_dims_rope' must add up to "
                                 "'attention_head_dim' " << headDim
                              << ", got " << llvm::sum_of(ropeAxes);
  // Flux-dev is guidance-distilled (batch 1, no CFG); 28 steps and 512 T5
  // tokens are the diffusers FluxPipeline defaults (models/SOURCES.md).
  DiffusionShape s = diffusionShape(ic, 2, 1, 28, 512);
  if (!c.ok())
    return failure();
  GraphBuilder &g = ic.g;
  int64_t hidden = heads * headDim, channels = packed / 4;
  DiTInputs in = ditInputs(ic, s, channels, hidden, 2);
  Value t = in.timestep;
  Value guidanceScale;
  if (guidance)
    guidanceScale = ic.fn.argument(g.type({s.batch}, g.b.getF32Type()), "guidance");
  Value text = ic.fn.argument(g.type({s.batch, s.textTokens, jointDim}),
                              "encoder_hidden_states");
  Value pooled = ic.fn.argument(g.type({s.batch, pooledDim}), "pooled_projections");
  Value x = in.tokens;
  Value cond = embedScalar(ic, t, hidden);
  if (guidance)
    cond = g.add(cond, embedScalar(ic, guidanceScale, hidden));
  cond = g.add(cond, g.mlp2(pooled, hidden, hidden, ActivationKind::silu));
  Value ctx = g.linear(LinearRole::context, text, hidden);
  // q and k: per-head RMSNorm, then RoPE (axes 16/56/56 over the head).
  auto qk = [&](LinearRole role, Value h) {
    Value v = g.rmsNorm(g.linear(role, h, hidden), headDim);
    return g.rope(v, headDim, 10000.0);
  };
  int64_t index = 0;
  for (int64_t i = 0; i < doubleLayers; ++i, ++index) {
    SmallVector<Value> out = g.layer(
        index, "flux_double", {x, ctx, cond},
        [&](ValueRange args) -> SmallVector<Value> {
          Value img = args[0], txt = args[1], cnd = args[2];
          SmallVector<Value> mi = g.adaLN(cnd, hidden, 6);
          SmallVector<Value> mt = g.adaLN(cnd, hidden, 6);
          Value hi = g.modulate(g.layerNorm(img, false), mi[0], mi[1]);
          Value ht = g.modulate(g.layerNorm(txt, false), mt[0], mt[1]);
          Value qi = qk(LinearRole::q, hi), ki = qk(LinearRole::k, hi);
          Value vi = g.linear(LinearRole::v, hi, hidden);
          Value qt = qk(LinearRole::q, ht), kt = qk(LinearRole::k, ht);
          Value vt = g.linear(LinearRole::v, ht, hidden);
          auto joint = JointAttentionOp::create(g.b, g.loc, qi, ki, vi, qt, kt,
                                                vt, heads, headDim);
          return {mmditStreamTail(g, img, joint.getImg(), mi, hidden),
                  mmditStreamTail(g, txt, joint.getTxt(), mt, hidden)};
        });
    x = out[0];
    ctx = out[1];
  }
  int64_t all = s.textTokens + s.tokens;
  Value h = ConcatOp::create(g.b, g.loc, g.type({s.batch, all, hidden}),
                             ValueRange{ctx, x}, 1);
  for (int64_t i = 0; i < singleLayers; ++i, ++index) {
    h = g.layer(index, "flux_single", {h, cond},
                [&](ValueRange args) -> SmallVector<Value> {
      Value in = args[0], cnd = args[1];
      SmallVector<Value> m = g.adaLN(cnd, hidden, 3);
      Value n = g.modulate(g.layerNorm(in, false), m[0], m[1]);
      Value mlp = g.act(ActivationKind::gelu_tanh,
                        g.linear(LinearRole::fc1, n, 4 * hidden));
      Value q = qk(LinearRole::q, n), k = qk(LinearRole::k, n);
      Value v = g.linear(LinearRole::v, n, hidden);
      Value a = g.attention(q, k, v, heads, heads, headDim, false, false, 0);
      Value both = ConcatOp::create(g.b, g.loc,
                                    g.type({s.batch, all, 5 * hidden}),
                                    ValueRange{a, mlp}, 2);
      return {g.add(in, g.gate(g.linear(LinearRole::o, both, hidden), m[2]))};
    })[0];
  }
  x = SliceOp::create(g.b, g.loc, g.type({s.batch, s.tokens, hidden}), h, 1,
                      s.textTokens);
  SmallVector<Value> scaleShift = g.adaLN(cond, hidden, 2);
  ic.fn.finish(finalLayer(ic, x, {scaleShift[1], scaleShift[0]}, 2, channels, s));
  return success();
}

} // namespace

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

using FamilyBuilder = LogicalResult (*)(ImportContext &);

/// The family of a config: transformers configs name a `model_type`,
/// diffusers configs a `_class_name`.
static std::pair<FamilyBuilder, StringRef> selectFamily(ConfigReader &config) {
  std::string modelType = config.string("model_type");
  std::string className = config.string("_class_name");
  if (modelType == "llama")
    return {buildLlama, "llama"};
  if (modelType == "gpt2" || modelType == "gpt")
    return {buildGPT, "gpt"};
  if (className == "DiTTransformer2DModel")
    return {buildDiT, "dit"};
  if (className == "PixArtTransformer2DModel")
    return {buildPixArt, "pixart"};
  if (className == "Transformer2DModel") {
    // The original DiT and PixArt checkpoints use the generic class; the
    // norm type tells them apart, as diffusers itself does.
    std::string norm = config.string("norm_type");
    if (norm == "ada_norm_zero")
      return {buildDiT, "dit"};
    if (norm == "ada_norm_single")
      return {buildPixArt, "pixart"};
  }
  if (className == "SD3Transformer2DModel")
    return {buildSD3, "sd3"};
  if (className == "FluxTransformer2DModel")
    return {buildFlux, "flux"};
  if (!modelType.empty())
    config.error("model_type")
        << "unsupported 'model_type' \"" << modelType
        << "\" (supported: llama, gpt2)";
  else if (!className.empty())
    config.error("_class_name")
        << "unsupported '_class_name' \"" << className
        << "\" (supported: DiTTransformer2DModel, PixArtTransformer2DModel, "
           "SD3Transformer2DModel, FluxTransformer2DModel)";
  else
    config.error() << "cannot tell the architecture: the config has neither "
                      "'model_type' (transformers) nor '_class_name' "
                      "(diffusers)";
  return {nullptr, ""};
}

static std::string functionName(StringRef modelName) {
  std::string name;
  for (char ch : modelName)
    name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
    name = "m_" + name;
  return name;
}

OwningOpRef<ModuleOp> loom::importModelConfig(StringRef text, StringRef fileName,
                                             StringRef modelName,
                                             const ImportOptions &options,
                                             MLIRContext *context) {
  context->loadDialect<LoomDialect, func::FuncDialect>();
  Location fileLoc = FileLineColLoc::get(context, fileName, 1, 1);
  llvm::Expected<llvm::json::Value> json = parseJson(text);
  if (!json) {
    std::string message = llvm::toString(json.takeError());
    auto [line, column] = takeJsonErrorPosition(message);
    Location at =
        line ? FileLineColLoc::get(context, fileName, line, column) : fileLoc;
    mlir::emitError(at) << "invalid JSON: " << message;
    return nullptr;
  }
  const llvm::json::Object *object = json->getAsObject();
  if (!object) {
    mlir::emitError(fileLoc) << "a model config must be a JSON object";
    return nullptr;
  }
  for (auto [flag, what] : {std::pair{options.batch, "batch"},
                            {options.seqLen, "sequence length"},
                            {options.resolution, "resolution"},
                            {options.steps, "steps"},
                            {options.textLen, "text length"}})
    if (flag && *flag <= 0) {
      mlir::emitError(fileLoc) << what << " must be positive, got " << *flag;
      return nullptr;
    }

  // Keep FLOP counts of the largest models within 64 bits (and a DiT's
  // resolution squared well inside them before its token cap applies).
  for (auto [flag, what, limit] :
       {std::tuple{options.batch, "batch", int64_t(4096)},
        {options.seqLen, "sequence length", int64_t(1) << 20},
        {options.resolution, "resolution", int64_t(1) << 16},
        {options.steps, "steps", int64_t(10000)},
        {options.textLen, "text length", int64_t(1) << 16}})
    if (flag && *flag > limit) {
      mlir::emitError(fileLoc) << what << " " << *flag
                               << " is larger than Loom models (" << limit
                               << ")";
      return nullptr;
    }
  ConfigReader config(*object, text, fileName, context);
  auto [build, family] = selectFamily(config);
  if (!build)
    return nullptr;

  OpBuilder builder(context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  ModelFunction fn(*module, functionName(modelName), builder, fileLoc);
  GraphBuilder graph(builder, fileLoc);
  ImportContext ic{config, options, fn, graph};
  if (failed(build(ic)) || !config.ok())
    return nullptr;
  (*module)->setAttr(
      kModelAttrName,
      ModelAttr::get(context, modelName, family, ic.model.mode, ic.model.batch,
                     ic.model.seq, ic.model.resolution, ic.model.textTokens,
                     ic.model.steps));
  if (failed(mlir::verify(*module)))
    return nullptr;
  // The verifier bounds each op and layer; the whole model must fit too, so
  // that every pass's sums stay exact.
  CostTotals total = sumPartCosts(collectPartCosts(fn.func.getBody().front()));
  std::string past = findCostPastLimit(
      {{"FLOPs", total.flops},
       {"parameters", total.parameters},
       {"bytes of parameters", total.parameterBytes},
       {"bytes read", total.bytesRead},
       {"bytes written", total.bytesWritten},
       {"bytes of KV cache", total.kvCacheBytes}});
  if (!past.empty()) {
    mlir::emitError(fileLoc) << "the model " << past
                             << " in all, past Loom's 64-bit cost figures (at "
                                "most 2^62); use a smaller batch, sequence or "
                                "model";
    return nullptr;
  }
  return module;
}

OwningOpRef<ModuleOp> loom::importModel(StringRef nameOrPath,
                                        const ImportOptions &options,
                                        MLIRContext *context) {
  for (const BundledModel &model : getBundledModels())
    if (model.name == nameOrPath)
      return importModelConfig(model.json, ("models/" + model.name + ".json").str(),
                               model.name, options, context);
  auto buffer = llvm::MemoryBuffer::getFile(nameOrPath, /*IsText=*/true);
  if (!buffer) {
    std::string names;
    for (const BundledModel &model : getBundledModels())
      names += (names.empty() ? "" : ", ") + model.name.str();
    mlir::emitError(UnknownLoc::get(context))
        << "'" << nameOrPath << "' is neither a bundled model (" << names
        << ") nor a readable file: " << buffer.getError().message();
    return nullptr;
  }
  // The model is named after its file, or its folder for config.json.
  StringRef stem = llvm::sys::path::stem(nameOrPath);
  if (stem == "config") {
    StringRef parent = llvm::sys::path::parent_path(nameOrPath);
    StringRef folder = llvm::sys::path::filename(parent);
    stem = folder.empty() ? StringRef("model") : folder;
  }
  return importModelConfig((*buffer)->getBuffer(), nameOrPath, stem, options,
                           context);
}
