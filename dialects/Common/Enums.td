//===- Enums.td - enums shared by the IR, schedules and costs -*- tablegen -*-===//
//
// One definition of each enum that the loom and sched dialects, the schedule
// file (lib/Schedule, which reads plain data without MLIR IR) and the cost
// model all speak. Only the C++ enum and its string conversions are
// generated here (no attribute class): a dialect that stores one in an
// attribute declares its own EnumAttr over it, as the sched dialect does.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_COMMON_ENUMS_TD
#define LOOM_COMMON_ENUMS_TD

include "mlir/IR/EnumAttr.td"

// The spellings are the textual IR's and the schedule file's.
def Loom_CollectiveKind : I32EnumAttr<"CollectiveKind", "a collective", [
    I32EnumAttrCase<"AllReduce", 0, "all_reduce">,
    I32EnumAttrCase<"AllGather", 1, "all_gather">,
    I32EnumAttrCase<"ReduceScatter", 2, "reduce_scatter">,
    I32EnumAttrCase<"AllToAll", 3, "all_to_all">]> {
  let cppNamespace = "::loom";
  let genSpecializedAttr = 0;
}

def Loom_MemoryKind : I32EnumAttr<"MemoryKind", "what an allocation holds", [
    I32EnumAttrCase<"Weights", 0, "weights">,
    I32EnumAttrCase<"Activations", 1, "activations">,
    I32EnumAttrCase<"KVCache", 2, "kv_cache">,
    // A training step's: the parameters' gradients, the optimizer's state
    // with the master copy of the weights, and the buffers collectives
    // gather into or reduce from (FSDP's gathered weights, a gradient
    // bucket before its reduce-scatter).
    I32EnumAttrCase<"Gradients", 3, "gradients">,
    I32EnumAttrCase<"OptimizerState", 4, "optimizer_state">,
    I32EnumAttrCase<"Buffers", 5, "buffers">]> {
  let cppNamespace = "::loom";
  let genSpecializedAttr = 0;
}

#endif // LOOM_COMMON_ENUMS_TD
