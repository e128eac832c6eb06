//===- Report.h - what a simulation says, for people and tools --*- C++ -*-===//

#ifndef LOOM_SIM_REPORT_H
#define LOOM_SIM_REPORT_H

#include "loom/Sim/Simulator.h"
#include "loom/Sim/Timeline.h"

#include "llvm/Support/raw_ostream.h"

namespace loom::sim {

/// Makespan; per chip compute-busy %, MFU, exposed communication and peak
/// HBM (and peak host memory, when a chip stored any there); the busiest
/// links.
/// "targets/tpu-v5e.json, calibration tpu-v5e-published version 1", or
/// "..., nominal figures (no calibration)": which figures priced a number.
std::string describeCalibration(const Calibration &calibration);

void printReport(const SimResult &result, const schedule::Schedule &schedule,
                 llvm::raw_ostream &os);

/// The same as a JSON document.
void writeReportJSON(const SimResult &result,
                     const schedule::Schedule &schedule, llvm::raw_ostream &os);

} // namespace loom::sim

#endif // LOOM_SIM_REPORT_H
