//===- Metrics.cpp - latency and throughput of a serving run --------------===//

#include "loom/Serve/Metrics.h"

#include "llvm/ADT/StringSwitch.h"
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
    if (toFirst <= targets.ttft && (!perToken || *perToken <= targets.tpot) &&
        r.finish - r.arrival <= targets.e2e)
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

static llvm::json::Value finiteOrNull(double value) {
  if (std::isfinite(value))
    return value;
  return nullptr;
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
      // (No limit is null: JSON has no infinity.)
      {"slo", llvm::json::Object{{"ttft_s", finiteOrNull(metrics.targets.ttft)},
                                 {"tpot_s", finiteOrNull(metrics.targets.tpot)},
                                 {"e2e_s", finiteOrNull(metrics.targets.e2e)}}},
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

static constexpr std::pair<LatencyTarget::Metric, const char *> kMetrics[] = {
    {LatencyTarget::Metric::TTFT, "ttft"},
    {LatencyTarget::Metric::TPOT, "tpot"},
    {LatencyTarget::Metric::E2E, "e2e"}};
static constexpr std::pair<LatencyTarget::Statistic, const char *>
    kStatistics[] = {{LatencyTarget::Statistic::Mean, "mean"},
                     {LatencyTarget::Statistic::P50, "p50"},
                     {LatencyTarget::Statistic::P90, "p90"},
                     {LatencyTarget::Statistic::P99, "p99"},
                     {LatencyTarget::Statistic::Max, "max"}};

std::string LatencyTarget::name() const {
  std::string name;
  for (auto [m, text] : kMetrics)
    if (m == metric)
      name = text;
  for (auto [s, text] : kStatistics)
    if (s == statistic)
      name += std::string("_") + text;
  return name;
}

double LatencyTarget::of(const ServingMetrics &metrics) const {
  const LatencySummary &summary = metric == Metric::TTFT   ? metrics.ttft
                                  : metric == Metric::TPOT ? metrics.tpot
                                                           : metrics.e2e;
  switch (statistic) {
  case Statistic::Mean:
    return summary.mean;
  case Statistic::P50:
    return summary.p50;
  case Statistic::P90:
    return summary.p90;
  case Statistic::P99:
    return summary.p99;
  case Statistic::Max:
    return summary.max;
  }
  return summary.max;
}

static llvm::Error targetError(llvm::StringRef item, const llvm::Twine &why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 "'" + item + "': " + why);
}

llvm::Expected<std::vector<LatencyTarget>>
loom::serve::parseTargets(llvm::StringRef text) {
  std::vector<LatencyTarget> targets;
  llvm::SmallVector<llvm::StringRef> items;
  text.split(items, ',');
  for (llvm::StringRef item : items) {
    item = item.trim();
    auto [key, value] = item.split('=');
    if (item.empty() || value.empty())
      return targetError(item, "expected METRIC_STAT=TIME, e.g. "
                               "ttft_p99=2s");
    auto [metricName, statName] = key.trim().split('_');
    LatencyTarget target;
    bool metricFound = false, statFound = false;
    for (auto [m, name] : kMetrics)
      if (metricName == name) {
        target.metric = m;
        metricFound = true;
      }
    for (auto [s, name] : kStatistics)
      if (statName == name) {
        target.statistic = s;
        statFound = true;
      }
    if (!metricFound)
      return targetError(item, "the metric '" + metricName +
                                   "' is not ttft, tpot or e2e");
    if (!statFound)
      return targetError(item, "the statistic '" + statName +
                                   "' is not mean, p50, p90, p99 or max");
    value = value.trim();
    double scale = value.consume_back("ms")   ? 1e-3
                   : value.consume_back("us") ? 1e-6
                   : value.consume_back("s")  ? 1.0
                                              : 0.0;
    if (scale == 0)
      return targetError(item, "the time needs a unit: s, ms or us");
    double number = 0;
    if (value.trim().getAsDouble(number) || !std::isfinite(number) ||
        number <= 0)
      return targetError(item, "the time must be a positive number");
    target.seconds = number * scale;
    for (const LatencyTarget &earlier : targets)
      if (earlier.metric == target.metric &&
          earlier.statistic == target.statistic)
        return targetError(item, "'" + target.name() + "' is given twice");
    targets.push_back(target);
  }
  return targets;
}

SloTargets loom::serve::goodputTargets(llvm::ArrayRef<LatencyTarget> targets) {
  SloTargets slo{INFINITY, INFINITY, INFINITY};
  for (const LatencyTarget &target : targets) {
    if (target.metric == LatencyTarget::Metric::TTFT)
      slo.ttft = std::min(slo.ttft, target.seconds);
    if (target.metric == LatencyTarget::Metric::TPOT)
      slo.tpot = std::min(slo.tpot, target.seconds);
    if (target.metric == LatencyTarget::Metric::E2E)
      slo.e2e = std::min(slo.e2e, target.seconds);
  }
  return slo;
}

std::optional<LatencyTarget>
loom::serve::firstMissed(llvm::ArrayRef<LatencyTarget> targets,
                         const ServingMetrics &metrics) {
  for (const LatencyTarget &target : targets)
    if (!(target.of(metrics) <= target.seconds))
      return target;
  return std::nullopt;
}
