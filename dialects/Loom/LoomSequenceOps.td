//===- LoomSequenceOps.td - sequence-parallel attention ----*- tablegen -*-===//
//
// Ring attention: included by LoomOps.td.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_SEQUENCE_OPS_TD
#define LOOM_SEQUENCE_OPS_TD

def Loom_RingAttentionOp : Loom_Op<"ring_attention",
    [AllTypesMatch<["k", "v"]>, AllTypesMatch<["q", "result"]>],
    ["getPaddedFlops", "getKVCacheBytes", "getSliceTerms"],
    ["getShardingRule"],
    ["getGradientWork", "getGradientSliceTerms"]> {
  let summary = "Attention over a sequence split around a ring of chips";
  let description = [{
    Ring attention (Liu et al., "Ring Attention with Blockwise Transformers
    for Near-Infinite Context", arXiv 2310.01889, 2023): each of the
    `group_size` chips of `group` holds one block of the sequence, its
    queries `q: [B, Sq, heads*head_dim]` and its keys and values
    `k, v: [B, Sk, kv_heads*head_dim]`. In `group_size` steps each chip
    attends its queries to the K/V block in hand (online softmax, as the
    flash kernel's blocks) while it passes that block to the next chip of
    the ring and receives the previous chip's, so after the last step its
    queries have seen every block: `Sq x group_size x Sk` pairs per head,
    with no all-to-all and no condition on the heads. The result is this
    chip's block of the output.

    `causal` (LLM prefill): the sequence is striped over the ring, token i
    on chip i mod group_size (Brandon et al., "Striped Attention", arXiv
    2311.09431), so every chip's queries see an equal share of the causal
    pairs at every step: `countCausalPairs(Sq x group_size) / group_size`
    pairs per head, and each step's block is causally masked. The chip
    keeps its stripe of the KV cache.

    `window = W` (causal only) makes it a sliding-window ring: a query sees
    itself and the W - 1 tokens before it. The sequence stays striped, so
    the chips still share the pairs equally (`countCausalPairs(Sq x
    group_size, 0, W) / group_size`) and every step still passes a stripe:
    the window cuts the compute, not the number of steps.

    ```mlir
    %a = loom.ring_attention %q, %k, %v {heads = 40, kv_heads = 40, head_dim = 128, group = "sp", group_size = 8}
        : tensor<1x9450x5120xbf16>, tensor<1x9450x5120xbf16> -> tensor<1x9450x5120xbf16>
    ```
  }];
  let arguments = (ins Loom_Tensor:$q, Loom_Tensor:$k, Loom_Tensor:$v,
                       ConfinedAttr<I64Attr, [IntPositive]>:$heads,
                       ConfinedAttr<I64Attr, [IntPositive]>:$kv_heads,
                       ConfinedAttr<I64Attr, [IntPositive]>:$head_dim,
                       StrAttr:$group,
                       ConfinedAttr<I64Attr, [IntPositive]>:$group_size,
                       UnitAttr:$causal,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$window);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = [{
    $q `,` $k `,` $v attr-dict `:` type($q) `,` type($k) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Query/key pairs this chip visits per head and batch element, over
    /// all steps.
    int64_t getScorePairs();
    /// Bytes of the K/V block passed to the next chip at each step.
    int64_t getBlockBytes();
  }];
}

#endif // LOOM_SEQUENCE_OPS_TD
