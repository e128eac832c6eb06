//===- LoomTrainingOps.td - the training step ---------------*- tablegen -*-===//
//
// What loom-derive-training-step adds to a forward graph: the loss, the
// backward pass (loom.layer_grad per layer, loom.grad per op's gradient
// part, and the transposes of collectives) and the optimizer's update.
// Included from LoomOps.td.
//
//===----------------------------------------------------------------------===//

// The two parts of an op's gradient (loom.grad; a training schedule's B and
// W passes): the cotangents of its operands, and of its parameters.
def Loom_GradientPart : I32EnumAttr<"GradientPart", "a part of an op's gradient", [
    I32EnumAttrCase<"Input", 0, "input">,
    I32EnumAttrCase<"Weight", 1, "weight">]> {
  let cppNamespace = "::loom";
  let genSpecializedAttr = 0;
}
def Loom_GradientPartAttr : EnumAttr<Loom_Dialect, Loom_GradientPart, "part">;

// The optimizers a training step updates its parameters with.
def Loom_Optimizer : I32EnumAttr<"Optimizer", "an optimizer", [
    I32EnumAttrCase<"AdamW", 0, "adamw">,
    I32EnumAttrCase<"Adafactor", 1, "adafactor">,
    I32EnumAttrCase<"SGD", 2, "sgd">]> {
  let cppNamespace = "::loom";
  let genSpecializedAttr = 0;
}
def Loom_OptimizerAttr : EnumAttr<Loom_Dialect, Loom_Optimizer, "optimizer">;

def Loom_LossKind : I32EnumAttr<"LossKind", "what a loss measures", [
    I32EnumAttrCase<"cross_entropy", 0>, I32EnumAttrCase<"mse", 1>]> {
  let cppNamespace = "::loom";
  let genSpecializedAttr = 0;
}
def Loom_LossKindAttr : EnumAttr<Loom_Dialect, Loom_LossKind, "loss">;

