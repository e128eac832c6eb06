//===- TrainingSchedule.h - pipeline schedules of a training step -*- C++ -*-===//
//
// The order in which each pipeline stage of a training step runs its
// passes: per microbatch and model chunk a forward pass (F), a backward
// pass of the activations (B: the input gradients the stage before waits
// for) and of the weights (W: nothing downstream waits for it; a schedule
// that does not split them runs them as one pass). Schedules:
//
// - GPipe (Huang et al., NeurIPS 2019): every forward, then every
//   backward; each stage holds all m microbatches' activations.
// - 1F1B (PipeDream-Flush; Narayanan et al., SC 2021, section 2.2.1):
//   p - s - 1 forwards on stage s, then one forward and one backward in
//   turn; at most p - s microbatches in flight. Bubble (p - 1) / m.
// - Interleaved 1F1B (Narayanan et al., SC 2021, section 2.2.2, Megatron-
//   LM's forward_backward_pipelining_with_interleaving): v model chunks a
//   stage, chunk c of stage s the virtual stage c p + s; the warm-up of
//   2 (p - s - 1) + (v - 1) p forwards, microbatches in groups of p.
//   Bubble (p - 1) / (v m); m a multiple of p.
// - ZB-H1 (Qi et al., "Zero Bubble Pipeline Parallelism", ICLR 2024,
//   section 2.1): 1F1B's order and in-flight bound with stage s's first s
//   W passes held back to the end, where they fill the cool-down's waits.
//   Bubble (p - 1)(T_F + T_B - T_W): (p - 1) / (3 m) of the work with
//   T_F = T_B = T_W.
// - Circular (MaxText's pipeline, pipeline_parallel_layers / num_pipeline_
//   repeats): GPipe over r repeats of the stages, microbatch by microbatch
//   round the ring; the bubble is (p - 1) / (r m + p - 1) of the run.
// - ZB-H2 (Qi et al., ICLR 2024, section 2.2, Table 2): 2 (p - s - 1) + 1
//   forwards on stage s before its first B, at most 2p - 1 microbatches
//   in flight on every stage, W passes wherever a stage would wait. Each
//   stage runs without a gap from its first pass to its last (a
//   parallelogram): bubble (p - 1)(T_F + T_B - 2 T_W) between steps that
//   overlap (ScheduleRun::period), 0 with T_F = T_B = T_W; within one step
//   the last stage still starts (p - 1) T_F late. m >= 2p - 1.
//
// TeraPipe's token slices (Li et al., "TeraPipe: Token-Level Pipeline
// Parallelism for Training Large-Scale Language Models", ICML 2021,
// section 3) compose with any of them (sliceOrders): each microbatch's
// sequence is cut into k slices that flow through the stages one after
// another, forward in order and backward in reverse, a slice's keys' and
// values' gradients gathering from the later slices that attended to it.
// On a GPipe order a forward (or backward) sweep of slices costing t_i
// takes sum_i t_i + (p - 1) max_i t_i, TeraPipe's T.
//
// runSchedule plays an order with given pass times: the closed forms
// above are what it gives (unit tests), and each stage's peak of
// activations in flight (from a chunk's F to its W) comes from the order.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_ANALYSIS_TRAININGSCHEDULE_H
#define LOOM_ANALYSIS_TRAININGSCHEDULE_H

#include "loom/Dialect/Loom/LoomEnums.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <vector>

