//===- ServeReport.cpp - loom-serve's report: text, JSON and HTML ---------===//

#include "loom/Plan/ServeReport.h"

#include "loom/Plan/HtmlReport.h"

#include "llvm/Support/FormatVariadic.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

using namespace llvm;
using namespace loom;

std::string loom::formatServeSeconds(double s) {
  if (s >= 1)
    return fmt::format("{:.3f} s", s);
  if (s < 1e-3)
    return fmt::format("{:.1f} us", s * 1e6);
  return fmt::format("{:.1f} ms", s * 1e3);
}

std::string loom::describeIterations(ServePlanner &planner,
                                     const ServeConfig &config) {
  auto seconds = formatServeSeconds;
  if (servesImages(config.engine)) {
    auto cost = planner.denoisingFor(config.chips, config.images, false);
    if (!cost)
      return "iteration: " + toString(cost.takeError());
    return fmt::format("iteration (Loom's cost model, {}): a denoising "
                       "step of {} {}{} {}; a request takes {} steps",
                       (*cost)->getLayoutName(), config.images,
                       planner.requestUnit(),
                       config.images == 1 ? "" : "s",
                       seconds((*cost)->step(config.images)),
                       (*cost)->getSteps());
  }
  auto cost = planner.costFor(config.chips, promptsKeepWholeCache(config),
                              config.ep);
  if (!cost)
    return "iteration: " + toString(cost.takeError());
  // The workload's mean prompt, and a decode at its mean context (the
  // prompt and half the output).
  double input = 0, output = 0;
  for (const serve::Request &r : planner.getRequests()) {
    input += double(r.inputTokens);
    output += double(r.outputTokens);
  }
  double n = std::max<double>(1, double(planner.getRequests().size()));
  int64_t prompt = std::max<int64_t>(1, std::llround(input / n));
  int64_t context = std::llround((input + output / 2) / n);
  serve::Batch decode;
  decode.decodeContexts.assign(
      config.engine == ServeEngine::JetStream ? config.slots : 16, context);
  // "tp 16, KV cache by batch over 2": the generate state's layout.
  auto layout = [&](int64_t chips, int64_t ep,
                    const PlannedIterationCost &cost) {
    std::string name = fmt::format("tp {}", chips);
    if (ep > 1)
      name += fmt::format(", ep {}", ep);
    if (cost.getKvBatch() > 1)
      name += fmt::format(", KV cache by batch over {}", cost.getKvBatch());
    return name;
  };
  std::string prefill = fmt::format(
      "iteration (Loom's cost model, {}): prefill of {} tokens {}",
      layout(config.chips, config.ep, **cost), prompt,
      seconds((*cost)->prefill(prompt)));
  if (config.engine == ServeEngine::Disaggregated) {
    auto decoding = planner.costFor(config.decodeChips, config.wholeKvCache,
                                    config.decodeEp);
    if (!decoding)
      return "iteration: " + toString(decoding.takeError());
    return fmt::format("{}; decode replicas ({}): decode of {} at {} "
                       "tokens {}",
                       prefill,
                       layout(config.decodeChips, config.decodeEp, **decoding),
                       decode.decodeContexts.size(), context,
                       seconds((*decoding)->iteration(decode)));
  }
  return fmt::format("{}, decode of {} at {} tokens {}", prefill,
                     decode.decodeContexts.size(), context,
                     seconds((*cost)->iteration(decode)));
}

/// The queue over time in one line: its longest wait list, then at most
/// ten samples spread over the run (the JSON and the HTML have them all).
static void printQueue(llvm::ArrayRef<serve::QueueSample> queue,
                       raw_ostream &os) {
  if (queue.empty())
    return;
  const serve::QueueSample *longest = &queue.front();
  for (const serve::QueueSample &s : queue)
    if (s.waiting > longest->waiting)
      longest = &s;
  os << fmt::format("queue: at most {} waiting (at {}); waiting/running "
                    "over time:",
                    longest->waiting, formatServeSeconds(longest->time));
  size_t shown = std::min<size_t>(queue.size(), 10);
  for (size_t k = 0; k < shown; ++k) {
    const serve::QueueSample &s =
        queue[shown == 1 ? 0 : k * (queue.size() - 1) / (shown - 1)];
    os << fmt::format("{} {} {}/{}", k == 0 ? "" : ",",
                      formatServeSeconds(s.time), s.waiting, s.running);
  }
  os << "\n";
}

