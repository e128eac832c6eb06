//===- Report.cpp - what a simulation says, for people and tools ----------===//

#include "loom/Sim/Report.h"

#include "loom/Support/Quantity.h"

#include "llvm/Support/JSON.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

using namespace loom;
using namespace loom::sim;

namespace {

double mfu(const ChipStats &chip, const SimResult &result) {
  if (result.makespan <= 0)
    return 0;
  return chip.flops / (result.makespan * result.peakFlops);
}

const char *engineName(uint8_t engine) {
  switch (engine) {
  case 0:
    return "TensorCore";
  case 1:
    return "ICI send / collective";
  default:
    return "ICI receive";
  }
}

} // namespace

void sim::printReport(const SimResult &result,
                      const schedule::Schedule &schedule,
                      llvm::raw_ostream &os) {
  os << fmt::format("makespan: {:.3f} ms ({} chips, {} events)\n",
                    result.makespan * 1e3, result.chips.size(), result.events);
  double busy = 0, flops = 0, exposed = 0, peak = 0;
  for (const ChipStats &chip : result.chips) {
    busy += chip.computeBusy;
    flops += chip.flops;
    exposed += chip.exposedComm;
    peak = std::max(peak, chip.peakHbm);
  }
  size_t n = std::max<size_t>(result.chips.size(), 1);
  if (result.makespan > 0)
    os << fmt::format(
        "mean: compute busy {:.1f}%, MFU {:.1f}%, exposed communication "
        "{:.3f} ms; peak HBM {}\n",
        100.0 * busy / n / result.makespan,
        100.0 * flops / n / (result.makespan * result.peakFlops),
        exposed / n * 1e3, formatQuantity(peak, "B"));
  os << fmt::format("{:>5} {:>8} {:>8} {:>12} {:>11} {:>8}\n", "chip", "busy",
                    "MFU", "exposed ms", "peak HBM", "tasks");
  for (const ChipStats &chip : result.chips)
    os << fmt::format("{:>5} {:>7.1f}% {:>7.1f}% {:>12.3f} {:>11} {:>8}\n",
                      chip.id,
                      result.makespan > 0
                          ? 100.0 * chip.computeBusy / result.makespan
                          : 0.0,
                      100.0 * mfu(chip, result), chip.exposedComm * 1e3,
                      formatQuantity(chip.peakHbm, "B"), chip.tasks);
  if (!result.links.empty()) {
    os << "busiest links:\n";
    for (size_t i = 0; i < std::min<size_t>(5, result.links.size()); ++i) {
      const LinkStats &link = result.links[i];
      os << fmt::format("  {:>4} -> {:<4} {:>10}  busy {:.1f}%\n", link.from,
                        link.to, formatQuantity(link.bytes, "B"),
                        result.makespan > 0
                            ? 100.0 * link.busy / result.makespan
                            : 0.0);
    }
  }
  if (!result.failure.empty())
    os << "error: " << result.failure << "\n";
}

void sim::writeReportJSON(const SimResult &result,
                          const schedule::Schedule &schedule,
                          llvm::raw_ostream &os) {
  llvm::json::OStream j(os, 2);
  j.object([&] {
    j.attribute("target", schedule.targetName);
    j.attribute("makespan_s", result.makespan);
    j.attribute("events", int64_t(result.events));
    if (!result.failure.empty())
      j.attribute("failure", result.failure);
    j.attributeArray("chips", [&] {
      for (const ChipStats &chip : result.chips)
        j.object([&] {
          j.attribute("id", chip.id);
          j.attribute("compute_busy_s", chip.computeBusy);
          j.attribute("flops", chip.flops);
          j.attribute("mfu", mfu(chip, result));
          j.attribute("exposed_comm_s", chip.exposedComm);
          j.attribute("peak_hbm_bytes", chip.peakHbm);
          j.attribute("tasks", chip.tasks);
        });
    });
    j.attributeArray("links", [&] {
      for (const LinkStats &link : result.links)
        j.object([&] {
          j.attribute("from", link.from);
          j.attribute("to", link.to);
          j.attribute("bytes", link.bytes);
          j.attribute("busy_s", link.busy);
        });
    });
  });
  os << "\n";
}

