//===- PlanCommandLine.cpp - loom-plan's options, as a library ------------===//

#include "loom/Plan/PlanCommandLine.h"

#include "loom/Import/ModelImporter.h"
#include "loom/Import/WorkloadOptions.h"
#include "loom/Plan/HtmlReport.h"
#include "loom/Plan/Report.h"
#include "loom/Support/OutputFile.h"

#include "llvm/Support/ManagedStatic.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <vector>

using namespace llvm;
using namespace loom;

cl::OptionCategory &loom::planCLCategory() {
  static cl::OptionCategory category("loom-plan options");
  return category;
}

namespace {

/// A layout dimension's option, read back into a LayoutRequest when given.
template <typename T>
struct DimensionOption {
  using Stored = typename OptionText<T>::type;
  explicit DimensionOption(const Dimension<T> &d)
      : option(d.name, cl::cat(planCLCategory()), cl::desc(d.help)) {
    if constexpr (std::is_same_v<T, SliceSpec>) {
      option.setInitialValue(d.defaultValue.str());
    } else if constexpr (std::is_same_v<T, Placement>) {
      option.setValueStr("placement");
    } else {
      option.setInitialValue(d.defaultValue);
      if constexpr (std::is_enum_v<T>)
        for (const EnumSpelling<T> &s : enumSpellings(d.defaultValue))
          option.getParser().addLiteralOption(s.name, s.value, s.help);
    }
  }
  /// The value given, if any; or why it cannot be read.
  std::string read(std::optional<T> &given) const {
    if (!option.getNumOccurrences())
      return "";
    if constexpr (std::is_same_v<Stored, T>) {
      given = option.getValue();
    } else {
      Expected<T> parsed = OptionText<T>::parse(option);
      if (!parsed)
        return "--" + option.ArgStr.str() + ": " +
               toString(parsed.takeError());
      given = *parsed;
    }
    return "";
  }
  cl::opt<Stored> option;
};

/// LayoutOf's member type here: each dimension's option.
template <typename T>
using DimensionPointer = DimensionOption<T> *;

/// Every option loom-plan takes.
struct PlanCLOptions {
  PlanCLOptions()
      : workload(planCLCategory(), /*training=*/true),
        training(planCLCategory()), trace(planCLCategory()) {
    forEachDimension(
        [&](const auto &d, auto &slot) {
          using T = std::decay_t<decltype(d.defaultValue)>;
          auto option = std::make_shared<DimensionOption<T>>(d);
          slot = option.get();
          dimensions.push_back(option);
          layoutOptions.push_back(&option->option);
        },
        layoutDimensions(), layout);
  }

