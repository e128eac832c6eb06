//===- VideoModels.cpp - video diffusion transformer configs to loom IR ---===//
//
// The builders of diffusers' video transformer classes (Wan 2.1 / 2.2,
// HunyuanVideo, CogVideoX), following their PyTorch modules so that
// parameter counts match the checkpoints (models/PARAMS.md). Each reads a
// 5-D latent [batch, channels, frames, height, width] whose tokens follow
// the pipeline's causal VAE (4x in time, 8x in space) and the 3-D patch.
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"

using namespace mlir;
using namespace loom;
using namespace loom::importer;

/// A video pipeline's latent: the causal 3-D VAE compresses 4x in time
/// (the first frame alone) and 8x in space, then `patchT x patch x patch`
/// patches.
static LatentGeometry videoGeometry(int64_t patchT, int64_t patch,
                                    int64_t height, int64_t width,
                                    int64_t frames) {
  LatentGeometry geo;
  geo.vaeSpatial = 8;
  geo.vaeTemporal = 4;
  geo.patch = patch;
  geo.patchT = patchT;
  geo.defaultHeight = height;
  geo.defaultWidth = width;
  geo.defaultFrames = frames;
  return geo;
}

/// Refuses a field whose value changes the model in a way Loom does not
/// build, naming what it does build.
static void refuseUnless(ConfigReader &c, StringRef key, bool supported,
                         StringRef why) {
  if (!supported)
    c.error(key) << "field '" << key << "' " << why;
}

//===----------------------------------------------------------------------===//
// Wan 2.1 / 2.2 (WanTransformer3DModel)
//===----------------------------------------------------------------------===//

