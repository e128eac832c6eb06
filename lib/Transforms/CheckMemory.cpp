//===- CheckMemory.cpp - does every stage fit in HBM ----------------------===//

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Support/Quantity.h"
#include "loom/Transforms/Passes.h"
#include "loom/Analysis/StageCost.h"
#include "loom/Analysis/TrainingStep.h"

#include <fmt/format.h>

namespace loom {
#define GEN_PASS_DEF_CHECKMEMORY
#include "loom/Transforms/Passes.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;

namespace {

struct MemoryItem {
  std::string what;
  double bytes;
};

struct CheckMemoryPass : public loom::impl::CheckMemoryBase<CheckMemoryPass> {
  using CheckMemoryBase::CheckMemoryBase;

  void runOnOperation() override {
    ModelAnalysis &analysis = getAnalysis<ModelAnalysis>();
    if (failed(analysis.requireModel("loom-check-memory")))
      return signalPassFailure();
    // Read-only: every analysis stays valid.
    markAllAnalysesPreserved();
    const TargetDesc &desc = analysis.getTargetDesc();
    ModelView *view = &analysis.getView();

    PipelineAttr pipeline = getPipeline(view->func);
    if (isTrainingStep(view->func)) {
      if (failed(checkTraining(*view, desc, pipeline)))
        signalPassFailure();
      return;
    }
    int64_t stages = pipeline ? pipeline.getStages() : 1;
    bool patches = pipeline ? pipeline.getMode() == PipelineMode::patches
                            : view->diffusion;
    // Stale K/V are kept between the steps of more than one patch.
    bool staleKV = patches && pipeline && pipeline.getSlices().size() > 1;
    // The largest slice's share of the sequence (of a microbatch's share of
    // the batch) bounds a layer's live activations.
    double fraction = 1;
    if (pipeline)
      fraction = double(*llvm::max_element(pipeline.getSlices())) /
                 double(pipeline.getTokens()) /
                 double(pipeline.getMicrobatches());

    bool failedAny = false;
    for (int64_t s = 0; s < stages; ++s) {
      SmallVector<LayerOp> layers;
      for (LayerOp layer : view->layers)
        // A layer's stage is its chunk; a stage holds chunks s, s + K, ...
        if (static_cast<int64_t>(layer.getStage().value_or(0)) % stages == s)
          layers.push_back(layer);
      double weights = 0, kv = 0, activations = 0, largestLayer = 0,
             gathered = 0;
      int64_t largestIndex = -1;
      for (LayerOp layer : layers) {
        LayerFootprint f = layerFootprint(layer, staleKV);
        weights += f.weights;
        kv += f.kvCache;
        activations = std::max(activations, f.workingSet * fraction);
        gathered = std::max(gathered, f.gathered);
        if (f.weights > largestLayer) {
          largestLayer = f.weights;
          largestIndex = layer.getIndex();
        }
      }
      // Each run of consecutive layers (one per chunk with virtual stages).
      std::string range;
      for (auto [i, layer] : llvm::enumerate(layers)) {
        if (i == 0 || layers[i - 1].getIndex() + 1 != layer.getIndex())
          range += fmt::format("{}{}-", range.empty() ? "" : ", ",
                               layer.getIndex());
        if (i + 1 == layers.size() ||
            layers[i + 1].getIndex() != layer.getIndex() + 1)
          range += fmt::format("{}", layer.getIndex());
      }
      range = layers.empty() ? "no layers" : "layers " + range;
      SmallVector<MemoryItem> items = {
          {"weights of " + range, weights},
          {staleKV ? "stale K/V of the previous step" : "KV cache", kv},
          {"activations in flight", activations},
          // Weight-gathered: the layer running and the next one's,
          // prefetched (Pope et al. 2023, 3.2.3), gathered whole.
          {"gathered weights of two layers", 2 * gathered}};
      if (s == 0)
        items.push_back({"embeddings and other ops before the first layer",
                         view->prologueWeights});
      if (s == stages - 1)
        items.push_back({"final norm, head and other ops after the last layer",
                         view->epilogueWeights});
      Operation *anchor = layers.empty() ? view->func.getOperation()
                                         : layers.front().getOperation();
      std::string largest =
          largestIndex >= 0
              ? fmt::format(" (largest layer: {} at {})", largestIndex,
                            formatQuantity(largestLayer, "B"))
              : "";
      failedAny |= failed(check(anchor, fmt::format("stage {} ({})", s, range),
                                items, desc, largest));
    }
    if (failedAny)
      signalPassFailure();
  }

