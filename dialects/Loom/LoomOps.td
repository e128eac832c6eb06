//===- LoomOps.td - loom dialect operations -----------------*- tablegen -*-===//

#ifndef LOOM_OPS_TD
#define LOOM_OPS_TD

include "Loom/LoomDialect.td"
include "Loom/LoomAttrs.td"
include "Loom/CollectiveOpInterface.td"
include "Loom/LoomInterfaces.td"
include "Loom/ShardingRuleOpInterface.td"
include "Loom/GradientOpInterface.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/InferTypeOpInterface.td"

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Loom_LinearRole : I32EnumAttr<"LinearRole", "what a projection is for", [
    I32EnumAttrCase<"q", 0>, I32EnumAttrCase<"k", 1>, I32EnumAttrCase<"v", 2>,
    I32EnumAttrCase<"qkv", 3>, I32EnumAttrCase<"o", 4>,
    I32EnumAttrCase<"gate", 5>, I32EnumAttrCase<"up", 6>,
    I32EnumAttrCase<"down", 7>, I32EnumAttrCase<"fc1", 8>,
    I32EnumAttrCase<"fc2", 9>, I32EnumAttrCase<"modulation", 10>,
    I32EnumAttrCase<"embed", 11>, I32EnumAttrCase<"cond", 12>,
    I32EnumAttrCase<"context", 13>, I32EnumAttrCase<"lm_head", 14>,
    I32EnumAttrCase<"proj_out", 15>,
    // DeepSeek MLA's low-rank down projections (q_a_proj, kv_a_proj_with_mqa).
    I32EnumAttrCase<"q_down", 16>, I32EnumAttrCase<"kv_down", 17>]> {
  let cppNamespace = "::loom";
  let genSpecializedAttr = 0;
}
def Loom_LinearRoleAttr : EnumAttr<Loom_Dialect, Loom_LinearRole, "role">;

def Loom_ActivationKind : I32EnumAttr<"ActivationKind", "elementwise activation", [
    I32EnumAttrCase<"gelu", 0>, I32EnumAttrCase<"gelu_tanh", 1>,
    I32EnumAttrCase<"silu", 2>, I32EnumAttrCase<"relu", 3>,
    // c * tanh(x / c): Gemma 2's logit soft-capping (numerics; vector work).
    I32EnumAttrCase<"softcap", 4>]> {
  let cppNamespace = "::loom";
  let genSpecializedAttr = 0;
}
def Loom_ActivationKindAttr : EnumAttr<Loom_Dialect, Loom_ActivationKind, "activation">;

//===----------------------------------------------------------------------===//
// Base classes
//===----------------------------------------------------------------------===//

def Loom_Tensor : StaticShapeTensorOf<[AnyType]>;

// Every loom op answers the cost interface and states its sharding rule;
// `costOverrides`, `shardingOverrides` and `gradientOverrides` list the
// interface methods with defaults that the op implements itself.
class Loom_Op<string mnemonic, list<Trait> traits = [],
              list<string> costOverrides = [],
              list<string> shardingOverrides = [],
              list<string> gradientOverrides = []>
    : Op<Loom_Dialect, mnemonic,
         !listconcat(traits, [DeclareOpInterfaceMethods<CostOpInterface,
                                                        costOverrides>,
                              DeclareOpInterfaceMethods<ShardingRuleOpInterface,
                                                        shardingOverrides>,
                              DeclareOpInterfaceMethods<GradientOpInterface,
                                                        gradientOverrides>])>;

class Loom_ElementwiseBinaryOp<string mnemonic, string what,
                               list<string> gradientOverrides = []>
    : Loom_Op<mnemonic, [AllTypesMatch<["lhs", "result"]>, Loom_TokenWise], [],
              [], gradientOverrides> {
  let summary = what # " with trailing broadcast of the right operand";
  let description = [{
    Elementwise; the right operand's shape must equal the left's or be a
    suffix of it (a bias or a learned table broadcast over batch and
    sequence). The result has the left operand's type. One FLOP per result
    element.
  }];
  let arguments = (ins Loom_Tensor:$lhs, Loom_Tensor:$rhs);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs)
  }];
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Structure
//===----------------------------------------------------------------------===//

