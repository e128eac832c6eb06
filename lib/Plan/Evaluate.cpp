//===- Evaluate.cpp - one plan, from problem to prediction ----------------===//
//
// The evaluation of one layout: its target materialised, its workload
// imported once (alone, the whole batch, for the workload's figures, then
// split into a data-parallel replica's share by loom-split-batch; in a
// search, the share), the planning pipeline
// run once, the planned module read back, and the cost model's prediction.
//
//===----------------------------------------------------------------------===//

#include "Evaluate.h"
#include "Handover.h"

#include "loom/Analysis/StageCost.h"
#include "loom/Conversion/Passes.h"
#include "loom/Dialect/Loom/ModelCost.h"
#include "loom/Dialect/Loom/ModuleTarget.h"
#include "loom/Hardware/DeviceMesh.h"
#include "loom/Partition/PartitionLayers.h"
#include "loom/Transforms/PlanPipeline.h"
#include "loom/Support/Quantity.h"
#include "loom/Transforms/SplitBatch.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"

#include <fmt/format.h>

#include <cmath>
#include <numeric>
#include <variant>

using namespace mlir;
using namespace loom;

//===----------------------------------------------------------------------===//
// Diagnostics
//===----------------------------------------------------------------------===//

Captured::Captured(MLIRContext &context, StringRef workloadPlace)
    : context(context), printedOp(context.shouldPrintOpOnDiagnostic()),
      handler(&context, [this, workloadPlace = workloadPlace.str()](
                            Diagnostic &diag) {
        std::string text;
        llvm::raw_string_ostream os(text);
        os << diag;
        if (diag.getSeverity() == DiagnosticSeverity::Error) {
          errors.push_back(text);
          // A config file's error names its place in the file, as
          // loom-import's does (1:1 for the file as a whole); one about the
          // workload options names where they were given, if anywhere.
          auto where = dyn_cast<FileLineColLoc>(diag.getLocation());
          auto name = dyn_cast<NameLoc>(diag.getLocation());
          if (where)
            located.push_back(where.getFilename().str() + ":" +
                              std::to_string(where.getLine()) + ":" +
                              std::to_string(where.getColumn()) + ": " + text);
          else if (name && name.getName() == kWorkloadOptionsLocName &&
                   !workloadPlace.empty())
            located.push_back(workloadPlace + ": " + text);
          else
            located.push_back(text);
        } else if (diag.getSeverity() == DiagnosticSeverity::Remark) {
          remarks.push_back(text);
        }
        return success();
      }) {
  context.printOpOnDiagnostic(false);
}

Captured::~Captured() { context.printOpOnDiagnostic(printedOp); }

std::string Captured::errorText(bool withPlaces) const {
  std::string all;
  for (const std::string &e : withPlaces ? located : errors)
    all += (all.empty() ? "" : "; ") + e;
  return all;
}

//===----------------------------------------------------------------------===//
// The workload
//===----------------------------------------------------------------------===//

WorkloadFigures loom::importedWorkload(ModuleOp module,
                                       const ImportOptions &request) {
  WorkloadFigures figures;
  ModelAttr imported = getModel(module);
  figures.modelName = imported.getName().str();
  figures.family = imported.getFamily().str();
  ImportOptions &given = figures.imported;
  // What #loom.model does not record: the precision, the routing and how
  // attention runs.
  given.weights = request.weights;
  given.kvCache = request.kvCache;
  given.activations = request.activations;
  given.expertImbalance = request.expertImbalance;
  given.attention = request.attention;
  given.training = request.training;
  given.mode = imported.isDiffusion() ? ImportOptions::Mode::Diffusion
               : imported.getMode() == ModelMode::decode
                   ? ImportOptions::Mode::Decode
                   : ImportOptions::Mode::Prefill;
  given.batch = imported.getBatch();
  if (imported.isDiffusion()) {
    // A square image keeps --resolution; other images and videos have
    // their height and width, and videos their frames.
    if (imported.getResolution()) {
      given.resolution = imported.getResolution();
    } else {
      given.height = imported.getHeight();
      given.width = imported.getWidth();
      if (imported.getFrames())
        given.frames = imported.getFrames();
    }
    given.steps = imported.getSteps();
    if (imported.getTextTokens())
      given.textLen = imported.getTextTokens();
  } else {
    given.seqLen = imported.getSeq();
  }
  return figures;
}

WorkloadFigures loom::workloadFigures(ModuleOp module,
                                      const ImportOptions &request,
                                      const TargetDesc &target,
                                      int64_t chips) {
  WorkloadFigures figures = importedWorkload(module, request);
  ModelAttr imported = getModel(module);
  // The ideal time, from the whole batch before any replica takes its share.
  CostModel model(target);
  double oneChip = 0;
  for (auto func : module.getOps<func::FuncOp>())
    for (Operation &op : func.getBody().front())
      if (auto cost = dyn_cast<CostOpInterface>(op))
        oneChip += estimateTime(model, cost);
  figures.ideal =
      oneChip * (imported.isDiffusion() ? imported.getSteps() : 1) / chips;
  return figures;
}

