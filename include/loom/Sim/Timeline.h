//===- Timeline.h - traces and timeline pictures of a simulation -*- C++ -*-===//
//
// A simulated run as people look at it: a Perfetto trace (every task, or
// one replica or a range of stages), and an SVG timeline that stays small
// at any size: one lane per tensor-parallel group (its chips run the same
// program), tasks shorter than a pixel merged into pixel columns shaded by
// how busy they were, a legend and a summary of compute, bubble and
// communication.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_SIM_TIMELINE_H
#define LOOM_SIM_TIMELINE_H

#include "loom/Sim/Simulator.h"

#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <vector>

namespace loom::sim {

/// What a chip does in the plan, as its program shows it: the pipeline
/// stage (stages ordered by their first layer; chips that run no layer are
/// stage -1), the tensor-parallel group (the chips of its collectives, or
/// itself alone) and the replica (the group's rank among its stage's groups,
/// by lowest chip id).
struct ChipRole {
  int64_t stage = -1, replica = 0;
  int64_t firstLayer = -1, lastLayer = -1;
  std::vector<int64_t> group;
};

/// The role of every chip of `schedule`, in the order of schedule.chips.
std::vector<ChipRole> inferRoles(const schedule::Schedule &schedule);

/// Which chips a trace keeps: all, or those of one replica and / or a
/// range of stages (inclusive).
struct TraceFilter {
  std::optional<int64_t> replica;
  std::optional<std::pair<int64_t, int64_t>> stages;
  bool keeps(const ChipRole &role) const;
  bool empty() const { return !replica && !stages; }
  /// "replica 0, stages 2-3" (empty when it keeps everything).
  std::string describe() const;
  /// Why the filter keeps no chip it names among `roles` (those of one
  /// schedule, the `what`'s: "plan" or "schedule"), or "": a replica or a
  /// stage past the last one, with the valid range.
  std::string check(const std::vector<ChipRole> &roles,
                    llvm::StringRef what) const;
};

/// Parses a --trace-stages value, "A-B" or "A" (stages are numbered from
/// 0). Returns an error message, or "" with `range` set.
std::string parseStageRange(llvm::StringRef text,
                            std::pair<int64_t, int64_t> &range);

/// A Chrome / Perfetto trace: {"traceEvents": [...]} with one "X" event per
/// task (ts and dur in microseconds), pid = chip, tid = engine, the process
/// and thread names set (a chip's name gives its stage and replica; the
/// host DMA's thread only when a host transfer ran). With
/// a filter, only the chips it keeps, and "otherData" says what was left
/// out.
void writeTrace(const SimResult &result, const schedule::Schedule &schedule,
                llvm::raw_ostream &os, const TraceFilter &filter = {});

/// The timeline picture described above; host transfers, when any ran,
/// as a thin row at the foot of each lane.
void writeSVG(const SimResult &result, const schedule::Schedule &schedule,
              llvm::raw_ostream &os);

} // namespace loom::sim

#endif // LOOM_SIM_TIMELINE_H
