//===- Passes.td - Loom conversions -------------------------*- tablegen -*-===//

#ifndef LOOM_CONVERSION_PASSES_TD
#define LOOM_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def ConvertLoomToSched : Pass<"convert-loom-to-sched", "mlir::ModuleOp"> {
  let summary = "Lower a planned loom model to per-chip sched programs";
  let description = [{
    Replaces the model function with a `sched.program`: for every chip of
    every data-parallel replica, pipeline stage and tensor-parallel rank
    (laid out by the DeviceMesh on the module's target), the ordered tasks
    it runs.

    - Per stage, slice and layer, a compute task per loom op (FLOPs and HBM
      bytes of that op on that slice, from the shared cost model's slice
      rescaling) and a collective task per loom collective over the stage's
      tensor-parallel group.
    - The activations of each slice are sent from a stage's chips to the
      same ranks of the next stage.
    - Weights (and KV caches, or PipeFusion's stale K/V) are allocated once
      per chip; each slice's activations are allocated before its first
      layer and freed after its last.
    - Diffusion models run `steps` denoising steps of M patches: the last
      stage sends each patch back to the first for the next step; the
      first `warmup` steps end with a barrier (every patch of the step
      returns before the next step starts), later steps stream.

    Tasks of a slice depend on the previous one; a receive waits for
    nothing, so it overlaps the previous slice's compute. Unsharded or
    unpipelined modules lower too (tp 1, one stage, one slice).

    A training step (loom-derive-training-step's) lowers to each
    microbatch's forward and backward passes, the gradients' reductions
    and the optimizer's updates (docs/training.md, "The step on chips"); on
    several stages each stage runs its passes in the order of
    `#loom.pipeline`'s `schedule`, its activations and their gradients
    sent between the stages ("Pipeline schedules"). Token slices of a
    training step, interleave, decompose and scatter-handover are refused
    for it.

    With `interleave=N`, each stage takes its units (slices, or the patches
    of one step) in groups of N and emits their ops zipped, so that one
    unit's collectives run while the TensorCore computes the others
    (docs/overlap.md). N above the slices or patches of a step is refused.

    With `decompose`, each tensor-parallel matmul and the collective beside
    it (the reduce-scatter or all-reduce of a row-split matmul's partial
    sums, the sequence all-gather before a matmul) run as a collective
    matmul (Wang et al., ASPLOS 2023): n partial matmuls of 1/n of the
    unit's rows (an all-reduce's: of 1/n of the output columns, which its
    all-gather half gathers back), and per ring step a send / recv of half
    a block to each
    ring neighbour, so that the transfers run under the partial matmuls;
    an all-reduce's all-gather half stays a collective. A group that is not
    a ring of neighbours, a unit whose rows do not split into n equal
    blocks, and decompose with interleave above 1 are refused.

    With `scatter-handover`, a stage boundary whose activations every
    tensor-parallel rank holds whole (tp above 1, without Megatron sequence
    parallelism, 2-D blocks or weight-gathered layers, which already leave
    each rank a distinct share) is handed over as Megatron-LM does
    (Narayanan et al., SC'21, section 4.1, "scatter/gather"): each rank
    sends 1/tp of it to the same rank of the next stage, whose tp group
    all-gathers it, and the unit's work there waits for the gather.
    A plan whose boundaries are already split is refused.

    With `serving-batch=L@C,...`, the program is one serving iteration
    instead of the plan's pass: sequences of L tokens after C cached ones
    (a prompt chunk, or with L = 1 a decode token), each one of the
    module's batch, run together as a serving engine's batch runs them:
    every token-wise kernel and collective once over all their tokens, each
    causal attention one kernel over every sequence (docs/serving.md). Only
    a module planned on one stage of one slice lowers so, without
    decomposed collectives, gathered weights or ring attention.
  }];
  let options = [
    Option<"interleave", "interleave", "int64_t", /*default=*/"1",
           "Units of a stage whose ops run zipped, so that one unit's "
           "collectives overlap the others' compute">,
    Option<"decompose", "decompose", "bool", /*default=*/"false",
           "Run tensor-parallel collective matmuls as ring steps under "
           "partial matmuls">,
    Option<"scatterHandover", "scatter-handover", "bool", /*default=*/"false",
           "Hand stage boundaries over scattered 1/tp a rank and all-gather "
           "them on the next stage (Megatron-LM's scatter/gather)">,
    ListOption<"servingBatch", "serving-batch", "std::string",
               "Lower one serving iteration instead: these sequences, each "
               "length@context (a prompt chunk or a decode token after its "
               "cached tokens), run together as one step">
  ];
  let dependentDialects = ["::loom::sched::SchedDialect"];
}

#endif // LOOM_CONVERSION_PASSES_TD
