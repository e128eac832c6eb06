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

def Estimate : Pass<"loom-estimate", "mlir::ModuleOp"> {
  let summary = "Annotate each layer with its estimated time on the target";
  let description = [{
    Reads the module's `loom.target` attribute (or sets it from the `slice`
    option) and gives every `loom.layer` a `loom.time_us` attribute: the
    estimated microseconds of the layer on one chip of the target, the sum
    over its ops of the roofline time of their MXU-padded FLOPs and HBM
    bytes (see CostModel.h). With `remarks`, each layer also gets a remark
    saying whether it is compute- or memory-bound.

    Example:
    `loom-opt --loom-estimate=slice=v5e-4 model.mlir`
  }];
  let options = [
    Option<"slice", "slice", "std::string", /*default=*/"\"\"",
           "Slice to plan for (e.g. v5e-4) when the module has no "
           "loom.target; searched in every known target">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark per layer">,
  ];
}

#endif // LOOM_TRANSFORMS_PASSES_TD
