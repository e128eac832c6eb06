//===- HtmlReport.cpp - loom-plan's report as one HTML page ---------------===//

#include "loom/Plan/HtmlReport.h"

#include "loom/Plan/Report.h"
#include "loom/Sim/Timeline.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

using namespace llvm;
using namespace loom;

std::string loom::escapeHtml(StringRef text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
    case '&':
      out += "&amp;";
      break;
    case '<':
      out += "&lt;";
      break;
    case '>':
      out += "&gt;";
      break;
    case '"':
      out += "&quot;";
      break;
    case '\'':
      out += "&#39;";
      break;
    default:
      out += c;
    }
  }
  return out;
}

namespace {

/// One bar of the memory chart: a stage's peak HBM on its busiest chip.
struct StageMemory {
  std::string label;
  double bytes = 0;
  /// The line loom-check-memory wrote for the stage (the bar's tooltip).
  std::string detail;
};

/// Per stage, the simulator's peak HBM of its busiest chip; without a
/// simulation, loom-check-memory's share of the chip ("(54%)").
std::vector<StageMemory> stageMemory(const PlanOutcome &p, double capacity) {
  // With virtual stages p.stageLayers holds the chunks; chunk c is on
  // stage c mod K.
  size_t v = std::max<int64_t>(p.layout.virtualStages, 1);
  std::vector<StageMemory> stages(p.stageLayers.size() / v);
  for (auto [i, layers] : enumerate(p.stageLayers)) {
    if (stages.empty())
      break;
    StageMemory &stage = stages[i % stages.size()];
    stage.label += fmt::format("{}{}-{}",
                               stage.label.empty()
                                   ? fmt::format("stage {} (layers ",
                                                 i % stages.size())
                                   : ", ",
                               layers.first, layers.second);
    if (i + stages.size() >= p.stageLayers.size())
      stage.label += ")";
    if (i < p.memory.size() && i < stages.size())
      stage.detail = p.memory[i];
  }
  if (p.simulated) {
    std::map<int64_t, double> peak;
    for (const sim::ChipStats &chip : p.simulated->chips)
      peak[chip.id] = chip.peakHbm;
    std::vector<sim::ChipRole> roles = sim::inferRoles(p.schedule);
    for (auto [i, chip] : enumerate(p.schedule.chips)) {
      int64_t stage = roles[i].stage;
      if (stage < 0 || size_t(stage) >= stages.size())
        continue;
      stages[stage].bytes = std::max(stages[stage].bytes, peak[chip.id]);
    }
    return stages;
  }
  for (StageMemory &s : stages) {
    size_t close = s.detail.find("%)");
    size_t open = s.detail.rfind('(', close);
    double percent = 0;
    if (close != std::string::npos && open != std::string::npos &&
        !StringRef(s.detail).slice(open + 1, close).getAsDouble(percent))
      s.bytes = percent / 100 * capacity;
  }
  return stages;
}

void writeMemoryChart(const PlanOutcome &p, raw_ostream &os) {
  double capacity = p.chips > 0 ? p.sliceHbmBytes / p.chips : 0;
  std::vector<StageMemory> stages = stageMemory(p, capacity);
  const double barWidth = 48, gap = 24, left = 60, top = 20, height = 200;
  double width = left + stages.size() * (barWidth + gap) + gap;
  // The chart's top: the chip's capacity, or a stage above it.
  double scale = capacity;
  for (const StageMemory &s : stages)
    scale = std::max(scale, s.bytes);
  if (scale <= 0)
    scale = 1;
  os << fmt::format("<svg id=\"memory-chart\" xmlns=\"http://www.w3.org/2000/"
                    "svg\" width=\"{:.0f}\" height=\"{:.0f}\" role=\"img\" "
                    "aria-label=\"peak HBM per chip of each stage\">\n",
                    width, top + height + 50);
  double capacityY = top + height * (1 - capacity / scale);
  os << fmt::format("<line class=\"capacity\" x1=\"{:.0f}\" x2=\"{:.0f}\" "
                    "y1=\"{:.1f}\" y2=\"{:.1f}\"/>\n",
                    left - 6, width, capacityY, capacityY);
  os << fmt::format("<text x=\"4\" y=\"{:.1f}\" class=\"axis\">{:.1f} GB</text>\n",
                    capacityY + 4, capacity / 1e9);
  os << fmt::format("<text x=\"4\" y=\"{:.1f}\" class=\"axis\">0</text>\n",
                    top + height + 4);
  for (auto [i, s] : enumerate(stages)) {
    double h = height * s.bytes / scale;
    double x = left + gap + i * (barWidth + gap);
    bool over = capacity > 0 && s.bytes > capacity;
    os << fmt::format(
        "<rect class=\"bar{}\" data-stage=\"{}\" data-bytes=\"{:.0f}\" "
        "x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.0f}\" height=\"{:.1f}\">"
        "<title>{}: {:.2f} GB of {:.2f} GB per chip{}</title></rect>\n",
        over ? " over" : "", i, s.bytes, x, top + height - h, barWidth, h,
        escapeHtml(s.label), s.bytes / 1e9, capacity / 1e9,
        s.detail.empty() ? "" : "\n" + escapeHtml(s.detail));
    os << fmt::format("<text class=\"label\" x=\"{:.1f}\" y=\"{:.1f}\" "
                      "text-anchor=\"middle\">{:.1f} GB</text>\n",
                      x + barWidth / 2, top + height - h - 4, s.bytes / 1e9);
    os << fmt::format("<text class=\"label\" x=\"{:.1f}\" y=\"{:.1f}\" "
                      "text-anchor=\"middle\">stage {}</text>\n",
                      x + barWidth / 2, top + height + 18, i);
  }
  os << "</svg>\n";
  os << fmt::format("<p class=\"note\">{}; the line is the chip's HBM, {:.2f} "
                    "GB.</p>\n",
                    p.simulated ? "Peak HBM of each stage's busiest chip, as "
                                  "loom-sim measured it"
                                : "Each stage's memory per chip as "
                                  "loom-check-memory counts it (the plan "
                                  "was too large to simulate)",
                    capacity / 1e9);
}

void writeRanking(const PlanResult &result, raw_ostream &os) {
  const SearchResult &search = result.search;
  os << fmt::format("<h2>Search</h2>\n<p>{} plan{} fit ({} rejected: too "
                    "little memory or invalid degrees), best first; the "
                    "simulated time ranks where there is one, and plans "
                    "too large to simulate come last.</p>\n",
                    search.ranked.size(), search.ranked.size() == 1 ? "" : "s",
                    search.rejected);
  os << "<table id=\"ranking\">\n<thead><tr><th>rank</th><th>plan</th>"
        "<th>slices</th><th>predicted ms</th><th>simulated ms</th>"
        "<th>efficiency</th><th>x bound</th></tr></thead>\n<tbody>\n";
  for (auto [i, p] : enumerate(search.ranked)) {
    double time = p.simulated ? p.simulated->makespan : p.predicted;
    os << fmt::format(
        "<tr class=\"plan-row{}\"><td>{}</td><td>{}</td><td>{}</td>"
        "<td>{:.3f}</td><td>{}</td><td>{:.1f}%</td><td>{:.2f}</td></tr>\n",
        i == 0 ? " winner" : "", i + 1, escapeHtml(planName(p)),
        p.sliceLengths.size(), p.predicted * 1e3,
        p.simulated ? fmt::format("{:.3f}", p.simulated->makespan * 1e3)
                    : std::string("-"),
        100 * getEfficiency(p).efficiency,
        p.roofline > 0 ? time / p.roofline : 0.0);
  }
  os << "</tbody>\n</table>\n";
}

constexpr const char *kStyle = R"css(
body { font: 14px/1.4 system-ui, sans-serif; margin: 24px; color: #222; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
pre { background: #f6f6f6; padding: 12px; overflow-x: auto; }
table { border-collapse: collapse; }
th, td { border: 1px solid #ccc; padding: 3px 8px; text-align: right; }
td:nth-child(2), th:nth-child(2) { text-align: left; }
tr.winner { background: #e8f4e8; font-weight: 600; }
th { cursor: pointer; background: #eee; }
#memory-chart .bar { fill: #4a7fc1; } #memory-chart .bar.over { fill: #c14a4a; }
#memory-chart .capacity { stroke: #c14a4a; stroke-dasharray: 4 3; }
#memory-chart text { font-size: 11px; fill: #333; }
.timeline { overflow-x: auto; border: 1px solid #ddd; }
.note { color: #555; font-size: 12px; }
#page-errors { color: #b00; white-space: pre-wrap; }
#page-errors.clean { color: #555; font-size: 12px; }
)css";

/// Reports every script error into the page, where a DOM dump sees it.
constexpr const char *kErrorHook = R"js(
window.loomErrors = [];
window.onerror = function (message, source, line) {
  window.loomErrors.push(message + ' (line ' + line + ')');
  var out = document.getElementById('page-errors');
  if (out) {
    out.textContent = 'page-error: ' + window.loomErrors.join('; ');
    out.className = '';
  }
  return false;
};
)js";

/// Sorts the ranking by a column when its header is clicked, and records
/// in the DOM that the page's script ran (#script-status).
constexpr const char *kScript = R"js(
(function () {
  var table = document.getElementById('ranking');
  if (table) {
    var headers = table.querySelectorAll('th');
    headers.forEach(function (th, column) {
      th.addEventListener('click', function () {
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = parseFloat(a.cells[column].textContent);
          var y = parseFloat(b.cells[column].textContent);
          if (isNaN(x) || isNaN(y))
            return a.cells[column].textContent.localeCompare(
                b.cells[column].textContent);
          return x - y;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  }
  var bars = document.querySelectorAll('#memory-chart rect.bar').length;
  var rows = table ? table.tBodies[0].rows.length : 0;
  var status = document.getElementById('script-status');
  status.textContent = 'script ran: ' + bars + ' memory bars, ' + rows +
      ' ranked plans';
  if (window.loomErrors.length === 0)
  {
    var errors = document.getElementById('page-errors');
    errors.textContent = 'page-errors: none';
    errors.className = 'clean';
  }
})();
)js";

} // namespace

void loom::writeHtmlHead(StringRef title, raw_ostream &os,
                         StringRef extraStyle) {
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
     << "<title>" << escapeHtml(title) << "</title>\n<style>" << kStyle
     << extraStyle << "</style>\n<script>" << kErrorHook
     << "</script>\n</head>\n<body>\n";
  os << "<h1>" << escapeHtml(title) << "</h1>\n";
  os << "<p id=\"page-errors\"></p>\n";
}

void loom::writeHtmlReport(const PlanResult &result, raw_ostream &os) {
  const PlanOutcome &plan = result.chosen;
  std::string title = fmt::format("Loom plan for {} on {}", plan.modelName,
                                  plan.problem.topology);
  writeHtmlHead(title, os);
  std::string text;
  {
    raw_string_ostream textOs(text);
    printPlan(plan, result.searched, textOs);
  }
  os << "<h2>Plan</h2>\n<pre id=\"plan\">" << escapeHtml(text) << "</pre>\n";
  if (result.searched && !result.search.ranked.empty())
    writeRanking(result, os);
  os << "<h2>Memory per stage</h2>\n";
  writeMemoryChart(plan, os);
  os << "<h2>Timeline</h2>\n";
  if (plan.simulated) {
    os << "<div class=\"timeline\" id=\"timeline\">\n";
    sim::writeSVG(*plan.simulated, plan.schedule, os);
    os << "</div>\n";
  } else {
    os << "<p id=\"timeline\">No timeline: the plan is too large to "
          "simulate.</p>\n";
  }
  os << "<p class=\"note\" id=\"script-status\">script did not run</p>\n";
  os << "<script>" << kScript << "</script>\n</body>\n</html>\n";
}
