//===- Report.h - what a simulation says, for people and tools --*- C++ -*-===//

#ifndef LOOM_SIM_REPORT_H
#define LOOM_SIM_REPORT_H

#include "loom/Sim/Simulator.h"

#include "llvm/Support/raw_ostream.h"

namespace loom::sim {

/// Makespan; per chip compute-busy %, MFU, exposed communication and peak
/// HBM; the busiest links.
void printReport(const SimResult &result, const schedule::Schedule &schedule,
                 llvm::raw_ostream &os);

/// The same as a JSON document.
void writeReportJSON(const SimResult &result,
                     const schedule::Schedule &schedule, llvm::raw_ostream &os);

/// A Chrome / Perfetto trace: {"traceEvents": [...]} with one "X" event per
/// task (ts and dur in microseconds), pid = chip, tid = engine, and the
/// process and thread names set.
void writeTrace(const SimResult &result, const schedule::Schedule &schedule,
                llvm::raw_ostream &os);

/// A timeline picture: one row per chip, time across, compute and
/// communication in their own colours.
void writeSVG(const SimResult &result, const schedule::Schedule &schedule,
              llvm::raw_ostream &os);

} // namespace loom::sim

#endif // LOOM_SIM_REPORT_H