  cl::OptionCategory &category = planCLCategory();
  cl::opt<std::string> model{
      "model", cl::cat(category), cl::value_desc("name|config.json"),
      cl::desc("A bundled model or a config.json (required unless --plan)")};
  cl::opt<std::string> plan{
      "plan", cl::cat(category), cl::value_desc("plan.json"),
      cl::desc("Plan, lower and simulate again the plan a --save-plan wrote "
               "(with --target-file, on that target's figures); no model, "
               "workload or layout options")};
  cl::opt<std::string> savePlan{
      "save-plan", cl::cat(category), cl::value_desc("plan.json"),
      cl::desc("Write the reported plan as a plan file "
               "(docs/plan-format.md)")};
  cl::opt<std::string> topology{
      "target", cl::init("v5e-16"), cl::cat(category),
      cl::value_desc("topology"),
      cl::desc("The topology, e.g. v5e-16 (default)")};
  cl::opt<std::string> targetFile{
      "target-file", cl::cat(category), cl::value_desc("json"),
      cl::desc("Read --target's topology from this target file (format: "
               "targets/README.md) instead of the bundled ones")};
  WorkloadOptions workload;
  TrainingWorkloadOptions training;
  /// One option per layout dimension (layoutDimensions()).
  LayoutOf<DimensionPointer> layout;
  std::vector<std::shared_ptr<void>> dimensions;
  std::vector<const cl::Option *> layoutOptions;
  cl::opt<bool> search{
      "search", cl::cat(category),
      cl::desc("Choose tp, stages and data parallelism (the default when "
               "none of --tp, --stages, --data-parallel and --slices is "
               "given; with --search, any of them given stays fixed)")};
  cl::opt<int64_t> top{
      "simulate-top", cl::init(3), cl::cat(category),
      cl::desc("--search: simulate up to this many of the best plans by "
               "prediction, while their programs' tasks add up to at most 4 "
               "million")};
  cl::opt<bool> repetition{
      "repetition", cl::init(true), cl::cat(category),
      cl::desc("Simulate a denoising program of many steps by its first "
               "steps and prove the rest repeat them (docs/planning.md); "
               "=false simulates every step, within 4 million tasks")};
  cl::opt<bool> everyReplica{
      "every-replica", cl::cat(category), cl::Hidden,
      cl::desc("Simulate every data-parallel replica's chips rather than "
               "one replica's for all: the same figures, slower (for tests "
               "and benchmarks)")};
  cl::opt<unsigned> threads{
      "search-threads", cl::init(0), cl::cat(category),
      cl::desc("--search: threads that plan the candidates and simulate the "
               "best (0: one per core); the result is the same on any "
               "number")};
  cl::opt<std::string> traceFile{"trace", cl::cat(category),
                                 cl::value_desc("file"),
                                 cl::desc("Write a Perfetto trace")};
  cl::opt<std::string> svgFile{"svg", cl::cat(category),
                               cl::value_desc("file"),
                               cl::desc("Write an SVG timeline")};
  cl::opt<std::string> emit{
      "emit", cl::cat(category), cl::value_desc("maxtext|maxdiffusion"),
      cl::desc("Write the plan's SPMD part as MaxText / JetStream or "
               "MaxDiffusion config keys, with what the runtime cannot "
               "express and the time of the best plan it can "
               "(docs/runtimes/README.md); to stdout instead of the report, "
               "or to --emit-file")};
  cl::opt<std::string> emitFile{"emit-file", cl::cat(category),
                                cl::value_desc("file"),
                                cl::desc("Write --emit's config here")};
  cl::opt<std::string> html{
      "html", cl::cat(category), cl::value_desc("file"),
      cl::desc("Write a self-contained HTML report: the plan, the search's "
               "ranking, memory per stage, the timeline")};
  sim::TraceOptions trace;
  cl::opt<bool> json{"json", cl::cat(category),
                     cl::desc("Print the result as JSON")};
};

} // namespace

static ManagedStatic<PlanCLOptions> clOptions;

void loom::registerPlanCLOptions() { *clOptions; }

/// The layout the options give, or what is wrong with one.
static Expected<LayoutRequest> givenLayout(const PlanCLOptions &o) {
  LayoutRequest given;
  std::string error;
  forEachDimension(
      [&](const auto *option, auto &slot) {
        if (error.empty())
          error = option->read(slot);
      },
      o.layout, given);
  if (!error.empty())
    return createStringError(error);
  if (given.tpX && given.tpLayout.value_or(TensorLayout::OneD) !=
                       TensorLayout::TwoD)
    return createStringError("error: --tp-x sets the rows of a 2-D block; "
                             "give --tp-layout=2d with it");
  return given;
}

/// The plan file --plan names, which is the whole request (only the
/// target's figures may change).
static Expected<SavedPlan> readSavedPlan(const PlanCLOptions &o) {
  SmallVector<const cl::Option *> given = o.workload.all();
  given.append(o.training.all());
  given.append(o.layoutOptions.begin(), o.layoutOptions.end());
  given.append({&o.model, &o.topology, &o.search, &o.top});
  for (const cl::Option *option : given)
    if (option->getNumOccurrences())
      return createStringError("--plan replays the plan file's model, "
                               "workload and layout; drop --" +
                               option->ArgStr);
  auto buffer = MemoryBuffer::getFile(o.plan, /*IsText=*/true);
  if (!buffer)
    return createStringError("error: cannot read '" + o.plan +
                             "': " + buffer.getError().message());
  Expected<SavedPlan> read = readPlanFile((*buffer)->getBuffer(), o.plan);
  if (!read)
    return createStringError("error: " + toString(read.takeError()));
  return read;
}

