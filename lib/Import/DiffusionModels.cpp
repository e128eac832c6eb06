//===- DiffusionModels.cpp - diffusion transformer configs to loom IR -----===//
//
// The builders of diffusers' transformer classes (DiT, PixArt-alpha, SD3,
// Flux). Each follows the PyTorch modules of the diffusers class, so that
// parameter counts match the checkpoints; models/PARAMS.md lists the
// modules and their shapes.
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace loom;
using namespace loom::importer;

/// The pixel size asked for: --height/--width, --resolution (square), or
/// the pipeline's default; each side must divide into whole patches of
/// the latent. Video adds frames: the causal VAE keeps the first frame and
/// compresses each later group of vaeTemporal.
DiffusionShape loom::importer::diffusionShape(ImportContext &ic,
                                              const LatentGeometry &geo,
                                              int64_t defaultBatch,
                                              int64_t defaultSteps,
                                              int64_t defaultText) {
  ConfigReader &c = ic.config;
  const ImportOptions &o = ic.options;
  if (o.mode == Mode::Decode)
    c.error() << "decode mode applies to decoder LLMs, not to diffusion "
                 "transformers";
  if (o.seqLen)
    c.error() << "a sequence length applies to decoder LLMs; a diffusion "
                 "transformer's tokens follow from the image or video size";
  if (o.textLen && defaultText == 0)
    c.error() << "a text length applies to text-conditioned models; this "
                 "one has no text input";
  if (o.resolution && (o.height || o.width))
    c.error() << "give --resolution (a square image) or --height and "
                 "--width, not both";
  if (o.height.has_value() != o.width.has_value())
    c.error() << "--height and --width go together; got only --"
              << (o.height ? "height" : "width");
  if (o.frames && !geo.video())
    c.error() << "--frames applies to video models; this one makes images";
  int64_t height = o.height.value_or(o.resolution.value_or(geo.defaultHeight));
  int64_t width = o.width.value_or(o.resolution.value_or(geo.defaultWidth));
  int64_t frames = geo.video() ? o.frames.value_or(geo.defaultFrames) : 0;
  int64_t step = geo.vaeSpatial * geo.patch;
  auto notWhole = [&](InFlightDiagnostic diag) {
    diag << " is not a multiple of " << step << " (VAE factor "
         << geo.vaeSpatial << " times patch_size " << geo.patch << ")";
  };
  bool square = !geo.video() && !o.height && height == width;
  if (square && height % step != 0) {
    // Blame --resolution when it was given, else the config's sample size.
    bool fromConfig = !o.resolution && !geo.sampleKey.empty();
    InFlightDiagnostic diag = fromConfig ? c.error(geo.sampleKey) : c.error();
    diag << "resolution " << height << " px";
    if (fromConfig)
      diag << " ('" << geo.sampleKey << "' " << height / 8 << " x 8)";
    notWhole(std::move(diag));
  } else if (!square) {
    for (auto [side, what] : {std::pair(height, "height"),
                              std::pair(width, "width")})
      if (side % step != 0) {
        InFlightDiagnostic diag = c.error();
        diag << what << " " << side << " px";
        if (!o.height && !o.resolution)
          diag << " (the pipeline's default)";
        notWhole(std::move(diag));
      }
  }
  int64_t latentFrames = 0;
  if (geo.video()) {
    if ((frames - 1) % geo.vaeTemporal != 0)
      c.error() << "frames " << frames << " is not " << geo.vaeTemporal
                << "k + 1 (the VAE keeps the first frame and compresses each "
                   "later group of "
                << geo.vaeTemporal << ")";
    latentFrames = (frames - 1) / geo.vaeTemporal + 1;
    if (latentFrames % geo.patchT != 0) {
      if (geo.padLatentFrames)
        latentFrames += geo.patchT - latentFrames % geo.patchT;
      else
        c.error() << "frames " << frames << " make " << latentFrames
                  << " latent frames, not a multiple of patch_size_t "
                  << geo.patchT;
    }
  }
  DiffusionShape s;
  s.batch = o.batch.value_or(defaultBatch);
  s.patch = geo.patch;
  s.patchT = geo.patchT;
  s.frames = latentFrames;
  bool ok = c.ok();
  s.height = ok ? height / geo.vaeSpatial : geo.patch;
  s.width = ok ? width / geo.vaeSpatial : geo.patch;
  if (!ok && s.frames)
    s.frames = geo.patchT;
  int64_t grid = std::max(s.height, s.width) / geo.patch;
  if (ok && geo.maxGrid && grid > geo.maxGrid)
    c.error(geo.maxGridKey) << "a " << s.height / geo.patch << "x"
                            << s.width / geo.patch << " patch grid exceeds '"
                            << geo.maxGridKey << "' " << geo.maxGrid;
  // Attention FLOPs grow with tokens^2; past a million tokens they would
  // overflow the 64-bit counts.
  constexpr int64_t maxTokens = int64_t(1) << 20;
  s.tokens = (s.height / geo.patch) * (s.width / geo.patch) *
             std::max<int64_t>(s.frames / geo.patchT, 1);
  if (s.tokens > maxTokens) {
    InFlightDiagnostic diag = c.error();
    if (square)
      diag << "resolution " << height << " px";
    else
      diag << height << "x" << width << " px";
    if (geo.video())
      diag << " at " << frames << " frames";
    diag << " makes " << s.tokens << " patch tokens; Loom models up to "
         << maxTokens;
    s.tokens = 1;
  }
  s.textTokens = o.textLen.value_or(defaultText);
  s.steps = o.steps.value_or(defaultSteps);
  ic.model.batch = s.batch;
  // A square image keeps the one-number form of earlier modules.
  if (!geo.video() && height == width) {
    ic.model.resolution = height;
  } else {
    ic.model.height = height;
    ic.model.width = width;
    ic.model.frames = frames;
  }
  ic.model.seq = s.tokens;
  if (defaultText)
    ic.model.textTokens = s.textTokens;
  ic.model.steps = s.steps;
  ic.model.mode = ModelMode::diffusion;
  return s;
}

