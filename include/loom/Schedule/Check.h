//===- Check.h - what a schedule must satisfy to run ------------*- C++ -*-===//
//
// The one schedule checker. The sched.program verifier (over the schedule
// its IR describes), loom-translate's reader and the simulator's loader all
// run it, each naming problems its own way through a locator: the verifier
// at the op, the file readers by JSON path.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_SCHEDULE_CHECK_H
#define LOOM_SCHEDULE_CHECK_H

#include "loom/Schedule/Schedule.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <string>

namespace loom::schedule {

/// Where a problem is: the `chip`-th entry of Schedule::chips (-1: the
/// schedule as a whole), its `task`-th task (-1: the chip itself), and
/// within that the key `field` (empty: all of it) and its `element`-th
/// entry (-1: all of it).
struct Place {
  int64_t chip = -1, task = -1;
  llvm::StringRef field;
  int64_t element = -1;
};

/// The JSON path of `place` in a schedule file: `$.chips[3].tasks[17].deps[0]`.
std::string jsonPath(const Place &place);

/// The chips a schedule runs on: a topology's name and its chip count, and
/// each chip's link to its host (TargetDesc's hostBandwidth and hostBytes;
/// 0 when the target does not give them).
/// With `slices` above 1 the chips are that many slices of `chips /
/// slices` joined by the data-center network, whose figures `dcn` gives.
struct Machine {
  std::string name;
  int64_t chips = 0;
  double hostBandwidth = 0, hostBytes = 0;
  int64_t slices = 1;
  DcnFigures dcn;
};

/// The dependencies a task may have: the simulator counts a task's
/// unfinished ones in 25 bits.
constexpr int64_t kMaxTaskDeps = int64_t(1) << 24;

/// Told the first problem found; `message` reads on its own and after the
/// place ("'sched.recv' op ..." or "$.chips[1].tasks[0]: ...").
using Locator =
    llvm::function_ref<void(const Place &place, const llvm::Twine &message)>;

/// Checks everything the simulator relies on for `schedule` on `machine`,
/// tells `report` the first problem and returns false, or returns true:
/// - chips: ids inside the machine, each once;
/// - tasks: sizes not negative; at most kMaxTaskDeps dependencies, on
///   earlier tasks of the chip; a free names an earlier alloc of its chip,
///   which no other free releases (and runs after it: `alloc` is a
///   dependency); a host_load names an earlier host_store of its chip,
///   which no other host_load reads back, with the same bytes (and runs
///   after it: `store` is a dependency);
/// - host transfers only on a machine whose host link figures are known
///   (hostBandwidth and hostBytes above 0);
/// - several slices only with the DCN's figures, its chips per host
///   dividing a slice's chips (or a slice within one host);
/// - messages: a peer is another chip of the machine; each (sender,
///   receiver, tag) is sent once and received once, with the same bytes;
/// - collectives: a tag names one collective, run once by each chip of its
///   group (no repeats, all inside the machine, the chip itself included),
///   all agreeing on its kind, group and bytes; a group that spans slices
///   takes at most one chip of each (a collective over several chips of
///   several slices is split into ones within slices and one across them,
///   as XLA runs it: docs/multislice.md);
/// - no cycle through dependencies, messages (a receive after its send),
///   collectives (all members start together) and each chip's TensorCore
///   (compute tasks one at a time, in order): such a schedule deadlocks.
bool checkSchedule(const Schedule &schedule, const Machine &machine,
                   Locator report);

/// How a task reads in messages: "chip 3 task 12 (recv from 2, tag 7)",
/// for the `task`-th task of the `chip`-th entry of Schedule::chips.
std::string describeTask(const Schedule &schedule, int64_t chip, int64_t task);

/// checkSchedule with the problem as an error "$.path: message".
llvm::Error checkSchedule(const Schedule &schedule, const Machine &machine);

} // namespace loom::schedule

#endif // LOOM_SCHEDULE_CHECK_H
