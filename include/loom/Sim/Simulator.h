//===- Simulator.h - the discrete-event TPU pod simulator -------*- C++ -*-===//
//
// Executes a schedule file chip by chip and link by link:
// - per chip a TensorCore that runs compute tasks one at a time in program
//   order, each taking the shared cost model's roofline time, and
//   communication that proceeds concurrently with it;
// - HBM with capacity tracking (allocations and frees);
// - per chip a host DMA engine each way over its PCIe link (full duplex):
//   host stores to the host, host loads from it, each engine running its
//   transfers one at a time in the order they became ready, each taking
//   bytes / the target's hostBandwidth; the host's memory per chip tracked
//   against hostBytes (a store's bytes from its end to its load's end); a
//   transfer under way is the chip moving data, as a send is, so the
//   TensorCore idle meanwhile counts in ChipStats::exposedComm;
// - per ICI link and direction, the target's bandwidth and hop latency;
// - with several slices (Schedule::slices), per host a NIC each way on the
//   data-center network (DCN), shared by the host's chips: a message
//   between slices leaves through its sender's host NIC and enters through
//   its receiver's, each at the DCN's bandwidth per host, after the DCN's
//   latency, and takes no ICI link (docs/multislice.md);
//   transfers sharing a link share its bandwidth equally (a fluid model:
//   rates are recomputed whenever a transfer starts or ends), routed in
//   dimension order over the torus with the target's wraparound rule;
// - collectives executed as the ring or line steps of the cost model
//   (CostModel.h) over the group's real links, and all-to-alls as direct
//   transfers between every pair; a step whose flows each take a link of
//   their own that nothing else uses runs as one bundle of alike flows
//   (the same figures, far fewer events; SimOptions::everyFlow).
// Deterministic: events are ordered by time, then by creation.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_SIM_SIMULATOR_H
#define LOOM_SIM_SIMULATOR_H

#include "loom/Schedule/Check.h"
#include "loom/Schedule/Schedule.h"
#include "loom/Hardware/TargetDesc.h"

#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace loom::sim {

/// What one task did, for traces: engine 0 is the TensorCore, 1 the ICI
/// (sends and collectives), 2 receives waiting for their data, 3 the host
/// DMA (host stores and loads, from when their engine starts them).
struct TraceEvent {
  int32_t chip;
  int32_t task;
  uint8_t engine;
  double start, end;
};

struct ChipStats {
  int64_t id = 0;
  double computeBusy = 0; ///< seconds the TensorCore ran
  double flops = 0;
  /// Seconds the TensorCore sat idle while the chip was moving data: a send
  /// or collective in progress, a receive whose data was in flight (not
  /// one still waiting for its sender, which is pipeline bubble), or a host
  /// transfer under way on its engine (not one queued behind another).
  double exposedComm = 0;
  double peakHbm = 0;
  /// Bytes of the chip's host memory in use at most (host stores not yet
  /// loaded back); 0 when the chip made no host transfer.
  double peakHost = 0;
  int64_t tasks = 0;
};

/// An ICI link from chip `from` to its neighbour `to`, or (`dcn`) a host's
/// NICs on the data-center network: out of the host whose first chip is
/// `from` (`to` -1), or into the host whose first chip is `to` (`from` -1).
struct LinkStats {
  int64_t from = 0, to = 0;
  double bytes = 0;
  double busy = 0; ///< seconds with at least one transfer on it
  bool dcn = false;
};

struct SimResult {
  /// From the host's launch to the last task's end: includes `dispatch`.
  double makespan = 0;
  /// The program's launch (the target's calibration), before any task runs.
  double dispatch = 0;
  /// Which target file and calibration priced the run, for the reports.
  Calibration calibration;
  std::vector<ChipStats> chips;
  /// The links that carried anything, busiest first.
  std::vector<LinkStats> links;
  /// Events the run took: a ring or line step run as a bundle takes two
  /// rather than two per flow, so this depends on SimOptions where no
  /// other figure does.
  uint64_t events = 0;
  std::vector<TraceEvent> trace;
  /// Empty on success; otherwise the HBM or host memory overflow that
  /// stopped the run (the statistics cover what ran until then), or a
  /// deadlock, which checkSchedule's cycle check should have ruled out.
  std::string failure;
  double peakFlops = 0; ///< per chip, for MFU
  /// A denoising program simulated by repetition (simulate's
  /// `programSteps`): the steps the schedule held and ran, and the step k
  /// at whose start the run's state was the state at step k - 1's start
  /// shifted by one step's tasks and `period` seconds; the figures add the
  /// remaining steps' periods. `stepsRun` is 0 for a run of the whole
  /// schedule.
  int64_t stepsRun = 0, repeatedFrom = 0, programSteps = 0;
  /// The period: this many steps (1 to 3), taking `period` seconds.
  int64_t periodSteps = 0;
  double period = 0;
  /// simulate was asked for `programSteps` but no two step starts had the
  /// same state (or the schedule's steps are not alike): nothing is
  /// extrapolated, the figures are the shorter program's.
  bool unproven = false;
  /// Groups of chips run as one (SimOptions::everyReplica): the first
  /// ran, the others' figures are its own; 1 when every chip ran.
  int64_t replicas = 1;
  /// A whole program simulateProgram generated from the schedule's first
  /// `generatedFrom` steps (0: the schedule's own tasks); `programSteps`
  /// steps ran, every task of each.
  int64_t generatedFrom = 0;
};