/// The workload one data-parallel replica runs (its share of the batch),
/// imported once; `out` gets the workload's figures. A plan alone imports
/// the whole batch, takes the figures from it and splits it for the
/// replica (loom-split-batch). A search has the figures already (`shared`)
/// and imports each candidate's share directly: the same module
/// (unittests/SplitBatchTest.cpp), without the split's walk, which costs
/// a batched search more than its imports do (bench/search_compare.sh).
/// Null, with `out.failure` set, when it cannot.
static OwningOpRef<ModuleOp>
importReplica(const PlanProblem &problem, const ParallelLayout &layout,
              MLIRContext &context, const TargetDesc &target,
              SearchShared *shared, Captured &diagnostics,
              PlanOutcome &out) {
  auto fail = [&](std::string why) {
    out.failure = std::move(why);
    return OwningOpRef<ModuleOp>();
  };
  std::optional<WorkloadFigures> figures;
  if (shared && shared->workload)
    figures = shared->workload;
  // A search's candidates of one batch share import it once per context
  // and plan clones (the same IR, locations and all).
  auto import = [&](const ImportOptions &options) -> OwningOpRef<ModuleOp> {
    if (!shared)
      return importModel(problem.model, options, &context);
    ImportCache &cache = shared->imports;
    std::pair<MLIRContext *, int64_t> key{&context,
                                          options.batch.value_or(0)};
    ModuleOp cached;
    {
      std::lock_guard<std::mutex> lock(cache.mutex);
      auto it = cache.modules.find(key);
      if (it != cache.modules.end())
        cached = *it->second;
    }
    // Only this thread uses `context`: the cached module is read here alone.
    if (cached)
      return cached.clone();
    OwningOpRef<ModuleOp> fresh =
        importModel(problem.model, options, &context);
    if (!fresh)
      return fresh;
    OwningOpRef<ModuleOp> copy = fresh->clone();
    std::lock_guard<std::mutex> lock(cache.mutex);
    cache.modules.try_emplace(key, std::move(fresh));
    return copy;
  };
  OwningOpRef<ModuleOp> module;
  // The whole batch is imported when the figures need it or it is the
  // replica's.
  if (!figures || layout.dataParallel == 1) {
    module = import(problem.import);
    if (!module)
      return fail(diagnostics.errorText(/*withPlaces=*/true));
    if (!figures)
      figures = workloadFigures(*module, problem.import, target, out.chips);
  }
  out.modelName = figures->modelName;
  out.family = figures->family;
  out.imported = figures->imported;
  out.ideal = figures->ideal;
  if (layout.dataParallel == 1)
    return module;
  // Each data-parallel replica runs its share of the batch.
  int64_t batch = *figures->imported.batch;
  if (batch % layout.dataParallel != 0)
    return fail("data-parallel " + std::to_string(layout.dataParallel) +
                " does not divide the batch of " + std::to_string(batch) +
                " (each replica runs an equal share)");
  if (module) {
    if (failed(splitReplicaBatch(*module, layout.dataParallel)))
      return fail(diagnostics.errorText());
    return module;
  }
  ImportOptions share = problem.import;
  share.batch = batch / layout.dataParallel;
  module = import(share);
  if (!module)
    return fail(diagnostics.errorText());
  return module;
}

/// The workload's FLOPs and weights, before any split, and the lower bound
/// they give on the whole topology.
static void workloadBounds(ModuleOp module, const TargetDesc &desc,
                           const ParallelLayout &layout, PlanOutcome &out) {
  double weights = 0;
  for (auto func : module.getOps<func::FuncOp>()) {
    CostTotals total = sumPartCosts(collectPartCosts(func.getBody().front()));
    out.modelFlops += total.flops;
    weights += total.parameterBytes;
  }
  // All replicas' work: each data-parallel replica runs its share of the
  // batch and reads its own copy of the weights.
  double runs = double(out.steps) * layout.dataParallel;
  out.modelFlops *= runs;
  double computeBound = out.modelFlops / (out.chips * desc.peakFlopsBf16);
  double memoryBound = runs * weights / (out.chips * desc.hbmBandwidth);
  out.roofline = std::max(computeBound, memoryBound);
  out.rooflineIsMemory = memoryBound > computeBound;
  out.weightBytes = weights;
  out.sliceHbmBytes = out.chips * desc.hbmBytes;
}

//===----------------------------------------------------------------------===//
// The layout on the topology
//===----------------------------------------------------------------------===//