/// The file options: what the run reads, and what it writes.
static SmallVector<const cl::opt<std::string> *> inputOptions(
    const PlanCLOptions &o) {
  return {&o.model, &o.plan, &o.targetFile};
}
static SmallVector<const cl::opt<std::string> *> outputOptions(
    const PlanCLOptions &o) {
  return {&o.savePlan, &o.traceFile, &o.svgFile, &o.html, &o.emitFile};
}

/// The first file option given an empty path (an unset shell variable,
/// most often), or "".
static std::string findEmptyPath(const PlanCLOptions &o) {
  for (const auto &group : {inputOptions(o), outputOptions(o)})
    for (const cl::opt<std::string> *option : group)
      if (option->getNumOccurrences() && option->getValue().empty())
        return "error: --" + option->ArgStr.str() +
               " is empty; give it a file";
  return "";
}

/// Why an output would replace an input or another output of the run, or
/// "".
static std::string findReplacedFile(const PlanCLOptions &o,
                                    const PlanRequest &request) {
  SmallVector<PathOption> inputs;
  // A bundled model's name reads no file.
  if (!o.model.empty() && !llvm::any_of(getBundledModels(),
                                        [&](const BundledModel &m) {
                                          return m.name == o.model.getValue();
                                        }))
    inputs.push_back({"--model", o.model});
  inputs.push_back({"--plan", o.plan});
  // (A replayed plan may name its target file.)
  inputs.push_back({o.targetFile.getNumOccurrences() || o.plan.empty()
                        ? "--target-file"
                        : "the plan's target file",
                    request.problem.targetFile});
  // The options' names, kept while `outputs` refers to them.
  SmallVector<std::string> names;
  for (const cl::opt<std::string> *option : outputOptions(o))
    names.push_back("--" + option->ArgStr.str());
  SmallVector<PathOption> outputs;
  for (auto [option, name] : llvm::zip(outputOptions(o), names))
    outputs.push_back({name, option->getValue()});
  std::string clash = findOutputClash(inputs, outputs);
  return clash.empty() ? "" : "error: " + clash;
}

Expected<PlanCommand> loom::getPlanCommand() {
  const PlanCLOptions &o = *clOptions;
  PlanCommand command;
  PlanRequest &request = command.request;
  if (std::string why = findEmptyPath(o); !why.empty())
    return createStringError(why);
  Expected<LayoutRequest> layout = givenLayout(o);
  if (!layout)
    return layout.takeError();
  request.layout = *layout;
  request.problem.model = o.model;
  request.problem.topology = o.topology;
  request.problem.targetFile = o.targetFile;
  if (std::string bad = o.workload.get(request.problem.import, &o.training);
      !bad.empty())
    return createStringError(bad);
  // A layout given by hand is planned as given; none at all is searched.
  const LayoutRequest &l = request.layout;
  bool layoutGiven = l.tp || l.ep || l.sp || l.stages || l.placement ||
                     l.dataParallel || l.slices;
  command.search = o.search || !layoutGiven;
  if (!o.plan.empty()) {
    Expected<SavedPlan> saved = readSavedPlan(o);
    if (!saved)
      return saved.takeError();
    command.saved = std::move(*saved);
    request = command.saved->request;
    if (o.targetFile.getNumOccurrences())
      request.problem.targetFile = o.targetFile;
    command.search = false;
  } else if (o.model.empty()) {
    return createStringError("error: give --model (a bundled model or a "
                             "config.json) or --plan (a saved plan)");
  }
  if (std::string why = findReplacedFile(o, request); !why.empty())
    return createStringError(why);
  if (o.emit.getNumOccurrences() && !(command.runtime = parseRuntime(o.emit)))
    return createStringError("error: --emit must be maxtext or maxdiffusion, "
                             "got '" +
                             o.emit + "'");
  if (!o.emitFile.empty() && !command.runtime)
    return createStringError(
        "error: --emit-file needs --emit maxtext|maxdiffusion");
  // --emit to stdout replaces the report there.
  if (command.runtime && o.emitFile.empty() && o.json)
    return createStringError("error: --emit without --emit-file writes the "
                             "config to stdout; drop --json or give "
                             "--emit-file");
  command.json = o.json;
  command.savePlan = o.savePlan;
  command.traceFile = o.traceFile;
  command.svgFile = o.svgFile;
  command.htmlFile = o.html;
  command.emitFile = o.emitFile;
  PlanOptions &options = command.options;
  options.trace = !o.traceFile.empty() || !o.svgFile.empty() || !o.html.empty();
  options.simulateTop = o.top;
  options.repetition = o.repetition;
  options.everyReplica = o.everyReplica;
  options.threads = o.threads;
  // A search's JSON is its ranking.
  options.rankOnly = command.search && o.json;
  std::string why =
      o.trace.getFilter(!o.traceFile.empty(), command.traceFilter);
  if (why.empty())
    why = checkRequest(request, command.search, options,
                       o.top.getNumOccurrences() > 0);
  if (!why.empty())
    return createStringError(why);
  if ((!o.savePlan.empty() || !o.html.empty() || command.runtime) &&
      options.rankOnly)
    return createStringError(
        "error: --save-plan, --html or --emit with a search's --json: the "
        "JSON is the ranking, with no chosen plan; drop --json or give the "
        "layout");
  return command;
}