/// How a run proceeds; every choice gives the same figures, to within
/// floating-point rounding (only SimResult::events differs).
struct SimOptions {
  /// Runs each flow of every ring or line step on its own, as the
  /// reference the tests compare bundled steps against. By default a step
  /// whose flows each take one link of their own, no link that anything
  /// else uses, runs as one bundle: the flows alike in bytes, rate and
  /// latency are one state and two events; anything else starting on one
  /// of its links turns the bundle back into its flows, as they stand.
  bool everyFlow = false;
  /// The schedule passed checkSchedule on this target already (a search
  /// running a schedule it lowered and ran before): it is not checked
  /// again.
  bool checked = false;
  /// Runs every chip, as the reference the tests compare against. By
  /// default, when the chips fall into groups that never meet (no message
  /// or collective between two), each running the first's programs task
  /// for task, chip for chip, every route of the first pairing link for
  /// link with a route of each other group and no link taken by two
  /// (data-parallel inference replicas, lib/Sim/Replicas.h), only the
  /// first group runs and the others' chips and links get its figures,
  /// and `events` its count times the groups: the run of every chip, each
  /// group's events the same, in the same order. Not with a trace, nor
  /// with host transfers or several slices.
  bool everyReplica = false;
};

/// Every check a run makes before it starts: `target` has the schedule's
/// topology, and schedule::checkSchedule passes on it. The error names the
/// JSON path of the first problem.
llvm::Expected<schedule::Machine>
checkSchedule(const TargetDesc &target, const schedule::Schedule &schedule);

/// Simulates `schedule` on `target`, after checkSchedule. An HBM overflow
/// is a SimResult with `failure` set. A result that is not to be trusted is
/// refused with an error: a figure that is not a finite number (extreme
/// target figures), or memory accounting that went negative.
///
/// With `programSteps` above the steps `schedule` holds (its stepStarts,
/// the lowering's first steps of a denoising program of `programSteps`),
/// the run proves the program periodic and reports the whole program:
/// at the start of each step (the instant chip 0's first task of it is
/// ready, once every event of that instant is done) it records the whole
/// state of the run relative to that step (every task not yet done and
/// touched, every flow in flight, link, collective and pending event, each
/// chip's engine and HBM in use; times relative to the instant); when the
/// state at step k's start equals the state at step k - m's (m from 1 to
/// 3) shifted by m steps' tasks and by `period` seconds, every task it
/// names lies in steps alike task for task, and the steps not run are
/// whole periods, the run is deterministic so each later period repeats
/// it: the figures are the shorter run's plus the periods not run of each
/// sum (makespan, busy seconds, FLOPs, bytes, events), the peaks
/// unchanged. Times are compared to within 1e-12 of the clock plus
/// 1e-9 of the value (floating-point rounding of the shifted clock); the
/// extrapolated figures agree with a full run to that bound times the
/// steps added. Without such a step, `unproven` is set; so it is for a
/// schedule with host transfers, whose engines the state does not hold.
llvm::Expected<SimResult> simulate(const TargetDesc &target,
                                   const schedule::Schedule &schedule,
                                   bool recordTrace, int64_t programSteps = 0,
                                   SimOptions options = {});

/// Simulates the whole denoising program of `programSteps` steps that
/// `schedule`, its first steps as the lowering builds them (stepStarts),
/// stands for, every task of every step, without building it: the steps
/// from the first alike one to the last but one lowered are each the one
/// before shifted (as simulate's proof checks them), so the program is the
/// schedule with the last of them copied programSteps - lowered times after
/// it, each copy naming the tasks its step names that many steps on, and
/// the last step and the end naming the alike steps' tasks that many steps
/// on and those before them (the run's allocations, the warm-up) where they
/// are. The run holds a small state per task and the schedule's tasks once
/// (not a schedule of every step), and is the run simulate would make of
/// the whole program lowered: the same events in the same order. Every
/// message must pair both ways and every collective have its group, else
/// (or with steps that are not alike, or host transfers) nothing runs and
/// `unproven` is set. No trace.
llvm::Expected<SimResult> simulateProgram(const TargetDesc &target,
                                          const schedule::Schedule &schedule,
                                          int64_t programSteps,
                                          SimOptions options = {});

/// What simulate(target, P, false, programSteps) gives, P being the
/// schedule of the program's first `steps` steps lowered, without lowering
/// them: P generated from `schedule`, fewer first steps of the same
/// program (its steps as simulateProgram copies them; `steps` below
/// `programSteps`), the repetition proof run on it. The same events in
/// the same order, so the same figures to the bit, at the memory of
/// `schedule` and of a run's state. None when the steps are not alike
/// enough to generate P from (simulateProgram's `unproven`): then lower P.
/// `generatedFrom` stays 0: the run is of P, as simulate's.
llvm::Expected<std::optional<SimResult>>
simulateByRepetition(const TargetDesc &target,
                     const schedule::Schedule &schedule, int64_t steps,
                     int64_t programSteps, SimOptions options = {});

} // namespace loom::sim

#endif // LOOM_SIM_SIMULATOR_H