namespace loom {

/// The schedule's name in options, reports and #loom.pipeline's
/// `schedule` ("gpipe", "1f1b", "interleaved", "zb-h1", "circular",
/// "zb-h2"; the enum PipelineSchedule is the loom dialect's,
/// dialects/Loom/LoomAttrs.td).
llvm::StringRef scheduleName(PipelineSchedule schedule);

/// Whether `schedule` runs several model chunks a stage (virtual stages):
/// interleaved 1F1B and MaxText's circular pipeline.
inline bool runsChunks(PipelineSchedule schedule) {
  return schedule == PipelineSchedule::Interleaved ||
         schedule == PipelineSchedule::Circular;
}

struct PipelinePass {
  /// `BackwardWeight`: B and W as one pass, its input gradients sent at
  /// its end (the schedules that do not split them).
  enum class Kind : uint8_t { Forward, Backward, Weight, BackwardWeight };
  Kind kind;
  int64_t microbatch;
  /// The stage's model chunk (0 without virtual stages).
  int64_t chunk;
};

/// Per stage, its passes in the order it runs them.
using StageOrders = std::vector<std::vector<PipelinePass>>;

/// `schedule`'s order on `stages` stages of `microbatches` microbatches,
/// with `chunks` model chunks a stage (1 but for Interleaved and Circular).
/// An error says why the schedule cannot run that shape.
llvm::Expected<StageOrders> scheduleOrder(PipelineSchedule schedule,
                                          int64_t stages, int64_t microbatches,
                                          int64_t chunks = 1);

/// `orders` (scheduleOrder's) with each microbatch's sequence cut into
/// `slices` token slices (TeraPipe): each pass of microbatch m becomes one
/// pass per slice, of unit m x slices + i for slice i, its forwards in
/// slice order and its backward and weight passes in reverse (slice i's
/// backward needs the key and value gradients of the later slices, which
/// attend to it). Played as microbatches, the units keep every schedule's
/// dependencies; `slices` 1 gives `orders` back.
StageOrders sliceOrders(const StageOrders &orders, int64_t slices);

/// Seconds of each pass of one chunk of one microbatch, and of a transfer
/// between stages.
struct PassTimes {
  double forward = 1, backward = 1, weight = 1, transfer = 0;
};

struct ScheduleRun {
  /// From the first pass's start to the last's end.
  double makespan = 0;
  /// The longest stage's time from its first pass's start to its last's
  /// end: the time a step takes when each stage starts the next step as
  /// soon as its own passes end (optimizer steps without a synchronization
  /// across stages; Qi et al., ICLR 2024, section 4).
  double period = 0;
  /// One stage's passes back to back: microbatches x chunks x (F + B + W).
  double work = 0;
  /// Per stage, the most microbatch chunks between their F and their W.
  std::vector<int64_t> peakInFlight;
  /// Per stage, the most microbatch chunks between their B and their W
  /// (0 for a schedule that runs them as one pass).
  std::vector<int64_t> peakAwaitingWeights;
  /// The stages' idle time over their work: (makespan - work) / work.
  double bubble() const { return work > 0 ? (makespan - work) / work : 0; }
  /// The same between steps that follow one another so: (period - work) /
  /// work, the bubble of Qi et al.'s Table 2.
  double periodBubble() const {
    return work > 0 ? (period - work) / work : 0;
  }
};

/// Runs `orders` (scheduleOrder's, on `chunks` chunks a stage): each stage
/// runs its passes in order, one at a time, each once what it needs is
/// done: F after the microbatch's F of the virtual stage before (and a
/// transfer), B after its F and the B of the virtual stage after (and a
/// transfer), W after its B. A pass whose dependency never runs leaves
/// the run at infinity.
ScheduleRun runSchedule(const StageOrders &orders, int64_t chunks,
                        const PassTimes &times);
/// Plays `orders` (scheduleOrder's, on `chunks` chunks a stage): each
/// stage's passes in its order, each once what it needs is done (as
/// runSchedule says, `transfer(g, unit)` seconds for unit's message into
/// virtual stage g either way) by `run(stage, pass, ready)`, which returns when
/// the pass ends (the stage's own clock is the caller's). False when a
/// pass waits for one no stage runs.
bool playSchedule(
    const StageOrders &orders, int64_t chunks,
    llvm::function_ref<double(int64_t, int64_t)> transfer,
    llvm::function_ref<double(int64_t, const PipelinePass &, double)> run);
/// The same with each virtual stage's own times (`times[g]`, g = chunk x
/// stages + stage; its `transfer` is that of a message into g, either
/// way): a pipeline whose first and last stages also run the ops before
/// and after the layers. `work` is then the busiest stage's.
ScheduleRun runSchedule(const StageOrders &orders, int64_t chunks,
                        llvm::ArrayRef<PassTimes> times);
/// The same with each microbatch's (or sliceOrders' unit's) own times,
/// `times(g, microbatch)`: token slices, a later one costing more (and
/// each slice's transfer its own).
ScheduleRun
runSchedule(const StageOrders &orders, int64_t chunks,
            llvm::function_ref<PassTimes(int64_t, int64_t)> times);

/// A stage's most activations in flight, in microbatches: with token
/// slices (sliceOrders) each unit holds its slice's share of a
/// microbatch's.
struct LiveShares {
  /// From a unit's F to its W (or fused backward).
  double inFlight = 0;
  /// From a unit's B to its W.
  double awaitingWeights = 0;
};
/// Per stage of `orders`, its peaks, unit u holding `share(u)` of a
/// microbatch's activations (1 without slices).
std::vector<LiveShares> liveShares(const StageOrders &orders,
                                   llvm::function_ref<double(int64_t)> share);

} // namespace loom

#endif // LOOM_ANALYSIS_TRAININGSCHEDULE_H