/// The image models' latent: the SD VAE's 8x, or the sample size of the
/// config (`sample_size` latent pixels) as the default image.
static LatentGeometry imageGeometry(ConfigReader &c, int64_t patch) {
  LatentGeometry geo;
  geo.patch = patch;
  int64_t sample = c.positive("sample_size", 128);
  geo.defaultHeight = geo.defaultWidth = sample * 8;
  geo.sampleKey = "sample_size";
  return geo;
}

Value loom::importer::embedScalar(ImportContext &ic, Value scalar,
                                  int64_t hidden) {
  GraphBuilder &g = ic.g;
  Value f = TimestepEmbedOp::create(
      g.b, g.loc, g.type({GraphBuilder::shape(scalar)[0], 256}), scalar);
  return g.mlp2(f, hidden, hidden, ActivationKind::silu);
}

/// A video's temporal patch; images have none.
static IntegerAttr patchTAttr(GraphBuilder &g, const DiffusionShape &s) {
  return s.frames ? g.b.getI64IntegerAttr(s.patchT) : IntegerAttr();
}

Value loom::importer::unpatchTokens(ImportContext &ic, Value tokens,
                                    const DiffusionShape &s,
                                    int64_t outChannels) {
  GraphBuilder &g = ic.g;
  Value p = g.linear(LinearRole::proj_out, tokens,
                     s.patch * s.patch * s.patchT * outChannels);
  return UnpatchifyOp::create(g.b, g.loc, g.type(s.latentShape(outChannels)),
                              p, s.patch, patchTAttr(g, s));
}

