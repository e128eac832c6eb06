//===- ImportContext.h - what the family builders share ---------*- C++ -*-===//
//
// Private to lib/Import. The graph builder the family builders use, the
// function being built, and the config and options of one import. Each
// family's builder lives in the file of its kind (DecoderModels.cpp,
// DiffusionModels.cpp) and is registered in ModelImporter.cpp's family
// table.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_LIB_IMPORT_IMPORTCONTEXT_H
#define LOOM_LIB_IMPORT_IMPORTCONTEXT_H

#include "ConfigReader.h"
#include "loom/Dialect/Loom/LoomAttributes.h"
#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Import/ModelImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"

#include <functional>

namespace loom::importer {

using namespace mlir;

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
    return LinearOp::create(b, loc, withLast(x, out), role, x, bias, tied,
                            /*weight_type=*/TypeAttr(),
                            /*compute_type=*/TypeAttr());
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
    return AttentionOp::create(b, loc, q, k, v, heads, kvHeads, headDim, causal,
                               cross, cached, /*window=*/IntegerAttr(),
                               /*kv_type=*/TypeAttr(),
                               /*materialized_scores=*/false,
                               /*decode_query_rows=*/IntegerAttr(),
                               /*kv_scales_across_heads=*/false,
                               /*dropout=*/FloatAttr(),
                               /*recompute_scores=*/false);
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
    int64_t height = 0, width = 0, frames = 0;
  } model = {};
};

/// How a diffusion model's pipeline turns pixels into patch tokens: the
/// VAE's compression in space (and in time for video, whose causal VAE
/// keeps the first frame and compresses each later group of
/// `vaeTemporal`), the patch, and the size the pipeline runs by default.
struct LatentGeometry {
  int64_t vaeSpatial = 8, patch = 2;
  /// 0 for an image model.
  int64_t vaeTemporal = 0, patchT = 1;
  int64_t defaultHeight = 1024, defaultWidth = 1024, defaultFrames = 0;
  /// Latent frames that patch_t does not divide are padded up (CogVideoX
  /// 1.5's pipeline) rather than refused.
  bool padLatentFrames = false;
  /// A bound on the patch grid's side (SD3's pos_embed_max_size), or 0.
  int64_t maxGrid = 0;
  StringRef maxGridKey;
  /// The config field the default size comes from, if any: blamed when
  /// that size does not divide.
  StringRef sampleKey;
  bool video() const { return vaeTemporal > 0; }
};

/// The latent and token geometry of one denoising step.
struct DiffusionShape {
  int64_t batch, textTokens, steps;
  /// Latent frames (0 for an image), height and width; patch tokens.
  int64_t frames, height, width, tokens;
  int64_t patch, patchT;
  /// The latent `[batch, channels, (frames,) height, width]`.
  SmallVector<int64_t> latentShape(int64_t channels) const {
    if (frames)
      return {batch, channels, frames, height, width};
    return {batch, channels, height, width};
  }
};

/// Reads the size options against `geometry`, fills `ic.model` and returns
/// the shape of one step; `defaultText` 0 means the model has no text.
DiffusionShape diffusionShape(ImportContext &ic, const LatentGeometry &geometry,
                              int64_t defaultBatch, int64_t defaultSteps,
                              int64_t defaultText);

/// The patch embedding of a latent argument named "latent".
Value patchTokens(ImportContext &ic, const DiffusionShape &s, int64_t channels,
                  int64_t hidden, Value *latent = nullptr);

/// Projection of tokens to patches and unpatchify to the latent.
Value unpatchTokens(ImportContext &ic, Value tokens, const DiffusionShape &s,
                    int64_t outChannels);

/// Sinusoidal features of a per-sample scalar (256 wide), then the
/// two-layer SiLU MLP (diffusers TimestepEmbedding).
Value embedScalar(ImportContext &ic, Value scalar, int64_t hidden);

/// The dual-stream and single-stream blocks of Flux and HunyuanVideo.
struct StreamBlocks {
  int64_t heads, headDim, doubleLayers, singleLayers, mlpHidden;
  double ropeTheta;
  StringRef doubleKind, singleKind;
};
Value streamBlocks(ImportContext &ic, const DiffusionShape &s,
                   const StreamBlocks &blocks, Value x, Value ctx, Value cond);

/// Reports at `divisorKey` unless `divisorKey`'s value divides `key`'s;
/// returns whether it does.
bool requireDivisible(ConfigReader &c, StringRef key, int64_t value,
                      StringRef divisorKey, int64_t divisor);

