//===- Report.cpp - what a simulation says, for people and tools ----------===//

#include "loom/Sim/Report.h"

#include "loom/Support/Quantity.h"

#include "llvm/ADT/STLExtras.h"
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

/// Whether a chip kept bytes in its host's memory: only then do the reports
/// show the host peak.
bool usedHost(const SimResult &result) {
  return llvm::any_of(result.chips,
                      [](const ChipStats &chip) { return chip.peakHost > 0; });
}

} // namespace

std::string sim::describeCalibration(const Calibration &calibration) {
  std::string file =
      calibration.file.empty() ? "a target file not recorded" : calibration.file;
  if (calibration.isNominal())
    return fmt::format("{}, nominal figures (no calibration)", file);
  return fmt::format("{}, calibration {} version {}", file, calibration.name,
                     calibration.version);
}

void sim::printReport(const SimResult &result,
                      const schedule::Schedule &schedule,
                      llvm::raw_ostream &os) {
  os << fmt::format("makespan: {:.3f} ms ({} chips, {} events)\n",
                    result.makespan * 1e3, result.chips.size(), result.events);
  if (result.replicas > 1)
    os << fmt::format("replicas: {} alike, on links of their own: one run, "
                      "its figures each one's\n",
                      result.replicas);
  os << "figures: " << describeCalibration(result.calibration);
  if (result.dispatch > 0)
    os << fmt::format("; includes the program's dispatch, {:.3f} ms",
                      result.dispatch * 1e3);
  os << "\n";
  double busy = 0, flops = 0, exposed = 0, peak = 0, peakHost = 0;
  for (const ChipStats &chip : result.chips) {
    busy += chip.computeBusy;
    flops += chip.flops;
    exposed += chip.exposedComm;
    peak = std::max(peak, chip.peakHbm);
    peakHost = std::max(peakHost, chip.peakHost);
  }
  bool host = usedHost(result);
  size_t n = std::max<size_t>(result.chips.size(), 1);
  if (result.makespan > 0)
    os << fmt::format(
        "mean: compute busy {:.1f}%, MFU {:.1f}%, exposed communication "
        "{:.3f} ms; peak HBM {}{}\n",
        100.0 * busy / n / result.makespan,
        100.0 * flops / n / (result.makespan * result.peakFlops),
        exposed / n * 1e3, formatQuantity(peak, "B"),
        host ? "; peak host " + formatQuantity(peakHost, "B") : "");
  os << fmt::format("{:>5} {:>8} {:>8} {:>12} {:>11}{} {:>8}\n", "chip",
                    "busy", "MFU", "exposed ms", "peak HBM",
                    host ? fmt::format(" {:>11}", "peak host") : "", "tasks");
  for (const ChipStats &chip : result.chips)
    os << fmt::format(
        "{:>5} {:>7.1f}% {:>7.1f}% {:>12.3f} {:>11}{} {:>8}\n", chip.id,
        result.makespan > 0 ? 100.0 * chip.computeBusy / result.makespan
                            : 0.0,
        100.0 * mfu(chip, result), chip.exposedComm * 1e3,
        formatQuantity(chip.peakHbm, "B"),
        host ? fmt::format(" {:>11}", formatQuantity(chip.peakHost, "B")) : "",
        chip.tasks);
  if (!result.links.empty()) {
    os << "busiest links:\n";
    for (size_t i = 0; i < std::min<size_t>(5, result.links.size()); ++i) {
      const LinkStats &link = result.links[i];
      // A NIC reads "8 -> dcn" (out of the host of chip 8) or "dcn -> 8".
      auto end = [&](int64_t chip) {
        return link.dcn && chip < 0 ? std::string("dcn") : std::to_string(chip);
      };
      os << fmt::format("  {:>4} -> {:<4} {:>10}  busy {:.1f}%\n",
                        end(link.from), end(link.to),
                        formatQuantity(link.bytes, "B"),
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
    j.attribute("target_file", result.calibration.file);
    j.attributeObject("calibration", [&] {
      j.attribute("name", result.calibration.name);
      j.attribute("version", result.calibration.version);
    });
    j.attribute("makespan_s", result.makespan);
    j.attribute("dispatch_s", result.dispatch);
    j.attribute("events", int64_t(result.events));
    if (!result.failure.empty())
      j.attribute("failure", result.failure);
    bool host = usedHost(result);
    j.attributeArray("chips", [&] {
      for (const ChipStats &chip : result.chips)
        j.object([&] {
          j.attribute("id", chip.id);
          j.attribute("compute_busy_s", chip.computeBusy);
          j.attribute("flops", chip.flops);
          j.attribute("mfu", mfu(chip, result));
          j.attribute("exposed_comm_s", chip.exposedComm);
          j.attribute("peak_hbm_bytes", chip.peakHbm);
          if (host)
            j.attribute("peak_host_bytes", chip.peakHost);
          j.attribute("tasks", chip.tasks);
        });
    });
    j.attributeArray("links", [&] {
      for (const LinkStats &link : result.links)
        j.object([&] {
          j.attribute("from", link.from);
          j.attribute("to", link.to);
          if (link.dcn)
            j.attribute("dcn", true);
          j.attribute("bytes", link.bytes);
          j.attribute("busy_s", link.busy);
        });
    });
  });
  os << "\n";
}
