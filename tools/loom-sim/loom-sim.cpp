//===- loom-sim.cpp - run a schedule file on a simulated TPU pod ----------===//

#include "loom/Schedule/Schedule.h"
#include "loom/Sim/Report.h"
#include "loom/Sim/TraceOptions.h"
#include "loom/Support/OutputFile.h"
#include "loom/Sim/Simulator.h"
#include "loom/Hardware/TargetDesc.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

static cl::OptionCategory category("loom-sim options");
static cl::opt<std::string> input(cl::Positional, cl::Required,
                                  cl::desc("<schedule.json, or - for stdin>"),
                                  cl::cat(category));
static cl::opt<std::string>
    targetName("target", cl::cat(category), cl::value_desc("name"),
               cl::desc("Simulate on this bundled target (default: the one "
                        "the schedule names); replays a schedule elsewhere"));
static cl::opt<std::string> targetFile("target-file", cl::cat(category),
                                       cl::value_desc("json"),
                                       cl::desc("Simulate on this target file"));
static cl::opt<bool> json("json", cl::cat(category),
                          cl::desc("Print the report as JSON"));
static cl::opt<bool> checkOnly(
    "check", cl::cat(category),
    cl::desc("Run every check a run makes before it starts (the file, the "
             "target, the schedule on it), then stop"));
static cl::opt<std::string> traceFile("trace", cl::cat(category),
                                      cl::value_desc("file"),
                                      cl::desc("Write a Chrome/Perfetto trace"));
static cl::opt<std::string> svgFile("svg", cl::cat(category),
                                    cl::value_desc("file"),
                                    cl::desc("Write an SVG timeline"));
static loom::sim::TraceOptions traceOptions(category);
static cl::opt<bool> everyFlow(
    "every-flow", cl::cat(category), cl::Hidden,
    cl::desc("Run each flow of every ring or line step on its own rather "
             "than alike flows as one bundle: the same figures, slower (for "
             "tests and benchmarks)"));
static cl::opt<bool> everyReplica(
    "every-replica", cl::cat(category), cl::Hidden,
    cl::desc("Run every data-parallel replica's chips rather than one "
             "replica's for all: the same figures, slower (for tests and "
             "benchmarks)"));


int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "loom-sim: run a schedule file on a simulated TPU pod\n\n"
      "Executes the per-chip tasks of a schedule (docs/schedule-format.md) "
      "with a discrete-event model of the target's chips, HBM and ICI links, "
      "and reports the makespan, utilisation, memory and busiest links.\n");

  for (const cl::opt<std::string> *option : {&targetFile, &traceFile, &svgFile})
    if (option->getNumOccurrences() && option->getValue().empty()) {
      errs() << "loom-sim: error: --" << option->ArgStr
             << " is empty; give it a file\n";
      return 1;
    }
  std::string clash = loom::findOutputClash(
      {{"the schedule", input}, {"--target-file", targetFile}},
      {{"--trace", traceFile}, {"--svg", svgFile}});
  if (!clash.empty()) {
    errs() << "loom-sim: error: " << clash << "\n";
    return 1;
  }

  auto buffer = MemoryBuffer::getFileOrSTDIN(input, /*IsText=*/true);
  if (!buffer) {
    errs() << "loom-sim: cannot read '" << input
           << "': " << buffer.getError().message() << "\n";
    return 1;
  }
  Expected<loom::schedule::Schedule> schedule =
      loom::schedule::parseSchedule((*buffer)->getBuffer(), input);
  if (!schedule) {
    errs() << "loom-sim: error: " << toString(schedule.takeError()) << "\n";
    return 1;
  }

  loom::sim::TraceFilter traceFilter;
  std::string badFilter =
      traceOptions.getFilter(!traceFile.empty(), traceFilter);
  if (badFilter.empty() && !traceFilter.empty())
    if (std::string why = traceFilter.check(loom::sim::inferRoles(*schedule),
                                            "schedule");
        !why.empty())
      badFilter = "error: " + why;
  if (!badFilter.empty()) {
    errs() << "loom-sim: " << badFilter << "\n";
    return 1;
  }
  if (checkOnly && (!traceFile.empty() || !svgFile.empty() || json)) {
    errs() << "loom-sim: --check runs nothing, so it takes no --trace, --svg "
              "or --json\n";
    return 1;
  }
  std::optional<loom::TargetDesc> loaded;
  const loom::TargetDesc *target = nullptr;
  if (!targetFile.empty()) {
    Expected<loom::TargetDesc> file = loom::loadTargetFile(targetFile);
    if (!file) {
      errs() << "loom-sim: error: " << toString(file.takeError()) << "\n";
      return 1;
    }
    loaded = std::move(*file);
    target = &*loaded;
  } else if (!targetName.empty()) {
    target = loom::lookupTarget(targetName);
    if (!target) {
      errs() << "loom-sim: error: unknown target '" << targetName
             << "' (bundled: " << loom::listTargets()
             << "; --target-file reads another)\n";
      return 1;
    }
  } else {
    // The schedule's own target: its figures, or a bundled one by name.
    Expected<loom::TargetDesc> own = loom::schedule::getScheduleTarget(*schedule);
    if (!own) {
      errs() << "loom-sim: error: " << input << ": $.target: "
             << toString(own.takeError()) << "\n";
      return 1;
    }
    loaded = std::move(*own);
    target = &*loaded;
  }

  if (checkOnly) {
    Expected<loom::schedule::Machine> machine =
        loom::sim::checkSchedule(*target, *schedule);
    if (!machine) {
      errs() << "loom-sim: error: " << input << ": "
             << toString(machine.takeError()) << "\n";
      return 1;
    }
    outs() << input << ": valid on " << machine->name << " ("
           << schedule->chips.size() << " of its " << machine->chips
           << " chips used)\n";
    return 0;
  }

  // Reports and traces name the target simulated, which a replay changes.
  std::string plannedFor = schedule->targetName;
  schedule->targetName = target->name;

  bool wantTrace = !traceFile.empty() || !svgFile.empty();
  Expected<loom::sim::SimResult> result =
      loom::sim::simulate(*target, *schedule, wantTrace, /*programSteps=*/0,
                          {/*everyFlow=*/everyFlow, /*checked=*/false,
                           /*everyReplica=*/everyReplica});
  if (!result) {
    errs() << "loom-sim: error: " << input << ": "
           << toString(result.takeError()) << "\n";
    return 1;
  }
  if (json)
    loom::sim::writeReportJSON(*result, *schedule, outs());
  else {
    if (plannedFor != target->name)
      outs() << "replayed on " << target->name << " (planned for "
             << plannedFor << ")\n";
    loom::sim::printReport(*result, *schedule, outs());
  }
  if (!traceFile.empty() &&
      !loom::writeOutputFile("loom-sim", traceFile, [&](raw_ostream &os) {
        loom::sim::writeTrace(*result, *schedule, os, traceFilter);
      }))
    return 1;
  if (!svgFile.empty() && !loom::writeOutputFile("loom-sim", svgFile, [&](raw_ostream &os) {
        loom::sim::writeSVG(*result, *schedule, os);
      }))
    return 1;
  if (!result->failure.empty()) {
    errs() << "loom-sim: error: " << result->failure << "\n";
    return 1;
  }
  return 0;
}
