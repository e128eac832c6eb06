//===- ServeCost.cpp - serving iterations priced by Loom's cost model -----===//

#include "loom/Plan/ServeCost.h"

#include "Evaluate.h"

#include "loom/Analysis/ModelAnalysis.h"
#include "loom/Analysis/StageSliceCost.h"
#include "loom/Conversion/Passes.h"
#include "loom/Dialect/Loom/CostOpInterface.h"
#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Dialect/Loom/ModuleTarget.h"
#include "loom/Hardware/CostModel.h"
#include "loom/Import/ModelImporter.h"
#include "loom/Plan/Report.h"
#include "loom/Sim/Simulator.h"
#include "loom/Transforms/ShardHeads.h"

#include "mlir/IR/Diagnostics.h"

#include <fmt/format.h>

using namespace mlir;
using namespace loom;

PlannedIterationCost::~PlannedIterationCost() = default;

static llvm::Error refusal(const Twine &why) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), why);
}

/// `problem`'s model planned as one replica of `layout` (one stage, one
/// data-parallel replica) for `batch` sequences of `tokens`, unsimulated.
static Planned planReference(const PlanProblem &problem,
                             const ParallelLayout &layout, int64_t batch,
                             int64_t tokens, MLIRContext &context) {
  PlanProblem reference = problem;
  reference.import.mode = ImportOptions::Mode::Prefill;
  reference.import.batch = batch;
  reference.import.seqLen = tokens;
  ParallelLayout replica = layout;
  replica.stages = 1;
  replica.dataParallel = 1;
  replica.slices = SliceSpec::count(1);
  PlanOptions options;
  options.simulate = Simulation::Never;
  return planModule(reference, replica, context, options);
}

llvm::Expected<std::unique_ptr<PlannedIterationCost>>
PlannedIterationCost::create(const PlanProblem &problem,
                             const ParallelLayout &layout,
                             int64_t referenceTokens, MLIRContext &context) {
  if (referenceTokens < 1)
    return refusal("the reference forward pass needs at least one token");
  // Prompts alone run as the runtime's prefill program: one sequence, each
  // KV head's cache whole on the chips holding it (MaxText's prefill
  // shards no cache by batch: cache_batch_prefill). Iterations with
  // decodes run on the generate state's layout, each KV head's cache split
  // by batch over kv_batch chips: planned for kv_batch sequences, one a
  // chip of each KV head's group.
  ParallelLayout prefillLayout = layout;
  prefillLayout.kvBatch = 1;
  std::unique_ptr<PlannedIterationCost> cost(new PlannedIterationCost());
  for (bool decode : {false, true}) {
    if (decode && layout.kvBatch <= 1)
      break;
    int64_t batch = decode ? layout.kvBatch : 1;
    Planned planned = planReference(problem, decode ? layout : prefillLayout,
                                    batch, referenceTokens, context);
    if (!planned.outcome.failure.empty())
      return refusal(planned.outcome.failure);
    if (planned.outcome.patches)
      return refusal("a diffusion model's requests are denoising steps, not "
                     "tokens: serve it as images");
    Reference &ref = decode ? cost->decodes.emplace() : cost->prompts;
    ref.plan = std::move(planned.outcome);
    ref.module = std::move(planned.module);
    ModuleOp module = *ref.module;
    if (!decode) {
      auto target = module->getAttrOfType<TargetAttr>(kTargetAttrName);
      cost->desc = std::make_unique<TargetDesc>(target.getDesc());
      cost->model = std::make_unique<CostModel>(*cost->desc);
    }
    const TopologyDesc &topology = cost->desc->topologies.front();
    FailureOr<ModelView> view =
        getModelView(module, *cost->model, "the serving cost");
    if (failed(view))
      return refusal("the planned module has no model function");
    StageGroupAxes axes = stageGroupAxes(
        *cost->desc, topology, view->tp, view->sp, /*stages=*/1, view->tpX,
        getPlacementOrDefault(module), view->expertGroup);
    // (A sequence of the batch: a microbatch of one.)
    ref.cost = std::make_unique<StageSliceCost>(
        view->layers, *cost->model, axes.tensor, referenceTokens,
        /*stages=*/1, axes.sequence, /*microbatches=*/batch);
    if (view->sp > 1 || !ref.cost->supportsBatches())
      return refusal("a serving iteration is priced for tensor and expert "
                     "parallelism only, not sequence parallelism, decomposed "
                     "collectives or gathered weights");
    int64_t chips = view->chipsPerStage();
    // What each chip holds of the weights and of the KV cache, as the
    // sharded module's ops state them (loom-check-memory's items): the
    // rest of its HBM holds the cache.
    double weightsPerChip = 0, kvPerChip = 0;
    for (Operation &op : view->func.getBody().front())
      if (auto opCost = dyn_cast<CostOpInterface>(op)) {
        weightsPerChip += double(opCost.getParameterBytes());
        kvPerChip += double(opCost.getKVCacheBytes());
      }
    // Per token of the one sequence each chip's attentions hold.
    double kvPerTokenPerChip = kvPerChip / double(referenceTokens);
    if (!decode)
      cost->kvPerTokenPerChip = kvPerTokenPerChip;
    // Every cached byte must be priced by a causal attention that reads it
    // per sequence, or a decode step would not grow with its context.
    if (ref.cost->kvBytesPerToken() < 0.999 * kvPerTokenPerChip)
      return refusal("its attention reads a KV cache Loom does not price "
                     "per sequence and context (e.g. multi-head latent "
                     "attention); it cannot be served yet");
    // All chips' bytes per token of one sequence: held by chips / batch
    // of them (each KV head's group splits the batch's sequences).
    cost->kvPerToken = kvPerTokenPerChip * double(chips) / double(batch);
    cost->kvCapacity = std::max(
        0.0, double(chips) * (cost->desc->hbmBytes - weightsPerChip));
  }
  // The host dispatches every iteration, a jitted step, once (the
  // target's calibrated program_dispatch).
  cost->dispatch = cost->model->programDispatch();
  return std::move(cost);
}

