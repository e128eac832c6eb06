//===- LoomModule.cpp - the `loom` Python package's extension module ------===//
//
// Runs what loom-plan runs, in process: the arguments are loom-plan's
// options (the same declarations, PlanCommandLine.h), parsed afresh for
// each call, then the plan or search of runPlanCommand. The report comes
// back as the JSON text printReport writes (docs/planning.md); the
// package's Python (loom/__init__.py) makes objects of it. LLVM's options
// are process-wide, so calls parse one at a time; the plan or search
// itself runs with the GIL released.
//
//===----------------------------------------------------------------------===//

#include "loom/Hardware/TargetDesc.h"
#include "loom/InitAll.h"
#include "loom/Plan/PlanCommandLine.h"
#include "loom/Schedule/Schedule.h"
#include "loom/Sim/Report.h"
#include "loom/Sim/Simulator.h"
#include "loom/Support/CommandLine.h"
#include "loom/Transforms/ParallelLayout.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <mutex>
#include <string>
#include <tuple>
#include <vector>

namespace py = pybind11;
using namespace llvm;

namespace {

/// The options are process-wide state: one call at a time.
std::mutex &optionsLock() {
  static std::mutex lock;
  return lock;
}

/// loom-plan with `args` (its arguments after the program name): its exit
/// code, what it printed and what it reported as errors.
std::tuple<int, std::string, std::string>
runPlan(const std::vector<std::string> &args) {
  std::string out, err;
  raw_string_ostream outs(out), errs(err);
  // Waited for without the GIL: the call holding the lock takes the GIL
  // back when its plan ends.
  std::unique_lock<std::mutex> guard(optionsLock(), std::defer_lock);
  {
    py::gil_scoped_release release;
    guard.lock();
  }
  static bool registered = [] {
    loom::registerPlanCLOptions();
    return true;
  }();
  (void)registered;
  std::vector<const char *> argv{"loom-plan"};
  for (const std::string &arg : args)
    argv.push_back(arg.c_str());
  if (std::string bad = loom::findHelpLikeTypo(
          int(argv.size()), const_cast<char **>(argv.data()));
      !bad.empty())
    return {1, "", "loom-plan: Unknown command line argument '" + bad + "'.\n"};
  for (const std::string &arg : args)
    if (arg == "--help" || arg == "-help" || arg == "--version" ||
        arg == "--help-hidden")
      return {1, "", "loom-plan: " + arg + " is loom-plan's; from Python, "
                     "help(loom.plan) says what it takes\n"};
  cl::ResetAllOptionOccurrences();
  if (!cl::ParseCommandLineOptions(int(argv.size()), argv.data(), "", &errs))
    return {1, "", err};
  Expected<loom::PlanCommand> command = loom::getPlanCommand();
  if (!command)
    return {1, "", "loom-plan: " + toString(command.takeError()) + "\n"};
  mlir::DialectRegistry registry;
  loom::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  int code;
  {
    py::gil_scoped_release release;
    code = loom::runPlanCommand(*command, context, outs, errs);
  }
  return {code, out, err};
}

/// loom-sim --json on the schedule file at `path`, on the target named
/// `target` (a bundled one), read from `targetFile`, or the schedule's
/// own: (report JSON, error message); one of them is empty.
std::pair<std::string, std::string> simulate(const std::string &path,
                                             const std::string &targetName,
                                             const std::string &targetFile) {
  auto fail = [](const Twine &why) {
    return std::pair<std::string, std::string>{"", "loom-sim: error: " +
                                                       why.str()};
  };
  auto buffer = MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return fail("cannot read '" + path + "': " + buffer.getError().message());
  Expected<loom::schedule::Schedule> schedule =
      loom::schedule::parseSchedule((*buffer)->getBuffer(), path);
  if (!schedule)
    return fail(toString(schedule.takeError()));
  std::optional<loom::TargetDesc> target;
  if (!targetFile.empty()) {
    Expected<loom::TargetDesc> file = loom::loadTargetFile(targetFile);
    if (!file)
      return fail(toString(file.takeError()));
    target = std::move(*file);
  } else if (!targetName.empty()) {
    const loom::TargetDesc *bundled = loom::lookupTarget(targetName);
    if (!bundled)
      return fail("unknown target '" + targetName +
                  "' (bundled: " + loom::listTargets() + ")");
    target = *bundled;
  } else {
    Expected<loom::TargetDesc> own =
        loom::schedule::getScheduleTarget(*schedule);
    if (!own)
      return fail(path + ": $.target: " + toString(own.takeError()));
    target = std::move(*own);
  }
  schedule->targetName = target->name;
  std::optional<Expected<loom::sim::SimResult>> result;
  {
    py::gil_scoped_release release;
    result.emplace(loom::sim::simulate(*target, *schedule, /*trace=*/false));
  }
  if (!*result)
    return fail(path + ": " + toString(result->takeError()));
  if (!(*result)->failure.empty())
    return fail((*result)->failure);
  std::string json;
  raw_string_ostream os(json);
  loom::sim::writeReportJSON(**result, *schedule, os);
  return {json, ""};
}

} // namespace

PYBIND11_MODULE(_loom, m) {
  m.doc() = "Loom's library, as loom-plan runs it (use the loom package)";
  m.def("run_plan", &runPlan, py::arg("args"),
        "loom-plan with these arguments: (exit code, output, errors)");
  m.def(
      "layout_keys",
      [] {
        std::vector<std::string> keys;
        loom::forEachDimension(
            [&](const auto &d) { keys.push_back(d.key.str()); },
            loom::layoutDimensions());
        return keys;
      },
      "The layout's dimensions, as plan files and reports name them");
  m.def("simulate", &simulate, py::arg("path"), py::arg("target") = "",
        py::arg("target_file") = "",
        "loom-sim --json on a schedule file: (report, error)");
}