/// A 2-D block without its rows: the rows nearest Pope et al.'s optimum
/// sqrt(tp) / 2 (section 3.2.2, d_ff = 4 d_model) that tile the topology.
/// Empty when it has them or finds them; else why none tiles.
static std::string resolveTensorRows(ParallelLayout &layout,
                                     const TopologyDesc &topology) {
  if (!layout.isTwoD() || layout.tpX != 0)
    return "";
  int64_t tp = layout.tp, best = 0;
  double target = std::sqrt(double(tp)) / 2;
  for (int64_t x = 2; x <= tp / 2; ++x)
    if (tp % x == 0 && topology.shape[0] % x == 0 &&
        topology.shape[1] % (tp / x) == 0 &&
        (!best || std::abs(std::log(double(x) / target)) <
                      std::abs(std::log(double(best) / target))))
      best = x;
  if (!best)
    return fmt::format(
        "2-D tensor parallelism needs a block of at least 2 x 2 chips; tp "
        "= {} does not factor into one that tiles {} ({}x{})",
        tp, topology.name, topology.shape[0], topology.shape[1]);
  layout.tpX = best;
  return "";
}

/// Decomposed collective matmuls split each slice's rows into tp equal
/// blocks on each of the sp chips: slices in multiples of lcm(8, tp x sp),
/// as few units as the slicer takes (SplitTokens' default rule, with the
/// ring's multiple). The granularity, or why there is none.
static std::variant<int64_t, std::string>
decomposedGranularity(ModelAttr model, const ParallelLayout &layout) {
  if (model.getMode() == ModelMode::decode)
    return std::string("decompose splits a slice's rows over the ring, and "
                       "a decode step has one token");
  if (model.isDiffusion())
    return int64_t(0);
  int64_t tokens = model.getSeq();
  int64_t multiple = std::lcm<int64_t>(8, layout.tp * layout.sp);
  for (int64_t m = multiple; m <= tokens; m += multiple)
    if (tokens % m == 0 && tokens / m <= 128)
      return m;
  return fmt::format("decompose splits each slice's rows into {} equal "
                     "blocks, but the {}-token sequence does not cut into "
                     "multiples of {}",
                     layout.tp, tokens, multiple);
}

/// Why the tensor-parallel groups of a plan cannot run decomposed
/// collective matmuls (the lowering's own check, on the chips it uses):
/// consecutive ranks must be neighbours, the last beside the first. Empty
/// when they can.
static std::string whyNotRing(const TargetDesc &desc,
                              const TopologyDesc &topology, int64_t tp,
                              int64_t sp, int64_t stages,
                              const Placement &placement) {
  int64_t perReplica = tp * sp * stages;
  if (tp < 2 || topology.numChips() % perReplica != 0)
    return "";
  auto built = DeviceMesh::build(
      desc, topology, {topology.numChips() / perReplica, stages, tp, sp},
      placement);
  if (!built) {
    llvm::consumeError(built.takeError());
    return "";
  }
  CostModel model(desc);
  for (int64_t s = 0; s < stages; ++s)
    for (int64_t t = 0; t < tp; ++t) {
      ChipCoord from = built->chip(0, s, t),
                to = built->chip(0, s, (t + 1) % tp);
      if (model.hops(topology.shape, from, to) != 1)
        return fmt::format("its tensor-parallel group of {} chips is not a "
                           "ring of neighbours on {}",
                           tp, topology.name);
    }
  return "";
}

//===----------------------------------------------------------------------===//
// The planned module read back
//===----------------------------------------------------------------------===//

/// The stages' layers and the routed experts a chip holds (on the first
/// stage with any: DeepSeek-V3's first three layers are dense).
static void readStages(const ModelView &view, const ParallelLayout &layout,
                       PlanOutcome &out) {
  out.layers = view.layers.size();
  for (LayerOp layer : view.layers) {
    size_t stage = layer.getStage().value_or(0);
    if (stage >= out.stageLayers.size())
      out.stageLayers.resize(stage + 1, {layer.getIndex(), layer.getIndex()});
    out.stageLayers[stage].second = layer.getIndex();
  }
  func::FuncOp func = view.func;
  auto stageOf = [](MoEExpertsOp experts) {
    auto layer = experts->getParentOfType<LayerOp>();
    return layer ? int64_t(layer.getStage().value_or(0)) : int64_t(0);
  };
  std::optional<int64_t> expertStage;
  func.walk([&](MoEExpertsOp experts) {
    expertStage = std::min(expertStage.value_or(stageOf(experts)),
                           stageOf(experts));
  });
  out.expertStage = expertStage.value_or(0);
  func.walk([&](MoEExpertsOp experts) {
    if (stageOf(experts) != out.expertStage)
      return;
    out.experts = experts.getExperts();
    out.expertsPerChip = experts.getLocalExperts();
    // (Beside tp, each expert is split over its ep rank's tp chips.)
    out.expertReplicas =
        layout.hasExpertGroup() ? layout.tp : layout.tp / layout.ep;
    out.expertBytesPerChip += CostOpInterface(experts).getParameterBytes();
  });
}