void loom::printServeRun(const ServeEvaluation &run,
                         const ServeReportContext &context, raw_ostream &os) {
  const ServeConfig &config = run.config;
  auto seconds = formatServeSeconds;
  os << fmt::format("loom-serve: {} on TPU v5e, {} requests\n", context.model,
                    context.requests);
  if (context.search)
    os << fmt::format("search: the cheapest of {} configurations meeting {} "
                      "({} simulated)\n",
                      context.search->considered, context.slo,
                      context.search->simulated);
  os << "configuration: " << config.str(context.requestUnit) << " (" << config.totalChips()
     << (config.totalChips() == 1 ? " chip)\n" : " chips)\n");
  os << context.iterations << "\n";
  const serve::ServingMetrics &m = run.metrics;
  bool images = servesImages(config.engine);
  os << fmt::format("requests: {} served, {} refused, over {}; {} "
                    "iterations\n",
                    m.completed, m.refused, seconds(m.duration),
                    run.result.iterations);
  os << fmt::format("{:<6} {:>10} {:>10} {:>10} {:>10} {:>10}\n", "", "mean",
                    "p50", "p90", "p99", "max");
  std::vector<std::pair<const char *, const serve::LatencySummary *>> rows;
  if (!images)
    rows = {{"TTFT", &m.ttft}, {"TPOT", &m.tpot}};
  rows.push_back({"E2E", &m.e2e});
  for (auto [name, s] : rows)
    os << fmt::format("{:<6} {:>10} {:>10} {:>10} {:>10} {:>10}\n", name,
                      seconds(s->mean), seconds(s->p50), seconds(s->p90),
                      seconds(s->p99), seconds(s->max));
  if (images)
    os << fmt::format("throughput: {:.3f} {}s/s\n", m.requestsPerSecond,
                      context.requestUnit);
  else
    os << fmt::format("throughput: {:.2f} requests/s, {:.0f} input tokens/s, "
                      "{:.0f} output tokens/s\n",
                      m.requestsPerSecond, m.inputTokensPerSecond,
                      m.outputTokensPerSecond);
  printQueue(run.result.queue, os);
  if (!context.targets.empty()) {
    os << fmt::format("goodput: {:.2f} requests/s meet the per-request "
                      "targets ({:.1f}%)\n",
                      m.goodput, 100 * m.attainment);
    for (const serve::LatencyTarget &t : context.targets)
      os << fmt::format("target {} <= {}: {} {}\n", t.name(),
                        seconds(t.seconds), seconds(t.of(m)),
                        t.of(m) <= t.seconds ? "met" : "MISSED");
  }
  const serve::Price &price = context.price;
  os << fmt::format("cost: ${:.2f}/hour ({} chip{} at ${:.2f}/chip-hour, {} "
                    "{}, prices of {}), {}\n",
                    run.usdPerHour, config.totalChips(),
                    config.totalChips() == 1 ? "" : "s", price.usdPerChipHour,
                    price.kind, price.region, context.pricesRetrieved,
                    images ? fmt::format("${:.3f} per 1000 {}s",
                                         run.usdPerMillionOutput / 1000,
                                         context.requestUnit)
                           : fmt::format("${:.3f} per million output tokens",
                                         run.usdPerMillionOutput));
}

