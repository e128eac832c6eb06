//===- LoomAttrs.td - loom dialect attributes ---------------*- tablegen -*-===//

#ifndef LOOM_ATTRS_TD
#define LOOM_ATTRS_TD

include "Loom/LoomDialect.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Loom_TargetAttr : AttrDef<Loom_Dialect, "Target"> {
  let mnemonic = "target";
  let summary = "The TPU target and slice a module is planned for";
  let description = [{
    Names a target description (a bundled `targets/*.json`, or one loaded
    with `--target-file`) and the shape of the slice, which must be one of
    the target's slices:

    ```mlir
    module attributes {loom.target = #loom.target<"tpu-v5e", shape = [4, 4]>}
    ```
  }];
  let parameters = (ins StringRefParameter<"target name">:$name,
                        ArrayRefParameter<"int64_t", "slice shape">:$shape);
  let assemblyFormat = "`<` $name `,` `shape` `=` `[` $shape `]` `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The target description; null only for an unverified attribute.
    const ::loom::TargetDesc *getTargetDesc() const;
    /// The slice of the target this attribute names.
    const ::loom::TopologyDesc *getTopology() const;
  }];
}

def Loom_SplitKind : I32EnumAttr<"SplitKind", "how a weight is split", [
    I32EnumAttrCase<"column", 0>, I32EnumAttrCase<"row", 1>,
    I32EnumAttrCase<"vocab", 2>, I32EnumAttrCase<"heads", 3>]> {
  let cppNamespace = "::loom";
  let genSpecializedAttr = 0;
}

def Loom_SplitAttr : AttrDef<Loom_Dialect, "Split"> {
  let mnemonic = "split";
  let summary = "How loom-shard-heads split an op across a tensor-parallel group";
  let description = [{
    `column`: a projection's output features are split (each chip holds
    whole heads or a slice of the MLP's width); `row`: its input features
    are, and the partial results are summed by the all-reduce that follows;
    `vocab`: an embedding's or LM head's vocabulary rows are; `heads`: an
    attention's heads are. `parts` is how many distinct pieces there are and
    `replicas` how many chips hold each piece: K and V projections of a
    grouped-query model with fewer KV heads than chips are split into
    `kv_heads` pieces, each replicated `tp / kv_heads` times, as vLLM does.

    ```mlir
    %k = loom.linear k %h {loom.split = #loom.split<column, 8, replicas = 2>} : ...
    ```
  }];
  let parameters = (ins EnumParameter<Loom_SplitKind>:$kind,
                        "int64_t":$parts,
                        DefaultValuedParameter<"int64_t", "1">:$replicas);
  let assemblyFormat = "`<` $kind `,` $parts (`,` `replicas` `=` $replicas^)? `>`";
  let genVerifyDecl = 1;
}

def Loom_PipelineMode : I32EnumAttr<"PipelineMode", "what the slices are", [
    I32EnumAttrCase<"tokens", 0>, I32EnumAttrCase<"patches", 1>]> {
  let cppNamespace = "::loom";
  let genSpecializedAttr = 0;
}

class Loom_DefaultEnumParameter<EnumAttrInfo info, string value>
    : EnumParameter<info> {
  let defaultValue = value;
}
defvar Loom_DefaultTokens =
    Loom_DefaultEnumParameter<Loom_PipelineMode, "::loom::PipelineMode::tokens">;

def Loom_PipelineAttr : AttrDef<Loom_Dialect, "Pipeline"> {
  let mnemonic = "pipeline";
  let summary = "The pipeline plan of a model function";
  let description = [{
    Set on the model's `func.func` as `loom.pipeline` by loom-partition-layers
    (the stage count; each `loom.layer` carries its `stage`) and refined by
    loom-split-tokens (the slices, in tokens, that flow through the stages
    one after another).

    `tokens` (the default): TeraPipe slices of a causal sequence; a slice
    attends to the slices before it. `patches`: PipeFusion patches of a DiT
    image, equal in size; from the first step after `warmup` synchronous
    steps on, a stage attends over the previous step's (stale) K/V for the
    patches it has not seen yet in this step, so patches stream through the
    stages across `steps` denoising steps without a per-step barrier.

    ```mlir
    func.func @llama_65b(...) attributes {loom.pipeline = #loom.pipeline<stages = 4, slices = [640, 512, 480, 416]>}
    func.func @dit_xl_2(...) attributes {loom.pipeline = #loom.pipeline<stages = 4, slices = [256, 256, 256, 256], patches, steps = 50, warmup = 1>}
    ```
  }];
  let parameters = (ins "int64_t":$stages,
                        ArrayRefParameter<"int64_t", "slice lengths">:$slices,
                        Loom_DefaultTokens:$mode,
                        DefaultValuedParameter<"int64_t", "0">:$steps,
                        DefaultValuedParameter<"int64_t", "0">:$warmup);
  let assemblyFormat = [{
    `<` `stages` `=` $stages `,` `slices` `=` `[` $slices `]`
    (`,` $mode^)? (`,` `steps` `=` $steps^)? (`,` `warmup` `=` $warmup^)? `>`
  }];
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    int64_t getTokens() const;
  }];
}

#endif // LOOM_ATTRS_TD