/// The placement the plan runs with, resolved as the lowering will, and
/// whether it is the rule's.
static void resolvePlacement(const TargetDesc &desc,
                             const TopologyDesc &topology,
                             const ModelView &view, int64_t stages,
                             const Placement &placement, PlanOutcome &out) {
  int64_t perReplica = view.chipsPerStage() * stages;
  if (out.chips % perReplica != 0)
    return;
  MeshShape meshShape{out.chips / perReplica, stages, view.tp, view.sp};
  meshShape.expertGroup = view.expertGroup;
  if (view.tpX > 1)
    meshShape.tensorRows = view.tpX;
  auto mesh = DeviceMesh::build(desc, topology, meshShape, placement);
  auto byRule = DeviceMesh::build(desc, topology, meshShape);
  if (mesh && byRule) {
    out.placement = mesh->getPlacement().str();
    // (A forced or saved placement the rule would pick is the rule's.)
    out.defaultPlacement = mesh->getPlacement() == byRule->getPlacement();
  }
  if (!mesh)
    llvm::consumeError(mesh.takeError());
  if (!byRule)
    llvm::consumeError(byRule.takeError());
}

/// The cost model's prediction of the planned module, into `out` (which
/// holds the layout): the pipeline, the handovers (the scatter/gather one
/// where the search leaves it free and it is faster) and the task count.
/// False, with `out.failure` set, when the plan cannot run.
static bool predict(const TargetDesc &desc, const TopologyDesc &topology,
                    const ModelView &view, PipelineAttr pipeline,
                    const Placement &placement, const PlanOptions &options,
                    PlanOutcome &out) {
  ParallelLayout &layout = out.layout;
  CostModel model(desc);
  StageGroupAxes axes =
      stageGroupAxes(desc, topology, view.tp, view.sp, pipeline.getStages(),
                     view.tpX, placement, view.expertGroup);
  // Per chunk with virtual stages (a layer's stage is its chunk).
  StageSliceCost cost(view.layers, model, axes.tensor, out.tokens,
                      pipeline.getChunks(), axes.sequence,
                      pipeline.getMicrobatches());
  HandoverCache *cache = options.shared ? &options.shared->handovers : nullptr;
  BoundaryTransfers transfers(desc, topology, cost, view.tp, view.sp,
                              pipeline.getStages(), view.tpX, placement,
                              layout.scatterHandover, cache);
  int64_t unitsPerStep =
      int64_t(out.sliceLengths.size()) * pipeline.getMicrobatches();
  if (layout.interleave > unitsPerStep) {
    out.failure = fmt::format(
        "interleave {} needs at least {} {}, but the plan has {}; give "
        "--slices",
        layout.interleave, layout.interleave,
        out.patches ? "patches" : "slices", unitsPerStep);
    return false;
  }
  if (layout.decompose) {
    std::string why = whyNotRing(desc, topology, view.tp, view.sp,
                                 pipeline.getStages(), placement);
    if (why.empty() && !cost.hasDecomposable())
      why = "it has no tensor-parallel matmul beside a collective";
    for (int64_t length : out.sliceLengths)
      if (int64_t rows = view.tp * (view.expertGroup ? 1 : view.sp);
          why.empty() && length % rows != 0)
        why = fmt::format("its {} of {} tokens do not split into {} equal "
                          "blocks",
                          out.patches ? "patches" : "slices", length, rows);
    if (!why.empty()) {
      out.failure = "cannot decompose the collective matmuls: " + why;
      return false;
    }
    cost.setDecompose(true);
  }
  PipelinePrediction prediction =
      predictPipeline(cost, pipeline, transfers, layout.interleave);
  // The search's choice of handover: scattered where every tp rank holds
  // the boundary whole and the cost model says it is faster. It is not
  // always (docs/pipelines.md, "Scattered handovers"): the gather's
  // synchronisation and tp - 1 hops outweigh the bytes saved on a decode
  // step's tiny boundary.
  if (options.chooseHandover && !layout.scatterHandover && view.tp > 1 &&
      view.tpX <= 1 && pipeline.getStages() > 1 && !layout.sequenceParallel &&
      !layout.isWeightGathered()) {
    BoundaryTransfers scattered(desc, topology, cost, view.tp, view.sp,
                                pipeline.getStages(), view.tpX, placement,
                                /*scatter=*/true, cache);
    PipelinePrediction other =
        predictPipeline(cost, pipeline, scattered, layout.interleave);
    if (other.seconds < prediction.seconds) {
      prediction = other;
      layout.scatterHandover = true;
    }
  }
  // Tasks: every rank of every replica runs, per unit (slice or patch,
  // microbatch, step), its stage's ops (tasksOf) and, per stage, an
  // activation allocation and release and the messages in and out (and a
  // scattered handover's gather start and done, within the estimate's
  // rounding).
  double units = double(unitsPerStep) * (out.patches ? out.steps : 1);
  out.estimatedTasks = double(view.chipsPerStage()) * layout.dataParallel *
                       units *
                       double(cost.tasksPerRank(out.sliceLengths.front()) +
                              4 * pipeline.getChunks());
  out.simulatedTasks = out.estimatedTasks;
  if (int64_t steps = repetitionSteps(out))
    out.simulatedTasks *= double(steps) / double(out.steps);
  // The host launches the whole plan once (calibration).
  out.predicted = prediction.seconds + model.programDispatch();
  out.bubble = prediction.bubble;
  return true;
}

