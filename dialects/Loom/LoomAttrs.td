//===- LoomAttrs.td - loom dialect attributes ---------------*- tablegen -*-===//

#ifndef LOOM_ATTRS_TD
#define LOOM_ATTRS_TD

include "Loom/LoomDialect.td"
include "mlir/IR/AttrTypeBase.td"

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

#endif // LOOM_ATTRS_TD