/// Final adaLN (shift, scale from `c`), projection to patches, unpatchify.
static Value finalLayer(ImportContext &ic, Value x, ArrayRef<Value> shiftScale,
                        int64_t outChannels, const DiffusionShape &s) {
  GraphBuilder &g = ic.g;
  Value h = g.modulate(g.layerNorm(x, false), shiftScale[0], shiftScale[1]);
  return unpatchTokens(ic, h, s, outChannels);
}

Value loom::importer::patchTokens(ImportContext &ic, const DiffusionShape &s,
                                  int64_t channels, int64_t hidden,
                                  Value *latentOut) {
  GraphBuilder &g = ic.g;
  Value latent = ic.fn.argument(g.type(s.latentShape(channels)), "latent");
  if (latentOut)
    *latentOut = latent;
  return PatchifyOp::create(g.b, g.loc, g.type({s.batch, s.tokens, hidden}),
                            latent, s.patch, patchTAttr(g, s));
}

/// The arguments every DiT family takes first, the latent image and the
/// timestep, and the patch tokens of the latent.
namespace {
struct DiTInputs {
  Value latent, timestep, tokens;
};
} // namespace
static DiTInputs ditInputs(ImportContext &ic, const DiffusionShape &s,
                           int64_t channels, int64_t hidden) {
  GraphBuilder &g = ic.g;
  DiTInputs in;
  in.tokens = patchTokens(ic, s, channels, hidden, &in.latent);
  in.timestep = ic.fn.argument(g.type({s.batch}, g.b.getF32Type()), "timestep");
  return in;
}

