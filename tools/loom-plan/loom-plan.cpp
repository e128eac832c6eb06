//===- loom-plan.cpp - the best layout of a model on a TPU v5e topology ---===//
//
// Name a model and a topology; get a plan (tensor parallelism, pipeline stages,
// slices), its per-chip memory, the cost model's prediction and the
// simulator's result side by side. With no layout given (or with --search),
// Loom chooses the plan.
// Options become a PlanRequest; lib/Plan plans, simulates and reports it.
//
//===----------------------------------------------------------------------===//

#include "loom/Import/WorkloadOptions.h"
#include "loom/InitAll.h"
#include "loom/Plan/Emit.h"
#include "loom/Plan/HtmlReport.h"
#include "loom/Plan/PlanFile.h"
#include "loom/Plan/Planner.h"
#include "loom/Plan/Report.h"
#include "loom/Sim/TraceOptions.h"
#include "loom/Support/CommandLine.h"
#include "loom/Support/OutputFile.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"

using namespace llvm;

static cl::OptionCategory category("loom-plan options");
static cl::opt<std::string> model("model", cl::cat(category),
                                  cl::value_desc("name|config.json"),
                                  cl::desc("A bundled model or a config.json "
                                           "(required unless --plan)"));
static cl::opt<std::string>
    planFile("plan", cl::cat(category), cl::value_desc("plan.json"),
             cl::desc("Plan, lower and simulate again the plan a --save-plan "
                      "wrote (with --target-file, on that target's figures); "
                      "no model, workload or layout options"));
static cl::opt<std::string>
    savePlan("save-plan", cl::cat(category), cl::value_desc("plan.json"),
             cl::desc("Write the reported plan as a plan file "
                      "(docs/plan-format.md)"));
static cl::opt<std::string>
    topology("target", cl::init("v5e-16"), cl::cat(category),
             cl::value_desc("topology"),
             cl::desc("The topology, e.g. v5e-16 (default)"));
static cl::opt<std::string>
    targetFile("target-file", cl::cat(category), cl::value_desc("json"),
               cl::desc("Read --target's topology from this target file "
                        "(format: targets/README.md) instead of the "
                        "bundled ones"));
static loom::WorkloadOptions workload(category);
static cl::opt<int64_t>
    tp("tp", cl::init(1), cl::cat(category),
       cl::desc("Tensor-parallel degree (1 when another layout option is "
                "given; with none, the search chooses)"));
static cl::opt<int64_t>
    stages("stages", cl::init(1), cl::cat(category),
           cl::desc("Pipeline stages (1 when another layout option is "
                    "given; with none, the search chooses)"));
static cl::opt<int64_t>
    dataParallel("data-parallel", cl::init(1), cl::cat(category),
                 cl::desc("Data-parallel replicas (1 when another layout "
                          "option is given; with none, the search chooses)"));
static cl::opt<int64_t>
    ep("ep", cl::init(1), cl::cat(category),
       cl::desc("Expert-parallel degree, MoE models: experts split over ep "
                "chips of the tensor-parallel group, or of a group of their "
                "own beside it (--ep-layout) (1 when another layout option "
                "is given; with none, the search chooses)"));
static cl::opt<int64_t>
    sp("sp", cl::init(1), cl::cat(category),
       cl::desc("Sequence-parallel degree: sp chips share each "
                "tensor-parallel rank, each with 1/sp of the sequence, and "
                "exchange heads for tokens around attention (Ulysses) or "
                "pass K/V blocks round a ring (--sp-mode ring) (1 when "
                "another layout option is given; with none, the search "
                "chooses)"));
