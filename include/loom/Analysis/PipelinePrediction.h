//===- PipelinePrediction.h - closed-form pipeline player -------*- C++ -*-===//
//
// The cost model's prediction of a pipeline: units (token slices or
// patches) played through the stages as the lowering orders them, with the
// stages' times from StageSliceCost.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_ANALYSIS_PIPELINEPREDICTION_H
#define LOOM_ANALYSIS_PIPELINEPREDICTION_H

#include "loom/Analysis/StageSliceCost.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace loom {

/// A pipeline's time, and the share of it the busiest stage sits idle (its
/// bubble).
struct PipelinePrediction {
  double seconds = 0;
  double bubble = 0;
};

/// One unit of a pipeline (a token slice or a PipeFusion patch): its
/// seconds on each stage, and the seconds of its handover into each stage
/// (into stage 0: its return from the last stage for its next step).
struct PipelineUnit {
  llvm::SmallVector<double> work, handover;
};

/// Plays a pipeline through: every stage takes the units in order, `steps`
/// times over (PipeFusion's denoising steps; 1 for token slices). A unit
/// starts on a stage once the stage is free and the unit has arrived from
/// the previous stage, or, on stage 0 in a later step, from the last stage;
/// after each of the first `warmup` steps all units must be back first.
/// Each stage takes its own time, so uneven stages are priced as they are.
/// With equal stages of t and no handovers this gives TeraPipe's
/// sum(t_i) + (K - 1) max(t_i) for increasing t_i and PipeFusion's
/// (S M + K - 1) t for M >= K patches (Wang et al. 2024).
PipelinePrediction playPipeline(llvm::ArrayRef<PipelineUnit> units,
                                int64_t steps, int64_t warmup);

/// Plays an interleaved pipeline (Narayanan et al., SC'21, section 2.2.2):
/// each unit's `work` and `handover` are per chunk (K v of them), chunk c on
/// stage c mod `stages`. Each stage runs in program order, as the lowering
/// emits it: the units in groups of K, and per group chunk s for every unit
/// of the group, then chunk s + K for every unit, and so on. A unit's chunk
/// c starts once the stage is free and its chunk c - 1 is done and handed
/// over. With N units (a multiple of K) of equal chunks t and no handovers
/// this gives (N v + K - 1) t: the bubble of one chunk, 1/v of a stage's. A
/// last group of g < K units waits K - g chunks each round for its units to
/// come back round the ring.
PipelinePrediction playVirtualStages(llvm::ArrayRef<PipelineUnit> units,
                                     int64_t stages);

/// Plays units' tasks zipped on one chip, as convert-loom-to-sched{interleave}
/// orders them (task 1 of every unit, then task 2 of every unit, ...): each
/// task waits for its unit's previous one; compute tasks run one at a time
/// in that order; collectives start as soon as they may and share the
/// group's links equally while several run (loom-sim gives every flow on a
/// link an equal share): k of them take latency + k x (seconds - latency).
/// Returns the time the last task ends. One unit gives the sum of its
/// tasks; two units whose collectives each fit under the other's next
/// compute expose only the first and last.
double playInterleaved(llvm::ArrayRef<llvm::SmallVector<TaskTime>> chains);

/// The units a pipeline runs on each stage, in order, as (length, context):
/// each microbatch's slices in turn, a slice seeing its microbatch's earlier
/// ones (a patch sees none). One step of a diffusion model's patches.
llvm::SmallVector<std::pair<int64_t, int64_t>>
pipelineUnits(PipelineAttr pipeline);

/// The cost model's prediction for a planned model: its slices or patches
/// played through (playPipeline) with `cost`'s stage times and handovers.
/// The passes choose slices by TeraPipe's closed form instead, which prices
/// every stage as the slowest; this prices each as it is.
/// `transfer(stage, length)`, when given, replaces
/// `cost.transferSeconds(stage, length)` (loom-plan measures the transfers
/// on the chips the stages really occupy). With `interleave` > 1 each group
/// of that many units of a step is played zipped on every stage
/// (playInterleaved) and moves through the pipeline as one unit, handed
/// over when its last unit is. With virtual stages, `cost` prices chunks
/// (its stages are the pipeline's chunks) and the units play through
/// playVirtualStages; `transfer(c, length)` is then the handover into chunk
/// c, from stage (c - 1) mod K.
PipelinePrediction predictPipeline(
    const StageSliceCost &cost, PipelineAttr pipeline,
    llvm::function_ref<double(int64_t stage, int64_t length)> transfer = {},
    int64_t interleave = 1);

} // namespace loom

#endif // LOOM_ANALYSIS_PIPELINEPREDICTION_H
