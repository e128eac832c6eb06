//===- Schedule.h - the executable schedule file ----------------*- C++ -*-===//
//
// The versioned JSON document loom-translate writes and loom-sim runs
// (docs/schedule-format.md), as plain data: the simulator reads it without
// MLIR. Reading checks the document; checkSchedule (Check.h) checks that
// the schedule can run. Both name the JSON path of what is wrong.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_SCHEDULE_SCHEDULE_H
#define LOOM_SCHEDULE_SCHEDULE_H

#include "loom/Hardware/TargetDesc.h"
#include "loom/Support/Enums.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/raw_ostream.h"

#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace loom::schedule {

/// 2: a collective is an asynchronous collective_start / collective_done
/// pair (docs/schedule-format.md); 1 had one `collective` task. The host
/// transfers (host_store, host_load) only add kinds: files without them
/// read as before, so the version stays.
constexpr int64_t kFormatVersion = 2;

/// `Collective` is a collective's start ("collective_start"),
/// `CollectiveDone` the task that ends when it is done. `HostStore` copies
/// bytes from the chip's HBM to its host's memory ("host_store"),
/// `HostLoad` copies a host_store's bytes back ("host_load").
enum class TaskKind { Compute, Send, Recv, Collective, CollectiveDone, Alloc,
                      Free, HostStore, HostLoad };

llvm::StringRef name(TaskKind kind);
inline llvm::StringRef name(CollectiveKind kind) {
  return stringifyCollectiveKind(kind);
}
inline llvm::StringRef name(MemoryKind kind) { return stringifyMemoryKind(kind); }

/// A collective's chips, in its order. The tasks of one collective share
/// one list (a 256-chip FSDP step's gathers would each hold 2 KB of it
/// otherwise): a copy shares it, and changing one copies it first.
class ChipGroup {
public:
  ChipGroup() = default;
  ChipGroup(std::initializer_list<int64_t> chips) {
    assign(chips.begin(), chips.end());
  }
  ChipGroup(llvm::ArrayRef<int64_t> chips) {
    assign(chips.begin(), chips.end());
  }
  template <typename It>
  void assign(It first, It last) {
    chips = std::make_shared<std::vector<int64_t>>(first, last);
  }
  void push_back(int64_t chip) { own().push_back(chip); }

  size_t size() const { return chips ? chips->size() : 0; }
  bool empty() const { return size() == 0; }
  const int64_t *data() const { return chips ? chips->data() : nullptr; }
  const int64_t *begin() const { return data(); }
  const int64_t *end() const {
    return chips ? chips->data() + chips->size() : nullptr;
  }
  int64_t operator[](size_t i) const { return (*chips)[i]; }
  int64_t front() const { return chips->front(); }
  int64_t back() const { return chips->back(); }
  operator llvm::ArrayRef<int64_t>() const { return {data(), size()}; }
  bool operator==(const ChipGroup &other) const {
    return llvm::ArrayRef<int64_t>(*this) == llvm::ArrayRef<int64_t>(other);
  }
  bool operator!=(const ChipGroup &other) const { return !(*this == other); }

private:
  std::vector<int64_t> &own() {
    if (!chips)
      chips = std::make_shared<std::vector<int64_t>>();
    else if (chips.use_count() > 1)
      chips = std::make_shared<std::vector<int64_t>>(*chips);
    return *chips;
  }
  std::shared_ptr<std::vector<int64_t>> chips;
};

struct Task {
  Task() = default;
  Task(const Task &) = default;
  Task &operator=(const Task &) = default;
  // Moved, not copied, when a program's vector grows (SmallVector's move
  // is not declared noexcept, so std::vector would copy every task).
  Task(Task &&) noexcept = default;
  Task &operator=(Task &&) noexcept = default;