/// The cost model's prediction of a planned training step, into `out`:
/// its time and parts, the recomputed FLOPs and the task count. False when
/// the module holds no step it can read.
static bool predictTraining(ModuleOp module, const TargetDesc &desc,
                            const TopologyDesc &topology,
                            const Placement &placement, PlanOutcome &out) {
  std::optional<TrainingStepPrediction> step =
      predictTrainingStep(module, desc, topology, out.layout, placement);
  if (!step)
    return false;
  out.predicted = step->seconds;
  out.predictedOptimizer = step->optimizer;
  out.predictedExposed = step->exposed;
  out.bubble = step->seconds > 0 ? step->pipelineWait / step->seconds : 0;
  const ParallelLayout &l = out.layout;
  out.estimatedTasks =
      step->tasksPerRank * double(l.chipsPerStage() * l.dataParallel);
  out.simulatedTasks = out.estimatedTasks;
  module.walk([&](LayerGradOp grad) {
    for (Operation &op : grad.getBody().front())
      if (op.hasAttr(kRecomputeAttrName))
        if (auto cost = dyn_cast<CostOpInterface>(op))
          out.recomputeFlopsPerChip += double(cost.getFlops());
  });
  // Token slices against equal ones (each power-of-two count up to twice
  // theirs, and theirs, that cuts the sequence into whole multiples of 8
  // tokens) and the whole sequence, the two its evaluation compares its
  // slicing with (TeraPipe, Li et al., ICML 2021).
  if (out.sliceLengths.size() > 1) {
    int64_t tokens = out.tokens, k = out.sliceLengths.size();
    auto predict = [&](ArrayRef<int64_t> lengths) {
      std::optional<TrainingStepPrediction> other = predictTrainingStep(
          module, desc, topology, out.layout, placement, lengths);
      return other ? other->seconds : std::numeric_limits<double>::infinity();
    };
    PlanOutcome::SliceBaselines baselines;
    baselines.whole = predict({tokens});
    baselines.equal = std::numeric_limits<double>::infinity();
    SmallVector<int64_t> counts;
    for (int64_t c = 2; c <= 2 * k; c *= 2)
      counts.push_back(c);
    if (!llvm::is_contained(counts, k))
      counts.push_back(k);
    for (int64_t c : counts) {
      if (tokens % c != 0 || (tokens / c) % 8 != 0)
        continue;
      double t = predict(SmallVector<int64_t>(c, tokens / c));
      if (t < baselines.equal) {
        baselines.equal = t;
        baselines.equalSlices = c;
      }
    }
    out.sliceBaselines = baselines;
  }
  return true;
}

/// Why no cut of `module`'s layers into `layout`'s stages can fit, from a
/// lower bound on each stage's memory: "" when the bound fits. The sharding
/// passes split each parameter and the replica's K/V cache over at most a
/// stage's chips (heads and d_ff over tp, experts over ep, none over sp; a
/// weight-gathered layer keeps 1/tp of its weights besides the gathered
/// copy), so a chip holds at least each of its layers' weights and K/V (as
/// imported, the replica's batch) over the stage's chips, activations
/// besides. partitionLayers (loom-partition-layers) finds a cut whenever
/// one fits, and a cut that fits the real bytes fits these smaller ones:
/// when none fits these, the pipeline fails, in its partition or its
/// memory check, whatever it does.
static std::string weightsCannotFit(ModuleOp module,
                                    const ParallelLayout &layout,
                                    const TargetDesc &desc) {
  double chips = double(layout.chipsPerStage());
  if (chips <= 0 || layout.stages < 1)
    return "";
  PartitionProblem problem;
  problem.stages = layout.stages;
  problem.virtualStages = std::max<int64_t>(layout.virtualStages, 1);
  problem.capacity = desc.hbmBytes;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    // As getModelView reads it: the layers, the ops before and after them.
    PartitionProblem ops = problem;
    for (Operation &op : func.getBody().front()) {
      auto cost = dyn_cast<CostOpInterface>(op);
      if (!cost)
        continue;
      double bytes = double(cost.getParameterBytes()) / chips;
      if (isa<LayerOp>(op))
        ops.layers.push_back(
            {0, bytes + double(cost.getKVCacheBytes()) / chips});
      else
        (ops.layers.empty() ? ops.prologue : ops.epilogue).bytes += bytes;
    }
    if (!ops.layers.empty()) {
      problem = std::move(ops);
      break;
    }
  }
  if (problem.layers.empty() || partitionLayers(problem))
    return "";
  return fmt::format("no cut of {} layers into {} fits in {} of HBM per "
                     "chip even with only their weights and K/V, each split "
                     "over the {} chips of its stage",
                     problem.layers.size(),
                     layout.stages == 1
                         ? std::string("1 stage")
                         : fmt::format("{} stages", layout.stages),
                     formatQuantity(desc.hbmBytes, "B"),
                     layout.chipsPerStage());
}