static json::Value configJSON(const ServeConfig &config) {
  json::Object o{{"engine", engineName(config.engine)},
                 {"slice", "v5e-" + std::to_string(config.chips)},
                 {"chips", config.totalChips()},
                 {"replicas", config.replicas},
                 {"page_tokens", config.pageTokens}};
  if (config.engine == ServeEngine::JetStream)
    o["slots"] = config.slots;
  if (config.engine == ServeEngine::Chunked)
    o["token_budget"] = config.tokenBudget;
  if (config.ep > 1)
    o["ep"] = config.ep;
  if (config.engine == ServeEngine::Disaggregated && config.decodeEp > 1)
    o["decode_ep"] = config.decodeEp;
  if (config.engine == ServeEngine::Disaggregated) {
    o["decode_replicas"] = config.decodeReplicas;
    o["decode_slice"] = "v5e-" + std::to_string(config.decodeChips);
    o["kv_transfer"] = config.iciTransfer ? "ici" : "dcn";
  }
  if (!servesImages(config.engine))
    o["kv_cache"] = config.wholeKvCache ? "whole" : "split";
  if (servesImages(config.engine)) {
    o["images"] = config.images;
    o.erase("page_tokens");
  }
  return o;
}

json::Value loom::serveJSON(const ServeEvaluation &run,
                            const ServeReportContext &context,
                            bool perRequest) {
  const serve::Price &price = context.price;
  json::Object top{
      {"model", context.model},
      {"config", configJSON(run.config)},
      {"cost", json::Object{{"usd_per_hour", run.usdPerHour},
                            {"usd_per_million_output_tokens",
                             run.usdPerMillionOutput},
                            {"usd_per_chip_hour", price.usdPerChipHour},
                            {"region", price.region},
                            {"pricing", price.kind},
                            {"prices_retrieved", context.pricesRetrieved}}},
      {"meets_targets", !run.missed.has_value()},
      {"metrics", serve::toJSON(run.metrics, run.result, perRequest)}};
  if (context.search)
    top["search"] = json::Object{{"considered", context.search->considered},
                                 {"simulated", context.search->simulated}};
  return top;
}