/// The fields DiT, PixArt and SD3 configs share: a patch-embedded
/// transformer of `layers` blocks, `heads` x `headDim` wide.
namespace {
struct PatchDiT {
  int64_t heads, headDim, hidden, layers, inChannels, outChannels, patch;
  /// diffusers' attention_bias: biases on the q, k and v projections (the
  /// output projection always has one). DiT's and PixArt's default: true.
  bool attentionBias;
};
} // namespace

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
LogicalResult loom::importer::buildDiT(ImportContext &ic) {
  ConfigReader &c = ic.config;
  requireVariant(c, "norm_type", "ada_norm_zero");
  requireVariant(c, "activation_fn", "gelu-approximate");
  const PatchDiT d = readPatchDiT(c);
  const int64_t heads = d.heads, headDim = d.headDim, hidden = d.hidden,
                layers = d.layers, inChannels = d.inChannels,
                outChannels = d.outChannels, patch = d.patch;
  int64_t classes = c.positive("num_embeds_ada_norm");
  // Class-conditional DiT samples with classifier-free guidance: batch 2.
  DiffusionShape s = diffusionShape(ic, imageGeometry(c, patch), 2, 50, 0);
  if (!c.ok())
    return failure();
  GraphBuilder &g = ic.g;
  DiTInputs in = ditInputs(ic, s, inChannels, hidden);
  Value t = in.timestep;
  Value label =
      ic.fn.argument(g.type({s.batch}, g.b.getI32Type()), "class_labels");
  Value x = in.tokens;
  // num_classes + 1 rows: the extra one is the null class for guidance.
  Value y = EmbedOp::create(g.b, g.loc, g.type({s.batch, hidden}), label,
                            classes + 1);
  Value cond = g.add(embedScalar(ic, t, hidden), y);
  for (int64_t i = 0; i < layers; ++i) {
    x = g.layer(
        i, "dit", {x, cond}, [&](ValueRange args) -> SmallVector<Value> {
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
  ic.fn.finish(finalLayer(ic, x, shiftScale, outChannels, s));
  return success();
}

/// PixArt-alpha (Chen et al. 2023): adaLN-single (one shared modulation
/// linear plus a learned per-block table), cross-attention to T5 tokens.
LogicalResult loom::importer::buildPixArt(ImportContext &ic) {
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
  // PixArtAlphaPipeline defaults; PixArt-Sigma's pipeline reads 300 tokens
  // (PixArtSigmaPipeline max_sequence_length). A Sigma config is told by
  // its sizes: 2K (sample_size 256), or 1024 px without the micro-conditions
  // that PixArt-alpha's 1024-px checkpoint has (models/SOURCES.md).
  bool sigma = sample == 256 || (sample == 128 && !extraConds);
  DiffusionShape s =
      diffusionShape(ic, imageGeometry(c, patch), 2, 20, sigma ? 300 : 120);
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
  DiTInputs in = ditInputs(ic, s, inChannels, hidden);
  Value t = in.timestep;
  Value caption =
      ic.fn.argument(g.type({s.batch, s.textTokens, captionChannels}),
                     "encoder_hidden_states");
  Value x = in.tokens;
  Value temb = embedScalar(ic, t, hidden);
  if (extraConds) {
    // Resolution (height, width) and aspect ratio, each through its own
    // 256 -> hidden/3 MLP, concatenated onto the timestep embedding.
    int64_t third = hidden / 3;
    Value res =
        ic.fn.argument(g.type({2 * s.batch}, g.b.getF32Type()), "resolution");
    Value ar =
        ic.fn.argument(g.type({s.batch}, g.b.getF32Type()), "aspect_ratio");
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
  Value t6 = g.linear(LinearRole::modulation, g.act(ActivationKind::silu, temb),
                      6 * hidden);
  Value text = g.mlp2(caption, hidden, hidden, ActivationKind::gelu_tanh);
  for (int64_t i = 0; i < layers; ++i) {
    x = g.layer(
        i, "pixart", {x, t6, text}, [&](ValueRange args) -> SmallVector<Value> {
          Value in = args[0], mod = args[1], txt = args[2];
          Value table = ParamOp::create(g.b, g.loc, g.type({6 * hidden}),
                                        "scale_shift_table");
          SmallVector<Value> m = g.chunk(g.add(mod, table), 6);
          Value h = g.modulate(g.layerNorm(in, false), m[0], m[1]);
          Value a = g.selfAttention(h, heads, headDim, d.attentionBias);
          Value r = g.add(in, g.gate(a, m[2]));
          // Cross-attention reads the block input unnormalised
          // (ada_norm_single).
          Value cq = g.linear(LinearRole::q, r, hidden, d.attentionBias);
          Value ck = g.linear(LinearRole::k, txt, hidden, d.attentionBias);
          Value cv = g.linear(LinearRole::v, txt, hidden, d.attentionBias);
          Value ca =
              g.attention(cq, ck, cv, heads, heads, headDim, false, true, 0);
          Value r2 = g.add(r, g.linear(LinearRole::o, ca, hidden));
          Value h2 = g.modulate(g.layerNorm(r2, false), m[3], m[4]);
          Value f = g.feedForward(h2, 4 * hidden, ActivationKind::gelu_tanh);
          return {g.add(r2, g.gate(f, m[5]))};
        })[0];
  }
  // Final shift and scale: the learned [2, hidden] table plus the embedded
  // timestep, broadcast to both rows.
  Value table =
      ParamOp::create(g.b, g.loc, g.type({2 * hidden}), "scale_shift_table");
  Value twice = ConcatOp::create(g.b, g.loc, g.type({s.batch, 2 * hidden}),
                                 ValueRange{temb, temb}, 1);
  SmallVector<Value> shiftScale = g.chunk(g.add(twice, table), 2);
  ic.fn.finish(finalLayer(ic, x, shiftScale, outChannels, s));
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
LogicalResult loom::importer::buildSD3(ImportContext &ic) {
  ConfigReader &c = ic.config;
  const PatchDiT d = readPatchDiT(c);
  const int64_t heads = d.heads, headDim = d.headDim, hidden = d.hidden,
                layers = d.layers, inChannels = d.inChannels,
                outChannels = d.outChannels, patch = d.patch;
  int64_t jointDim = c.positive("joint_attention_dim");
  int64_t pooledDim = c.positive("pooled_projection_dim");
  int64_t captionDim = c.positive("caption_projection_dim");
  int64_t maxGrid = c.positive("pos_embed_max_size", 96);
  // SD3.5: RMSNorm over each head of q and k, of both streams and of the
  // second attention (diffusers Attention, qk_norm "rms_norm").
  std::string qkNorm = c.string("qk_norm");
  if (!qkNorm.empty() && qkNorm != "rms_norm")
    c.error("qk_norm") << "field 'qk_norm' must be \"rms_norm\" (SD3.5) or "
                          "null (SD3); got \"" << qkNorm << "\"";
  // SD3.5's MMDiT-X: the listed blocks add an image-only self-attention
  // with its own modulation (SD35AdaLayerNormZeroX, 9 chunks instead of 6).
  SmallVector<int64_t> dualList = c.indexArray("dual_attention_layers", layers);
  llvm::SmallDenseSet<int64_t> dual(dualList.begin(), dualList.end());
  // Guided sampling (batch 2), 28 steps, 77 CLIP + 256 T5 tokens: the
  // diffusers StableDiffusion3Pipeline defaults (models/SOURCES.md).
  LatentGeometry geo = imageGeometry(c, patch);
  geo.maxGrid = maxGrid;
  geo.maxGridKey = "pos_embed_max_size";
  DiffusionShape s = diffusionShape(ic, geo, 2, 28, 333);
  if (captionDim != hidden)
    c.error("caption_projection_dim")
        << "'caption_projection_dim' " << captionDim
        << " must equal heads * head_dim = " << hidden;
  if (!c.ok())
    return failure();
  GraphBuilder &g = ic.g;
  DiTInputs in = ditInputs(ic, s, inChannels, hidden);
  Value t = in.timestep;
  Value text = ic.fn.argument(g.type({s.batch, s.textTokens, jointDim}),
                              "encoder_hidden_states");
  Value pooled =
      ic.fn.argument(g.type({s.batch, pooledDim}), "pooled_projections");
  Value x = in.tokens;
  Value temb = embedScalar(ic, t, hidden);
  Value cond =
      g.add(temb, g.mlp2(pooled, hidden, hidden, ActivationKind::silu));
  Value ctx = g.linear(LinearRole::context, text, hidden);
  auto qkNormed = [&](LinearRole role, Value h) {
    Value v = g.linear(role, h, hidden);
    return qkNorm.empty() ? v : g.rmsNorm(v, headDim);
  };
  for (int64_t i = 0; i < layers; ++i) {
    bool last = i + 1 == layers, second = dual.contains(i);
    SmallVector<Value> out = g.layer(
        i, second ? "mmdit_x" : "mmdit", {x, ctx, cond},
        [&](ValueRange args) -> SmallVector<Value> {
          Value img = args[0], txt = args[1], cnd = args[2];
          SmallVector<Value> mi = g.adaLN(cnd, hidden, second ? 9 : 6);
          SmallVector<Value> mt = g.adaLN(cnd, hidden, last ? 2 : 6);
          Value ni = g.layerNorm(img, false);
          Value hi = g.modulate(ni, mi[0], mi[1]);
          // AdaLayerNormContinuous orders its chunks (scale, shift).
          Value ht = last ? g.modulate(g.layerNorm(txt, false), mt[1], mt[0])
                          : g.modulate(g.layerNorm(txt, false), mt[0], mt[1]);
          // Named one by one: argument evaluation order is unspecified.
          Value qi = qkNormed(LinearRole::q, hi);
          Value ki = qkNormed(LinearRole::k, hi);
          Value vi = g.linear(LinearRole::v, hi, hidden);
          Value qt = qkNormed(LinearRole::q, ht);
          Value kt = qkNormed(LinearRole::k, ht);
          Value vt = g.linear(LinearRole::v, ht, hidden);
          auto joint = JointAttentionOp::create(
              g.b, g.loc, qi, ki, vi, qt, kt, vt, heads, headDim,
              /*group=*/nullptr, /*group_size=*/nullptr);
          Value r = g.add(img, g.gate(g.linear(LinearRole::o, joint.getImg(),
                                               hidden),
                                      mi[2]));
          if (second) {
            // attn2 reads the same normalised input, modulated by chunks
            // 6-8, and is added gated after the joint attention.
            Value h2 = g.modulate(ni, mi[6], mi[7]);
            Value q2 = qkNormed(LinearRole::q, h2);
            Value k2 = qkNormed(LinearRole::k, h2);
            Value v2 = g.linear(LinearRole::v, h2, hidden);
            Value a2 =
                g.attention(q2, k2, v2, heads, heads, headDim, false, false, 0);
            r = g.add(r, g.gate(g.linear(LinearRole::o, a2, hidden), mi[8]));
          }
          Value hf = g.modulate(g.layerNorm(r, false), mi[3], mi[4]);
          Value f = g.feedForward(hf, 4 * hidden, ActivationKind::gelu_tanh);
          Value newImg = g.add(r, g.gate(f, mi[5]));
          if (last)
            return {newImg};
          return {newImg, mmditStreamTail(g, txt, joint.getTxt(), mt, hidden)};
        });
    x = out[0];
    if (!last)
      ctx = out[1];
  }
  SmallVector<Value> scaleShift = g.adaLN(cond, hidden, 2);
  ic.fn.finish(
      finalLayer(ic, x, {scaleShift[1], scaleShift[0]}, outChannels, s));
  return success();
}

/// Flux's blocks, shared with HunyuanVideo: dual-stream MMDiT blocks (per
/// stream adaLN-Zero, q/k RMSNorm per head and RoPE, joint attention, a
/// GELU-tanh MLP per stream), then single-stream blocks over the
/// concatenated text and image tokens with attention and MLP in parallel.
/// Returns the image tokens after the last block.
Value loom::importer::streamBlocks(ImportContext &ic, const DiffusionShape &s,
                                   const StreamBlocks &p, Value x, Value ctx,
                                   Value cond) {
  GraphBuilder &g = ic.g;
  int64_t heads = p.heads, headDim = p.headDim, hidden = heads * headDim;
  auto qk = [&](LinearRole role, Value h) {
    Value v = g.rmsNorm(g.linear(role, h, hidden), headDim);
    return g.rope(v, headDim, p.ropeTheta);
  };
  auto streamTail = [&](Value in, Value attn, ArrayRef<Value> m) {
    Value r = g.add(in, g.gate(g.linear(LinearRole::o, attn, hidden), m[2]));
    Value h = g.modulate(g.layerNorm(r, false), m[3], m[4]);
    Value f = g.feedForward(h, p.mlpHidden, ActivationKind::gelu_tanh);
    return g.add(r, g.gate(f, m[5]));
  };
  int64_t index = 0;
  for (int64_t i = 0; i < p.doubleLayers; ++i, ++index) {
    SmallVector<Value> out =
        g.layer(index, p.doubleKind, {x, ctx, cond},
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
                  auto joint = JointAttentionOp::create(
                      g.b, g.loc, qi, ki, vi, qt, kt, vt, heads, headDim,
                      /*group=*/nullptr, /*group_size=*/nullptr);
                  return {streamTail(img, joint.getImg(), mi),
                          streamTail(txt, joint.getTxt(), mt)};
                });
    x = out[0];
    ctx = out[1];
  }
  int64_t all = s.textTokens + s.tokens;
  Value h = ConcatOp::create(g.b, g.loc, g.type({s.batch, all, hidden}),
                             ValueRange{ctx, x}, 1);
  for (int64_t i = 0; i < p.singleLayers; ++i, ++index) {
    h = g.layer(
        index, p.singleKind, {h, cond},
        [&](ValueRange args) -> SmallVector<Value> {
          Value in = args[0], cnd = args[1];
          SmallVector<Value> m = g.adaLN(cnd, hidden, 3);
          Value n = g.modulate(g.layerNorm(in, false), m[0], m[1]);
          Value mlp = g.act(ActivationKind::gelu_tanh,
                            g.linear(LinearRole::fc1, n, p.mlpHidden));
          Value q = qk(LinearRole::q, n), k = qk(LinearRole::k, n);
          Value v = g.linear(LinearRole::v, n, hidden);
          Value a =
              g.attention(q, k, v, heads, heads, headDim, false, false, 0);
          Value both = ConcatOp::create(
              g.b, g.loc, g.type({s.batch, all, hidden + p.mlpHidden}),
              ValueRange{a, mlp}, 2);
          return {
              g.add(in, g.gate(g.linear(LinearRole::o, both, hidden), m[2]))};
        })[0];
  }
  return SliceOp::create(g.b, g.loc, g.type({s.batch, s.tokens, hidden}), h, 1,
                         s.textTokens);
}

/// Flux (Black Forest Labs 2024): 19 double-stream MMDiT blocks with QK
/// RMSNorm and RoPE, then 38 single-stream blocks over the concatenated
/// tokens with attention and MLP in parallel. Flux packs 2x2 latent patches
/// into 64 channels before its x_embedder linear, which is patchify with
/// patch 2 over the 16-channel latent (the same weights).
LogicalResult loom::importer::buildFlux(ImportContext &ic) {
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
                             "outside the transformer), got "
                          << patchSize;
  if (headDim % 2 != 0)
    c.error("attention_head_dim")
        << "'attention_head_dim' " << headDim
        << " must be even for rotary embeddings (RoPE rotates pairs)";
  // The rotary axes (text index, height, width) split the head dimension.
  SmallVector<int64_t> ropeAxes = c.positiveArray("axes_dims_rope");
  if (!ropeAxes.empty() && llvm::sum_of(ropeAxes) != headDim)
    c.error("axes_dims_rope") << "'axes_dims_rope' must add up to "
                                 "'attention_head_dim' "
                              << headDim << ", got " << llvm::sum_of(ropeAxes);
  // Flux-dev is guidance-distilled (batch 1, no CFG); 28 steps and 512 T5
  // tokens are the diffusers FluxPipeline defaults (models/SOURCES.md).
  // Flux.1-schnell (no guidance embedder) is timestep-distilled for 1 to 4
  // steps (BFL's model card); its default is 4.
  DiffusionShape s =
      diffusionShape(ic, imageGeometry(c, 2), 1, guidance ? 28 : 4, 512);
  if (!c.ok())
    return failure();
  GraphBuilder &g = ic.g;
  int64_t hidden = heads * headDim, channels = packed / 4;
  DiTInputs in = ditInputs(ic, s, channels, hidden);
  Value t = in.timestep;
  Value guidanceScale;
  if (guidance)
    guidanceScale =
        ic.fn.argument(g.type({s.batch}, g.b.getF32Type()), "guidance");
  Value text = ic.fn.argument(g.type({s.batch, s.textTokens, jointDim}),
                              "encoder_hidden_states");
  Value pooled =
      ic.fn.argument(g.type({s.batch, pooledDim}), "pooled_projections");
  Value x = in.tokens;
  Value cond = embedScalar(ic, t, hidden);
  if (guidance)
    cond = g.add(cond, embedScalar(ic, guidanceScale, hidden));
  cond = g.add(cond, g.mlp2(pooled, hidden, hidden, ActivationKind::silu));
  Value ctx = g.linear(LinearRole::context, text, hidden);
  StreamBlocks blocks{heads, headDim, doubleLayers, singleLayers, 4 * hidden,
                      10000.0, "flux_double", "flux_single"};
  x = streamBlocks(ic, s, blocks, x, ctx, cond);
  SmallVector<Value> scaleShift = g.adaLN(cond, hidden, 2);
  ic.fn.finish(
      finalLayer(ic, x, {scaleShift[1], scaleShift[0]}, channels, s));
  return success();
}