/// Why a training layout's model states alone cannot fit a chip, from a
/// lower bound: the parameters (the workload's weights, one copy) split
/// over tp (every split parameter is; a replicated one only adds) and the
/// stages (the fullest holds at least the mean), each
/// with its bf16 weight and gradient and its master copy and optimizer
/// state, split over the fsdp replicas as the ZeRO stage says
/// (loom-check-memory's items, modelStateBytes). "" when the bound fits.
static std::string statesCannotFit(const PlanOutcome &out,
                                   const TargetDesc &desc) {
  const ParallelLayout &l = out.layout;
  const TrainingSettings &t = *out.problem.import.training;
  // On several stages the fullest stage holds at least the mean.
  double parameters =
      out.weightBytes /
      (out.problem.import.weights == ImportOptions::Precision::Int8 ? 1 : 2) /
      double(l.tp * l.stages);
  auto bytesOf = [](StringRef type) {
    return type == "f32" ? 4.0 : type == "bf16" ? 2.0 : 0.0;
  };
  // (Adafactor's factored moments are a row and a column: counted as none.)
  double stateElements = t.optimizer == "adamw" ? 2 : t.optimizer == "sgd" ? 1 : 0;
  double split = l.fsdp > 1 ? 1.0 / double(l.fsdp) : 1.0;
  double perParameter =
      2 * (l.zero >= 3 ? split : 1) + 2 * (l.zero >= 2 ? split : 1) +
      (bytesOf(t.masterType) + stateElements * bytesOf(t.stateType)) * split;
  double bytes = parameters * perParameter;
  if (bytes <= desc.hbmBytes)
    return "";
  return fmt::format("its model states need at least {} per chip (the "
                     "parameters over tp {}{}, ZeRO-{} over {} replicas), "
                     "more than the {} of HBM",
                     formatQuantity(bytes, "B"), l.tp,
                     l.stages > 1 ? fmt::format(" and {} stages", l.stages)
                                  : std::string(),
                     l.fsdp > 1 ? l.zero : 0, l.fsdp,
                     formatQuantity(desc.hbmBytes, "B"));
}

//===----------------------------------------------------------------------===//
// One plan
//===----------------------------------------------------------------------===//