enum class EpLayout { tensor, data };
static cl::opt<EpLayout> epLayout(
    "ep-layout", cl::init(EpLayout::tensor), cl::cat(category),
    cl::desc("Which chips the ep group occupies (with --ep; a search tries "
             "both unless given)"),
    cl::values(clEnumValN(EpLayout::tensor, "tensor",
                          "ep chips of the tensor-parallel group, each "
                          "expert's width split tp / ep ways; tokens "
                          "dispatched over the whole group"),
               clEnumValN(EpLayout::data, "data",
                          "a group of ep chips of its own beside the tp "
                          "group (a stage holds tp x ep chips): it splits "
                          "the batch for attention and dense layers and the "
                          "experts for MoE layers, the all-to-alls over it "
                          "alone (DeepSeek-V3's serving layout); ep divides "
                          "the batch")));
enum class SpMode { ulysses, ring };
static cl::opt<SpMode> spMode(
    "sp-mode", cl::init(SpMode::ulysses), cl::cat(category),
    cl::desc("How the sp chips split attention (with --sp; with neither, "
             "the search chooses)"),
    cl::values(clEnumValN(SpMode::ulysses, "ulysses",
                          "all-to-alls trading tokens for heads "
                          "(DeepSpeed-Ulysses); sp divides the heads"),
               clEnumValN(SpMode::ring, "ring",
                          "K/V blocks passed around a ring of the sp chips, "
                          "overlapped with the attention (Liu et al. 2023); "
                          "any head count")));
enum class TpLayout { oneD, twoD, weightGathered };
static cl::opt<TpLayout> tpLayout(
    "tp-layout", cl::init(TpLayout::oneD), cl::cat(category),
    cl::desc("How the tensor-parallel group splits the layers (a search "
             "tries 1d and 2d, and weight-gathered for a batched prefill, "
             "unless given)"),
    cl::values(clEnumValN(TpLayout::oneD, "1d",
                          "Megatron: heads and d_ff over the whole group"),
               clEnumValN(TpLayout::twoD, "2d",
                          "2-D weight-stationary (Pope et al. 2023): the "
                          "group is a tp-x x (tp / tp-x) block, d_model "
                          "split over its rows, heads and d_ff over its "
                          "columns; decoder LLMs"),
               clEnumValN(TpLayout::weightGathered, "weight-gathered",
                          "weight-gathered (Pope et al. 2023, 3.2.3): the "
                          "tp chips split the batch and run whole layers, "
                          "each layer's weights (stored split tp ways) "
                          "all-gathered before it, prefetched; batched "
                          "prefill")));
static cl::opt<int64_t>
    tpXOpt("tp-x", cl::init(0), cl::cat(category),
           cl::desc("--tp-layout=2d: rows of the tp block (0: the one "
                    "nearest Pope et al.'s optimum sqrt(tp) / 2 that tiles "
                    "the slice)"));
static cl::opt<std::string> placementOpt(
    "placement", cl::cat(category), cl::value_desc("placement"),
    cl::desc("Which chips each group occupies, as 'RxC, tp AxB inside sp' "
             "(each stage a RxC block of tp x sp chips, the tp ranks an AxB "
             "sub-block of it, the sp group striding across the sub-blocks; "
             "or 'sp AxB inside tp'; 'ep' for 'sp' with --ep-layout=data; "
             "'tp AxB by columns' numbers the tp ranks down each column, as "
             "JAX's create_device_mesh did on v5e before it ordered rings), "
             "optionally followed by ', replicas "
             "inside stages' or ', stages in ring' (each replica's stage "
             "blocks a closed cycle, so the last stage is beside the first) "
             "(README, \"Placement\"; default: the rule, or the search's "
             "choice)"));
static cl::opt<std::string> slices("slices", cl::init("auto"),
                                   cl::cat(category),
                                   cl::desc("auto, N, or lengths l1,l2,..."));
static cl::opt<int64_t> interleaveOpt(
    "interleave", cl::init(1), cl::cat(category),
    cl::desc("Units (slices, patches) of a stage whose ops run zipped, so "
             "that one's collectives overlap the others' compute (1: none; "
             "a search chooses 1 or 2 unless given)"));
static cl::opt<int64_t> microbatchesOpt(
    "microbatches", cl::init(1), cl::cat(category),
    cl::desc("Batched prefill on a pipeline: run each replica's sequences "
             "as this many microbatches, each cut into the token slices, so "
             "more units fill the pipeline at the same slice length (must "
             "divide the replica's batch; a search chooses unless given)"));
