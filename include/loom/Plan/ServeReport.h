//===- ServeReport.h - loom-serve's report: text, JSON and HTML -*- C++ -*-===//
//
// What loom-serve prints for a configuration's run: the text report, the
// JSON object, and a self-contained HTML page with latency CDFs (TTFT,
// TPOT, end to end), throughput over time and the queue over time, drawn
// by the page's script from the data it embeds (docs/serving.md).
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PLAN_SERVEREPORT_H
#define LOOM_PLAN_SERVEREPORT_H

#include "loom/Plan/ServePlan.h"

#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

namespace loom {

/// What a report describes beside the run itself.
struct ServeReportContext {
  std::string model;
  /// The requests served.
  int64_t requests = 0;
  std::vector<serve::LatencyTarget> targets;
  serve::Price price;
  /// The price table's date.
  std::string pricesRetrieved;
  /// The search that chose the configuration, if one did.
  const ServeSearchResult *search = nullptr;
  /// The search's targets as written.
  std::string slo;
  /// What an iteration costs on the configuration (describeIterations).
  std::string iterations;
  /// A diffusion transformer's request: "image" or "video".
  std::string requestUnit = "image";
};

/// A line on what `config`'s iterations cost: a prefill of the workload's
/// mean prompt and a decode step at its mean context (LLMs), or a
/// denoising step of its batch and a request's steps
/// (diffusion transformers).
std::string describeIterations(ServePlanner &planner,
                               const ServeConfig &config);

/// Seconds as the reports print them: "1.234 s", "12.3 ms" or "4.5 us".
std::string formatServeSeconds(double seconds);

/// The text report of `run`.
void printServeRun(const ServeEvaluation &run,
                   const ServeReportContext &context, llvm::raw_ostream &os);

/// The JSON report (docs/serving.md), with every request when
/// `perRequest`.
llvm::json::Value serveJSON(const ServeEvaluation &run,
                            const ServeReportContext &context,
                            bool perRequest);

/// The HTML page.
void writeServeHtml(const ServeEvaluation &run,
                    const ServeReportContext &context, llvm::raw_ostream &os);

} // namespace loom

#endif // LOOM_PLAN_SERVEREPORT_H
