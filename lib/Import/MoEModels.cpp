//===- MoEModels.cpp - mixture-of-experts configs to loom IR --------------===//
//
// The builders of Hugging Face transformers' mixture-of-experts decoders:
// mixtral (MixtralForCausalLM), qwen2_moe and qwen3_moe
// (Qwen2MoeForCausalLM, Qwen3MoeForCausalLM) and deepseek_v3
// (DeepseekV3ForCausalLM, with multi-head latent attention). Each follows
// the PyTorch modules of transformers' modelling code so that parameter
// counts match the checkpoints; docs/research/moe-families.md lists the
// modules, the fields and which of them change cost. Fields that change
// cost and are not modelled are refused at the field.
//
//===----------------------------------------------------------------------===//

#include "ImportContext.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;
using namespace loom;
using namespace loom::importer;

namespace {
/// The routed experts of a block, as a config gives them.
struct RoutedExperts {
  int64_t experts = 1, topK = 1, inter = 1;
};
} // namespace

/// Reads the experts and the tokens per expert choice, checking that a
/// token can pick `topK` distinct experts and that the imbalance asked for
/// can happen.
static RoutedExperts readRoutedExperts(ImportContext &ic, StringRef expertsKey,
                                       StringRef interKey) {
  ConfigReader &c = ic.config;
  RoutedExperts r;
  r.experts = c.positive(expertsKey);
  r.topK = c.positive("num_experts_per_tok");
  r.inter = c.positive(interKey);
  if (r.topK > r.experts) {
    // The imbalance's bound, experts / top_k, follows from these two: no
    // second error about it.
    c.error("num_experts_per_tok")
        << "'num_experts_per_tok' " << r.topK << " exceeds the " << r.experts
        << " experts of '" << expertsKey << "'";
    return r;
  }
  double imbalance = ic.options.expertImbalance;
  double most = double(r.experts) / double(r.topK);
  if (!(imbalance >= 1.0 && imbalance <= most))
    c.error() << "expert imbalance " << llvm::formatv("{0}", imbalance).str()
              << " must be between 1 (uniform routing) and experts / top_k = "
              << llvm::formatv("{0}", most).str() << " (the busiest expert sees each token at most once)";
  return r;
}

/// The routed experts of one MoE layer on `h`: router and top-k, the
/// experts, the weighted sum (loom.moe_route, loom.moe_experts,
/// loom.moe_combine).
static Value routedExperts(ImportContext &ic, Value h, const RoutedExperts &r,
                           bool sharedGate) {
  GraphBuilder &g = ic.g;
  auto input = cast<RankedTensorType>(h.getType());
  int64_t tokens = MoERouteOp::routedTokens(input.getShape());
  auto route = MoERouteOp::create(
      g.b, g.loc, MoERouteOp::dispatchBufferType(input, r.topK), h,
      g.b.getI64IntegerAttr(r.experts), g.b.getI64IntegerAttr(r.topK),
      g.b.getF64FloatAttr(ic.options.expertImbalance));
  if (sharedGate)
    route.setSharedGate(true);
  Value out = MoEExpertsOp::create(g.b, g.loc, route.getType(), route,
                                   r.experts, r.topK, r.inter, tokens,
                                   /*ep=*/1, /*weight_type=*/TypeAttr(),
                                   /*compute_type=*/TypeAttr());
  return MoECombineOp::create(g.b, g.loc, h.getType(), out);
}

/// A gated SiLU MLP of width `inter` (dense layers, shared experts).
static Value gatedMLP(GraphBuilder &g, Value h, int64_t inter,
                      bool bias = false) {
  Value gate = g.linear(LinearRole::gate, h, inter, bias);
  Value up = g.linear(LinearRole::up, h, inter, bias);
  Value m = SwiGLUOp::create(g.b, g.loc, gate, up);
  return g.linear(LinearRole::down, m, GraphBuilder::shape(h).back(), bias);
}

static void requireSilu(ConfigReader &c) {
  std::string act = c.string("hidden_act");
  if (!act.empty() && act != "silu")
    c.error("hidden_act") << "field 'hidden_act' must be \"silu\" (the "
                             "experts are SwiGLU MLPs), got \""
                          << act << "\"";
}

/// The final norm and LM head.
static void finishDecoder(ImportContext &ic, Value x, int64_t vocab,
                          bool tied) {
  GraphBuilder &g = ic.g;
  Value logits =
      g.linear(LinearRole::lm_head, g.rmsNorm(x), vocab, false, tied);
  ic.fn.finish(logits);
}