def Loom_LayerOp : Loom_Op<"layer", [IsolatedFromAbove, SingleBlock],
    ["getPaddedFlops", "getParameterCount", "getParameterBytes",
     "getBytesRead", "getBytesWritten", "getKVCacheBytes", "getSliceTerms"],
    ["whyNotShardable", "applyShardingRule", "splitBatch"], ["buildGradient"]> {
  let summary = "One transformer or DiT block";
  let description = [{
    A region holding one block of the model, numbered by `index` in model
    order. Its inputs become the entry block's arguments and `loom.yield`
    gives its results. A layer is isolated from above, so the pipeline
    passes can move it to a stage without looking inside. `kind` names the
    block family (`llama`, `gpt`, `dit`, `pixart`, `mmdit`, `flux_double`,
    `flux_single`); it is informative. `stage` is the pipeline stage that
    loom-partition-layers put it on. Its costs are the sums of its body's.

    ```mlir
    %y = loom.layer 0 (%x) {kind = "llama"} : (tensor<1x2048x8192xbf16>) -> tensor<1x2048x8192xbf16> {
    ^bb0(%in: tensor<1x2048x8192xbf16>):
      ...
      loom.yield %out : tensor<1x2048x8192xbf16>
    }
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$index,
                       Variadic<Loom_Tensor>:$inputs,
                       OptionalAttr<StrAttr>:$kind,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$stage);
  let results = (outs Variadic<Loom_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $index `(` $inputs `)` attr-dict `:` functional-type($inputs, results)
    $body
  }];
  let hasRegionVerifier = 1;
}

def Loom_YieldOp : Loom_Op<"yield", [Terminator, ParentOneOf<["LayerOp", "LayerGradOp"]>],
    ["getBytesRead", "getSliceTerms"], ["applyShardingRule"], ["buildGradient"]> {
  let summary = "Results of a loom.layer or loom.layer_grad";
  let arguments = (ins Variadic<Loom_Tensor>:$values);
  let assemblyFormat = "($values^ `:` type($values))? attr-dict";
}

def Loom_ParamOp : Loom_Op<"param", [],
    ["getParameterCount", "getBytesRead", "getBytesWritten"]> {
  let summary = "A learned tensor that no other op implies";
  let description = [{
    Declares a weight by name and shape where no op implies it, e.g.
    PixArt-alpha's per-block `scale_shift_table`. Its elements are counted
    as parameters.

    ```mlir
    %t = loom.param "scale_shift_table" : tensor<6912xbf16>
    ```
  }];
  let arguments = (ins StrAttr:$name);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = "$name attr-dict `:` type($result)";
}

//===----------------------------------------------------------------------===//
// Embeddings and projections
//===----------------------------------------------------------------------===//

def Loom_EmbedOp : Loom_Op<"embed", [],
    ["getParameterCount", "getBytesRead", "getSliceTerms"],
    ["applyShardingRule", "getShardingRule"], ["getGradientWork"]> {
  let summary = "Table lookup: token ids or class labels to vectors";
  let description = [{
    `[...] x iN -> [..., hidden]` through a `vocab x hidden` table. Reads
    only the looked-up rows. Used for token embeddings and DiT class labels.
  }];
  let arguments = (ins Loom_Tensor:$ids,
                       ConfinedAttr<I64Attr, [IntPositive]>:$vocab);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = "$ids attr-dict `:` type($ids) `->` type($result)";
  let hasVerifier = 1;
}

def Loom_PositionEmbedOp : Loom_Op<"position_embed", [SameOperandsAndResultType, Loom_TokenWise],
    ["getParameterCount", "getBytesRead"]> {
  let summary = "Adds a learned position table (GPT, SD3)";
  let description = [{
    `[B, S, H]` plus the first `S` rows of a learned `max_positions x H`
    table; `S` may not exceed `max_positions`.
  }];
  let arguments = (ins Loom_Tensor:$input,
                       ConfinedAttr<I64Attr, [IntPositive]>:$max_positions);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Loom_LinearOp : Loom_Op<"linear", [],
    ["getParameterCount", "getBytesRead", "getPaddedFlops", "getParameterBytes",
     "getComputeBits"],
    ["whyNotShardable", "applyShardingRule", "getShardingRule"]> {
  let summary = "A dense projection with a role";
  let description = [{
    `[..., In] -> [..., Out]` with an `In x Out` weight and, with `bias`, an
    `Out` bias. The leading dimensions are kept. `role` says what the
    projection is for, which the sharding pass uses to split it (column
    split for q/k/v/gate/up/fc1, row split for o/down/fc2, ...).
    `tied` marks a weight shared with the token embedding (GPT-2 style
    LM head): it is read but not counted again as a parameter.
    `weight_type` is the weight's (and bias's) element type when it differs
    from the activations' (`i8`: int8 weights, one byte each); with
    `compute_type = i8` the matmul runs int8 x int8 at the MXU's int8 rate
    (activations quantized on the fly). Loom sets them only as the user
    asks (loom-import --weights-dtype, --activations-dtype).

    ```mlir
    %q = loom.linear q %h : tensor<1x2048x8192xbf16> -> tensor<1x2048x8192xbf16>
    ```
  }];
  let arguments = (ins Loom_LinearRoleAttr:$role, Loom_Tensor:$input,
                       UnitAttr:$bias, UnitAttr:$tied,
                       OptionalAttr<TypeAttr>:$weight_type,
                       OptionalAttr<TypeAttr>:$compute_type);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = [{
    $role $input attr-dict `:` type($input) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getInFeatures();
    int64_t getOutFeatures();
    /// Rows of the matmul: the product of the leading dimensions.
    int64_t getRows();
    /// Bytes per weight element: weight_type's, else the input's.
    int64_t getWeightElementBytes();
  }];
}

def Loom_PatchifyOp : Loom_Op<"patchify", [],
    ["getParameterCount", "getPaddedFlops"], ["getShardingRule"]> {
  let summary = "Image latent to patch tokens (DiT patch embedding)";
  let description = [{
    `[B, C, H, W] -> [B, (H/p)*(W/p), D]`: a stride-`p` convolution with a
    `C*p*p x D` weight and a `D` bias, plus the fixed 2-D sin-cos position
    embedding of DiT (no parameters). Learned positions, as in SD3, are a
    separate `loom.position_embed`.

    A video latent `[B, C, F, H, W]` is cut into `patch_t x p x p` patches
    (a Conv3d of stride `(patch_t, p, p)`, `patch_t` 1 when absent):
    `(F/patch_t)*(H/p)*(W/p)` tokens, a `C*patch_t*p*p x D` weight.
  }];
  let arguments = (ins Loom_Tensor:$input,
                       ConfinedAttr<I64Attr, [IntPositive]>:$patch_size,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$patch_t);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Loom_UnpatchifyOp : Loom_Op<"unpatchify", [], [], ["getShardingRule"]> {
  let summary = "Patch tokens back to an image latent";
  let description = [{
    `[B, (H/p)*(W/p), p*p*C] -> [B, C, H, W]`; a pure rearrangement. For
    a video, `[B, (F/patch_t)*(H/p)*(W/p), patch_t*p*p*C] -> [B, C, F, H, W]`.
  }];
  let arguments = (ins Loom_Tensor:$input,
                       ConfinedAttr<I64Attr, [IntPositive]>:$patch_size,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$patch_t);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Loom_TimestepEmbedOp : Loom_Op<"timestep_embed", [], [],
                                  ["getShardingRule"]> {
  let summary = "Sinusoidal features of the diffusion timestep";
  let description = [{
    `[B] -> [B, dim]`: the fixed sinusoidal embedding of a scalar per sample
    (timestep, guidance scale). The MLP after it is ordinary `loom.linear`s.
  }];
  let arguments = (ins Loom_Tensor:$input);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Normalisation, activations, elementwise
//===----------------------------------------------------------------------===//

class Loom_NormOp<string mnemonic, string what, int flopsPerElement>
    : Loom_Op<mnemonic, [SameOperandsAndResultType, Loom_TokenWise],
              ["getParameterCount"]> {
  let summary = what;
  let description = [{
    Normalises over the last `group` elements of the innermost dimension
    (default: all of it; QK-norm over each head uses `group = head_dim`).
    With `affine` (the default) it learns a scale of `group` elements, and
    a layer norm a bias too.
  }] # " Counted as " # flopsPerElement # " FLOPs per element.";
  let arguments = (ins Loom_Tensor:$input,
                       DefaultValuedAttr<BoolAttr, "true">:$affine,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$group);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    int64_t getGroupSize();
  }];
}

def Loom_RMSNormOp : Loom_NormOp<"rms_norm", "RMS normalisation (LLaMA)", 4>;
def Loom_LayerNormOp : Loom_NormOp<"layer_norm", "Layer normalisation", 8>;

def Loom_RoPEOp : Loom_Op<"rope", [SameOperandsAndResultType, Loom_TokenWise], [],
                          [], ["getGradientWork"]> {
  let summary = "Rotary position embedding applied to q or k";
  let description = [{
    Rotates each `head_dim`-sized head of `[B, S, heads*head_dim]`. No
    parameters; 3 FLOPs per element (two multiplies and an add).
  }];
  let arguments = (ins Loom_Tensor:$input,
                       ConfinedAttr<I64Attr, [IntPositive]>:$head_dim,
                       DefaultValuedAttr<F64Attr, "10000.0">:$theta);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Loom_ActivationOp : Loom_Op<"activation", [SameOperandsAndResultType, Loom_TokenWise]> {
  let summary = "Elementwise activation (gelu, gelu_tanh, silu, relu)";
  let arguments = (ins Loom_ActivationKindAttr:$kind, Loom_Tensor:$input);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = "$kind $input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Loom_DropoutOp : Loom_Op<"dropout", [SameOperandsAndResultType, Loom_TokenWise],
    [], [], ["getGradientWork"]> {
  let summary = "Dropout in training (a mask drawn per element)";
  let description = [{
    Zeroes each element with probability `rate` and scales the rest by
    1 / (1 - rate): 2 vector operations per element (the draw's compare and
    the scaled select). Training only; its backward pass applies the same
    mask, which the forward pass keeps as one byte per element
    (Korthikanti et al., "Reducing Activation Recomputation in Large
    Transformer Models", MLSys 2023, section 4.1).
  }];
  let arguments = (ins Loom_Tensor:$input, F64Attr:$rate);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Loom_SwiGLUOp : Loom_Op<"swiglu", [SameOperandsAndResultType, Loom_TokenWise]> {
  let summary = "silu(gate) * up (LLaMA MLP)";
  let arguments = (ins Loom_Tensor:$gate, Loom_Tensor:$up);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = "$gate `,` $up attr-dict `:` type($gate)";
  let hasVerifier = 1;
}

def Loom_AddOp : Loom_ElementwiseBinaryOp<"add", "Elementwise addition",
                                          ["getGradientWork"]>;
def Loom_MulOp : Loom_ElementwiseBinaryOp<"mul", "Elementwise product">;

def Loom_ModulateOp : Loom_Op<"modulate", [AllTypesMatch<["input", "result"]>,
                                             AllTypesMatch<["shift", "scale"]>,
                                             Loom_TokenWise], [],
                                            ["getShardingRule"]> {
  let summary = "adaLN modulation: x * (1 + scale) + shift";
  let description = [{
    `x: [B, S, H]`, `shift, scale: [B, H]` broadcast over the sequence.
    2 FLOPs per element of `x`.
  }];
  let arguments = (ins Loom_Tensor:$input, Loom_Tensor:$shift,
                       Loom_Tensor:$scale);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = [{
    $input `,` $shift `,` $scale attr-dict `:` type($input) `,` type($shift)
  }];
  let hasVerifier = 1;
}

def Loom_GateOp : Loom_Op<"gate", [AllTypesMatch<["input", "result"]>, Loom_TokenWise],
                         [], ["getShardingRule"]> {
  let summary = "adaLN-zero gating: x * gate";
  let description = [{
    `x: [B, S, H]`, `gate: [B, H]` broadcast over the sequence.
  }];
  let arguments = (ins Loom_Tensor:$input, Loom_Tensor:$gate);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = "$input `,` $gate attr-dict `:` type($input) `,` type($gate)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Shape plumbing
//===----------------------------------------------------------------------===//

def Loom_ConcatOp : Loom_Op<"concat", [], [],
    ["applyShardingRule", "getShardingRule"]> {
  let summary = "Concatenation along one dimension";
  let description = [{
    Joins text and image tokens along the sequence (Flux single blocks) or
    the attention and MLP branches along features (Flux single blocks).
  }];
  let arguments = (ins Variadic<Loom_Tensor>:$inputs,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$dim);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = [{
    $inputs attr-dict `:` functional-type($inputs, $result)
  }];
  let hasVerifier = 1;
}

def Loom_SliceOp : Loom_Op<"slice", [], [],
    ["applyShardingRule", "getShardingRule"]> {
  let summary = "A contiguous range of one dimension";
  let arguments = (ins Loom_Tensor:$input,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$dim,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$offset);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Loom_ReshapeOp : Loom_Op<"reshape", [], [], ["getShardingRule"]> {
  let summary = "Same elements, another static shape";
  let arguments = (ins Loom_Tensor:$input);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Loom_ChunkOp : Loom_Op<"chunk", [], [],
    ["applyShardingRule", "getShardingRule"]> {
  let summary = "Equal pieces of the innermost dimension";
  let description = [{
    Splits `[..., n*k]` into `n` results of `[..., k]`, e.g. the six
    shift/scale/gate vectors of an adaLN-zero modulation.
  }];
  let arguments = (ins Loom_Tensor:$input);
  let results = (outs Variadic<Loom_Tensor>:$results);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($results)";
  let hasVerifier = 1;
}

//===----------------------------------------------------------------------===//
// Attention
//===----------------------------------------------------------------------===//

def Loom_AttentionOp : Loom_Op<"attention",
    [AllTypesMatch<["k", "v"]>, AllTypesMatch<["q", "result"]>],
    ["getBytesRead", "getKVCacheBytes", "getPaddedFlops", "getSliceTerms"],
    ["whyNotShardable", "applyShardingRule", "getShardingRule"],
    ["getGradientWork", "getGradientSliceTerms"]> {
  let summary = "Scaled dot-product attention (self or cross, MHA or GQA)";
  let description = [{
    `q: [B, Sq, heads*head_dim]`, `k, v: [B, Sk, kv_heads*head_dim]` ->
    `[B, Sq, heads*head_dim]`. `kv_heads` divides `heads` (grouped-query
    attention when smaller). `causal` masks future keys (decoder LLMs) and
    needs `Sq == Sk`; `cross` marks keys and values from another sequence
    (PixArt-alpha's text). `cached` is the number of earlier tokens whose
    keys and values are already cached and are attended to as well (decode,
    or a later TeraPipe slice). A causal attention keeps a KV cache of
    `cached + Sk` tokens.

    `window = W` makes a causal attention local (sliding-window attention,
    Mistral, Gemma 2/3's local layers): a query sees at most the W latest
    keys, itself included, so it visits at most W keys, reads at most W
    cached tokens' K/V, and the layer's KV cache holds at most W tokens.

    `kv_type` is the element type of the KV cache when it differs from k and
    v's (`i8`: an int8 cache, as loom-import --kv-dtype int8 asks): the
    cache's bytes and the cached K/V read are priced at its width.

    `materialized_scores` says the runtime writes the attention as einsums
    (scores = Q K^T in HBM, a softmax, then scores V), as XLA runs it
    without a flash kernel (jetstream-pytorch's Attention, MaxText's
    attention=dot_product), instead of the flash kernels' blocks; it
    changes the price only (loom-import / loom-plan --attention
    materialized).

    `decode_query_rows = N`, with `materialized_scores`, says the runtime
    runs a decode step's one query as N rows (jetstream-pytorch broadcasts
    it to two and keeps the first result row; loom-import --attention
    jetstream-pytorch): its einsums and scores are N times a single
    query's. It changes the price only, and only of a decode step.

    `kv_scales_across_heads`, with an int8 `kv_type`, says the runtime
    quantizes each new token's K and V with one scale over all heads
    (jetstream-pytorch's Int8KVCacheGenerate.quantize: amax over heads and
    head_dim), so with the heads split over chips a decode step takes a
    cross-chip max for K's scale and one for V's: two small all-reduces
    over the tensor-parallel group before the cache write (loom-import
    --attention jetstream-pytorch --kv-dtype int8).

    In training, `dropout = p` drops attention probabilities with
    probability p (GPT-3's attention dropout). With `materialized_scores`
    the forward pass keeps, for the backward, the softmax's output (2 bytes
    per score) and, with dropout, its mask (1) and output (2): 5 bytes per
    score of the `[B, heads, Sq, Sk]` matrix (Korthikanti et al., MLSys
    2023, section 4.1). `recompute_scores` (selective rematerialisation)
    keeps none of them and computes them again in the backward pass: the
    forward's score matmul and softmax once more. Flash attention keeps
    no scores either way (its backward pass recomputes them by design).

    ```mlir
    %a = loom.attention %q, %k, %v {heads = 64, kv_heads = 8, head_dim = 128, causal}
        : tensor<1x2048x8192xbf16>, tensor<1x2048x1024xbf16> -> tensor<1x2048x8192xbf16>
    ```
  }];
  let arguments = (ins Loom_Tensor:$q, Loom_Tensor:$k, Loom_Tensor:$v,
                       ConfinedAttr<I64Attr, [IntPositive]>:$heads,
                       ConfinedAttr<I64Attr, [IntPositive]>:$kv_heads,
                       ConfinedAttr<I64Attr, [IntPositive]>:$head_dim,
                       UnitAttr:$causal, UnitAttr:$cross,
                       DefaultValuedAttr<ConfinedAttr<I64Attr, [IntNonNegative]>, "0">:$cached,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$window,
                       OptionalAttr<TypeAttr>:$kv_type,
                       UnitAttr:$materialized_scores,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$decode_query_rows,
                       UnitAttr:$kv_scales_across_heads,
                       OptionalAttr<F64Attr>:$dropout,
                       UnitAttr:$recompute_scores);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = [{
    $q `,` $k `,` $v attr-dict `:` type($q) `,` type($k) `->` type($result)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Query/key pairs visited per head and batch element.
    int64_t getScorePairs();
    /// Keys visited by `queries` causal queries after `before` earlier
    /// tokens, each seeing itself and the ones before it, at most `window`
    /// of them (0: no window). Saturating, as every cost figure.
    static int64_t countCausalPairs(int64_t queries, int64_t before,
                                    int64_t window);
    /// Earlier tokens whose K/V stay visible: all `cached`, or at most the
    /// window.
    int64_t getVisibleCached();
    /// Bytes per element of the KV cache: kv_type's, else k's.
    int64_t getKVElementBytes();
  }];
}

def Loom_JointAttentionOp : Loom_Op<"joint_attention",
    [AllTypesMatch<["q_img", "k_img", "v_img", "img"]>,
     AllTypesMatch<["q_txt", "k_txt", "v_txt", "txt"]>],
    ["getPaddedFlops", "getSliceTerms"],
    ["whyNotShardable", "applyShardingRule", "getShardingRule"],
    ["getGradientWork"]> {
  let summary = "MMDiT joint attention over text and image tokens";
  let description = [{
    SD3 / Flux double blocks: the image stream and the text stream each have
    their own q, k, v (`[B, S_img, H]` and `[B, S_txt, H]`, `H = heads *
    head_dim`); attention runs over the concatenation of both sequences
    (text first, as in diffusers), without a mask, and the output is split
    back into the two streams.

    As a ring (loom-shard-sequence mode=ring; Liu et al., arXiv 2310.01889):
    with `group` and `group_size` N, each chip holds its block of the image
    tokens and attends its queries to the K/V blocks passed round the N
    chips of the group, one per step. `ring_text`: the text is split as the
    image is and its K/V blocks ride with the image's; otherwise every chip
    holds the whole text, attends it once, and computes the text stream's
    output in full (xDiT keeps a text that does not split whole on every
    chip, as `split_text_embed_in_sp` = False).

    ```mlir
    %img, %txt = loom.joint_attention %qi, %ki, %vi, %qt, %kt, %vt {heads = 24, head_dim = 64}
        : tensor<2x4096x1536xbf16>, tensor<2x333x1536xbf16>
    ```
  }];
  let arguments = (ins Loom_Tensor:$q_img, Loom_Tensor:$k_img,
                       Loom_Tensor:$v_img, Loom_Tensor:$q_txt,
                       Loom_Tensor:$k_txt, Loom_Tensor:$v_txt,
                       ConfinedAttr<I64Attr, [IntPositive]>:$heads,
                       ConfinedAttr<I64Attr, [IntPositive]>:$head_dim,
                       OptionalAttr<StrAttr>:$group,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntPositive]>>:$group_size,
                       UnitAttr:$ring_text);
  let results = (outs Loom_Tensor:$img, Loom_Tensor:$txt);
  let assemblyFormat = [{
    $q_img `,` $k_img `,` $v_img `,` $q_txt `,` $k_txt `,` $v_txt attr-dict
    `:` type($q_img) `,` type($q_txt)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Ring steps: group_size as a ring, else 1.
    int64_t getRingSteps() { return getGroupSize().value_or(1); }
    /// Keys each query sees over all steps (every token of both streams).
    int64_t getKeyTokens();
    /// Bytes of the K/V block passed to the next chip at each step.
    int64_t getRingBlockBytes();
  }];
}

//===----------------------------------------------------------------------===//
// Collectives (produced by sharding)
//===----------------------------------------------------------------------===//

// `kind` names the CollectiveKind case; `counted` the operand or result
// whose bytes the cost model counts (see CollectiveOpInterface).
class Loom_CollectiveOp<string mnemonic, string what, string kind,
                        string counted = "Input">
    : Loom_Op<mnemonic, [CollectiveOpInterface], [], [], ["buildGradient"]> {
  let summary = what # " over a named device group";
  let arguments = (ins Loom_Tensor:$input, StrAttr:$group,
                       ConfinedAttr<I64Attr, [IntPositive]>:$group_size,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$dim);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::loom::CollectiveKind getCollectiveKind() {
      return ::loom::CollectiveKind::}] # kind # [{;
    }
    int64_t getCollectiveBytes() {
      return ::loom::getTensorBytes(get}] # counted # [{().getType());
    }
  }];
}

def Loom_LocalShardOp : Loom_Op<"local_shard", [], ["getSliceTerms"], [],
                                ["buildGradient"]> {
  let summary = "This chip's piece of a replicated tensor (no communication)";
  let description = [{
    Every chip of the group holds the whole operand; each keeps the
    `group_size`-th piece of `dim` that its rank owns. Used by sequence
    parallelism to enter the sequence-sharded layout from a replicated
    tensor without moving a byte.
  }];
  let arguments = (ins Loom_Tensor:$input, StrAttr:$group,
                       ConfinedAttr<I64Attr, [IntPositive]>:$group_size,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$dim);
  let results = (outs Loom_Tensor:$result);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($result)";
  let hasVerifier = 1;
}

def Loom_AllReduceOp : Loom_CollectiveOp<"all_reduce", "Sum of a tensor", "AllReduce"> {
  let description = [{ Result type equals the operand type; no `dim`. }];
}
def Loom_AllGatherOp : Loom_CollectiveOp<"all_gather", "Concatenation of shards",
                                         "AllGather", "Result"> {
  let description = [{ `dim` of the result is `group_size` times the operand's. }];
}
def Loom_ReduceScatterOp : Loom_CollectiveOp<"reduce_scatter", "Sum, then scatter",
                                             "ReduceScatter"> {
  let description = [{ `dim` of the operand is `group_size` times the result's. }];
}
def Loom_AllToAllOp : Loom_CollectiveOp<"all_to_all", "Exchange of shards",
                                        "AllToAll"> {
  let description = [{
    Without `concat_dim`, the result type equals the operand type and `dim`
    names the exchanged dimension (MoE dispatch and combine). With
    `concat_dim` (Ulysses sequence parallelism), each member cuts `dim` into
    `group_size` pieces, sends piece j to member j and concatenates what it
    receives along `concat_dim`: the result's `dim` is `group_size` times
    smaller and its `concat_dim` `group_size` times larger. Either way each
    member sends all but 1/group_size of its bytes.
  }];
  let arguments = (ins Loom_Tensor:$input, StrAttr:$group,
                       ConfinedAttr<I64Attr, [IntPositive]>:$group_size,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$dim,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$concat_dim);
}

def Loom_GatherWeightsOp : Loom_Op<"gather_weights", [HasParent<"LayerOp">],
    ["getSliceTerms"], [], ["buildGradient"]> {
  let summary = "All-gather of a layer's weights over its group (weight-gathered)";
  let description = [{
    The first op of a `loom.layer` under the weight-gathered layout (Pope et
    al., "Efficiently Scaling Transformer Inference", MLSys 2023, section
    3.2.3; #loom.parallel's weight_gathered): each chip of the group of
    `group_size` stores 1/group_size of the layer's weights and the group
    all-gathers them, `bytes` in all (the layer's weights; each chip
    receives (group_size - 1) / group_size of them), before the layer runs
    whole on the chip's share of the batch. The lowering prefetches: the
    gather of the next layer runs while this one computes, into a second
    buffer.

    ```mlir
    loom.gather_weights {bytes = 1610612736 : i64, group = "tp", group_size = 8 : i64}
    ```
  }];
  let arguments = (ins StrAttr:$group,
                       ConfinedAttr<I64Attr, [IntPositive]>:$group_size,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$bytes);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}

// Several tensors' collectives of one kind over one group, issued as one
// (XLA's AllReduceCombiner, ReduceScatterCombiner and AllGatherCombiner):
// one start and done, one synchronisation and one set of ring steps carry
// all the tensors. Each result is its operand's collective, by the single
// op's rule. `counted` names the variadic side whose bytes the cost model
// counts.
class Loom_CombinedCollectiveOp<string mnemonic, string what, string kind,
                                string counted = "Inputs">
    : Loom_Op<mnemonic, [CollectiveOpInterface], [], [], ["buildGradient"]> {
  let summary = what # " of several tensors over a named device group, as one collective";
  let arguments = (ins Variadic<Loom_Tensor>:$inputs, StrAttr:$group,
                       ConfinedAttr<I64Attr, [IntPositive]>:$group_size,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$dim);
  let results = (outs Variadic<Loom_Tensor>:$results);
  let assemblyFormat = "$inputs attr-dict `:` functional-type($inputs, $results)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    ::loom::CollectiveKind getCollectiveKind() {
      return ::loom::CollectiveKind::}] # kind # [{;
    }
    int64_t getCollectiveBytes() {
      return ::loom::getTensorBytes(get}] # counted # [{().getTypes());
    }
  }];
}

def Loom_CombinedAllReduceOp
    : Loom_CombinedCollectiveOp<"combined_all_reduce", "Sums", "AllReduce"> {
  let description = [{
    Each result's type equals its operand's; no `dim`. The 2-D layout's q,
    k and v partial sums over tp_x (or gate's and up's) when they are
    all-reduced.
  }];
}
def Loom_CombinedReduceScatterOp
    : Loom_CombinedCollectiveOp<"combined_reduce_scatter", "Sums, then scatters",
                                "ReduceScatter"> {
  let description = [{
    `dim` of each operand is `group_size` times its result's. The 2-D
    layout's q, k and v partial sums reduce-scattered over tp_x by heads, or
    gate's and up's by d_ff (Pope et al. 2023, section 3.2.2, whose q, gate
    and up are one projection and so one collective).
  }];
}
def Loom_CombinedAllGatherOp
    : Loom_CombinedCollectiveOp<"combined_all_gather", "Concatenations of shards",
                                "AllGather", "Results"> {
  let description = [{ `dim` of each result is `group_size` times its operand's. }];
}

def Loom_CombinedAllToAllOp
    : Loom_CombinedCollectiveOp<"combined_all_to_all", "Exchanges of shards",
                                "AllToAll"> {
  let description = [{
    Each operand's `dim` shrinks by `group_size` and its `concat_dim` grows
    by it, as `loom.all_to_all` with `concat_dim`: Ulysses' exchange of q, k
    and v from sequence shards to head shards, one collective for the three.
  }];
  let arguments = (ins Variadic<Loom_Tensor>:$inputs, StrAttr:$group,
                       ConfinedAttr<I64Attr, [IntPositive]>:$group_size,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$dim,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$concat_dim);
}

include "Loom/LoomMoEOps.td"
include "Loom/LoomSequenceOps.td"
include "Loom/LoomTrainingOps.td"

#endif // LOOM_OPS_TD
