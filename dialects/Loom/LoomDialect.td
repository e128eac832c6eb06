//===- LoomDialect.td - the loom dialect -------------------*- tablegen -*-===//
//
// The loom dialect describes transformer (decoder LLM) and diffusion
// transformer (DiT) graphs at the granularity the partitioner reasons about:
// projections, attention, norms, activations and the blocks they form.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_DIALECT_TD
#define LOOM_DIALECT_TD

include "mlir/IR/OpBase.td"

def Loom_Dialect : Dialect {
  let name = "loom";
  let cppNamespace = "::loom";
  let summary = "Transformer and diffusion-transformer model graphs";
  let description = [{
    A model is a `func.func` whose body is a sequence of `loom.layer` region
    ops, one per transformer or DiT block, plus the ops before and after the
    blocks (embedding, patchify, timestep embedding, final norm, LM head,
    unpatchify). Values are statically shaped builtin tensors whose batch,
    sequence and hidden dimensions are explicit, so that every parameter,
    activation and KV-cache byte can be counted from the IR alone.

    Weights are implied by the op and its types (a `loom.linear` from a
    `[..., In]` tensor to a `[..., Out]` tensor owns an `In x Out` weight)
    or made explicit with `loom.param` where they are not (PixArt-alpha's
    per-block scale/shift table). Weights share the element type of the
    activations they produce.
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let hasRegionArgAttrVerify = 1;
}

#endif // LOOM_DIALECT_TD