static cl::opt<int64_t> virtualStagesOpt(
    "virtual-stages", cl::init(1), cl::cat(category),
    cl::desc("Interleaved stages (token slices, Megatron's interleaved "
             "schedule, MaxText's num_pipeline_repeats): each stage holds "
             "this many chunks of layers, so the bubble is a chunk's "
             "(a search chooses among 1, 2, 4, ... unless given)"));
static cl::opt<bool> decomposeOpt(
    "decompose", cl::cat(category),
    cl::desc("Run the tensor-parallel collective matmuls as ring steps "
             "under partial matmuls (docs/overlap.md; interleave 1 only); "
             "--decompose=false forbids it; a search chooses unless given"));
static cl::opt<bool> scatterHandoverOpt(
    "scatter-handover", cl::cat(category),
    cl::desc("Hand each stage boundary over as Megatron-LM does (SC'21, "
             "section 4.1): each tp rank sends 1/tp of it and the next "
             "stage's tp group all-gathers it (tp >= 2, a pipeline, no "
             "--sequence-parallel); --scatter-handover=false forbids it; a "
             "search chooses unless given"));
static cl::opt<bool>
    sequenceParallel("sequence-parallel", cl::cat(category),
                     cl::desc("Megatron sequence parallelism"));
static cl::opt<bool> searchFlag(
    "search", cl::cat(category),
    cl::desc("Choose tp, stages and data parallelism (the default when "
             "none of --tp, --stages, --data-parallel and --slices is given; "
             "with --search, any of them given stays fixed)"));
static cl::opt<int64_t>
    top("simulate-top", cl::init(3), cl::cat(category),
        cl::desc("--search: simulate up to this many of the best plans "
                 "by prediction, while their programs' tasks add up to at "
                 "most 4 million"));
static cl::opt<unsigned>
    threads("search-threads", cl::init(0), cl::cat(category),
            cl::desc("--search: threads that plan the candidates and "
                     "simulate the best (0: one per core); the result is "
                     "the same on any number"));
static cl::opt<std::string> traceFile("trace", cl::cat(category),
                                      cl::value_desc("file"),
                                      cl::desc("Write a Perfetto trace"));
static cl::opt<std::string> svgFile("svg", cl::cat(category),
                                    cl::value_desc("file"),
                                    cl::desc("Write an SVG timeline"));
static cl::opt<std::string>
    emitRuntime("emit", cl::cat(category), cl::value_desc("maxtext|maxdiffusion"),
                cl::desc("Write the plan's SPMD part as MaxText / JetStream or "
                         "MaxDiffusion config keys, with what the runtime "
                         "cannot express and the time of the best plan it "
                         "can (docs/runtimes/README.md); to stdout instead "
                         "of the report, or to --emit-file"));
static cl::opt<std::string> emitFile("emit-file", cl::cat(category),
                                     cl::value_desc("file"),
                                     cl::desc("Write --emit's config here"));
static cl::opt<std::string>
    htmlFile("html", cl::cat(category), cl::value_desc("file"),
             cl::desc("Write a self-contained HTML report: the plan, the "
                      "search's ranking, memory per stage, the timeline"));
static loom::sim::TraceOptions traceOptions(category);
static cl::opt<bool> jsonFlag("json", cl::cat(category),
                              cl::desc("Print the result as JSON"));

