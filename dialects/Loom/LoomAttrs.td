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
    const ::loom::SliceDesc *getSlice() const;
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

#endif // LOOM_ATTRS_TD
