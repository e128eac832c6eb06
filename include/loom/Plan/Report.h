//===- Report.h - loom-plan's report of a plan or a search ------*- C++ -*-===//
//
// The text and JSON reports of a plan (its layout, memory, prediction and
// simulation), the ranked table of a search, and the errors when no plan
// can be reported.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PLAN_REPORT_H
#define LOOM_PLAN_REPORT_H

#include "loom/Plan/PlanFile.h"
#include "loom/Plan/Planner.h"
#include "loom/Sim/Timeline.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <string>

namespace loom {

/// A plan's parallel efficiency, ideal / time, and where the rest of its
/// time goes. With a simulation the four parts are fractions of the
/// simulated time and sum to 1, averaged over all the topology's chips:
/// - bubble: a chip's TensorCore idle with no data of its own moving (it
///   waits for a stage upstream: pipeline fill and drain, and stages of
///   unequal time);
/// - exposed: idle while its own sends, receives or collectives run
///   (loom-sim's exposed communication);
/// - other: computing beyond the ideal (work tensor parallelism repeats on
///   every chip, MXU padding of smaller shards, weights re-read per slice)
///   the host's program dispatch, and chips the plan leaves idle
///   (`unusedChips`, a part of `other`).
/// Without a simulation only the efficiency against the prediction is
/// known.
/// A training step's ideal is its model FLOPs at every chip's peak, so its
/// efficiency is the MFU; of its "other", `recompute` is the TensorCore's
/// time on the forward ops the backward pass runs again.
struct PlanEfficiency {
  double efficiency = 0;
  bool measured = false;
  double bubble = 0, exposed = 0, other = 0, unusedChips = 0, recompute = 0;
};
PlanEfficiency getEfficiency(const PlanOutcome &plan);

/// "tp 4 x 4 stages x dp 1 + sp".
std::string planName(const PlanOutcome &plan);

/// The plan in text; `searched` says whether a search chose it (how an idle
/// chip is explained).
void printPlan(const PlanOutcome &plan, bool searched, llvm::raw_ostream &os);

/// The plan as one JSON object.
void writePlanJSON(const PlanOutcome &plan, llvm::json::OStream &json);

/// A search's ranked table (`ranked` not empty).
void printSearchTable(const SearchResult &search, llvm::raw_ostream &os);

/// Everything `result` has to report on stdout: with a search, the table
/// (or its JSON array) and "winner:"; then the chosen plan when it works.
void printReport(const PlanResult &result, bool json, llvm::raw_ostream &os);

/// A search's progress on a terminal: once the search has run for a
/// second, "plans evaluated N of M" on one line rewritten in place, cleared
/// by finish(). Quiet for searches faster than that. `now` (seconds) is the
/// steady clock unless a test gives another.
class SearchProgress {
public:
  explicit SearchProgress(llvm::raw_ostream &os,
                          std::function<double()> now = {});
  void operator()(int64_t done, int64_t total);
  void finish();

private:
  llvm::raw_ostream &os;
  std::function<double()> now;
  double start;
  bool shown = false;
};

/// How a replayed plan file's times compare with the run: the same, or
/// by how much each differs (another target file, another Loom version).
void printReplay(const SavedPlan &saved, const PlanOutcome &now,
                 llvm::raw_ostream &os);

/// Why `result` has no plan to report, and which plan would fit.
void printFailure(const PlanResult &result, llvm::raw_ostream &os);

/// Why the chosen plan cannot give the trace or SVG the command asks for
/// (a trace, an SVG, the trace's filter), or "": it was too large to
/// simulate, or the filter names a replica or stage it does not have.
std::string checkPlanFiles(const PlanResult &result, bool trace, bool svg,
                           const sim::TraceFilter &traceFilter);

} // namespace loom

#endif // LOOM_PLAN_REPORT_H