/// `batch`'s sequences: its prompt chunks, then its decodes.
static SmallVector<SequenceSlice, 64> sequencesOf(const serve::Batch &batch) {
  SmallVector<SequenceSlice, 64> sequences;
  for (const serve::PrefillChunk &chunk : batch.prefills)
    sequences.push_back({chunk.tokens, chunk.context});
  for (int64_t context : batch.decodeContexts)
    sequences.push_back({1, context});
  // A fixed-shape decode step computes its empty slots too.
  for (int64_t i = int64_t(batch.decodeContexts.size());
       i < batch.paddedDecodes; ++i)
    sequences.push_back({1, 0});
  return sequences;
}

const PlannedIterationCost::Reference &
PlannedIterationCost::referenceFor(const serve::Batch &batch) const {
  return decodes &&
                 batch.paddedDecodes + int64_t(batch.decodeContexts.size()) > 0
             ? *decodes
             : prompts;
}

double PlannedIterationCost::iteration(const serve::Batch &batch) const {
  return referenceFor(batch).cost->batchSeconds(sequencesOf(batch)) + dispatch;
}

llvm::Expected<double>
PlannedIterationCost::simulate(const serve::Batch &batch) const {
  const Reference &ref = referenceFor(batch);
  ModuleOp module = ref.module.get();
  Captured diagnostics(*module.getContext());
  FailureOr<schedule::Schedule> program =
      lowerBatchToScheduleFile(module, sequencesOf(batch));
  if (failed(program))
    return refusal(diagnostics.errorText());
  llvm::Expected<sim::SimResult> run =
      sim::simulate(*desc, *program, /*recordTrace=*/false);
  if (!run)
    return run.takeError();
  return run->makespan;
}

double PlannedIterationCost::kvBytesPerToken() const { return kvPerToken; }

double PlannedIterationCost::insert(int64_t tokens) const {
  // (With kv_batch > 1 each sequence's cache is on a chip of each KV
  // head's group, which holds as much of it as every chip does at
  // kv_batch 1.)
  return dispatch +
         model->taskTime(/*flops=*/0, 2 * kvPerTokenPerChip * double(tokens));
}

