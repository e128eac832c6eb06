//===- ScheduleFuzzer.cpp - fuzzes the schedule file reader ---------------===//
//
// The input is a schedule file (docs/schedule-format.md); parseSchedule
// either refuses it or reads a schedule that writeSchedule writes back as
// a file it reads again to the same schedule (written identically), and
// that the schedule checker (loom/Schedule/Check.h) accepts or refuses.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "loom/Schedule/Check.h"
#include "loom/Schedule/Schedule.h"

using namespace loom::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::Expected<loom::schedule::Schedule> schedule =
      loom::schedule::parseSchedule(asText(data, size), "fuzz.json");
  if (!schedule) {
    llvm::consumeError(schedule.takeError());
    return 0;
  }
  // On a 256-chip machine with a host link (v5e's figures), as loom-sim
  // would check it before a run.
  llvm::consumeError(loom::schedule::checkSchedule(
      *schedule, {"fuzz", 256, /*hostBandwidth=*/1.6e10, /*hostBytes=*/48e9}));
  std::string first;
  llvm::raw_string_ostream firstOS(first);
  loom::schedule::writeSchedule(*schedule, firstOS);
  llvm::Expected<loom::schedule::Schedule> again =
      loom::schedule::parseSchedule(first, "written.json");
  if (!again)
    fuzzInvariantFailed("a written schedule does not read back",
                        llvm::toString(again.takeError()) + "\n" + first);
  std::string second;
  llvm::raw_string_ostream secondOS(second);
  loom::schedule::writeSchedule(*again, secondOS);
  if (first != second)
    fuzzInvariantFailed("a schedule read back is written differently",
                        first + "\n---\n" + second);
  return 0;
}