Planned loom::planModule(const PlanProblem &problem,
                         const ParallelLayout &layout, MLIRContext &context,
                         const PlanOptions &options) {
  Planned planned;
  PlanOutcome &out = planned.outcome;
  out.problem = problem;
  out.layout = layout;
  auto fail = [&](std::string why) {
    out.failure = std::move(why);
    return std::move(planned);
  };
  // The degrees are user input; check them before any arithmetic uses them.
  if (std::string why = checkLayout(layout); !why.empty())
    return fail(why);
  out.training = problem.import.training.has_value();
  if (std::string why = checkTraining(layout, out.training); !why.empty())
    return fail(why);
  Captured diagnostics(context, problem.workloadPlace);
  llvm::Expected<TargetAttr> targetAttr =
      materializeTarget(&context, problem.topology, problem.targetFile);
  if (!targetAttr)
    return fail(llvm::toString(targetAttr.takeError()));
  const TargetDesc desc = targetAttr->getDesc();
  const TopologyDesc &topology = desc.topologies.front();
  out.targetName = desc.name;
  out.calibration = desc.calibration;
  out.chips = topology.numChips();
  out.slices = topology.slices;
  out.sliceChips = topology.sliceChips();
  // The lowering lays meshes out on 2-D topologies only (DeviceMesh::build).
  if (topology.shape.size() != 2)
    return fail("Loom plans 2-D topologies only; " + topology.name + " has " +
                std::to_string(topology.shape.size()) + " axes");
  if (std::string why = resolveTensorRows(out.layout, topology); !why.empty())
    return fail(why);

  OwningOpRef<ModuleOp> module =
      importReplica(problem, out.layout, context, desc, options.shared.get(),
                    diagnostics, out);
  if (!module)
    return planned;
  (*module)->setAttr(kTargetAttrName, *targetAttr);
  ModelAttr modelInfo = getModel(*module);
  // (A DiT is trained one denoising step at a time.)
  if (modelInfo.isDiffusion() && !out.training)
    out.steps = modelInfo.getSteps();
  out.repetition = options.repetition;
  out.everyReplica = options.everyReplica;
  workloadBounds(*module, desc, out.layout, out);
  if (out.training) {
    // A training step's model FLOPs, as MaxText counts them
    // (maxtext_utils.calculate_tflops_training_per_device): the forward
    // pass's matmul and attention FLOPs (causal attention its visited
    // half) three times, for the forward pass and the backward pass's two
    // gradients. The ideal is that work at peak on every chip, so the
    // efficiency is the MFU.
    out.modelFlops *= 3;
    out.ideal = out.modelFlops / (double(out.chips) * desc.peakFlopsBf16);
    out.roofline = std::max(out.roofline, out.ideal);
    out.stepSequences = double(modelInfo.getBatch()) * out.layout.dataParallel;
  }
  if (std::string why = checkSchedule(out.layout); !why.empty())
    return fail(why);
  // A search's candidate whose stages cannot hold their weights fails
  // here, before the pipeline (most of a batched search's candidates do;
  // a single plan runs the pipeline, whose message itemises the memory).
  if (options.shared && !out.training)
    if (std::string why = weightsCannotFit(*module, out.layout, desc);
        !why.empty())
      return fail(why);
  if (options.shared && out.training)
    if (std::string why = statesCannotFit(out, desc); !why.empty())
      return fail(why);

  PlanPipelineSettings settings;
  // The only remarks the pipeline emits, then, are the memory check's.
  settings.memoryRemarks = true;
  settings.training = problem.import.training;
  if (out.layout.decompose) {
    auto granularity = decomposedGranularity(modelInfo, out.layout);
    if (auto *why = std::get_if<std::string>(&granularity))
      return fail(*why);
    settings.granularity = std::get<int64_t>(granularity);
  }
  PassManager pm(&context);
  pm.enableVerifier(options.verifyEachPass);
  buildPlanPipeline(pm, out.layout, settings);
  if (options.instrument)
    options.instrument(pm);
  if (failed(pm.run(*module)) ||
      (!options.verifyEachPass && failed(verify(*module))))
    return fail(diagnostics.errorText());
  out.memory = diagnostics.remarks;

  CostModel model(desc);
  FailureOr<ModelView> view = getModelView(*module, model, "loom-plan");
  if (failed(view))
    return fail(diagnostics.errorText());
  readStages(*view, out.layout, out);
  PipelineAttr pipeline = getPipeline(view->func);
  out.tokens = pipeline.getTokens();
  out.sliceLengths.assign(pipeline.getSlices().begin(),
                          pipeline.getSlices().end());
  out.patches = pipeline.getMode() == PipelineMode::patches;
  out.warmup = pipeline.getWarmup();
  Placement placement = getPlacementOrDefault(*module);
  resolvePlacement(desc, topology, *view, pipeline.getStages(), placement,
                   out);
  if (out.training) {
    if (!predictTraining(*module, desc, topology, placement, out))
      return fail(diagnostics.errorText());
  } else if (!predict(desc, topology, *view, pipeline, placement, options,
                      out)) {
    return planned;
  }
  if (std::string why = verifyPlan(out); !why.empty())
    return fail(why);
  planned.module = std::move(module);
  return planned;
}

//===----------------------------------------------------------------------===//
// Lowering and simulation
//===----------------------------------------------------------------------===//

bool loom::shouldSimulate(const PlanOutcome &outcome, Simulation policy) {
  return policy == Simulation::Always ||
         (policy == Simulation::WithinBudget &&
          outcome.simulatedTasks <= simulationBudget(outcome));
}

int64_t loom::repetitionSteps(const PlanOutcome &outcome) {
  // Past the warm-up, kRepetitionSteps and as many more (up to 5) as
  // make the steps not run a multiple of 6: whole periods of 1, 2 or 3
  // steps (sim::simulate).
  int64_t steps = outcome.warmup + kRepetitionSteps;
  if (outcome.steps > steps)
    steps += (outcome.steps - steps) % 6;
  return outcome.repetition && outcome.patches && outcome.steps > steps
             ? steps
             : 0;
}

int64_t loom::generatedFirstSteps(const PlanOutcome &outcome) {
  int64_t first = outcome.warmup + kGeneratedSteps;
  return repetitionSteps(outcome) > first ? first : 0;
}

