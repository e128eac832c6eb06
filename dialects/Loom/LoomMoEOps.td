//===- LoomMoEOps.td - mixture of experts, latent attention --*- tablegen -*-===//
//
// Included at the end of LoomOps.td (same dialect, same generated files).
// Issue 17: a mixture-of-experts block is three ops, so that expert
// parallelism can put its all-to-alls between them:
//   loom.moe_route    router linear + top-k, packing each token's k copies
//                     into a dispatch buffer of [groups, capacity, hidden];
//   loom.moe_experts  the routed experts (each a gated SiLU MLP) applied to
//                     the rows of the buffer they hold;
//   loom.moe_combine  each token's k results weighted and summed.
// Unsharded, the buffer has one group holding every token's k copies; after
// loom-shard-experts each chip sends one group to each chip of the
// expert-parallel group (loom.all_to_all on dim 0) and holds `experts / ep`
// experts. Shared experts and leading dense layers are ordinary loom.linear
// MLPs. loom.latent_attention is DeepSeek-V2/V3's multi-head latent
// attention over a cached latent.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_MOE_OPS_TD
#define LOOM_MOE_OPS_TD

def Loom_MoERouteOp : Loom_Op<"moe_route", [],
    ["getParameterCount", "getPaddedFlops"],
    ["applyShardingRule", "getShardingRule", "splitBatch"]> {
  let summary = "Mixture-of-experts router: linear, top-k, dispatch buffer";
  let description = [{
    `[B, S, hidden] -> [groups, capacity, hidden]`. Scores each token with
    an `experts x hidden` router (no bias), keeps its `top_k` experts and
    writes the token's `top_k` copies into the buffer row group of the chip
    holding each expert. Unsharded there is one group of `B * S * top_k`
    rows. With `shared_gate` it also owns Qwen2-MoE's per-token shared-expert
    gate (a `hidden`-vector, `sigmoid(x . w)`). `imbalance` (>= 1, at most
    `experts / top_k`) is how many times the average load the busiest
    expert receives; it sizes the busiest chip's rows under expert
    parallelism. `shard` > 1: the input is replicated over an
    expert-parallel group and this chip routes its `1/shard` of the tokens.

    ```mlir
    %buf = loom.moe_route %h {experts = 8, top_k = 2} : tensor<1x16x64xbf16> -> tensor<1x32x64xbf16>
    ```
  }];
  let arguments = (ins Loom_Tensor:$input,
                       ConfinedAttr<I64Attr, [IntPositive]>:$experts,
                       ConfinedAttr<I64Attr, [IntPositive]>:$top_k,
                       DefaultValuedAttr<F64Attr, "1.0">:$imbalance,
                       UnitAttr:$shared_gate,
                       DefaultValuedAttr<ConfinedAttr<I64Attr, [IntPositive]>, "1">:$shard);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Tokens this chip routes: its share of the input's B * S.
    int64_t getRoutedTokens();
    /// Tokens a router with `shard` routes from an input of `inputShape`
    /// ([B, S, hidden]): ceil(B * S / shard).
    static int64_t routedTokens(::llvm::ArrayRef<int64_t> inputShape,
                                int64_t shard = 1);
    /// The dispatch buffer a router writes before expert parallelism: one
    /// group of every routed token's `topK` copies,
    /// [1, routedTokens(input) * topK, hidden]. The importer builds it and
    /// loom-split-batch recomputes it for a replica's share.
    static ::mlir::RankedTensorType dispatchBufferType(
        ::mlir::RankedTensorType input, int64_t topK);
  }];
}

def Loom_MoEExpertsOp : Loom_Op<"moe_experts", [AllTypesMatch<["input", "result"]>],
    ["getParameterCount", "getParameterBytes", "getBytesRead", "getPaddedFlops",
     "getComputeBits", "getSliceTerms"],
    ["whyNotShardable", "applyShardingRule", "getShardingRule", "splitBatch"]> {
  let summary = "The routed experts of a mixture-of-experts block";
  let description = [{
    `[groups, capacity, hidden]` rows (token copies) through the experts
    they were routed to; each expert is a gated SiLU MLP (gate and up
    `hidden x expert_inter`, down `expert_inter x hidden`). This chip holds
    `experts / ep` of the block's `experts` experts, each with
    `expert_inter` of its width (the whole width unless split over a
    tensor-parallel group as well). `tokens` is the number of tokens routed
    in one pass over the whole group; it decides how many of the held
    experts a pass touches: with uniform routing of `tokens` tokens to
    `top_k` of `experts`, an expert is touched with probability
    `1 - (1 - top_k/experts)^tokens`, so a decode step of few tokens reads
    few experts' weights and a long prefill reads them all.
    `weight_type` and `compute_type` are the experts' weight and matmul
    element types when they differ from the rows', as on `loom.linear`
    (loom-import --weights-dtype, --activations-dtype).

    ```mlir
    %y = loom.moe_experts %buf {experts = 8, top_k = 2, expert_inter = 224, tokens = 16} : tensor<1x32x64xbf16>
    ```
  }];
  let arguments = (ins Loom_Tensor:$input,
                       ConfinedAttr<I64Attr, [IntPositive]>:$experts,
                       ConfinedAttr<I64Attr, [IntPositive]>:$top_k,
                       ConfinedAttr<I64Attr, [IntPositive]>:$expert_inter,
                       ConfinedAttr<I64Attr, [IntPositive]>:$tokens,
                       DefaultValuedAttr<ConfinedAttr<I64Attr, [IntPositive]>, "1">:$ep,
                       OptionalAttr<TypeAttr>:$weight_type,
                       OptionalAttr<TypeAttr>:$compute_type);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Experts this chip holds.
    int64_t getLocalExperts() { return getExperts() / getEp(); }
    /// Expected experts of this chip that one pass touches (not rounded).
    double getTouchedExperts();
    /// Bytes of one expert's weights (gate, up and down) on this chip.
    double getExpertBytes();
    /// Bytes per weight element: weight_type's, else the input's.
    int64_t getWeightElementBytes();
  }];
}