//===----------------------------------------------------------------------===//
// mixtral
//===----------------------------------------------------------------------===//

// MixtralDecoderLayer: LLaMA attention (the shared skeleton of
// DecoderModels.cpp, with Mistral's sliding window when set), then
// block_sparse_moe (router `gate`, experts w1/w3/w2 of intermediate_size).
// No dense MLP, no shared expert.
LogicalResult loom::importer::buildMixtral(ImportContext &ic) {
  ConfigReader &c = ic.config;
  DecoderSpec s;
  s.kind = "mixtral";
  readSizes(c, s, {/*hidden=*/0, /*inter=*/0, /*layers=*/0, /*heads=*/0,
                   /*kvHeads=*/0, /*vocab=*/0, /*maxPos=*/4096 * 32});
  RoutedExperts r =
      readRoutedExperts(ic, "num_local_experts", "intermediate_size");
  requireSilu(c);
  if (int64_t window = c.positive("sliding_window", 0))
    s.windows.assign(s.layers, window);
  s.mlp = [&](int64_t, Value h) { return routedExperts(ic, h, r, false); };
  return buildDecoder(ic, c, s);
}

//===----------------------------------------------------------------------===//
// qwen2_moe, qwen3_moe
//===----------------------------------------------------------------------===//

// Qwen2MoeDecoderLayer / Qwen3MoeDecoderLayer: a layer is sparse iff it is
// not in mlp_only_layers, num_experts > 0 and (index + 1) is a multiple of
// decoder_sparse_step; otherwise a dense MLP of intermediate_size. Qwen2-MoE
// has q/k/v biases and a shared expert of shared_expert_intermediate_size
// gated per token by sigmoid(Linear(hidden, 1)); Qwen3-MoE has per-head q/k
// RMSNorm, attention_bias on q/k/v/o and no shared expert.
LogicalResult loom::importer::buildQwenMoE(ImportContext &ic) {
  ConfigReader &c = ic.config;
  bool qwen3 = c.string("model_type") == "qwen3_moe";
  DecoderSpec s;
  s.kind = qwen3 ? "qwen3_moe" : "qwen2_moe";
  // intermediate_size is the width of the dense layers only, so a config
  // whose layers are all sparse may leave it out: the config classes'
  // defaults (Qwen3MoeConfig 6144, Qwen2MoeConfig 22016).
  readSizes(c, s, {/*hidden=*/0, /*inter=*/qwen3 ? 6144 : 22016,
                   /*layers=*/0, /*heads=*/0, /*kvHeads=*/0, /*vocab=*/0,
                   /*maxPos=*/32768});
  if (qwen3) {
    s.qkNorm = true;
    s.qkvBias = s.oBias = c.boolean("attention_bias", false);
  } else {
    // Qwen2MoeAttention: biased q, k, v; unbiased o.
    s.qkvBias = true;
  }
  RoutedExperts r = readRoutedExperts(ic, "num_experts", "moe_intermediate_size");
  int64_t step = c.positive("decoder_sparse_step", 1);
  SmallVector<int64_t> mlpOnly = c.indexArray("mlp_only_layers", s.layers);
  int64_t shared =
      qwen3 ? 0 : c.nonNegative("shared_expert_intermediate_size", 0);
  requireSilu(c);
  if (c.boolean("use_sliding_window", false))
    c.error("use_sliding_window")
        << "field 'use_sliding_window' is true: sliding-window attention is "
           "not modelled for Qwen mixtures of experts";
  GraphBuilder &g = ic.g;
  s.mlp = [&](int64_t i, Value h) -> Value {
    bool sparse = !llvm::is_contained(mlpOnly, i) && (i + 1) % step == 0;
    if (!sparse)
      return gatedMLP(g, h, s.inter);
    Value m = routedExperts(ic, h, r, shared > 0);
    if (shared > 0)
      m = g.add(m, gatedMLP(g, h, shared));
    return m;
  };
  return buildDecoder(ic, c, s);
}

//===----------------------------------------------------------------------===//
// deepseek_v3
//===----------------------------------------------------------------------===//