/// The argument LLVM's parser would take as -h (help, exit 0) although it
/// is no option: an unknown --hXXX (a mistyped option starting with h, or
/// a stray prefix). Empty when there is none.
static std::string unknownHelpLike(int argc, char **argv) {
  auto known = cl::getRegisteredOptions();
  for (int i = 1; i < argc; ++i) {
    StringRef arg(argv[i]);
    if (arg == "--")
      break;
    StringRef name = arg;
    if (!name.consume_front("--") && !name.consume_front("-"))
      continue;
    name = name.split('=').first;
    if (name.size() > 1 && name.front() == 'h' && !known.count(name))
      return arg.str();
  }
  return "";
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  if (std::string bad = unknownHelpLike(argc, argv); !bad.empty()) {
    errs() << "loom-plan: Unknown command line argument '" << bad
           << "'.  Try: 'loom-plan --help'\n";
    return 1;
  }
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "loom-plan: lay a transformer or DiT out on a TPU v5e topology\n\n"
      "Imports the model, shards attention heads across chips, cuts the "
      "layers into pipeline stages and the sequence into slices, checks "
      "memory, lowers the plan to per-chip programs and simulates them; "
      "prints the plan, the prediction and the simulated result. With no "
      "layout option (--tp, --stages, --data-parallel, --slices), or with "
      "--search, it searches every layout and reports the best.\n");
  auto fail = [](const Twine &message) {
    errs() << "loom-plan: " << message << "\n";
    return 1;
  };
  loom::PlanRequest request;
  request.model = model;
  request.topology = topology;
  request.targetFile = targetFile;
  request.tp = tp;
  request.ep = ep;
  request.epData = epLayout == EpLayout::data;
  request.fixEpLayout = epLayout.getNumOccurrences() > 0;
  request.sp = sp;
  request.spMode = spMode == SpMode::ring ? "ring" : "ulysses";
  request.stages = stages;
  request.dataParallel = dataParallel;
  request.slices = slices;
  request.interleave = interleaveOpt;
  request.microbatches = microbatchesOpt;
  request.virtualStages = virtualStagesOpt;
  request.decompose = decomposeOpt;
  request.scatterHandover = scatterHandoverOpt;
  request.sequenceParallel = sequenceParallel;
  if (tpXOpt.getNumOccurrences() && tpLayout != TpLayout::twoD)
    return fail("error: --tp-x sets the rows of a 2-D block; give "
                "--tp-layout=2d with it");
  // 0: the planner chooses the block's rows.
  request.tpX = tpLayout == TpLayout::twoD ? int64_t(tpXOpt) : 1;
  request.weightGathered = tpLayout == TpLayout::weightGathered;
  request.fixTpLayout = tpLayout.getNumOccurrences() > 0;
  request.placement = placementOpt;
  request.fixPlacement = placementOpt.getNumOccurrences() > 0;
  if (std::string bad = workload.get(request.import); !bad.empty())
    return fail(bad);
  request.fixTp = tp.getNumOccurrences() > 0;
  request.fixEp = ep.getNumOccurrences() > 0;
  request.fixSp = sp.getNumOccurrences() > 0;
  request.fixSpMode = spMode.getNumOccurrences() > 0;
  request.fixStages = stages.getNumOccurrences() > 0;
  request.fixDataParallel = dataParallel.getNumOccurrences() > 0;
  request.fixInterleave = interleaveOpt.getNumOccurrences() > 0;
  request.fixMicrobatches = microbatchesOpt.getNumOccurrences() > 0;
  request.fixVirtualStages = virtualStagesOpt.getNumOccurrences() > 0;
  request.fixDecompose = decomposeOpt.getNumOccurrences() > 0;
  request.fixScatterHandover = scatterHandoverOpt.getNumOccurrences() > 0;
  // A layout given by hand is planned as given; none at all is searched.
  bool layoutGiven = request.fixTp || request.fixEp || request.fixSp ||
                     request.fixStages || request.fixPlacement ||
                     request.fixDataParallel || slices.getNumOccurrences() > 0;
  bool search = searchFlag || !layoutGiven;
  std::optional<loom::SavedPlan> saved;
  if (!planFile.empty()) {
    // The file is the whole request; only the target's figures may change.
    SmallVector<const cl::Option *> given = workload.all();
    given.append({&model, &topology, &tp, &ep, &epLayout, &sp, &spMode,
                  &stages,
                  &dataParallel, &slices, &interleaveOpt, &microbatchesOpt,
                  &virtualStagesOpt, &decomposeOpt, &scatterHandoverOpt,
                  &tpLayout, &tpXOpt, &placementOpt,
                  &sequenceParallel, &searchFlag,
                  &top});
    for (const cl::Option *o : given)
      if (o->getNumOccurrences())
        return fail("--plan replays the plan file's model, workload and "
                    "layout; drop --" + o->ArgStr);
    auto buffer = MemoryBuffer::getFile(planFile, /*IsText=*/true);
    if (!buffer)
      return fail("error: cannot read '" + planFile +
                  "': " + buffer.getError().message());
    Expected<loom::SavedPlan> read =
        loom::readPlanFile((*buffer)->getBuffer(), planFile);
    if (!read)
      return fail("error: " + toString(read.takeError()));
    saved = std::move(*read);
    request = saved->request;
    if (targetFile.getNumOccurrences())
      request.targetFile = targetFile;
    search = false;
  } else if (model.empty()) {
    return fail("error: give --model (a bundled model or a config.json) or "
                "--plan (a saved plan)");
  }
  std::optional<loom::Runtime> runtime;
  if (!emitRuntime.empty() && !(runtime = loom::parseRuntime(emitRuntime)))
    return fail("error: --emit must be maxtext or maxdiffusion, got '" +
                emitRuntime + "'");
  if (!emitFile.empty() && !runtime)
    return fail("error: --emit-file needs --emit maxtext|maxdiffusion");
  // --emit to stdout replaces the report there.
  bool emitToStdout = runtime && emitFile.empty();
  if (emitToStdout && jsonFlag)
    return fail("error: --emit without --emit-file writes the config to "
                "stdout; drop --json or give --emit-file");
  loom::PlanOptions options;
  options.trace =
      !traceFile.empty() || !svgFile.empty() || !htmlFile.empty();
  options.simulateTop = top;
  options.threads = threads;
  options.rankOnly = search && jsonFlag; // a search's JSON is its ranking
  loom::SearchProgress progress(errs());
  if (errs().is_displayed())
    options.progress = std::ref(progress);
  loom::sim::TraceFilter traceFilter;
  std::string why = traceOptions.getFilter(!traceFile.empty(), traceFilter);
  if (why.empty())
    why = loom::checkRequest(request, search, slices.getNumOccurrences() > 0,
                             options, top.getNumOccurrences() > 0);
  if (!why.empty())
    return fail(why);

  mlir::DialectRegistry registry;
  loom::registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  loom::PlanResult result =
      loom::planOrSearch(request, context, search, options);
  progress.finish();
  if (!emitToStdout)
    loom::printReport(result, jsonFlag, outs());
  if (!result.ok()) {
    loom::printFailure(result, errs());
    return 1;
  }
  if (saved && !jsonFlag && !emitToStdout)
    loom::printReplay(*saved, result.chosen, outs());
  if ((!savePlan.empty() || !htmlFile.empty() || runtime) && options.rankOnly)
    return fail("error: --save-plan, --html or --emit with a search's "
                "--json: the JSON is the ranking, with no chosen plan; drop "
                "--json or give the layout");
  bool written =
      options.rankOnly || loom::writePlanFiles(result, traceFile, svgFile, traceFilter);
  if (written && !savePlan.empty())
    written = loom::writeOutputFile("loom-plan", savePlan, [&](raw_ostream &os) {
      loom::writePlanFile(result.chosen, os);
    });
  if (written && !htmlFile.empty())
    written = loom::writeOutputFile("loom-plan", htmlFile, [&](raw_ostream &os) {
      loom::writeHtmlReport(result, os);
    });
  if (written && runtime) {
    std::string config;
    raw_string_ostream configOs(config);
    if (Error error =
            loom::emitRuntimeConfig(*runtime, result.chosen, context, configOs))
      return fail("error: " + toString(std::move(error)));
    if (emitToStdout)
      outs() << config;
    else
      written = loom::writeOutputFile("loom-plan", emitFile,
                                      [&](raw_ostream &os) { os << config; });
  }
  return written ? 0 : 1;
}
