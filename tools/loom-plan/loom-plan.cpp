//===- loom-plan.cpp - the best layout of a model on a TPU v5e topology ---===//
//
// Name a model and a topology; get a plan (tensor parallelism, pipeline stages,
// slices), its per-chip memory, the cost model's prediction and the
// simulator's result side by side. With --search, Loom chooses the plan.
//
//===----------------------------------------------------------------------===//

#include "loom/InitAll.h"
#include "loom/Plan/Planner.h"
#include "loom/Sim/Report.h"
#include "loom/Support/CommandLine.h"
#include "loom/Support/OutputFile.h"
#include "loom/Support/Quantity.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"

#include <fmt/format.h>

using namespace llvm;

static cl::OptionCategory category("loom-plan options");
static cl::opt<std::string> model("model", cl::Required, cl::cat(category),
                                  cl::value_desc("name|config.json"),
                                  cl::desc("A bundled model or a config.json"));
static cl::opt<std::string> topology("target", cl::init("v5e-16"),
                                     cl::cat(category),
                                     cl::value_desc("topology"),
                                     cl::desc("The topology, e.g. v5e-16 "
                                              "(default)"));
static cl::opt<std::string>
    targetFile("target-file", cl::cat(category), cl::value_desc("json"),
               cl::desc("Read --target's topology from this target file "
                        "(format: targets/README.md) instead of the "
                        "bundled ones"));
static cl::opt<std::string>
    mode("mode", cl::cat(category), cl::value_desc("prefill|decode|diffusion"),
         cl::desc("prefill (LLMs' default), decode, or diffusion (DiTs')"));
static cl::opt<int64_t> batch("batch", cl::cat(category), cl::desc("Batch size"));
static cl::opt<int64_t> seqLen("seq", cl::cat(category),
                               cl::desc("LLMs: prompt (or cached) tokens"));
static cl::opt<int64_t> resolution("resolution", cl::cat(category),
                                   cl::desc("DiTs: image side in pixels"));
static cl::opt<int64_t> steps("steps", cl::cat(category),
                              cl::desc("DiTs: denoising steps"));
static cl::opt<int64_t> textLen("text-len", cl::cat(category),
                                cl::desc("DiTs with text: text tokens"));
static cl::opt<int64_t> tp("tp", cl::init(1), cl::cat(category),
                           cl::desc("Tensor-parallel degree (default 1)"));
static cl::opt<int64_t> stages("stages", cl::init(1), cl::cat(category),
                               cl::desc("Pipeline stages (default 1)"));
static cl::opt<int64_t> dataParallel("data-parallel", cl::init(1),
                                     cl::cat(category),
                                     cl::desc("Data-parallel replicas"));
static cl::opt<std::string> slices("slices", cl::init("auto"), cl::cat(category),
                                   cl::desc("auto, N, or lengths l1,l2,..."));
static cl::opt<bool> sequenceParallel("sequence-parallel", cl::cat(category),
                                      cl::desc("Megatron sequence parallelism"));
static cl::opt<bool> searchFlag(
    "search", cl::cat(category),
    cl::desc("Choose tp, stages and data parallelism (any of --tp, --stages "
             "and --data-parallel given stays fixed)"));
static cl::opt<int64_t>
    top("simulate-top", cl::init(3), cl::cat(category),
        cl::desc("--search: simulate this many of the best plans (those "
                 "whose programs have at most 4 million tasks)"));
static cl::opt<std::string> traceFile("trace", cl::cat(category),
                                      cl::value_desc("file"),
                                      cl::desc("Write a Perfetto trace"));
static cl::opt<std::string> svgFile("svg", cl::cat(category), cl::value_desc("file"),
                                    cl::desc("Write an SVG timeline"));
static cl::opt<bool> jsonFlag("json", cl::cat(category),
                          cl::desc("Print the result as JSON"));