/// Wan (Wan team 2025): self-attention over every video token with q/k
/// RMSNorm across all heads and 3-D RoPE, cross-attention to 512 umT5
/// tokens (and, in image-to-video, to 257 CLIP image tokens), a GELU-tanh
/// FFN; modulation is shared: one time_proj (D -> 6D) per sample plus a
/// learned 6D table per block.
LogicalResult loom::importer::buildWan(ImportContext &ic) {
  ConfigReader &c = ic.config;
  int64_t heads = c.positive("num_attention_heads", 40);
  int64_t headDim = c.positive("attention_head_dim", 128);
  int64_t inChannels = c.positive("in_channels", 16);
  int64_t outChannels = c.positive("out_channels", inChannels);
  int64_t textDim = c.positive("text_dim", 4096);
  int64_t freqDim = c.positive("freq_dim", 256);
  int64_t ffnDim = c.positive("ffn_dim", 13824);
  int64_t layers = c.has("num_layers") ? c.layerCount("num_layers") : 40;
  bool crossAttnNorm = c.boolean("cross_attn_norm", true);
  std::string qkNorm =
      c.has("qk_norm") ? c.string("qk_norm") : "rms_norm_across_heads";
  bool imageBranch = c.has("image_dim");
  int64_t imageDim = imageBranch ? c.positive("image_dim") : 0;
  bool addedKV = c.has("added_kv_proj_dim");
  int64_t addedDim = addedKV ? c.positive("added_kv_proj_dim") : 0;
  // FLF2V (first and last frame): two CLIP images with a learned position
  // table of pos_embed_seq_len tokens; one image is 257 tokens otherwise.
  int64_t imagePositions =
      c.has("pos_embed_seq_len") ? c.positive("pos_embed_seq_len") : 0;
  SmallVector<int64_t> patch = c.positiveArray("patch_size");
  if (patch.empty())
    patch = {1, 2, 2};
  if (patch.size() != 3 || patch[1] != patch[2])
    c.error("patch_size") << "'patch_size' must be [t, h, w] with h == w, "
                             "got "
                          << patch.size() << " entries";
  refuseUnless(c, "qk_norm",
               qkNorm == "rms_norm_across_heads" || qkNorm.empty(),
               "must be \"rms_norm_across_heads\" (the only q/k norm "
               "WanAttention builds) or null");
  // The image branch's keys come from image_dim features projected to D:
  // WanAttnProcessor needs both fields or neither.
  if (imageBranch != addedKV)
    c.error(imageBranch ? "image_dim" : "added_kv_proj_dim")
        << "'image_dim' and 'added_kv_proj_dim' go together (image-to-video "
           "cross-attention to CLIP image tokens)";
  int64_t hidden = heads * headDim;
  if (addedKV && addedDim != hidden)
    c.error("added_kv_proj_dim")
        << "'added_kv_proj_dim' " << addedDim
        << " must equal heads * head_dim = " << hidden
        << " (the image embedder projects to it)";
  if (freqDim % 2 != 0)
    c.error("freq_dim") << "'freq_dim' must be even (sin and cos halves)";
  // Wan 2.2's TI2V-5B latent (48 channels) comes from its 16x VAE.
  LatentGeometry geo =
      videoGeometry(patch.size() == 3 ? patch[0] : 1,
                    patch.size() == 3 ? patch[1] : 2, 480, 832, 81);
  if (inChannels == 48)
    geo.vaeSpatial = 16;
  // WanPipeline.__call__: 480x832, 81 frames, 50 steps, guidance 5.0 (two
  // forwards per step, priced as batch 2), prompts padded to 512 tokens
  // (max_sequence_length); models/SOURCES.md.
  DiffusionShape s = diffusionShape(ic, geo, 2, 50, 512);
  if (!c.ok())
    return failure();
  int64_t imageTokens = imageBranch ? (imagePositions ? imagePositions : 257)
                                    : 0;

  GraphBuilder &g = ic.g;
  Value x = patchTokens(ic, s, inChannels, hidden);
  Value t = ic.fn.argument(g.type({s.batch}, g.b.getF32Type()), "timestep");
  Value text = ic.fn.argument(g.type({s.batch, s.textTokens, textDim}),
                              "encoder_hidden_states");
  Value image;
  if (imageBranch)
    image = ic.fn.argument(g.type({s.batch, imageTokens, imageDim}),
                           "encoder_hidden_states_image");
  // condition_embedder: time embedding, the shared time_proj to 6 x D, the
  // text projection, and the image embedder (LN, FF, LN).
  Value f = TimestepEmbedOp::create(g.b, g.loc, g.type({s.batch, freqDim}), t);
  Value temb = g.mlp2(f, hidden, hidden, ActivationKind::silu);
  Value t6 = g.linear(LinearRole::modulation,
                      g.act(ActivationKind::silu, temb), 6 * hidden);
  Value txt = g.mlp2(text, hidden, hidden, ActivationKind::gelu_tanh,
                     LinearRole::context);
  Value img;
  if (imageBranch) {
    Value in = image;
    if (imagePositions)
      in = g.add(in, ParamOp::create(g.b, g.loc,
                                     g.type({imageTokens, imageDim}),
                                     "pos_embed"));
    // FeedForward(image_dim, D, mult=1, "gelu"): image_dim -> image_dim -> D.
    Value h = g.act(ActivationKind::gelu,
                    g.linear(LinearRole::fc1, g.layerNorm(in, true), imageDim));
    img = g.layerNorm(g.linear(LinearRole::fc2, h, hidden), true);
  }
  auto qkNormed = [&](LinearRole role, Value h) {
    // RMSNorm over all heads (rms_norm_across_heads), then RoPE.
    return g.rmsNorm(g.linear(role, h, hidden));
  };
  for (int64_t i = 0; i < layers; ++i) {
    SmallVector<Value> inputs = {x, t6, txt};
    if (imageBranch)
      inputs.push_back(img);
    x = g.layer(i, "wan", inputs, [&](ValueRange args) -> SmallVector<Value> {
      Value in = args[0], mod = args[1], tx = args[2];
      Value table =
          ParamOp::create(g.b, g.loc, g.type({6 * hidden}), "scale_shift_table");
      SmallVector<Value> m = g.chunk(g.add(mod, table), 6);
      Value h = g.modulate(g.layerNorm(in, false), m[0], m[1]);
      Value q = g.rope(qkNormed(LinearRole::q, h), headDim, 10000.0);
      Value k = g.rope(qkNormed(LinearRole::k, h), headDim, 10000.0);
      Value v = g.linear(LinearRole::v, h, hidden);
      Value a = g.attention(q, k, v, heads, heads, headDim, false, false, 0);
      Value r = g.add(in, g.gate(g.linear(LinearRole::o, a, hidden), m[2]));
      // Cross-attention (no gate) to the text, and in image-to-video also
      // to the image tokens with the same queries; the two are summed.
      Value n = crossAttnNorm ? g.layerNorm(r, true) : r;
      Value cq = qkNormed(LinearRole::q, n);
      Value ck = qkNormed(LinearRole::k, tx);
      Value cv = g.linear(LinearRole::v, tx, hidden);
      Value ca = g.attention(cq, ck, cv, heads, heads, headDim, false, true, 0);
      if (imageBranch) {
        Value ik = g.rmsNorm(g.linear(LinearRole::k, args[3], hidden));
        Value iv = g.linear(LinearRole::v, args[3], hidden);
        ca = g.add(ca, g.attention(cq, ik, iv, heads, heads, headDim, false,
                                   true, 0));
      }
      Value r2 = g.add(r, g.linear(LinearRole::o, ca, hidden));
      Value h2 = g.modulate(g.layerNorm(r2, false), m[3], m[4]);
      Value ff = g.feedForward(h2, ffnDim, ActivationKind::gelu_tanh);
      return {g.add(r2, g.gate(ff, m[5]))};
    })[0];
  }
  // Final shift and scale: the learned [2, D] table plus the time embedding.
  Value table =
      ParamOp::create(g.b, g.loc, g.type({2 * hidden}), "scale_shift_table");
  Value twice = ConcatOp::create(g.b, g.loc, g.type({s.batch, 2 * hidden}),
                                 ValueRange{temb, temb}, 1);
  SmallVector<Value> shiftScale = g.chunk(g.add(twice, table), 2);
  Value h = g.modulate(g.layerNorm(x, false), shiftScale[0], shiftScale[1]);
  ic.fn.finish(unpatchTokens(ic, h, s, outChannels));
  return success();
}