namespace {

/// At most `points` points of the empirical CDF of `values`: (value,
/// fraction of values at or below it).
json::Array cdfPoints(std::vector<double> values, size_t points = 200) {
  json::Array out;
  if (values.empty())
    return out;
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  size_t count = std::min(points, n);
  for (size_t k = 0; k < count; ++k) {
    size_t i = count == 1 ? n - 1 : k * (n - 1) / (count - 1);
    out.push_back(json::Array{values[i], double(i + 1) / double(n)});
  }
  return out;
}

/// Output tokens and finished requests per second in `bins` equal bins
/// from time 0 to the last finish: a request's first token at its first
/// token time, its others spread evenly up to its finish.
json::Object throughputOverTime(const serve::SimResult &result,
                                size_t bins = 100) {
  double end = 0;
  for (const serve::RequestResult &r : result.requests)
    if (!r.refused)
      end = std::max(end, r.finish);
  json::Object out;
  if (!(end > 0))
    return out;
  double width = end / double(bins);
  std::vector<double> tokens(bins, 0), finished(bins, 0);
  auto binOf = [&](double t) {
    return std::min(bins - 1, size_t(std::max(0.0, t / width)));
  };
  for (const serve::RequestResult &r : result.requests) {
    if (r.refused)
      continue;
    tokens[binOf(r.firstToken)] += 1;
    finished[binOf(r.finish)] += 1;
    int64_t rest = r.outputTokens - 1;
    if (rest <= 0)
      continue;
    // The later tokens' time, bin by bin, in proportion.
    double from = r.firstToken, to = r.finish;
    double span = std::max(to - from, 1e-12);
    for (size_t b = binOf(from); b < bins && double(b) * width < to; ++b) {
      double lo = std::max(from, double(b) * width);
      double hi = std::min(to, double(b + 1) * width);
      if (hi > lo)
        tokens[b] += double(rest) * (hi - lo) / span;
    }
  }
  json::Array tokenRates, requestRates;
  for (size_t b = 0; b < bins; ++b) {
    tokenRates.push_back(tokens[b] / width);
    requestRates.push_back(finished[b] / width);
  }
  out["bin_s"] = width;
  out["output_tokens_per_s"] = std::move(tokenRates);
  out["requests_per_s"] = std::move(requestRates);
  return out;
}

constexpr const char *kServeStyle = R"css(
svg.chart { border: 1px solid #ddd; margin: 4px 12px 12px 0; }
svg.chart .axis { stroke: #888; }
svg.chart text { font-size: 11px; fill: #333; }
svg.chart .line { fill: none; stroke-width: 1.5; }
svg.chart .s0 { stroke: #4a7fc1; } svg.chart .s1 { stroke: #c1704a; }
svg.chart .target { stroke: #c14a4a; stroke-dasharray: 4 3; }
)css";

/// Draws the charts from #serve-data and records in the DOM what it drew
/// (#script-status).
constexpr const char *kServeScript = R"js(
(function () {
  var data = JSON.parse(document.getElementById('serve-data').textContent);
  var NS = 'http://www.w3.org/2000/svg';
  var W = 480, H = 240, L = 56, B = 36, T = 12, R = 12;
  function el(parent, name, attrs, text) {
    var e = document.createElementNS(NS, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (text !== undefined) e.textContent = text;
    parent.appendChild(e);
    return e;
  }
  function nice(v) { return Math.abs(v) >= 100 ? v.toFixed(0) :
                            Math.abs(v) >= 1 ? v.toFixed(2) : v.toPrecision(2); }
  // series: [{points: [[x, y]], cls}], marks: x values drawn dashed.
  function chart(id, series, xLabel, yLabel, marks) {
    var svg = document.getElementById(id);
    var xs = [], ys = [];
    series.forEach(function (s) { s.points.forEach(function (p) {
      xs.push(p[0]); ys.push(p[1]); }); });
    (marks || []).forEach(function (m) { xs.push(m); });
    if (xs.length === 0) return 0;
    var x0 = Math.min(0, Math.min.apply(null, xs)), x1 = Math.max.apply(null, xs);
    var y1 = Math.max(Math.max.apply(null, ys), 1e-12);
    if (x1 <= x0) x1 = x0 + 1;
    function X(v) { return L + (v - x0) / (x1 - x0) * (W - L - R); }
    function Y(v) { return H - B - v / y1 * (H - B - T); }
    el(svg, 'line', {'class': 'axis', x1: L, y1: H - B, x2: W - R, y2: H - B});
    el(svg, 'line', {'class': 'axis', x1: L, y1: T, x2: L, y2: H - B});
    el(svg, 'text', {x: L, y: H - B + 14}, nice(x0));
    el(svg, 'text', {x: W - R - 40, y: H - B + 14}, nice(x1));
    el(svg, 'text', {x: 4, y: T + 10}, nice(y1));
    el(svg, 'text', {x: (L + W) / 2 - 40, y: H - 6}, xLabel);
    el(svg, 'text', {x: 4, y: H - B - 4}, yLabel);
    var drawn = 0;
    series.forEach(function (s, i) {
      var d = s.points.map(function (p) { return X(p[0]) + ',' + Y(p[1]); });
      el(svg, 'polyline', {'class': 'line ' + (s.cls || 's' + i),
                           points: d.join(' ')});
      drawn += s.points.length;
    });
    (marks || []).forEach(function (m) {
      el(svg, 'line', {'class': 'target', x1: X(m), y1: T, x2: X(m), y2: H - B});
    });
    return drawn;
  }
  var cdfPoints = 0, cdfs = 0;
  ['ttft', 'tpot', 'e2e'].forEach(function (name) {
    var points = data.cdf[name];
    if (!points.length) return;
    var n = chart('cdf-' + name, [{points: points}], name.toUpperCase() + ' (s)',
                  'fraction', data.targets[name] || []);
    if (n) { cdfs += 1; cdfPoints += n; }
  });
  var bins = 0;
  if (data.throughput.output_tokens_per_s) {
    var w = data.throughput.bin_s;
    var pts = data.throughput.output_tokens_per_s.map(function (v, i) {
      return [(i + 0.5) * w, v]; });
    bins = pts.length;
    chart('throughput', [{points: pts}], 'time (s)', 'output tokens/s');
  }
  var queue = data.queue.map(function (q) { return [q[0], q[1]]; });
  var running = data.queue.map(function (q) { return [q[0], q[2]]; });
  chart('queue', [{points: queue, cls: 's1'}, {points: running, cls: 's0'}],
        'time (s)', 'requests');
  var status = document.getElementById('script-status');
  status.textContent = 'script ran: ' + cdfs + ' latency CDFs of ' +
      cdfPoints + ' points, throughput in ' + bins + ' bins, queue at ' +
      data.queue.length + ' samples';
  if (window.loomErrors.length === 0) {
    var errors = document.getElementById('page-errors');
    errors.textContent = 'page-errors: none';
    errors.className = 'clean';
  }
})();
)js";

} // namespace

void loom::writeServeHtml(const ServeEvaluation &run,
                          const ServeReportContext &context, raw_ostream &os) {
  std::string title = fmt::format("Loom serving {} on {}", context.model,
                                  run.config.str(context.requestUnit));
  writeHtmlHead(title, os, kServeStyle);
  std::string text;
  {
    raw_string_ostream textOs(text);
    printServeRun(run, context, textOs);
  }
  os << "<h2>Run</h2>\n<pre id=\"report\">" << escapeHtml(text) << "</pre>\n";
  os << "<h2>Latency CDFs</h2>\n";
  for (const char *name : {"ttft", "tpot", "e2e"})
    os << "<svg class=\"chart\" id=\"cdf-" << name
       << "\" width=\"480\" height=\"240\"></svg>\n";
  os << "<p class=\"note\">Dashed: the targets on each metric.</p>\n";
  os << "<h2>Throughput over time</h2>\n<svg class=\"chart\" "
        "id=\"throughput\" width=\"480\" height=\"240\"></svg>\n";
  os << "<h2>Queue over time</h2>\n<svg class=\"chart\" id=\"queue\" "
        "width=\"480\" height=\"240\"></svg>\n<p class=\"note\">Orange: "
        "waiting (arrived, prefill not started); blue: running.</p>\n";

  // The data the script draws.
  std::vector<double> ttft, tpot, e2e;
  for (const serve::RequestResult &r : run.result.requests) {
    if (r.refused)
      continue;
    ttft.push_back(r.firstToken - r.arrival);
    e2e.push_back(r.finish - r.arrival);
    if (std::optional<double> perToken = serve::tpotOf(r))
      tpot.push_back(*perToken);
  }
  json::Object targets;
  for (const serve::LatencyTarget &t : context.targets) {
    const char *key = t.metric == serve::LatencyTarget::Metric::TTFT ? "ttft"
                      : t.metric == serve::LatencyTarget::Metric::TPOT
                          ? "tpot"
                          : "e2e";
    if (!targets.get(key))
      targets[key] = json::Array();
    targets.getArray(key)->push_back(t.seconds);
  }
  json::Array queue;
  for (const serve::QueueSample &q : run.result.queue)
    queue.push_back(json::Array{q.time, q.waiting, q.running});
  json::Object data{
      {"cdf", json::Object{{"ttft", cdfPoints(ttft)},
                           {"tpot", cdfPoints(tpot)},
                           {"e2e", cdfPoints(e2e)}}},
      {"targets", std::move(targets)},
      {"throughput", throughputOverTime(run.result)},
      {"queue", std::move(queue)}};
  // (JSON inside a script element: "</" would end it early.)
  std::string encoded = formatv("{0}", json::Value(std::move(data))).str();
  std::string safe;
  for (size_t i = 0; i < encoded.size(); ++i) {
    if (encoded[i] == '<' && i + 1 < encoded.size() && encoded[i + 1] == '/')
      safe += "<\\";
    else
      safe += encoded[i];
  }
  os << "<script type=\"application/json\" id=\"serve-data\">" << safe
     << "</script>\n";
  os << "<p class=\"note\" id=\"script-status\">script did not run</p>\n";
  os << "<script>" << kServeScript << "</script>\n</body>\n</html>\n";
}