namespace {

std::string planName(const loom::PlanOutcome &p) {
  return fmt::format("tp {} x {} stage{} x dp {}{}", p.request.tp,
                     p.request.stages, p.request.stages == 1 ? "" : "s",
                     p.request.dataParallel,
                     p.request.sequenceParallel ? " + sp" : "");
}

double meanMFU(const loom::sim::SimResult &r) {
  double flops = 0;
  for (const auto &chip : r.chips)
    flops += chip.flops;
  return r.chips.empty() || r.makespan <= 0
             ? 0
             : flops / r.chips.size() / (r.makespan * r.peakFlops);
}

double meanExposed(const loom::sim::SimResult &r) {
  double exposed = 0;
  for (const auto &chip : r.chips)
    exposed += chip.exposedComm;
  return r.chips.empty() ? 0 : exposed / r.chips.size();
}

void printPlan(const loom::PlanOutcome &p, raw_ostream &os) {
  const loom::PlanRequest &r = p.request;
  os << fmt::format("Loom plan for {} on {} ({}, {} chips)\n", p.modelName,
                    r.topology, p.targetName, p.chips);
  bool one = p.sliceLengths.size() == 1;
  os << fmt::format("  plan:       {}, {} layers; {} {} of {} {} in all{}\n",
                    planName(p), p.layers, p.sliceLengths.size(),
                    p.patches ? (one ? "patch" : "patches")
                              : (one ? "slice" : "slices"),
                    p.tokens, p.tokens == 1 ? "token" : "tokens",
                    p.patches ? fmt::format(", {} steps ({} warm-up)", p.steps,
                                            p.warmup)
                              : "");
  int64_t used = p.request.tp * p.request.stages * p.request.dataParallel;
  if (used < p.chips)
    os << fmt::format("  idle chips: {} of {}{}\n", p.chips - used, p.chips,
                      searchFlag ? " (no plan that uses them all is faster)"
                                 : ": raise --tp, --stages or "
                                   "--data-parallel, or let --search choose");
  os << "  slices:     [" << join(map_range(p.sliceLengths, [](int64_t l) {
                                    return std::to_string(l);
                                  }), ", ")
     << "]\n";
  os << "  memory per chip:\n";
  for (const std::string &line : p.memory)
    os << "    " << line << "\n";
  os << fmt::format("  predicted:  {:.3f} ms (cost model; pipeline bubble "
                    "{:.1f}%)\n",
                    p.predicted * 1e3, 100 * p.bubble);
  if (!p.simulated)
    os << fmt::format("  simulated:  no: its program has about {:.1f} million "
                      "tasks, over the {:.0f} million Loom simulates; fewer "
                      "slices or steps shrink it\n",
                      p.estimatedTasks / 1e6, loom::kSimulationBudget / 1e6);
  if (p.simulated) {
    const loom::sim::SimResult &s = *p.simulated;
    os << fmt::format("  simulated:  {:.3f} ms ({:+.1f}% against the "
                      "prediction)\n",
                      s.makespan * 1e3,
                      100 * (s.makespan - p.predicted) / p.predicted);
    os << fmt::format("  MFU:        {:.1f}% mean over {} chip{}\n",
                      100 * meanMFU(s), s.chips.size(),
                      s.chips.size() == 1 ? "" : "s");
    os << fmt::format("  exposed communication: {:.3f} ms per chip ({:.1f}% "
                      "of the run)\n",
                      meanExposed(s) * 1e3,
                      100 * meanExposed(s) / std::max(s.makespan, 1e-30));
  }
  os << fmt::format("  lower bound: {:.3f} ms ({} of the whole topology); plan "
                    "at {:.2f}x\n",
                    p.roofline * 1e3,
                    p.rooflineIsMemory ? "HBM bandwidth" : "peak FLOPs",
                    (p.simulated ? p.simulated->makespan : p.predicted) /
                        p.roofline);
}

void writePlanJSON(const loom::PlanOutcome &p, llvm::json::OStream &j) {
  j.object([&] {
    j.attribute("model", p.modelName);
    j.attribute("topology", p.request.topology);
    j.attribute("tp", p.request.tp);
    j.attribute("stages", p.request.stages);
    j.attribute("data_parallel", p.request.dataParallel);
    j.attribute("sequence_parallel", p.request.sequenceParallel);
    j.attribute("tokens", p.tokens);
    j.attributeArray("slices", [&] {
      for (int64_t l : p.sliceLengths)
        j.value(l);
    });
    j.attribute("predicted_s", p.predicted);
    j.attribute("bubble", p.bubble);
    j.attribute("roofline_s", p.roofline);
    if (p.simulated) {
      j.attribute("simulated_s", p.simulated->makespan);
      j.attribute("mfu", meanMFU(*p.simulated));
      j.attribute("exposed_comm_s", meanExposed(*p.simulated));
    }
    j.attributeArray("memory", [&] {
      for (const std::string &line : p.memory)
        j.value(line);
    });
  });
}


} // namespace

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "loom-plan: lay a transformer or DiT out on a TPU v5e topology\n\n"
      "Imports the model, shards attention heads across chips, cuts the "
      "layers into pipeline stages and the sequence into slices, checks "
      "memory, lowers the plan to per-chip programs and simulates them; "
      "prints the plan, the prediction and the simulated result. --search "
      "chooses the plan.\n");

  loom::PlanRequest request;
  request.model = model;
  request.topology = topology;
  request.targetFile = targetFile;
  if (!mode.empty()) {
    std::optional<loom::ImportOptions::Mode> parsed = loom::parseImportMode(mode);
    if (!parsed) {
      errs() << "loom-plan: --mode must be prefill, decode or diffusion, got '"
             << mode << "'\n";
      return 1;
    }
    request.import.mode = *parsed;
  }
  request.import.batch = loom::givenOption(batch);
  request.import.seqLen = loom::givenOption(seqLen);
  request.import.resolution = loom::givenOption(resolution);
  request.import.steps = loom::givenOption(steps);
  request.import.textLen = loom::givenOption(textLen);
  request.tp = tp;
  request.stages = stages;
  request.dataParallel = dataParallel;
  request.slices = slices;
  request.sequenceParallel = sequenceParallel;
  request.fixTp = tp.getNumOccurrences() > 0;
  request.fixStages = stages.getNumOccurrences() > 0;
  request.fixDataParallel = dataParallel.getNumOccurrences() > 0;

  mlir::DialectRegistry registry;
  loom::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();

  // Checked before any product of them is formed.
  for (const cl::opt<int64_t> *degree : {&tp, &stages, &dataParallel})
    if (*degree < 1) {
      errs() << "loom-plan: --" << degree->ArgStr << " must be at least 1, got "
             << degree->getValue() << "\n";
      return 1;
    }
  if (searchFlag && slices.getNumOccurrences()) {
    errs() << "loom-plan: --search chooses the slices of each plan; drop "
              "--slices or --search\n";
    return 1;
  }
  if (top.getNumOccurrences() && !searchFlag) {
    errs() << "loom-plan: --simulate-top applies only with --search\n";
    return 1;
  }
  if (top < 0) {
    errs() << "loom-plan: --simulate-top must be 0 or more, got " << top
           << "\n";
    return 1;
  }
  if (searchFlag) {
    int64_t rejected = 0;
    std::vector<loom::PlanOutcome> plans =
        loom::searchPlans(request, context, top, rejected);
    if (plans.empty()) {
      // The request as given says why (lowered too: the lowering refuses
      // layouts the cost model can still price).
      loom::PlanOutcome why = loom::plan(request, context, true, false);
      // No layout at all can hold weights larger than the topology's HBM.
      if (why.weightBytes > why.sliceHbmBytes && why.sliceHbmBytes > 0)
        why.failure = fmt::format(
            "its weights alone, {}, exceed the {} of HBM on all {} chips; "
            "use a larger topology",
            loom::formatQuantity(why.weightBytes, "B"),
            loom::formatQuantity(why.sliceHbmBytes, "B"), why.chips);
      errs() << "loom-plan: error: no plan of " << model << " fits " << topology
             << (why.failure.empty() ? "" : ": " + why.failure) << "\n";
      return 1;
    }
    if (jsonFlag) {
      llvm::json::OStream j(outs(), 2);
      j.array([&] {
        for (const loom::PlanOutcome &p : plans)
          writePlanJSON(p, j);
      });
      outs() << "\n";
      return 0;
    }
    int64_t simulatedCount = llvm::count_if(
        plans, [](const loom::PlanOutcome &p) { return p.simulated.has_value(); });
    outs() << fmt::format("{} plan{} for {} on {} fit{} ({} rejected: too "
                          "little memory or invalid degrees); {} simulated "
                          "(the best predicted within the simulation "
                          "budget), ranked by simulated time where there is "
                          "one:\n",
                          plans.size(), plans.size() == 1 ? "" : "s",
                          plans.front().modelName, topology,
                          plans.size() == 1 ? "s" : "", rejected,
                          simulatedCount);
    outs() << fmt::format("{:>4}  {:<26} {:>7} {:>13} {:>13} {:>7} {:>8}\n",
                          "rank", "plan", "slices", "predicted ms",
                          "simulated ms", "MFU", "x bound");
    for (auto [i, p] : enumerate(plans)) {
      double time = p.simulated ? p.simulated->makespan : p.predicted;
      outs() << fmt::format(
          "{:>4}  {:<26} {:>7} {:>13.3f} {:>13} {:>7} {:>8.2f}\n", i + 1,
          planName(p), p.sliceLengths.size(), p.predicted * 1e3,
          p.simulated ? fmt::format("{:.3f}", p.simulated->makespan * 1e3)
                      : std::string("-"),
          p.simulated ? fmt::format("{:.1f}%", 100 * meanMFU(*p.simulated))
                      : std::string("-"),
          time / p.roofline);
    }
    outs() << "\nwinner:\n";
    request = plans.front().request;
  }

  bool wantTrace = !traceFile.empty() || !svgFile.empty();
  // A plan too large to lower and simulate in memory and seconds is
  // reported from the cost model.
  bool simulate = loom::plan(request, context, false, false).estimatedTasks <=
                  loom::kSimulationBudget;
  loom::PlanOutcome outcome = loom::plan(request, context, simulate, wantTrace);
  if (!outcome.failure.empty()) {
    errs() << "loom-plan: error: this plan cannot work: " << outcome.failure
           << "\n";
    // Say what would fit.
    int64_t rejected = 0;
    std::vector<loom::PlanOutcome> fits =
        loom::searchPlans(request, context, 0, rejected);
    if (!fits.empty())
      errs() << "loom-plan: note: " << planName(fits.front())
             << " fits (predicted " << fmt::format("{:.3f}", fits.front().predicted * 1e3)
             << " ms); --search ranks all " << fits.size() << " that do\n";
    return 1;
  }
  if (jsonFlag) {
    llvm::json::OStream j(outs(), 2);
    writePlanJSON(outcome, j);
    outs() << "\n";
  } else {
    printPlan(outcome, outs());
  }
  if (!outcome.simulated) {
    if (!wantTrace)
      return 0;
    errs() << "loom-plan: error: no --trace or --svg: the plan is too large "
              "to simulate\n";
    return 1;
  }
  if (!traceFile.empty() &&
      !loom::writeOutputFile("loom-plan", traceFile, [&](raw_ostream &os) {
        loom::sim::writeTrace(*outcome.simulated, outcome.schedule, os);
      }))
    return 1;
  if (!svgFile.empty() && !loom::writeOutputFile("loom-plan", svgFile, [&](raw_ostream &os) {
        loom::sim::writeSVG(*outcome.simulated, outcome.schedule, os);
      }))
    return 1;
  return 0;
}