void sim::writeTrace(const SimResult &result,
                     const schedule::Schedule &schedule,
                     llvm::raw_ostream &os) {
  std::map<int64_t, const schedule::Chip *> chips;
  for (const schedule::Chip &chip : schedule.chips)
    chips[chip.id] = &chip;
  llvm::json::OStream j(os);
  j.object([&] {
    j.attribute("displayTimeUnit", "ms");
    j.attributeArray("traceEvents", [&] {
      for (auto &[id, chip] : chips) {
        j.object([&] {
          j.attribute("ph", "M");
          j.attribute("name", "process_name");
          j.attribute("pid", id);
          j.attributeObject("args", [&] { j.attribute("name", "chip " + std::to_string(id)); });
        });
        for (uint8_t engine = 0; engine < 3; ++engine)
          j.object([&] {
            j.attribute("ph", "M");
            j.attribute("name", "thread_name");
            j.attribute("pid", id);
            j.attribute("tid", engine);
            j.attributeObject("args", [&] { j.attribute("name", engineName(engine)); });
          });
      }
      for (const TraceEvent &event : result.trace) {
        const schedule::Task &task = chips[event.chip]->tasks[event.task];
        std::string name =
            task.kind == schedule::TaskKind::Compute
                ? task.name
                : task.kind == schedule::TaskKind::Collective
                      ? schedule::name(task.collective).str()
                      : schedule::name(task.kind).str() + " " +
                            std::to_string(task.peer);
        j.object([&] {
          j.attribute("ph", "X");
          j.attribute("name", name);
          j.attribute("cat", schedule::name(task.kind));
          j.attribute("pid", event.chip);
          j.attribute("tid", event.engine);
          j.attribute("ts", event.start * 1e6);
          j.attribute("dur", (event.end - event.start) * 1e6);
          j.attributeObject("args", [&] {
            j.attribute("task", event.task);
            j.attribute("bytes", task.bytes);
            if (task.kind == schedule::TaskKind::Compute) {
              j.attribute("flops", task.flops);
              j.attribute("layer", task.layer);
              j.attribute("slice", task.slice);
            }
          });
        });
      }
    });
  });
  os << "\n";
}

void sim::writeSVG(const SimResult &result, const schedule::Schedule &schedule,
                   llvm::raw_ostream &os) {
  std::map<int64_t, int> row;
  for (const schedule::Chip &chip : schedule.chips)
    row[chip.id] = 0;
  int r = 0;
  for (auto &entry : row)
    entry.second = r++;
  const double width = 1200, left = 80, rowHeight = 18, top = 30;
  double height = top + rowHeight * row.size() + 40;
  double scale = result.makespan > 0 ? width / result.makespan : 0;
  os << fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" "
                    "height=\"{}\" font-family=\"sans-serif\" font-size=\"11\">\n",
                    left + width + 20, height);
  os << fmt::format("<text x=\"{}\" y=\"18\">makespan {:.3f} ms; blue: "
                    "compute, orange: send / collective, grey: waiting for a "
                    "receive</text>\n",
                    left, result.makespan * 1e3);
  for (auto &[id, index] : row)
    os << fmt::format("<text x=\"4\" y=\"{}\">chip {}</text>\n",
                      top + rowHeight * index + 12, id);
  static const char *colours[] = {"#3b6fb6", "#e08a2c", "#b0b0b0"};
  // Communication below compute, so compute stays visible where they overlap.
  for (int layer : {2, 1, 0})
    for (const TraceEvent &event : result.trace) {
      if (event.engine != layer)
        continue;
      double x = left + event.start * scale;
      double w = std::max((event.end - event.start) * scale, 0.5);
      double y = top + rowHeight * row[event.chip] + (layer == 0 ? 1 : 9);
      os << fmt::format("<rect x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" "
                        "height=\"{}\" fill=\"{}\"/>\n",
                        x, y, w, layer == 0 ? 8 : 7, colours[layer]);
    }
  os << fmt::format("<text x=\"{}\" y=\"{}\">0</text><text x=\"{}\" "
                    "y=\"{}\">{:.3f} ms</text>\n",
                    left, height - 10, left + width - 60, height - 10,
                    result.makespan * 1e3);
  os << "</svg>\n";
}