def Loom_MoECombineOp : Loom_Op<"moe_combine", [], [],
    ["applyShardingRule", "getShardingRule"]> {
  let summary = "Weighted sum of each token's expert results";
  let description = [{
    `[groups, capacity, hidden] -> [B, S, hidden]`: every returned row is
    scaled by its routing weight and added into its token (2 FLOPs per
    element of the buffer).
  }];
  let arguments = (ins Loom_Tensor:$input);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Loom_LatentAttentionOp : Loom_Op<"latent_attention", [],
    ["getParameterCount", "getParameterBytes", "getBytesRead",
     "getKVCacheBytes", "getPaddedFlops", "getSliceTerms"],
    ["whyNotShardable", "applyShardingRule", "getShardingRule"]> {
  let summary = "Multi-head latent attention (DeepSeek-V2/V3)";
  let description = [{
    `q: [B, S, heads * (qk_nope_head_dim + qk_rope_head_dim)]`,
    `latent: [B, S, kv_lora_rank + qk_rope_head_dim]` (the output of
    `kv_a_proj_with_mqa`: the compressed KV and the rope key shared by all
    heads) -> `[B, S, heads * v_head_dim]`. Owns `kv_a_layernorm`
    (`kv_lora_rank`) and `kv_b_proj` (`kv_lora_rank x heads * (nope + v)`).
    The KV cache holds the latent: `kv_lora_rank + qk_rope_head_dim`
    elements per token (DeepSeek-V2, arXiv 2405.04434, section 2.1.2).
    Without `cached` tokens (prefill) K and V are decompressed and attended
    as usual; with them (decode) the projections are absorbed into the query
    and output, and attention runs over the latent (scores over
    `kv_lora_rank + rope`, values over `kv_lora_rank`) as DeepSeek's
    inference does. `weight_type` is `kv_b_proj`'s element type and
    `kv_type` the cached latent's when they differ from the latent's
    (loom-import --weights-dtype, --kv-dtype); the norm stays in the
    latent's.
  }];
  let arguments = (ins Loom_Tensor:$q, Loom_Tensor:$latent,
                       ConfinedAttr<I64Attr, [IntPositive]>:$heads,
                       ConfinedAttr<I64Attr, [IntPositive]>:$kv_lora_rank,
                       ConfinedAttr<I64Attr, [IntPositive]>:$qk_nope_head_dim,
                       ConfinedAttr<I64Attr, [IntPositive]>:$qk_rope_head_dim,
                       ConfinedAttr<I64Attr, [IntPositive]>:$v_head_dim,
                       UnitAttr:$causal,
                       DefaultValuedAttr<ConfinedAttr<I64Attr, [IntNonNegative]>, "0">:$cached,
                       OptionalAttr<TypeAttr>:$weight_type,
                       OptionalAttr<TypeAttr>:$kv_type);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = [{
    $q `,` $latent attr-dict `:` type($q) `,` type($latent) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getScorePairs();
    /// kv_b_proj's FLOPs over the op's tokens, each dimension padded to
    /// `tile`: decompressing K and V (no cached tokens), else absorbed into
    /// the query and the output.
    int64_t getProjectionFlops(int64_t tile);
    /// FLOPs per query/key pair of a sequence over the batch and heads:
    /// over the decompressed K and V, or (`absorbed`) over the latent.
    int64_t getPairFlops(bool absorbed, int64_t tile);
    /// Bytes per element of kv_b_proj: weight_type's, else the latent's.
    int64_t getWeightElementBytes();
    /// Bytes per element of the cached latent: kv_type's, else the latent's.
    int64_t getKVElementBytes();
  }];
}

#endif // LOOM_MOE_OPS_TD