//===----------------------------------------------------------------------===//
// HunyuanVideo (HunyuanVideoTransformer3DModel)
//===----------------------------------------------------------------------===//

/// HunyuanVideo (Tencent 2024): Flux's dual-stream and single-stream blocks
/// over video and text tokens (joint attention), preceded by a token
/// refiner (self-attention blocks over the text alone) and conditioned on
/// the timestep, the pooled CLIP text and the embedded guidance scale.
LogicalResult loom::importer::buildHunyuanVideo(ImportContext &ic) {
  ConfigReader &c = ic.config;
  int64_t heads = c.positive("num_attention_heads", 24);
  int64_t headDim = c.positive("attention_head_dim", 128);
  int64_t inChannels = c.positive("in_channels", 16);
  int64_t outChannels = c.positive("out_channels", inChannels);
  int64_t doubleLayers = c.has("num_layers") ? c.layerCount("num_layers") : 20;
  int64_t singleLayers =
      c.has("num_single_layers") ? c.layerCount("num_single_layers") : 40;
  int64_t refinerLayers =
      c.has("num_refiner_layers") ? c.layerCount("num_refiner_layers") : 2;
  double mlpRatio = c.number("mlp_ratio", 4.0);
  int64_t patch = c.positive("patch_size", 2);
  int64_t patchT = c.positive("patch_size_t", 1);
  bool guidance = c.boolean("guidance_embeds", true);
  int64_t textDim = c.positive("text_embed_dim", 4096);
  int64_t pooledDim = c.positive("pooled_projection_dim", 768);
  double ropeTheta = c.number("rope_theta", 256.0);
  std::string qkNorm = c.has("qk_norm") ? c.string("qk_norm") : "rms_norm";
  refuseUnless(c, "qk_norm", qkNorm == "rms_norm",
               "must be \"rms_norm\", the q/k norm Loom builds for "
               "HunyuanVideo");
  // HunyuanVideo-I2V's token_replace uses other block classes (a first
  // frame with its own modulation); latent_concat only widens in_channels.
  std::string imageCondition = c.string("image_condition_type");
  refuseUnless(c, "image_condition_type",
               imageCondition.empty() || imageCondition == "latent_concat",
               "\"token_replace\" (HunyuanVideo-I2V's per-frame modulation) "
               "is not modelled; null and \"latent_concat\" are");
  int64_t hidden = heads * headDim;
  int64_t mlpHidden = static_cast<int64_t>(double(hidden) * mlpRatio);
  if (mlpRatio <= 0 || double(mlpHidden) != double(hidden) * mlpRatio)
    c.error("mlp_ratio") << "'mlp_ratio' must be positive and make a whole "
                            "MLP width from "
                         << hidden;
  SmallVector<int64_t> ropeAxes = c.positiveArray("rope_axes_dim");
  if (!ropeAxes.empty() && llvm::sum_of(ropeAxes) != headDim)
    c.error("rope_axes_dim") << "'rope_axes_dim' must add up to "
                                "'attention_head_dim' "
                             << headDim << ", got " << llvm::sum_of(ropeAxes);
  // HunyuanVideoPipeline.__call__: 720x1280, 129 frames, 50 steps; the
  // guidance is embedded (batch 1, no CFG); prompts are cropped to 256
  // tokens after the template (max_sequence_length); models/SOURCES.md.
  DiffusionShape s =
      diffusionShape(ic, videoGeometry(patchT, patch, 720, 1280, 129), 1, 50,
                     256);
  if (!c.ok())
    return failure();

  GraphBuilder &g = ic.g;
  Value x = patchTokens(ic, s, inChannels, hidden);
  Value t = ic.fn.argument(g.type({s.batch}, g.b.getF32Type()), "timestep");
  Value text = ic.fn.argument(g.type({s.batch, s.textTokens, textDim}),
                              "encoder_hidden_states");
  Value pooled =
      ic.fn.argument(g.type({s.batch, pooledDim}), "pooled_projections");
  Value guidanceScale;
  if (guidance)
    guidanceScale =
        ic.fn.argument(g.type({s.batch}, g.b.getF32Type()), "guidance");
  // time_text_embed: timestep (+ guidance) + pooled CLIP text.
  Value cond = embedScalar(ic, t, hidden);
  if (guidance)
    cond = g.add(cond, embedScalar(ic, guidanceScale, hidden));
  cond = g.add(cond, g.mlp2(pooled, hidden, hidden, ActivationKind::silu));
  // context_embedder, the token refiner: its own timestep and mean-pooled
  // text conditioning, proj_in, then self-attention blocks over the text
  // (LN, attention, gate; LN, linear-SiLU MLP, gate).
  Value rcond = embedScalar(ic, t, hidden);
  Value mean = ReshapeOp::create(g.b, g.loc, g.type({s.batch, textDim}),
                                 SliceOp::create(g.b, g.loc,
                                                 g.type({s.batch, 1, textDim}),
                                                 text, 1, 0));
  rcond = g.add(rcond, g.mlp2(mean, hidden, hidden, ActivationKind::silu));
  Value ctx = g.linear(LinearRole::context, text, hidden);
  for (int64_t i = 0; i < refinerLayers; ++i) {
    // The refiner runs before the blocks, as the rest of the prologue.
    Value h = g.layerNorm(ctx, true);
    Value a = g.selfAttention(h, heads, headDim, true);
    SmallVector<Value> gates = g.adaLN(rcond, hidden, 2);
    Value r = g.add(ctx, g.gate(a, gates[0]));
    Value n = g.layerNorm(r, true);
    Value f = g.linear(LinearRole::fc2,
                       g.act(ActivationKind::silu,
                             g.linear(LinearRole::fc1, n, mlpHidden)),
                       hidden);
    ctx = g.add(r, g.gate(f, gates[1]));
  }
  StreamBlocks blocks{heads,     headDim,   doubleLayers,
                      singleLayers, mlpHidden, ropeTheta,
                      "hunyuan_double", "hunyuan_single"};
  x = streamBlocks(ic, s, blocks, x, ctx, cond);
  // norm_out: AdaLayerNormContinuous (scale, shift), then proj_out.
  SmallVector<Value> scaleShift = g.adaLN(cond, hidden, 2);
  Value h = g.modulate(g.layerNorm(x, false), scaleShift[1], scaleShift[0]);
  ic.fn.finish(unpatchTokens(ic, h, s, outChannels));
  return success();
}

