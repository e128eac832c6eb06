//===- Metrics.h - latency and throughput of a serving run ------*- C++ -*-===//
//
// What a serving simulation reports, in the terms serving papers and
// benchmarks use (JetStream's benchmarks/benchmark_serving.py, DistServe
// section 2): per request the time to first token (TTFT), the time per
// output token after the first (TPOT) and the end-to-end latency; their
// percentiles; tokens per second; and goodput, the requests per second that
// meet both a TTFT and a TPOT target (DistServe, section 1).
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_SERVE_METRICS_H
#define LOOM_SERVE_METRICS_H

#include "loom/Serve/Engine.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>
#include <optional>
#include <string>
#include <vector>

namespace loom::serve {

/// The `p`-th percentile (0 <= p <= 100) of `sorted` (ascending, not
/// empty), interpolated linearly between the two nearest ranks: the value
/// at rank (n - 1) p / 100 (Hyndman and Fan, "Sample Quantiles in
/// Statistical Packages", 1996, definition 7; numpy.percentile's default,
/// which JetStream's benchmark_serving.py uses).
double percentile(llvm::ArrayRef<double> sorted, double p);

/// Mean, median, tail percentiles and maximum of a list of seconds.
struct LatencySummary {
  int64_t count = 0;
  double mean = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;
};

/// Summarizes `values` (any order; empty gives all zeros).
LatencySummary summarize(std::vector<double> values);

/// Service-level targets for goodput.
struct SloTargets {
  /// Seconds to the first token at most.
  double ttft = 1.0;
  /// Seconds per output token after the first at most.
  double tpot = 0.1;
  /// Seconds from arrival to the last token at most (none by default).
  double e2e = INFINITY;
};

/// Time per output token after the first: (finish - first token) /
/// (outputs - 1); none for a request with one output token.
std::optional<double> tpotOf(const RequestResult &request);

/// The metrics of one run.
struct ServingMetrics {
  /// Requests served and refused.
  int64_t completed = 0;
  int64_t refused = 0;
  /// Seconds from the first arrival to the last finish.
  double duration = 0;
  LatencySummary ttft, tpot, e2e;
  double requestsPerSecond = 0;
  double inputTokensPerSecond = 0;
  double outputTokensPerSecond = 0;
  /// Served requests meeting both targets, per second of `duration` (a
  /// request with one output token has no TPOT and meets that target).
  double goodput = 0;
  /// The fraction of served requests meeting both targets.
  double attainment = 0;
  SloTargets targets;
};

/// A latency target on one statistic of a run: `ttft_p99=2s` asks the
/// 99th percentile of the time to first token to be at most 2 s.
struct LatencyTarget {
  enum class Metric { TTFT, TPOT, E2E } metric = Metric::TTFT;
  enum class Statistic { Mean, P50, P90, P99, Max } statistic =
      Statistic::P99;
  double seconds = 0;

  /// Its name as written: `ttft_p99`.
  std::string name() const;
  /// The statistic's value in `metrics`.
  double of(const ServingMetrics &metrics) const;
};

/// Parses `ttft_p99=2s,tpot_p99=100ms`: comma-separated `METRIC_STAT=TIME`
/// with METRIC one of ttft, tpot, e2e, STAT one of mean, p50, p90, p99,
/// max, and TIME a positive number with its unit (s, ms or us). The error
/// names the item that is wrong and why.
llvm::Expected<std::vector<LatencyTarget>> parseTargets(llvm::StringRef text);

/// The per-request targets goodput counts against: the tightest TTFT, TPOT
/// and end-to-end targets (none: no limit).
SloTargets goodputTargets(llvm::ArrayRef<LatencyTarget> targets);

/// The first target `metrics` misses, or none.
std::optional<LatencyTarget> firstMissed(llvm::ArrayRef<LatencyTarget> targets,
                                         const ServingMetrics &metrics);

/// The metrics of `result`.
ServingMetrics computeMetrics(const SimResult &result,
                              const SloTargets &targets);

/// `metrics` as JSON (format in docs/serving.md), with the queue samples of
/// `result` and, when `perRequest`, every request's times.
llvm::json::Value toJSON(const ServingMetrics &metrics,
                         const SimResult &result, bool perRequest);

/// Writes toJSON(...) to `os`, indented.
void writeJSON(llvm::raw_ostream &os, const ServingMetrics &metrics,
               const SimResult &result, bool perRequest);

} // namespace loom::serve

#endif // LOOM_SERVE_METRICS_H