/// Writes the files the command names beside the report, all or none;
/// false, with an error on `err`, when one cannot be written.
static bool writeOutputs(const PlanCommand &command, const PlanResult &result,
                         mlir::MLIRContext &context, raw_ostream &out,
                         raw_ostream &err) {
  if (command.options.rankOnly)
    return true;
  // The runtime's config first: it may still fail, before any file.
  std::string config;
  if (command.runtime) {
    raw_string_ostream configOs(config);
    if (Error error = emitRuntimeConfig(*command.runtime, result.chosen,
                                        context, configOs)) {
      err << "loom-plan: error: " << toString(std::move(error)) << "\n";
      return false;
    }
  }
  const PlanOutcome &plan = result.chosen;
  StagedOutputs files("loom-plan");
  if (!command.traceFile.empty())
    files.add(command.traceFile, [&](raw_ostream &os) {
      sim::writeTrace(*plan.simulated, plan.schedule, os,
                      command.traceFilter);
    });
  if (!command.svgFile.empty())
    files.add(command.svgFile, [&](raw_ostream &os) {
      sim::writeSVG(*plan.simulated, plan.schedule, os);
    });
  if (!command.savePlan.empty())
    files.add(command.savePlan,
              [&](raw_ostream &os) { writePlanFile(plan, os); });
  if (!command.htmlFile.empty())
    files.add(command.htmlFile,
              [&](raw_ostream &os) { writeHtmlReport(result, os); });
  if (command.runtime && !command.emitFile.empty())
    files.add(command.emitFile, [&](raw_ostream &os) { os << config; });
  if (!files.commit())
    return false;
  if (command.runtime && command.emitFile.empty())
    out << config;
  return true;
}

int loom::runPlanCommand(const PlanCommand &command, mlir::MLIRContext &context,
                         raw_ostream &out, raw_ostream &err) {
  // A runtime that cannot run the model is known before any planning.
  if (command.runtime)
    if (std::string why = checkRuntimeWorkload(
            *command.runtime, command.request.problem, context);
        !why.empty()) {
      err << "loom-plan: error: " << why << "\n";
      return 1;
    }
  PlanOptions options = command.options;
  SearchProgress progress(err);
  if (err.is_displayed())
    options.progress = std::ref(progress);
  PlanResult result =
      planOrSearch(command.request, context, command.search, options);
  progress.finish();
  if (result.ok() && !command.options.rankOnly)
    if (std::string why = checkPlanFiles(
            result, !command.traceFile.empty(), !command.svgFile.empty(),
            command.traceFilter);
        !why.empty()) {
      err << "loom-plan: error: " << why << "\n";
      return 1;
    }
  // --emit to stdout replaces the report there.
  bool emitToStdout = command.runtime && command.emitFile.empty();
  if (!emitToStdout)
    printReport(result, command.json, out);
  if (!result.ok()) {
    printFailure(result, err);
    return 1;
  }
  if (command.saved && !command.json && !emitToStdout)
    printReplay(*command.saved, result.chosen, out);
  return writeOutputs(command, result, context, out, err) ? 0 : 1;
}