/// Reports at `key` when it names a variant other than the one the
/// builder models (absent means the default, which is that one).
void requireVariant(ConfigReader &c, StringRef key, StringRef modelled);

/// A family builder: reads the config, builds the function body and fills
/// `ic.model`. Returns failure (after located diagnostics) on a bad config.
using FamilyBuilder = LogicalResult (*)(ImportContext &);

// DecoderModels.cpp, shared with MoEModels.cpp
/// A decoder's batch, the tokens it computes and those it has cached.
struct DecoderShape {
  int64_t batch, newTokens, cached;
};
/// Prompt length, new tokens and cached tokens for the mode, checked
/// against the position limit; fills ic.model.
DecoderShape decoderShape(ImportContext &ic, ConfigReader &config,
                          StringRef maxKey, int64_t maxPositions);
/// The token ids argument and their embedding.
Value embedTokens(ImportContext &ic, const DecoderShape &s, int64_t vocab,
                  int64_t hidden);
/// What a LLaMA-derived family's config makes of the shared skeleton: pre-
/// norm attention and gated MLP blocks, RoPE, grouped-query attention.
/// Each field is read by the family's reader below from the fields its
/// transformers modelling code reads.
struct DecoderSpec {
  StringRef kind;
  int64_t hidden = 0, inter = 0, heads = 0, kvHeads = 0, headDim = 0,
          layers = 0, vocab = 0, maxPos = 0;
  double theta = 10000.0, localTheta = 0;
  bool tied = false;
  /// Biases: on q, k, v (qwen2, llama's attention_bias), on o (llama's
  /// attention_bias), on gate, up, down (llama's mlp_bias).
  bool qkvBias = false, oBias = false, mlpBias = false;
  /// RMSNorm over each head of q and k before RoPE (qwen3, gemma3).
  bool qkNorm = false;
  /// A norm after attention and after the MLP as well (gemma2/3: four
  /// norms per layer).
  bool sandwichNorms = false;
  /// The MLP's gate activation: silu (SwiGLU) or gelu_tanh (GeGLU).
  ActivationKind act = ActivationKind::silu;
  /// Per layer: the sliding window of a local layer, 0 for a global one.
  SmallVector<int64_t> windows;
  /// Final logit soft-capping (gemma2): c * tanh(logits / c).
  bool finalSoftcap = false;
  /// When set, builds layer i's MLP on its normed input in place of the
  /// dense gated MLP (mixtures of experts, MoEModels.cpp).
  std::function<Value(int64_t, Value)> mlp;
};

/// The fields every LLaMA-derived config has; `defaults` gives the
/// family's config-class defaults where transformers has them (0: the
/// field is required).
struct SizeDefaults {
  int64_t hidden = 0, inter = 0, layers = 0, heads = 0, kvHeads = 0,
          vocab = 0, maxPos = 2048, headDim = 0;
  double theta = 10000.0;
  bool tied = false;
};
void readSizes(ConfigReader &c, DecoderSpec &s, const SizeDefaults &d);
/// Builds the decoder of `s`: embedding, the layers, final norm, LM head.
LogicalResult buildDecoder(ImportContext &ic, ConfigReader &c,
                           const DecoderSpec &s);

LogicalResult buildLlama(ImportContext &ic);
LogicalResult buildGPT(ImportContext &ic);
LogicalResult buildMistral(ImportContext &ic);
LogicalResult buildQwen2(ImportContext &ic);
LogicalResult buildQwen3(ImportContext &ic);
LogicalResult buildGemma(ImportContext &ic);
LogicalResult buildGemma2(ImportContext &ic);
LogicalResult buildGemma3(ImportContext &ic);
LogicalResult buildGemma3Text(ImportContext &ic);
LogicalResult buildPhi3(ImportContext &ic);
// DiffusionModels.cpp
LogicalResult buildDiT(ImportContext &ic);
LogicalResult buildPixArt(ImportContext &ic);
LogicalResult buildSD3(ImportContext &ic);
LogicalResult buildFlux(ImportContext &ic);
// VideoModels.cpp
LogicalResult buildWan(ImportContext &ic);
LogicalResult buildHunyuanVideo(ImportContext &ic);
LogicalResult buildCogVideoX(ImportContext &ic);
// MoEModels.cpp
LogicalResult buildMixtral(ImportContext &ic);
LogicalResult buildQwenMoE(ImportContext &ic);
LogicalResult buildDeepSeekV3(ImportContext &ic);

} // namespace loom::importer

#endif // LOOM_LIB_IMPORT_IMPORTCONTEXT_H