def Loom_LossOp : Loom_Op<"loss", [], ["getBytesRead"], [],
                          ["getGradientWork", "buildGradient"]> {
  let summary = "The training loss of a model's output";
  let description = [{
    `cross_entropy`: a language model's next-token loss over logits
    `[B, S, vocab]` (a log-sum-exp over the vocabulary per token, and the
    label's logit: 4 vector operations per logit; the labels are data). `mse`:
    a diffusion model's mean squared error between its prediction and the
    noise (or velocity) target, read beside it: 3 per element. The result
    is the scalar loss; its gradient (softmax minus the one-hot labels, or
    twice the difference) is what the backward pass starts from.

    ```mlir
    %loss = loom.loss cross_entropy %logits : tensor<1x2048x32000xbf16> -> tensor<f32>
    ```
  }];
  let arguments = (ins Loom_LossKindAttr:$kind, Loom_Tensor:$input);
  let results = (outs 0DTensorOf<[F32]>:$result);
  let assemblyFormat = "$kind $input attr-dict `:` type($input) `->` type($result)";
}

def Loom_GradOp : Loom_Op<"grad", [],
    ["getFlops", "getPaddedFlops", "getParameterCount", "getBytesRead",
     "getBytesWritten", "getComputeBits", "getSliceTerms"], [],
    ["getGradientWork", "buildGradient"]> {
  let summary = "One part of an op's gradient";
  let description = [{
    The `input` part (the cotangents of the forward op's operands listed in
    `wrt`, one result each) or the `weight` part (the cotangents of its
    parameters, accumulated into the step's gradients; no results) of the
    gradient of the op that defines `forward`, its first result. The
    operands after `forward` are the cotangents of the forward op's results
    listed in `cotangents_of`. With `accumulate`, a weight part adds to the
    gradients of the microbatches before (gradient accumulation: it reads
    them and writes the sum). Its work, what it reads of the forward pass
    and how it scales with a token slice are the forward op's
    (GradientOpInterface), so a `loom.grad` is priced as the op it
    differentiates says.

    ```mlir
    %dx = loom.grad input %y(%dy) {cotangents_of = array<i64: 0>, wrt = array<i64: 0>}
        : tensor<1x2048x4096xbf16>, (tensor<1x2048x4096xbf16>) -> tensor<1x2048x4096xbf16>
    loom.grad weight %y(%dy) {cotangents_of = array<i64: 0>, wrt = array<i64>}
        : tensor<1x2048x4096xbf16>, (tensor<1x2048x4096xbf16>) -> ()
    ```
  }];
  let arguments = (ins Loom_GradientPartAttr:$part, Loom_Tensor:$forward,
                       Variadic<Loom_Tensor>:$cotangents,
                       DenseI64ArrayAttr:$cotangents_of,
                       DenseI64ArrayAttr:$wrt,
                       UnitAttr:$accumulate);
  let results = (outs Variadic<Loom_Tensor>:$results);
  let assemblyFormat = [{
    $part $forward `(` $cotangents `)` attr-dict `:` type($forward) `,`
    functional-type($cotangents, $results)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The op whose gradient this is.
    ::loom::GradientOpInterface getForwardOp();
    /// Its work, as the forward op states it.
    ::loom::GradientWork getWork(int64_t tile = 1);
  }];
}

def Loom_LayerGradOp : Loom_Op<"layer_grad", [IsolatedFromAbove, SingleBlock],
    ["getFlops", "getPaddedFlops", "getParameterCount", "getParameterBytes",
     "getBytesRead", "getBytesWritten", "getKVCacheBytes", "getSliceTerms"],
    ["whyNotShardable", "applyShardingRule"],
    ["getGradientWork", "buildGradient"]> {
  let summary = "The backward pass of one loom.layer";
  let description = [{
    The gradient of layer `index`: its inputs are the forward layer's
    inputs (kept from the forward pass) followed by the cotangents of its
    results (of those listed in `cotangents_of` when only some reach the
    loss, e.g. a last block's text stream); its results are the cotangents
    of the forward layer's inputs.
    The body first holds the forward layer's ops, each marked `loom.kept`
    (its results were kept from the forward pass and cost nothing here) or
    `loom.recompute` (run again before the backward: rematerialisation,
    which costs its forward work); then the backward ops, in reverse order
    of the forward's: `loom.grad` ops, the transposes of collectives, and
    the sums of cotangents where a value had several uses. `stage` is the
    pipeline stage, as the forward layer's. Its costs are the sums of its
    body's, the kept ops excluded.

    ```mlir
    %dx = loom.layer_grad 0 (%x, %dy) {kind = "llama"} : (tensor<1x2048x4096xbf16>, tensor<1x2048x4096xbf16>) -> tensor<1x2048x4096xbf16> {
    ^bb0(%in: tensor<1x2048x4096xbf16>, %dout: tensor<1x2048x4096xbf16>):
      %h = loom.rms_norm %in {loom.kept} : tensor<1x2048x4096xbf16>
      ...
      loom.yield %din : tensor<1x2048x4096xbf16>
    }
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$index,
                       Variadic<Loom_Tensor>:$inputs,
                       OptionalAttr<StrAttr>:$kind,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$stage,
                       OptionalAttr<DenseI64ArrayAttr>:$cotangents_of);
  let results = (outs Variadic<Loom_Tensor>:$results);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = [{
    $index `(` $inputs `)` attr-dict `:` functional-type($inputs, results)
    $body
  }];
  let hasRegionVerifier = 1;
  let extraClassDeclaration = [{
    /// Bytes the forward pass keeps for this backward pass, per
    /// microbatch: the layer's inputs and the kept ops' results that the
    /// gradients or the recomputed ops read, and what kept ops keep inside
    /// them (a materialised softmax, a dropout mask).
    int64_t getKeptBytes();
    /// Of those, the bytes of the values kept in host memory: the results
    /// (and what they keep inside) of kept ops marked `loom.offloaded`,
    /// copied to the host after the forward pass and back before the
    /// backward pass. getKeptBytes() - getOffloadedBytes() stay in HBM.
    int64_t getOffloadedBytes();
  }];
}

def Loom_OptimizerUpdateOp : Loom_Op<"optimizer_update", [],
    ["getBytesRead", "getBytesWritten"], [],
    ["getGradientWork", "buildGradient"]> {
  let summary = "The optimizer's update of a group of parameters";
  let description = [{
    Once per training step, after the gradients of every microbatch are
    accumulated: updates `parameters` parameters (those of layer `layer`,
    or, without it, the ones outside the layers: embeddings, head, final
    norm) by `optimizer`, holding `state_elements` elements of optimizer
    state in `state_type` and, with `master_type`, a master copy of the
    weights in that type beside the compute copy (`weight_type`). The
    gradients are read in `grad_type`. An update is vector work bound by
    HBM bandwidth: it reads the gradient, the weights (the master copy
    when there is one) and the state, and writes the weights (both copies)
    and the state back. `vector_ops_per_parameter` is the optimizer's
    arithmetic per parameter.

    ```mlir
    loom.optimizer_update {layer = 0 : i64, optimizer = adamw, parameters = 218112000 : i64,
        state_elements = 436224000 : i64, state_type = f32, master_type = f32,
        weight_type = bf16, grad_type = bf16, vector_ops_per_parameter = 16 : i64}
    ```
  }];
  let arguments = (ins OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$layer,
                       Loom_OptimizerAttr:$optimizer,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$parameters,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$state_elements,
                       TypeAttr:$state_type,
                       OptionalAttr<TypeAttr>:$master_type,
                       TypeAttr:$weight_type,
                       TypeAttr:$grad_type,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$vector_ops_per_parameter,
                       OptionalAttr<ConfinedAttr<I64Attr, [IntNonNegative]>>:$stage);
  let assemblyFormat = "attr-dict";
  let hasVerifier = 1;
}