std::optional<TargetDesc> loom::lower(Planned &planned, bool whole,
                                      int64_t firstSteps) {
  PlanOutcome &out = planned.outcome;
  int64_t steps = whole ? 0 : firstSteps > 0 ? firstSteps : repetitionSteps(out);
  OwningOpRef<ModuleOp> module = std::move(planned.module);
  Captured diagnostics(*module->getContext());
  TargetDesc desc = getTarget(*module).getDesc();
  // The program straight into a schedule: the simulation needs no IR.
  FailureOr<schedule::Schedule> program = lowerToScheduleFile(
      *module, out.layout.interleave, out.layout.decompose,
      out.layout.scatterHandover, steps);
  if (failed(program)) {
    out.failure = diagnostics.errorText();
    return std::nullopt;
  }
  out.schedule = std::move(*program);
  if (steps > 0)
    planned.module = std::move(module);
  return desc;
}

/// How the simulator runs `out`'s schedule.
static sim::SimOptions simOptions(const PlanOutcome &out) {
  sim::SimOptions options;
  options.everyReplica = out.everyReplica;
  return options;
}

void loom::simulateSchedule(PlanOutcome &out, const TargetDesc &desc,
                            bool trace) {
  int64_t held = out.schedule.stepStarts.empty()
                     ? 0
                     : out.schedule.stepStarts.front().size();
  int64_t steps = held == 0 || held >= out.steps ? 0 : out.steps;
  int64_t firstSteps = repetitionSteps(out);
  llvm::Expected<sim::SimResult> result = sim::SimResult();
  if (!trace && steps > 0 && held < firstSteps) {
    // The schedule of fewer steps than the proof runs
    // (generatedFirstSteps): its first steps generated from it.
    llvm::Expected<std::optional<sim::SimResult>> generated =
        sim::simulateByRepetition(desc, out.schedule, firstSteps, out.steps,
                                  simOptions(out));
    if (!generated) {
      result = generated.takeError();
    } else if (!*generated) {
      out.lowerFirstSteps = true;
      return;
    } else {
      result = std::move(**generated);
    }
  } else {
    result = sim::simulate(desc, out.schedule, trace, steps, simOptions(out));
  }
  if (!result) {
    out.failure = llvm::toString(result.takeError());
    return;
  }
  if (result->unproven && result->failure.empty()) {
    out.unproven = true;
    return;
  }
  out.simulated = std::move(*result);
  if (!out.simulated->failure.empty())
    out.failure = out.simulated->failure;
}

double loom::finishUnproven(Planned &planned, bool trace, bool generate,
                            double lowerWhole) {
  PlanOutcome &out = planned.outcome;
  if (!planned.module || out.estimatedTasks > kProgramBudget ||
      (!generate && out.estimatedTasks > lowerWhole)) {
    // out.unproven stays: the plan cannot be simulated.
    out.schedule = {};
    planned.module = nullptr;
    return 0;
  }
  // Its whole program generated from its first steps (its warm-up and
  // kGeneratedSteps, lowered again: fewer than the proof ran, and the
  // schedule the report keeps) when it is over `lowerWhole`, or when no
  // trace is wanted: the same run in a fraction of the memory and without
  // lowering every task. Steps not alike enough to generate it leave it to
  // the whole lowering within `lowerWhole`, else unsimulated.
  bool whole = out.estimatedTasks <= lowerWhole;
  if (!whole || !trace) {
    // The schedule the first steps' run was generated from, checked then,
    // is the one to generate from (generatedFirstSteps).
    sim::SimOptions options = simOptions(out);
    options.checked = !out.schedule.stepStarts.empty() &&
                      int64_t(out.schedule.stepStarts.front().size()) ==
                          out.warmup + kGeneratedSteps;
    std::optional<TargetDesc> lowered;
    if (options.checked) {
      lowered = getTarget(*planned.module).getDesc();
    } else {
      out.schedule = {};
      lowered = lower(planned, /*whole=*/false, out.warmup + kGeneratedSteps);
    }
    if (!whole)
      planned.module = nullptr;
    if (!lowered)
      return 0;
    TargetDesc desc = *lowered;
    llvm::Expected<sim::SimResult> result =
        sim::simulateProgram(desc, out.schedule, out.steps, options);
    if (!result) {
      out.failure = llvm::toString(result.takeError());
      return 0;
    }
    if (!result->unproven) {
      out.unproven = false;
      out.simulated = std::move(*result);
      if (!out.simulated->failure.empty())
        out.failure = out.simulated->failure;
      return out.estimatedTasks;
    }
    out.schedule = {};
    if (!whole)
      return 0;
  }
  out.schedule = {};
  std::optional<TargetDesc> desc = lower(planned, /*whole=*/true);
  if (!desc)
    return 0;
  out.unproven = false;
  simulateSchedule(out, *desc, trace);
  return out.estimatedTasks;
}

bool loom::byPrediction(const PlanOutcome &a, const PlanOutcome &b) {
  if (a.predicted != b.predicted)
    return a.predicted < b.predicted;
  return a.layout < b.layout;
}