llvm::Expected<ServedModel> loom::importServedModel(const PlanProblem &problem,
                                                    MLIRContext &context) {
  Captured captured(context, "");
  OwningOpRef<ModuleOp> module = importModel(problem.model, {}, &context);
  if (!module) {
    std::string why = captured.errorText(/*withPlaces=*/true);
    return refusal(why.empty() ? "'" + problem.model + "' cannot be imported"
                               : why);
  }
  ServedModel served;
  served.diffusion = getModel(*module).isDiffusion();
  served.video = served.diffusion && getModel(*module).getFrames() > 1;
  served.kvHeads = fewestKvHeads(*module);
  module->walk([&](MoEExpertsOp experts) {
    served.experts = experts.getExperts();
    return WalkResult::interrupt();
  });
  return served;
}

int64_t loom::servingKvBatch(int64_t kvHeads, int64_t chips) {
  return kvHeadHolders(kvHeads, chips);
}

int64_t loom::servingKvBatch(const PlanProblem &problem, int64_t chips,
                              MLIRContext &context) {
  llvm::Expected<ServedModel> served = importServedModel(problem, context);
  if (!served) {
    llvm::consumeError(served.takeError());
    return 1;
  }
  return servingKvBatch(served->kvHeads, chips);
}

llvm::Expected<std::unique_ptr<PlannedDenoisingCost>>
PlannedDenoisingCost::create(const PlanProblem &problem,
                             const ParallelLayout &layout,
                             MLIRContext &context) {
  ParallelLayout replica = layout;
  replica.stages = 1;
  replica.slices = SliceSpec::count(1);
  std::unique_ptr<PlannedDenoisingCost> cost(
      new PlannedDenoisingCost(problem, replica, context));
  // The rows one image takes, the model's default batch (2 with
  // classifier-free guidance: the conditional and unconditional halves),
  // and the steps a request takes, the pipeline's default unless given.
  {
    ScopedDiagnosticHandler quiet(&context,
                                  [](Diagnostic &) { return success(); });
    ImportOptions defaults = problem.import;
    defaults.mode = ImportOptions::Mode::Prefill;
    defaults.batch.reset();
    OwningOpRef<ModuleOp> module =
        importModel(problem.model, defaults, &context);
    if (module && !getModel(*module).isDiffusion())
      return refusal("not a diffusion transformer: serve it as tokens");
    if (module) {
      cost->rows = getModel(*module).getBatch();
      cost->steps = getModel(*module).getSteps();
      cost->video = getModel(*module).getFrames() > 1;
    }
  }
  if (llvm::Error err = cost->prepare(1, false))
    return std::move(err);
  return std::move(cost);
}

llvm::Error PlannedDenoisingCost::prepare(int64_t images, bool upTo) {
  if (images < 1)
    return refusal("a denoising step needs at least one image");
  if (int64_t(seconds.size()) < images)
    seconds.resize(images);
  for (int64_t n = upTo ? 1 : images; n <= images; ++n) {
    if (seconds[n - 1])
      continue;
    PlanProblem step = problem;
    step.import.mode = ImportOptions::Mode::Prefill;
    step.import.batch = rows * n;
    step.import.steps = 1;
    PlanOptions options;
    options.simulate = Simulation::Never;
    PlanOutcome planned = planAndSimulate(step, layout, context, options);
    if (!planned.failure.empty())
      return refusal(fmt::format("a step of {} {}{}: {}", n,
                                 video ? "video" : "image", n == 1 ? "" : "s",
                                 planned.failure));
    hostDispatch = planned.calibration.programDispatch;
    seconds[n - 1] = planned.predicted - hostDispatch;
    if (layoutName.empty())
      layoutName = planName(planned);
  }
  return llvm::Error::success();
}

double PlannedDenoisingCost::step(int64_t images) const {
  assert(images >= 1 && images <= int64_t(seconds.size()) &&
         seconds[images - 1] && "a step not prepared");
  return *seconds[images - 1];
}