  /// `items` against one chip's HBM: an error at `anchor` naming `what`
  /// when they do not fit, a remark with remarks=true when they do.
  LogicalResult check(Operation *anchor, StringRef what,
                      SmallVector<MemoryItem> items, const TargetDesc &desc,
                      StringRef suffix = "") {
    double total = 0;
    for (const MemoryItem &item : items)
      total += item.bytes;
    llvm::stable_sort(items, [](const MemoryItem &a, const MemoryItem &b) {
      return a.bytes > b.bytes;
    });
    std::string breakdown;
    for (const MemoryItem &item : items)
      if (item.bytes > 0)
        breakdown += fmt::format("{}{} {}", breakdown.empty() ? "" : ", ",
                                 item.what, formatQuantity(item.bytes, "B"));
    if (total > desc.hbmBytes) {
      anchor->emitError() << fmt::format(
          "{} needs {} of HBM per chip, more than the {} of a {} chip; "
          "largest items: {}{}",
          what, formatQuantity(total, "B"), formatQuantity(desc.hbmBytes, "B"),
          desc.name, breakdown, suffix);
      return failure();
    }
    if (remarks)
      anchor->emitRemark() << fmt::format(
          "{}: {} of {} per chip ({:.0f}%): {}", what,
          formatQuantity(total, "B"), formatQuantity(desc.hbmBytes, "B"),
          100.0 * total / desc.hbmBytes, breakdown);
    return success();
  }

  /// A training step (TrainingStep.h): the model states split as
  /// #loom.parallel's fsdp and zero say, one microbatch's activations kept
  /// for its backward pass, the largest layer's recomputed values and the
  /// collectives' buffers.
  LogicalResult checkTraining(const ModelView &view, const TargetDesc &desc,
                              PipelineAttr pipeline) {
    FailureOr<TrainingView> train =
        getTrainingView(view.func, "loom-check-memory");
    if (failed(train))
      return failure();
    ZeroSplit split = getZeroSplit(view.func->getParentOfType<ModuleOp>());
    // On several stages, each stage's chips hold its part
    // (stageTrainingMemory).
    if (pipeline && pipeline.getStages() > 1) {
      bool failedAny = false;
      for (int64_t s = 0; s < pipeline.getStages(); ++s)
        failedAny |= failed(checkTrainingMemory(
            view.func, fmt::format("stage {} of the training step", s),
            stageTrainingMemory(*train, split, pipeline, s), desc));
      return failure(failedAny);
    }
    int64_t microbatches = pipeline ? pipeline.getMicrobatches() : 1;
    return checkTrainingMemory(
        view.func, "the training step",
        trainingMemory(*train, split, microbatches), desc);
  }

  LogicalResult checkTrainingMemory(Operation *anchor, const std::string &what,
                                    const TrainingMemory &memory,
                                    const TargetDesc &desc) {
    SmallVector<MemoryItem> items = {
        {"weights", memory.states.weights},
        {"gradients", memory.states.gradients},
        {"optimizer state and master weights", memory.states.optimizerState},
        {"activations kept for the backward pass", memory.activations},
        {"recomputed activations", memory.recompute},
        {"collective buffers", memory.buffers}};
    if (failed(check(anchor, what, items, desc)))
      return failure();
    return checkHost(anchor, memory.host, desc);
  }

  /// Activations offloaded to the host need the target's host link and fit
  /// in its host memory per chip.
  LogicalResult checkHost(Operation *anchor, double bytes,
                          const TargetDesc &desc) {
    if (bytes <= 0)
      return success();
    if (desc.hostBandwidth <= 0 || desc.hostBytes <= 0)
      return anchor->emitError()
             << "the training step offloads activations to host memory, but "
                "target '"
             << desc.name
             << "' gives no host link figures (host.pcie_bandwidth_per_chip "
                "and host.memory_per_chip in its target file)";
    if (bytes > desc.hostBytes)
      return anchor->emitError() << fmt::format(
                 "the training step offloads {} of activations per chip to "
                 "host memory, more than the {} a {} chip's host holds for it",
                 formatQuantity(bytes, "B"), formatQuantity(desc.hostBytes, "B"),
                 desc.name);
    if (remarks)
      anchor->emitRemark() << fmt::format(
          "activations offloaded to host memory: {} of {} per chip",
          formatQuantity(bytes, "B"), formatQuantity(desc.hostBytes, "B"));
    return success();
  }
};

} // namespace