  TaskKind kind = TaskKind::Compute;
  /// Indices of earlier tasks of the same chip that must finish first.
  llvm::SmallVector<int64_t, 2> deps;
  int64_t bytes = 0;
  // Compute.
  std::string name;
  std::string op;
  int64_t flops = 0;
  int64_t layer = -1, slice = 0, step = 0;
  /// Element width the work computes in (8: the int8 MXU rate).
  int64_t bits = 16;
  /// Element operations on the vector unit (VPU), priced beside the MXU's
  /// FLOPs (CostModel::computeTime); 0 when absent.
  int64_t vectorOps = 0;
  /// Grid steps of the kernel, each paying the calibrated kernel step
  /// (flash attention's blocks); 1 when absent.
  int64_t steps = 1;
  // Send (peer = receiver), recv (peer = sender).
  int64_t peer = -1;
  int64_t tag = 0;
  // Collective.
  CollectiveKind collective = CollectiveKind::AllReduce;
  ChipGroup group;
  // Alloc (name, what, bytes) and free (alloc).
  MemoryKind what = MemoryKind::Weights;
  int64_t alloc = -1;
  // Host store (name, bytes) and host load (name, store, bytes): the index
  // of the host_store on this chip whose bytes the load copies back.
  int64_t store = -1;
  // Collective done: the index of its collective_start on this chip.
  int64_t start = -1;
};

static_assert(std::is_nothrow_move_constructible_v<Task>);

struct Chip {
  int64_t id = 0;
  std::vector<Task> tasks;
};

/// The data-center network (DCN) between slices, as a schedule's "dcn"
/// gives it (the target file's host.chips_per_host, dcn_bandwidth and
/// dcn_latency; docs/multislice.md). All 0 when not given.
struct DcnFigures {
  int64_t chipsPerHost = 0; ///< chips sharing one host's NICs
  double bandwidth = 0;     ///< bytes/s per host, each direction
  double latency = 0;       ///< seconds per message

  bool given() const { return chipsPerHost > 0; }
  static DcnFigures of(const TargetDesc &target) {
    return {target.chipsPerHost, target.dcnBandwidth, target.dcnLatency};
  }
};

struct Schedule {
  std::string targetName;
  /// The shape of one slice; `slices` of them, joined by the DCN, make the
  /// machine (chips numbered slice-major, TopologyDesc).
  llvm::SmallVector<int64_t, 3> shape;
  int64_t slices = 1;
  /// The DCN's figures when the file gives them ("dcn"); otherwise the
  /// target's (getDcnFigures).
  DcnFigures dcn;
  /// The figures of the target the schedule was planned for, as
  /// #loom.target carries them (one topology, of `shape`, with its wrapping
  /// axes listed), so that loom-sim runs a schedule of a user's target with
  /// no target file. Absent in files that name a bundled target only.
  std::optional<TargetDesc> figures;
  std::vector<Chip> chips;
  /// A denoising pipeline's program as the lowering builds it: per chip
  /// (in `chips` order), the index of the first task of each step it
  /// holds. In memory only (not in the file): the simulator's repetition
  /// proof reads it (loom/Sim/Simulator.h). Empty otherwise.
  std::vector<std::vector<int64_t>> stepStarts;
};

/// Parses a schedule document. Errors name `fileName` and the JSON path:
/// invalid JSON, wrong format or version, missing, repeated or unknown
/// fields, values of the wrong type or range, unknown kinds. Whether the
/// schedule can run (its indices, messages, collectives, cycles, chips on a
/// target) is checkSchedule's question (loom/Schedule/Check.h), which every
/// consumer asks.
/// The target a schedule names: its own figures when the file has them,
/// else the bundled target of that name with the file's shape. Errors say
/// which is unknown.
llvm::Expected<TargetDesc> getScheduleTarget(const Schedule &schedule);

/// The DCN figures a run of `schedule` on `target` uses: the schedule's
/// own when it gives them, else the target's.
inline DcnFigures getDcnFigures(const Schedule &schedule,
                                const TargetDesc &target) {
  return schedule.dcn.given() ? schedule.dcn : DcnFigures::of(target);
}

llvm::Expected<Schedule> parseSchedule(llvm::StringRef json,
                                       llvm::StringRef fileName);

/// Writes `schedule` as the document parseSchedule reads; deterministic.
void writeSchedule(const Schedule &schedule, llvm::raw_ostream &os);

} // namespace loom::schedule

#endif // LOOM_SCHEDULE_SCHEDULE_H
