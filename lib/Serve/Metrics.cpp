//===- Metrics.cpp - latency and throughput of a serving run --------------===//

#include "loom/Serve/Metrics.h"

#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>

using namespace loom::serve;

double loom::serve::percentile(llvm::ArrayRef<double> sorted, double p) {
  if (sorted.empty())
    return 0;
  double rank = (sorted.size() - 1) * std::clamp(p, 0.0, 100.0) / 100.0;
  size_t below = static_cast<size_t>(std::floor(rank));
  size_t above = std::min(below + 1, sorted.size() - 1);
  double fraction = rank - below;
  return sorted[below] + fraction * (sorted[above] - sorted[below]);
}

LatencySummary loom::serve::summarize(std::vector<double> values) {
  LatencySummary summary;
  if (values.empty())
    return summary;
  std::sort(values.begin(), values.end());
  double sum = 0;
  for (double v : values)
    sum += v;
  summary.count = values.size();
  summary.mean = sum / values.size();
  summary.p50 = percentile(values, 50);
  summary.p90 = percentile(values, 90);
  summary.p99 = percentile(values, 99);
  summary.max = values.back();
  return summary;
}

std::optional<double> loom::serve::tpotOf(const RequestResult &request) {
  if (request.outputTokens < 2)
    return std::nullopt;
  return (request.finish - request.firstToken) / (request.outputTokens - 1);
}

ServingMetrics loom::serve::computeMetrics(const SimResult &result,
                                           const SloTargets &targets) {
  ServingMetrics metrics;
  metrics.targets = targets;
  std::vector<double> ttft, tpot, e2e;
  double first = INFINITY, last = 0;
  int64_t inputs = 0, outputs = 0, good = 0;
  for (const RequestResult &r : result.requests) {
    if (r.refused) {
      ++metrics.refused;
      continue;
    }
    ++metrics.completed;
    first = std::min(first, r.arrival);
    last = std::max(last, r.finish);
    inputs += r.inputTokens;
    outputs += r.outputTokens;
    double toFirst = r.firstToken - r.arrival;
    ttft.push_back(toFirst);
    e2e.push_back(r.finish - r.arrival);
    std::optional<double> perToken = tpotOf(r);
    if (perToken)
      tpot.push_back(*perToken);
    if (toFirst <= targets.ttft && (!perToken || *perToken <= targets.tpot))
      ++good;
  }
  metrics.ttft = summarize(std::move(ttft));
  metrics.tpot = summarize(std::move(tpot));
  metrics.e2e = summarize(std::move(e2e));
  if (metrics.completed == 0)
    return metrics;
  metrics.duration = last - first;
  metrics.attainment = double(good) / metrics.completed;
  if (metrics.duration > 0) {
    metrics.requestsPerSecond = metrics.completed / metrics.duration;
    metrics.inputTokensPerSecond = inputs / metrics.duration;
    metrics.outputTokensPerSecond = outputs / metrics.duration;
    metrics.goodput = good / metrics.duration;
  }
  return metrics;
}

static llvm::json::Value toJSON(const LatencySummary &s) {
  return llvm::json::Object{{"count", s.count}, {"mean", s.mean},
                            {"p50", s.p50},     {"p90", s.p90},
                            {"p99", s.p99},     {"max", s.max}};
}

llvm::json::Value loom::serve::toJSON(const ServingMetrics &metrics,
                                      const SimResult &result,
                                      bool perRequest) {
  llvm::json::Array queue;
  for (const QueueSample &sample : result.queue)
    queue.push_back(llvm::json::Array{sample.time, sample.waiting,
                                      sample.running});
  llvm::json::Object out{
      {"format", "loom-serve-metrics/1"},
      {"completed", metrics.completed},
      {"refused", metrics.refused},
      {"duration_s", metrics.duration},
      {"iterations", result.iterations},
      {"peak_running", result.peakRunning},
      {"ttft_s", ::toJSON(metrics.ttft)},
      {"tpot_s", ::toJSON(metrics.tpot)},
      {"e2e_s", ::toJSON(metrics.e2e)},
      {"requests_per_s", metrics.requestsPerSecond},
      {"input_tokens_per_s", metrics.inputTokensPerSecond},
      {"output_tokens_per_s", metrics.outputTokensPerSecond},
      {"slo", llvm::json::Object{{"ttft_s", metrics.targets.ttft},
                                 {"tpot_s", metrics.targets.tpot}}},
      {"goodput_per_s", metrics.goodput},
      {"slo_attainment", metrics.attainment},
      {"queue_columns", llvm::json::Array{"time_s", "waiting", "running"}},
      {"queue", std::move(queue)},
  };
  if (perRequest) {
    llvm::json::Array rows;
    for (const RequestResult &r : result.requests) {
      llvm::json::Object row{{"id", r.id},
                             {"arrival_s", r.arrival},
                             {"input_tokens", r.inputTokens},
                             {"output_tokens", r.outputTokens}};
      if (r.refused) {
        row["refused"] = true;
      } else {
        row["ttft_s"] = r.firstToken - r.arrival;
        row["e2e_s"] = r.finish - r.arrival;
        if (std::optional<double> tpot = tpotOf(r))
          row["tpot_s"] = *tpot;
      }
      rows.push_back(std::move(row));
    }
    out["requests"] = std::move(rows);
  }
  return out;
}

void loom::serve::writeJSON(llvm::raw_ostream &os,
                            const ServingMetrics &metrics,
                            const SimResult &result, bool perRequest) {
  os << llvm::formatv("{0:2}", toJSON(metrics, result, perRequest)) << "\n";
}