// DeepseekV3DecoderLayer: multi-head latent attention (DeepseekV3Attention),
// then a dense MLP of intermediate_size for layers < first_k_dense_replace,
// else DeepseekV3MoE: sigmoid router over n_routed_experts with
// group-limited top-k, and n_shared_experts shared experts as one MLP of
// moe_intermediate_size * n_shared_experts. The multi-token-prediction
// layer (num_nextn_predict_layers) is not part of the forward pass, as in
// transformers.
LogicalResult loom::importer::buildDeepSeekV3(ImportContext &ic) {
  ConfigReader &c = ic.config;
  int64_t hidden = c.positive("hidden_size");
  int64_t heads = c.positive("num_attention_heads");
  int64_t layers = c.layerCount("num_hidden_layers");
  int64_t vocab = c.positive("vocab_size");
  int64_t inter = c.positive("intermediate_size");
  int64_t maxPos = c.positive("max_position_embeddings", 4096);
  bool tied = c.boolean("tie_word_embeddings", false);
  bool bias = c.boolean("attention_bias", false);
  // q_lora_rank null: a plain q_proj (DeepSeek-V2-Lite).
  int64_t qRank = c.positive("q_lora_rank", 0);
  int64_t kvRank = c.positive("kv_lora_rank");
  int64_t nope = c.positive("qk_nope_head_dim");
  int64_t rope = c.positive("qk_rope_head_dim");
  int64_t vDim = c.positive("v_head_dim");
  double theta = c.number("rope_theta", 10000.0);
  // transformers v5 names n_routed_experts num_local_experts
  // (DeepseekV3Config.attribute_map).
  StringRef expertsKey =
      c.has("n_routed_experts") ? "n_routed_experts" : "num_local_experts";
  RoutedExperts r = readRoutedExperts(ic, expertsKey, "moe_intermediate_size");
  int64_t shared = c.nonNegative("n_shared_experts", 0);
  int64_t dense = c.nonNegative("first_k_dense_replace", 0);
  int64_t groups = c.positive("n_group", 1);
  int64_t keptGroups = c.positive("topk_group", groups);
  requireSilu(c);
  requireVariant(c, "scoring_func", "sigmoid");
  requireVariant(c, "topk_method", "noaux_tc");
  if (c.has("moe_layer_freq") && c.positive("moe_layer_freq", 1) != 1)
    c.error("moe_layer_freq")
        << "field 'moe_layer_freq' must be 1: transformers' "
           "DeepseekV3DecoderLayer makes every layer from "
           "'first_k_dense_replace' on a mixture of experts";
  if (dense > layers)
    c.error("first_k_dense_replace")
        << "'first_k_dense_replace' " << dense << " exceeds the " << layers
        << " layers";
  // Groups that do not divide the experts, or a top-k past all of them,
  // are the one error: the groups' bound would repeat it.
  bool divides = requireDivisible(c, expertsKey, r.experts, "n_group", groups);
  if (keptGroups > groups)
    c.error("topk_group") << "'topk_group' " << keptGroups
                          << " exceeds 'n_group' " << groups;
  else if (divides && groups > 0 && r.topK <= r.experts &&
           r.topK > keptGroups * (r.experts / groups))
    c.error("num_experts_per_tok")
        << "'num_experts_per_tok' " << r.topK << " exceeds the "
        << keptGroups * (r.experts / groups)
        << " experts of the 'topk_group' groups a token may use";
  DecoderShape s = decoderShape(ic, c, "max_position_embeddings", maxPos);
  if (!c.ok())
    return failure();

  GraphBuilder &g = ic.g;
  Value x = embedTokens(ic, s, vocab, hidden);
  for (int64_t i = 0; i < layers; ++i)
    x = g.layer(i, "deepseek_v3", x, [&](ValueRange args) -> SmallVector<Value> {
      Value in = args[0];
      Value h = g.rmsNorm(in);
      Value q;
      if (qRank) {
        Value qa = g.rmsNorm(g.linear(LinearRole::q_down, h, qRank, bias));
        q = g.linear(LinearRole::q, qa, heads * (nope + rope), false);
      } else {
        q = g.linear(LinearRole::q, h, heads * (nope + rope), false);
      }
      Value latent = g.linear(LinearRole::kv_down, h, kvRank + rope, bias);
      q = g.rope(q, nope + rope, theta);
      auto attn = LatentAttentionOp::create(
          g.b, g.loc, g.withLast(h, heads * vDim), q, latent, heads, kvRank,
          nope, rope, vDim, /*causal=*/true, s.cached,
          /*weight_type=*/TypeAttr(), /*kv_type=*/TypeAttr());
      Value res = g.add(in, g.linear(LinearRole::o, attn, hidden, bias));
      Value h2 = g.rmsNorm(res);
      if (i < dense)
        return {g.add(res, gatedMLP(g, h2, inter))};
      Value m = routedExperts(ic, h2, r, false);
      if (shared > 0)
        m = g.add(m, gatedMLP(g, h2, r.inter * shared));
      return {g.add(res, m)};
    })[0];
  finishDecoder(ic, x, vocab, tied);
  return success();
}
