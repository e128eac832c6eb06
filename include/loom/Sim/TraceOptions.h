//===- TraceOptions.h - the trace filter's command-line options -*- C++ -*-===//
//
// --trace-replica and --trace-stages, shared by loom-sim and loom-plan:
// construct one TraceOptions (a static in the tool) in the tool's option
// category, after command-line parsing ask it for the filter.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_SIM_TRACEOPTIONS_H
#define LOOM_SIM_TRACEOPTIONS_H

#include "loom/Sim/Timeline.h"

#include "llvm/Support/CommandLine.h"

namespace loom::sim {

struct TraceOptions {
  explicit TraceOptions(llvm::cl::OptionCategory &category)
      : replica("trace-replica", llvm::cl::cat(category),
                llvm::cl::value_desc("R"),
                llvm::cl::desc("--trace: keep only the chips of data-parallel "
                               "replica R (numbered from 0)")),
        stages("trace-stages", llvm::cl::cat(category),
               llvm::cl::value_desc("A-B"),
               llvm::cl::desc("--trace: keep only the chips of pipeline "
                              "stages A to B (or one stage, A)")) {}

  /// The filter the options ask for, or an error message when one is
  /// malformed or given without a trace file.
  std::string getFilter(bool tracing, TraceFilter &filter) const {
    if ((replica.getNumOccurrences() || stages.getNumOccurrences()) &&
        !tracing)
      return "--trace-replica and --trace-stages filter a trace; give --trace";
    if (replica.getNumOccurrences()) {
      if (replica < 0)
        return "--trace-replica must be 0 or more, got " +
               std::to_string(replica);
      filter.replica = replica;
    }
    if (stages.getNumOccurrences()) {
      std::pair<int64_t, int64_t> range;
      std::string error = parseStageRange(stages, range);
      if (!error.empty())
        return "--trace-stages " + error;
      filter.stages = range;
    }
    return "";
  }

  llvm::cl::opt<int64_t> replica;
  llvm::cl::opt<std::string> stages;
};

} // namespace loom::sim

#endif // LOOM_SIM_TRACEOPTIONS_H
