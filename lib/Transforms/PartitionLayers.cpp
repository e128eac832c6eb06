//===- PartitionLayers.cpp - layers to pipeline stages --------------------===//

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Partition/PartitionLayers.h"
#include "loom/Support/Quantity.h"
#include "loom/Analysis/LayerSliceCost.h"
#include "loom/Analysis/TrainingStep.h"
#include "loom/Dialect/Loom/KeptValues.h"
#include "loom/Transforms/Passes.h"
#include "loom/Analysis/StageCost.h"

#include <cmath>
#include <map>
#include <fmt/format.h>

namespace loom {
#define GEN_PASS_DEF_PARTITIONLAYERS
#include "loom/Transforms/Passes.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;

namespace {

/// A training step's times per layer (forward, backward without the kept
/// ops, which ran forward, and update), and of the ops before and after
/// the layers with their gradients, into `problem`.
void balanceTraining(TrainingView &t, const CostModel &model,
                     ArrayRef<GroupAxis> axes, ArrayRef<GroupAxis> spAxes,
                     int64_t tokens, PartitionProblem &problem) {
  auto seconds = [&](ArrayRef<Operation *> ops) {
    return LayerSliceCost(ops, model, axes, tokens, spAxes).seconds(tokens, 0);
  };
  std::map<int64_t, double> backward;
  for (auto [i, grad] : llvm::enumerate(t.layerGrads)) {
    SmallVector<Operation *> ops;
    for (Operation &op : grad.getBody().front().without_terminator())
      if (!op.hasAttr(kKeptAttrName))
        ops.push_back(&op);
    backward[grad.getIndex()] = seconds(ops) + seconds(t.afterLayerGrad[i]);
  }
  for (auto [i, layer] : llvm::enumerate(t.layers))
    problem.layers[i].seconds += seconds(t.afterLayer[i]) +
                                 backward[layer.getIndex()];
  problem.prologue.seconds =
      seconds(t.forwardPrologue) + seconds(t.backwardPrologue);
  problem.epilogue.seconds =
      seconds(t.forwardEpilogue) + seconds(t.backwardEpilogue);
}

struct PartitionLayersPass
    : public loom::impl::PartitionLayersBase<PartitionLayersPass> {
  using PartitionLayersBase::PartitionLayersBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    ModelAnalysis &analysis = getAnalysis<ModelAnalysis>();
    if (failed(analysis.requireModel("loom-partition-layers")))
      return signalPassFailure();
    const TargetDesc &desc = analysis.getTargetDesc();
    const TopologyDesc topologyDesc = analysis.getTarget().getTopologyDesc();
    const CostModel &model = analysis.getCostModel();
    ModelView *view = &analysis.getView();
    // Stages, the pipeline and dp change; nothing the analysis holds.
    markAnalysesPreserved<ModelAnalysis>();

    int64_t stages = this->stages, dataParallel = this->dataParallel;
    if (stages < 1 || dataParallel < 1) {
      module.emitError() << "stages and data-parallel must be at least 1, got "
                         << stages << " and " << dataParallel;
      return signalPassFailure();
    }
    // A stage occupies tp x sp chips (sp: loom-shard-sequence; or tp x ep,
    // an expert-parallel group of its own: loom-shard-experts data).
    int64_t group = view->chipsPerStage();
    std::string groupName =
        view->sp <= 1 ? "tensor-parallel "
        : view->expertGroup ? "tensor-parallel x expert-parallel "
                            : "tensor-parallel x sequence-parallel ";
    const char *degrees =
        view->sp <= 1 ? "tp " : view->expertGroup ? "tp x ep " : "tp x sp ";
    int64_t chips = (Count(group) * stages * dataParallel).get();
    if (chips > topologyDesc.numChips()) {
      module.emitError() << groupName << group << " x stages "
                         << stages << " x data-parallel " << dataParallel
                         << " = " << describeCount(chips) << " chips, but "
                         << topologyDesc.name
                         << " has " << topologyDesc.numChips();
      return signalPassFailure();
    }
    int64_t v = virtualStages;
    if (v < 1) {
      module.emitError() << "virtual-stages must be at least 1, got " << v;
      return signalPassFailure();
    }
    if (v > 1 && (stages < 2 || view->diffusion)) {
      view->func.emitError()
          << "virtual-stages " << v << " interleaves chunks of layers over "
          << (view->diffusion ? "the token slices of a causal model; a "
                                "diffusion model's PipeFusion patches "
                                "already stream across steps"
                              : "several stages; give stages >= 2");
      return signalPassFailure();
    }
    int64_t layers = view->layers.size();
    // (v > layers / stages is stages * v > layers, without the product
    // overflowing for a v near 2^63.)
    if (v > 1 && v > layers / stages) {
      std::string valid;
      for (int64_t k = 1; k * stages <= layers; ++k)
        valid += (valid.empty() ? "" : ", ") + std::to_string(k);
      int64_t chunks = 0;
      view->func.emitError() << stages << " stages x " << v
                             << " virtual stages need "
                             << (llvm::MulOverflow(stages, v, chunks)
                                     ? std::string("2^63 or more")
                                     : "at least " + std::to_string(chunks))
                             << " layers; the model has " << layers
                             << " (virtual stages that fit: " << valid << ")";
      return signalPassFailure();
    }
    if (stages > layers) {
      view->func.emitError() << stages << " stages need at least " << stages
                             << " layers; the model has " << layers;
      return signalPassFailure();
    }
    // The lowering tiles the slices with replicas of tp x stages chips; on
    // several slices joined by the DCN, a replica lies within one slice or
    // spans whole slices (so the DCN's degree divides the slices).
    if (!topologyDesc.tiledBy(stages, group)) {
      std::string valid;
      for (int64_t k = 1; k * group <= topologyDesc.numChips(); ++k)
        if (topologyDesc.tiledBy(k, group))
          valid += (valid.empty() ? "" : ", ") + std::to_string(k);
      int64_t replica = group * stages;
      InFlightDiagnostic diag = module.emitError()
                                << groupName << group << " x stages "
                                << stages << " = " << replica
                                << " chips per replica ";
      if (topologyDesc.slices == 1)
        diag << "does not divide " << topologyDesc.name << "'s "
             << topologyDesc.numChips() << ", which replicas tile; ";
      else
        diag << "does not tile " << topologyDesc.name
             << ": a replica lies within a slice of "
             << topologyDesc.sliceChips()
             << " chips and divides it, or spans whole slices with an equal "
                "run of stages on each, their number dividing the "
             << topologyDesc.slices << " slices; ";
      // loom-shard-heads takes any degree the heads divide.
      if (valid.empty())
        diag << "no stage count does with " << degrees << group
             << ", which does not divide " << topologyDesc.sliceChips();
      else
        diag << "stage counts that do with " << degrees << group << ": "
             << valid;
      return signalPassFailure();
    }

    // A chosen placement is recorded before the stages are priced on it.
    if (!placement.empty()) {
      llvm::Expected<Placement> chosen = parsePlacement(placement);
      if (!chosen) {
        module.emitError() << "loom-partition-layers: "
                           << llvm::toString(chosen.takeError());
        return signalPassFailure();
      }
      MeshShape shape{topologyDesc.numChips() / (group * stages), stages,
                      view->tp, view->sp};
      if (view->tpX > 1)
        shape.tensorRows = view->tpX;
      auto mesh = DeviceMesh::build(desc, topologyDesc, shape, *chosen);
      if (!mesh) {
        module.emitError() << "loom-partition-layers: "
                           << llvm::toString(mesh.takeError());
        return signalPassFailure();
      }
      module->setAttr(kPlacementAttrName,
                      PlacementAttr::get(module.getContext(), *chosen));
    }

    SmallVector<GroupAxis> axes = analysis.getTensorParallelAxes(stages);
    SmallVector<GroupAxis> spAxes = analysis.getSequenceParallelAxes(stages);
    int64_t tokens = getPipelineTokens(view->func);
    PartitionProblem problem;
    SmallVector<double> staleKV;
    problem.stages = stages;
    problem.virtualStages = v;
    // A training step's memory is loom-check-memory's: the model states as
    // loom-shard-zero splits them and the activations the step keeps
    // (TrainingStep.h), not a forward pass's weights and working set.
    problem.capacity = isTrainingStep(view->func)
                           ? std::numeric_limits<double>::infinity()
                           : desc.hbmBytes;
    for (LayerOp layer : view->layers) {
      LayerFootprint footprint = layerFootprint(layer, view->diffusion);
      double seconds = LayerSliceCost(layer, model, axes, tokens, spAxes)
                           .seconds(tokens, 0);
      if (!std::isfinite(seconds)) {
        layer.emitError() << "estimated time is not finite on " << desc.name
                          << "; the target's figures are out of range";
        return signalPassFailure();
      }
      problem.layers.push_back({seconds, footprint.weights + footprint.kvCache});
      staleKV.push_back(view->diffusion ? footprint.kvCache : 0);
      // A diffusion model's activations are those of one PipeFusion patch,
      // which loom-split-tokens sizes to fit (patches of 8 tokens at the
      // least); a causal model's slices are not chosen for memory.
      double activations = footprint.workingSet;
      if (view->diffusion)
        activations *= std::min(1.0, 8.0 / double(tokens));
      problem.perStageBytes = std::max(problem.perStageBytes, activations);
    }
    problem.prologue = {view->prologueSeconds, view->prologueWeights};
    problem.epilogue = {view->epilogueSeconds, view->epilogueWeights};
    // A training step's stages run each layer's forward and backward
    // passes and its update: the ModelView's epilogue (everything after
    // the last layer) holds the whole backward pass, which is the
    // layers'.
    // (One chunk takes every layer: nothing to balance.)
    if (isTrainingStep(view->func) && stages * v > 1) {
      FailureOr<TrainingView> training =
          getTrainingView(view->func, "loom-partition-layers");
      if (failed(training))
        return signalPassFailure();
      balanceTraining(*training, model, axes, spAxes, tokens, problem);
    }

    std::optional<Partition> partition = partitionLayers(problem);
    if (!partition) {
      // Say how close the best unconstrained cut comes.
      PartitionProblem unlimited = problem;
      unlimited.capacity = std::numeric_limits<double>::infinity();
      std::optional<Partition> best = partitionLayers(unlimited);
      double worst = 0, worstKV = 0;
      int64_t cuts = stages * v;
      if (best)
        for (int64_t s = 0; s < stages; ++s) {
          if (best->stageBytes[s] < worst)
            continue;
          worst = best->stageBytes[s];
          worstKV = 0;
          // The stage's chunks s, s + K, ...
          for (int64_t c = s; c < cuts; c += stages) {
            int64_t end = c + 1 < cuts ? best->firstLayer[c + 1] : layers;
            for (int64_t i = best->firstLayer[c]; i < end; ++i)
              worstKV += staleKV[i];
          }
        }
      InFlightDiagnostic diag = view->func.emitError();
      diag << "no cut of " << layers << " layers into " << stages
           << (stages == 1 ? " stage" : " stages") << " fits in "
           << formatQuantity(desc.hbmBytes, "B")
           << " of HBM per chip: the fastest cut needs up to "
           << formatQuantity(worst, "B") << " on a stage";
      // PipeFusion keeps every layer's K/V of the previous step: patches
      // cannot shrink it, only more chips per layer (or sequence
      // parallelism, which splits the sequence) can.
      if (worstKV > 0)
        diag << ", " << formatQuantity(worstKV, "B")
             << " of it PipeFusion's stale K/V of the previous step";
      diag << "; use more stages or tensor parallelism";
      return signalPassFailure();
    }

    // With virtual stages a layer's stage is its chunk.
    int64_t chunks = stages * v;
    for (int64_t c = 0; c < chunks; ++c) {
      int64_t end = c + 1 < chunks ? partition->firstLayer[c + 1] : layers;
      for (int64_t i = partition->firstLayer[c]; i < end; ++i)
        view->layers[i].setStage(c);
    }
    int64_t steps = 0;
    if (ModelAttr model = getModel(module))
      steps = model.getSteps();
    view->func->setAttr(
        kPipelineAttrName,
        PipelineAttr::get(module.getContext(), stages, {tokens},
                          view->diffusion ? PipelineMode::patches
                                          : PipelineMode::tokens,
                          view->diffusion ? steps : 0, 0, /*microbatches=*/1,
                          v, PipelineSchedule::GPipe));
    ParallelAttr layout = getParallelOrDefault(module);
    module->setAttr(kParallelAttrName,
                    ParallelAttr::get(module.getContext(), layout.getTp(),
                                      dataParallel,
                                      layout.getSequenceParallel(),
                                      layout.getEp(), layout.getSp(),
                                      layout.getTpX(),
                                      layout.getWeightGathered(),
                                      layout.getEpData(), layout.getFsdp(),
                                      layout.getZero(), layout.getKvBatch()));

    if (remarks) {
      InFlightDiagnostic remark = view->func.emitRemark();
      remark << fmt::format("{} stages on {}; slowest stage {:.3f} ms",
                            stages, topologyDesc.name,
                            partition->bottleneck * 1e3);
      for (int64_t c = 0; c < chunks; ++c) {
        int64_t end = c + 1 < chunks ? partition->firstLayer[c + 1] : layers;
        if (v == 1)
          remark << fmt::format("; stage {}: layers {}-{}, {:.3f} ms, {}", c,
                                partition->firstLayer[c], end - 1,
                                partition->stageSeconds[c] * 1e3,
                                formatQuantity(partition->stageBytes[c], "B"));
        else
          remark << fmt::format("; chunk {} on stage {}: layers {}-{}, "
                                "{:.3f} ms",
                                c, c % stages, partition->firstLayer[c],
                                end - 1, partition->chunkSeconds[c] * 1e3);
      }
      if (v > 1)
        for (int64_t s = 0; s < stages; ++s)
          remark << fmt::format("; stage {}: {:.3f} ms, {}", s,
                                partition->stageSeconds[s] * 1e3,
                                formatQuantity(partition->stageBytes[s], "B"));
    }
  }
};

} // namespace