//===----------------------------------------------------------------------===//
// CogVideoX (CogVideoXTransformer3DModel)
//===----------------------------------------------------------------------===//

/// CogVideoX (Yang et al. 2024): one stream of text and video tokens with
/// shared attention and MLP weights ("expert" blocks), each modality with
/// its own modulation from the 512-wide time embedding, q/k LayerNorm per
/// head, full 3-D attention over text + video.
LogicalResult loom::importer::buildCogVideoX(ImportContext &ic) {
  ConfigReader &c = ic.config;
  int64_t heads = c.positive("num_attention_heads", 30);
  int64_t headDim = c.positive("attention_head_dim", 64);
  int64_t inChannels = c.positive("in_channels", 16);
  int64_t outChannels = c.positive("out_channels", inChannels);
  int64_t timeDim = c.positive("time_embed_dim", 512);
  bool ofs = c.has("ofs_embed_dim");
  int64_t ofsDim = ofs ? c.positive("ofs_embed_dim") : 0;
  int64_t textDim = c.positive("text_embed_dim", 4096);
  int64_t layers = c.has("num_layers") ? c.layerCount("num_layers") : 30;
  bool attentionBias = c.boolean("attention_bias", true);
  int64_t sampleWidth = c.positive("sample_width", 90);
  int64_t sampleHeight = c.positive("sample_height", 60);
  int64_t sampleFrames = c.positive("sample_frames", 49);
  int64_t patch = c.positive("patch_size", 2);
  bool temporalPatch = c.has("patch_size_t");
  int64_t patchT = temporalPatch ? c.positive("patch_size_t") : 1;
  int64_t temporal = c.positive("temporal_compression_ratio", 4);
  int64_t maxText = c.positive("max_text_seq_length", 226);
  bool normAffine = c.boolean("norm_elementwise_affine", true);
  bool rotary = c.boolean("use_rotary_positional_embeddings", false);
  bool learned = c.boolean("use_learned_positional_embeddings", false);
  requireVariant(c, "activation_fn", "gelu-approximate");
  requireVariant(c, "timestep_activation_fn", "silu");
  // CogVideoX 1.5 writes patch_bias false, but its patch embedding is then
  // a Linear with a bias anyway (CogVideoXPatchEmbed); only the 1.0 Conv2d
  // drops it.
  refuseUnless(c, "patch_bias", c.boolean("patch_bias", true) || temporalPatch,
               "false without 'patch_size_t' (a Conv2d patch embedding "
               "without bias) is not modelled");
  refuseUnless(c, "temporal_compression_ratio", temporal == 4,
               "must be 4, the CogVideoX VAE's");
  // diffusers raises for learned positions without rotary ones.
  if (learned && !rotary)
    c.error("use_learned_positional_embeddings")
        << "learned positions need 'use_rotary_positional_embeddings' "
           "(diffusers refuses this combination)";
  int64_t hidden = heads * headDim;
  // CogVideoXPipeline.__call__: sample_height/width x 8 and sample_frames
  // by default, 50 steps, guidance 6 (CFG, batch 2), 226 T5 tokens;
  // models/SOURCES.md. CogVideoX 1.5 pads latent frames to a multiple of
  // patch_size_t.
  LatentGeometry geo = videoGeometry(patchT, patch, sampleHeight * 8,
                                     sampleWidth * 8, sampleFrames);
  geo.padLatentFrames = true;
  DiffusionShape s = diffusionShape(ic, geo, 2, 50, maxText);
  if (!c.ok())
    return failure();
  if (s.textTokens != maxText && learned)
    c.error() << "this model's learned positions cover "
              << maxText << " text tokens ('max_text_seq_length'); got "
              << s.textTokens;
  if (!c.ok())
    return failure();

  GraphBuilder &g = ic.g;
  int64_t all = s.textTokens + s.tokens;
  Value x = patchTokens(ic, s, inChannels, hidden);
  Value t = ic.fn.argument(g.type({s.batch}, g.b.getF32Type()), "timestep");
  Value text = ic.fn.argument(g.type({s.batch, s.textTokens, textDim}),
                              "encoder_hidden_states");
  Value txt = g.linear(LinearRole::context, text, hidden);
  if (learned) {
    // CogVideoX-5B-I2V: a learned table over text and video tokens at the
    // sample size, stored in the checkpoint.
    int64_t samplePatches =
        ((sampleFrames - 1) / temporal + 1) * (sampleHeight / patch) *
        (sampleWidth / patch);
    (void)ParamOp::create(g.b, g.loc,
                          g.type({maxText + samplePatches, hidden}),
                          "pos_embedding");
  }
  // time_proj (sinusoids D wide) and time_embedding D -> 512 -> 512.
  Value f = TimestepEmbedOp::create(g.b, g.loc, g.type({s.batch, hidden}), t);
  Value emb = g.mlp2(f, timeDim, timeDim, ActivationKind::silu);
  if (ofs) {
    Value o = ic.fn.argument(g.type({s.batch}, g.b.getF32Type()), "ofs");
    Value of = TimestepEmbedOp::create(g.b, g.loc, g.type({s.batch, ofsDim}), o);
    emb = g.add(emb, g.mlp2(of, ofsDim, ofsDim, ActivationKind::silu));
  }
  // One CogVideoXLayerNormZero: a 512 -> 6D linear, one LayerNorm for both
  // modalities; (shift, scale, gate) of the video, then of the text.
  auto normZero = [&](Value vid, Value tx, Value e) {
    SmallVector<Value> m = g.adaLN(e, hidden, 6);
    Value hv = g.modulate(g.layerNorm(vid, normAffine), m[0], m[1]);
    // The text shares the video's LayerNorm weights (one module).
    Value ht = g.modulate(g.layerNorm(tx, false), m[3], m[4]);
    Value both = ConcatOp::create(g.b, g.loc, g.type({s.batch, all, hidden}),
                                  ValueRange{ht, hv}, 1);
    return std::tuple(both, m[2], m[5]);
  };
  auto split = [&](Value both) {
    Value tx = SliceOp::create(g.b, g.loc,
                               g.type({s.batch, s.textTokens, hidden}), both, 1,
                               0);
    Value vid = SliceOp::create(g.b, g.loc, g.type({s.batch, s.tokens, hidden}),
                                both, 1, s.textTokens);
    return std::pair(vid, tx);
  };
  auto qkNormed = [&](LinearRole role, Value h) {
    // LayerNorm (affine, with bias) over each head.
    auto norm = LayerNormOp::create(
        g.b, g.loc, g.linear(role, h, hidden, attentionBias));
    norm.setGroup(headDim);
    Value v = norm;
    return rotary ? g.rope(v, headDim, 10000.0) : v;
  };
  for (int64_t i = 0; i < layers; ++i) {
    SmallVector<Value> out = g.layer(
        i, "cogvideox", {x, txt, emb},
        [&](ValueRange args) -> SmallVector<Value> {
          Value vid = args[0], tx = args[1], e = args[2];
          auto [h, gv, gt] = normZero(vid, tx, e);
          Value q = qkNormed(LinearRole::q, h);
          Value k = qkNormed(LinearRole::k, h);
          Value v = g.linear(LinearRole::v, h, hidden, attentionBias);
          Value a = g.attention(q, k, v, heads, heads, headDim, false, false, 0);
          auto [av, at] = split(g.linear(LinearRole::o, a, hidden));
          Value rv = g.add(vid, g.gate(av, gv));
          Value rt = g.add(tx, g.gate(at, gt));
          auto [h2, gv2, gt2] = normZero(rv, rt, e);
          auto [fv, ft] = split(
              g.feedForward(h2, 4 * hidden, ActivationKind::gelu_tanh));
          return {g.add(rv, g.gate(fv, gv2)), g.add(rt, g.gate(ft, gt2))};
        });
    x = out[0];
    txt = out[1];
  }
  // norm_final (LayerNorm), then AdaLayerNorm: 512 -> 2D (shift, scale)
  // and a LayerNorm, then proj_out.
  Value n = g.layerNorm(x, normAffine);
  SmallVector<Value> shiftScale = g.adaLN(emb, hidden, 2);
  Value h = g.modulate(g.layerNorm(n, normAffine), shiftScale[0],
                       shiftScale[1]);
  ic.fn.finish(unpatchTokens(ic, h, s, outChannels));
  return success();
}
