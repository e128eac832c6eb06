//===- Passes.td - Loom passes ------------------------------*- tablegen -*-===//

#ifndef LOOM_TRANSFORMS_PASSES_TD
#define LOOM_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def ModelSummary : Pass<"loom-model-summary", "mlir::ModuleOp"> {
  let summary = "Print parameters, FLOPs and bytes per layer and in total";
  let description = [{
    An analysis: prints a table with one row per `loom.layer` (and one for
    the ops before and after the blocks) of what the cost interface says:
    parameters, forward FLOPs, HBM bytes read and written, and KV-cache
    bytes; then the model's totals as exact integers. The IR is unchanged.

    Example: `loom-opt --loom-model-summary model.mlir -o /dev/null`.
  }];
  let options = [
    Option<"perLayer", "per-layer", "bool", /*default=*/"true",
           "Print a row per layer (otherwise only the totals)">,
  ];
}

#endif // LOOM_TRANSFORMS_PASSES_TD
