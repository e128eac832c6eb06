//===- SplitTokens.cpp - token slices and patches for the pipeline --------===//

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Partition/SplitTokens.h"
#include "loom/Transforms/ParallelLayout.h"
#include "loom/Transforms/Passes.h"
#include "loom/Analysis/StageCost.h"
#include "loom/Analysis/StageSliceCost.h"
#include "loom/Analysis/TrainingStep.h"
#include "loom/Support/Quantity.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <limits>

#include <fmt/format.h>

namespace loom {
#define GEN_PASS_DEF_SPLITTOKENS
#include "loom/Transforms/Passes.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;

namespace {

/// What each stage holds whatever the patches (weights and, with more than
/// one patch, the stale K/V of the previous step), and the activations of a
/// layer over the whole sequence, which a patch holds its share of
/// (loom-check-memory's sums).
struct StageMemory {
  StageMemory(const ModelView &view, int64_t stages, double capacity)
      : fixed(stages, 0.0), stale(stages, 0.0), activations(stages, 0.0),
        capacity(capacity) {
    for (LayerOp layer : view.layers) {
      int64_t s = static_cast<int64_t>(layer.getStage().value_or(0));
      LayerFootprint f = layerFootprint(layer, /*staleKV=*/true);
      fixed[s] += f.weights;
      stale[s] += f.kvCache;
      activations[s] = std::max(activations[s], f.workingSet);
    }
    fixed.front() += view.prologueWeights;
    fixed.back() += view.epilogueWeights;
  }
  /// What stage `s` holds before any activations with `patches` patches.
  double held(size_t s, int64_t patches) const {
    return fixed[s] + (patches > 1 ? stale[s] : 0.0);
  }
  /// Whether every stage fits with `patches` equal patches.
  bool fits(int64_t patches) const {
    for (size_t s = 0; s < fixed.size(); ++s)
      if (held(s, patches) + activations[s] / double(patches) > capacity)
        return false;
    return true;
  }
  SmallVector<double> fixed, stale, activations;
  double capacity;
};

struct SplitTokensPass : public loom::impl::SplitTokensBase<SplitTokensPass> {
  using SplitTokensBase::SplitTokensBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    ModelAnalysis &analysis = getAnalysis<ModelAnalysis>();
    if (failed(analysis.requireModel("loom-split-tokens")))
      return signalPassFailure();
    // Only loom.pipeline changes, which the analysis does not hold.
    markAnalysesPreserved<ModelAnalysis>();
    const CostModel &model = analysis.getCostModel();
    ModelView *view = &analysis.getView();
    func::FuncOp func = view->func;
    PipelineAttr pipeline = getPipeline(func);
    if (!pipeline) {
      func.emitError() << "loom-split-tokens needs stages: run "
                          "loom-partition-layers first";
      return signalPassFailure();
    }
    int64_t stages = pipeline.getStages();
    int64_t tokens = pipeline.getTokens();
    SmallVector<GroupAxis> axes = analysis.getTensorParallelAxes(stages);
    // Each option belongs to one mode; a stray one is a mistake to report.
    bool patches = pipeline.getMode() == PipelineMode::patches;
    if (microbatches < 1) {
      func.emitError() << "microbatches must be at least 1, got "
                       << int64_t(microbatches);
      return signalPassFailure();
    }
    std::optional<PipelineSchedule> order =
        symbolizePipelineSchedule(schedule);
    if (!order) {
      func.emitError() << "unknown pipeline schedule '" << schedule
                       << "' (valid: " << pipelineScheduleNames() << ")";
      return signalPassFailure();
    }
    if (patches && microbatches != 1) {
      func.emitError() << "microbatches apply to token slices of causal "
                          "models; PipeFusion patches of a batch run together";
      return signalPassFailure();
    }
    if (int64_t batch = getPipelineBatch(func); batch % microbatches != 0) {
      func.emitError() << int64_t(microbatches)
                       << " microbatches do not divide the batch of " << batch
                       << " sequences (valid: " << validMicrobatches(batch)
                       << ")";
      return signalPassFailure();
    }
    // With virtual stages the cost is per chunk (a layer's stage).
    StageSliceCost cost(view->layers, model, axes, tokens,
                        pipeline.getChunks(),
                        analysis.getSequenceParallelAxes(stages),
                        microbatches);

    if (patches && granularity != 0) {
      func.emitError() << "granularity applies to token slices of causal "
                          "models; PipeFusion patches are equal";
      return signalPassFailure();
    }
    // warmup-steps defaults to -1 rather than to its value, 1, so that a
    // given 1 can be told from the default after the options have been
    // copied through SplitTokensOptions.
    if (!patches && warmupSteps != -1) {
      func.emitError() << "warmup-steps applies to PipeFusion patches of "
                          "diffusion models, not to token slices";
      return signalPassFailure();
    }
    // A training step's slices cost their forward and backward passes.
    std::optional<TrainingSliceCost> training;
    if (!patches && isTrainingStep(func)) {
      FailureOr<TrainingView> train =
          getTrainingView(func, "loom-split-tokens");
      if (failed(train))
        return signalPassFailure();
      training.emplace(*train, model, axes, tokens, pipeline.getChunks(),
                       analysis.getSequenceParallelAxes(stages),
                       microbatches);
    }
    FailureOr<SmallVector<int64_t>> lengths =
        patches ? choosePatches(func, pipeline, tokens, cost,
                                StageMemory(*view, stages,
                                            analysis.getTargetDesc().hbmBytes))
        : training
            ? chooseSlices(func, tokens, stages, pipeline.getVirtualStages(),
                           [&](int64_t l, int64_t c) { return (*training)(l, c); },
                           nullptr)
            : chooseSlices(func, tokens, stages, pipeline.getVirtualStages(),
                           [&](int64_t l, int64_t c) { return cost(l, c); },
                           &cost);
    if (failed(lengths))
      return signalPassFailure();
    int64_t warmup =
        patches ? std::min(givenWarmupOrOne(), pipeline.getSteps()) : 0;
    // The attribute's verifier refuses a schedule the plan cannot run
    // (1F1B with fewer microbatches than stages, one on patches), at the
    // function.
    PipelineAttr planned = PipelineAttr::getChecked(
        [&] { return func.emitError(); }, module.getContext(), stages,
        ArrayRef<int64_t>(*lengths), pipeline.getMode(), pipeline.getSteps(),
        warmup, int64_t(microbatches), pipeline.getVirtualStages(), *order);
    if (!planned)
      return signalPassFailure();
    func->setAttr(kPipelineAttrName, planned);
  }

  int64_t givenWarmupOrOne() const {
    return warmupSteps == -1 ? 1 : int64_t(warmupSteps);
  }

  /// Parses `slices` into lengths, or returns empty for "auto"; diagnoses
  /// lengths that cannot cut `tokens`.
  FailureOr<SmallVector<int64_t>> requested(func::FuncOp func, int64_t tokens,
                                            bool patches) {
    llvm::Expected<SliceSpec> spec = SliceSpec::parse(slices);
    if (!spec) {
      func.emitError() << llvm::toString(spec.takeError());
      return failure();
    }
    SmallVector<int64_t> lengths = spec->values;
    if (spec->isAuto())
      return lengths;
    if (spec->kind == SliceSpec::Kind::Count) {
      int64_t count = lengths[0];
      if (count < 1 || count > tokens) {
        func.emitError() << "cannot cut " << tokens << " tokens into " << count
                         << " slices: the count must be between 1 and the "
                            "number of tokens";
        return failure();
      }
      if (tokens % count != 0) {
        InFlightDiagnostic diag = func.emitError()
                                  << tokens << " tokens do not split into "
                                  << count << " equal slices; ";
        if (!patches)
          return diag << "give the lengths instead";
        // PipeFusion's patches are equal: name the counts that work.
        SmallVector<int64_t> near;
        for (int64_t c = std::max<int64_t>(count - 8, 1);
             c <= std::min(count + 8, tokens); ++c)
          if (tokens % c == 0)
            near.push_back(c);
        diag << "PipeFusion patches are equal, so the count must divide the "
                "tokens (near "
             << count << ": ";
        llvm::interleaveComma(near, diag);
        return diag << ")";
      }
      return SmallVector<int64_t>(count, tokens / count);
    }
    int64_t sum = 0;
    for (auto [i, length] : llvm::enumerate(lengths)) {
      if (length < 1) {
        func.emitError() << "slice #" << i << " has " << length
                         << " tokens; every slice needs at least one";
        return failure();
      }
      // Stop before the sum can overflow.
      if (length > tokens - sum) {
        func.emitError() << "the slices up to #" << i
                         << " add up to more than the sequence's " << tokens
                         << " tokens";
        return failure();
      }
      sum += length;
    }
    if (sum != tokens) {
      func.emitError() << "the slices add up to " << sum
                       << " tokens, but the sequence has " << tokens;
      return failure();
    }
    return lengths;
  }

  /// TeraPipe's slices of `tokens` on `stages` stages by `costFn`, a
  /// slice's seconds on the slowest chunk; `inference` the forward pass's
  /// stages, whose played pipeline settles interleaved slicings (none for
  /// a training step, whose schedule runs its units).
  FailureOr<SmallVector<int64_t>>
  chooseSlices(func::FuncOp func, int64_t tokens, int64_t stages,
               int64_t virtualStages, SliceCost costFn,
               const StageSliceCost *inference) {
    FailureOr<SmallVector<int64_t>> given = requested(func, tokens, false);
    if (failed(given))
      return failure();
    // A training step on one stage has no pipeline for slices to fill.
    if (given->empty() && !inference && stages == 1)
      return SmallVector<int64_t>{tokens};
    int64_t unit = granularity;
    if (unit == 0) {
      // The smallest multiple of 8 that cuts the sequence into at most 128
      // units (TPU-friendly slice lengths, a quick search); else the
      // smallest divisor that does.
      // With Ulysses (sp), a multiple of sp: each of the sp chips takes an
      // equal share of every slice.
      unit = 0;
      int64_t sequenceDegree =
          getParallelOrDefault(func->getParentOfType<ModuleOp>()).getSp();
      for (int step : {8, 1})
        for (int64_t candidate = step; !unit && candidate <= tokens;
             candidate += step)
          if (tokens % candidate == 0 && tokens / candidate <= 128 &&
              candidate % sequenceDegree == 0)
            unit = candidate;
    } else if (unit < 1 || tokens % unit != 0) {
      func.emitError() << "granularity " << int64_t(granularity) << " does not divide the "
                       << tokens << "-token sequence";
      return failure();
    } else if (int64_t coarse = coarsenGranularity(tokens, unit);
               coarse != unit) {
      // The DP's table grows with the square of the units (TokenSlicer.h).
      func.emitWarning() << "granularity " << unit << " cuts the " << tokens
                         << "-token sequence into " << tokens / unit
                         << " units, more than the " << kMaxSliceUnits
                         << " the slicing table holds; using granularity "
                         << coarse << " (" << tokens / coarse << " units)";
      unit = coarse;
    }
    // Interleaved stages: a slice costs each stage its v chunks and the
    // bubble is K - 1 chunks, so the DP's M sum + (K - 1) max, over chunk
    // times, takes M v for M.
    int64_t m = microbatches * virtualStages;
    Slicing uniform = bestUniformSlicing(tokens, unit, stages, costFn, m);
    Slicing chosen = given->empty()
                         ? sliceTokens(tokens, unit, stages, costFn, m)
                         : evaluateSlicing(*given, stages, costFn, m);
    if (chosen.lengths.empty()) {
      func.emitError() << "the cost model priced a slice at a time that is "
                          "not a finite, non-negative number";
      return failure();
    }
    if (virtualStages > 1 && given->empty() && inference)
      chosen = evaluateSlicing(fillGroups(func, tokens, unit, stages,
                                          virtualStages, *inference,
                                          std::move(chosen))
                                   .lengths,
                               stages, costFn, m);
    if (report)
      func.emitRemark() << fmt::format(
          "TeraPipe: {} slices [{}] on {} stages{}{}, predicted {:.3f} ms "
          "({}sum {:.3f} ms + {} x max {:.3f} ms); best equal slicing: {} x {} "
          "tokens, {:.3f} ms; {:.1f}% better",
          chosen.lengths.size(), llvm::join(llvm::map_range(chosen.lengths, [](int64_t l) {
            return std::to_string(l);
          }), ", "),
          stages,
          microbatches > 1
              ? fmt::format(" for each of {} microbatches", int64_t(microbatches))
              : virtualStages > 1
              ? fmt::format(" x {} virtual stages (times of a chunk)",
                            virtualStages)
              : "",
          inference ? "" : " (forward and backward)", chosen.total * 1e3, m > 1 ? fmt::format("{} x ", m) : "",
          chosen.sum * 1e3, stages - 1,
          chosen.max * 1e3, uniform.lengths.size(), uniform.lengths.front(),
          uniform.total * 1e3,
          100.0 * (uniform.total - chosen.total) / uniform.total);
    return chosen.lengths;
  }

  /// Interleaved stages run the units in groups of K, and a last group of
  /// g < K units waits K - g chunks a round for its units to come round
  /// (playVirtualStages), which TeraPipe's closed form does not see: a DP
  /// slicing that leaves a part group is played against equal slicings
  /// whose units fill whole groups, and the fastest played wins.
  Slicing fillGroups(func::FuncOp func, int64_t tokens, int64_t unit,
                     int64_t stages, int64_t virtualStages,
                     const StageSliceCost &cost, Slicing chosen) {
    auto played = [&](ArrayRef<int64_t> lengths) {
      return predictPipeline(
                 cost, PipelineAttr::get(func.getContext(), stages, lengths,
                                         PipelineMode::tokens, 0, 0,
                                         microbatches, virtualStages,
                                         PipelineSchedule::GPipe))
          .seconds;
    };
    // Whole groups already: the DP's slicing stands.
    if ((int64_t(chosen.lengths.size()) * microbatches) % stages == 0)
      return chosen;
    double best = played(chosen.lengths);
    for (int64_t count = 1; count * unit <= tokens && count <= 128; ++count) {
      if (tokens % (count * unit) != 0 ||
          (count * microbatches) % stages != 0)
        continue;
      SmallVector<int64_t> lengths(count, tokens / count);
      double t = played(lengths);
      if (t < best * (1 - 1e-9)) {
        best = t;
        chosen.lengths = lengths;
      }
    }
    return chosen;
  }

  FailureOr<SmallVector<int64_t>> choosePatches(func::FuncOp func,
                                                PipelineAttr pipeline,
                                                int64_t tokens,
                                                const StageSliceCost &cost,
                                                const StageMemory &memory) {
    FailureOr<SmallVector<int64_t>> given = requested(func, tokens, true);
    if (failed(given))
      return failure();
    if (!given->empty() && !llvm::all_equal(*given)) {
      func.emitError() << "PipeFusion patches must be equal; got "
                       << given->size() << " slices of different lengths";
      return failure();
    }
    int64_t stages = pipeline.getStages();
    int64_t steps = std::max<int64_t>(pipeline.getSteps(), 1);
    int64_t warmup = givenWarmupOrOne();
    int64_t sequenceDegree =
        getParallelOrDefault(func->getParentOfType<ModuleOp>()).getSp();
    if (warmup < 0 || warmup > steps) {
      func.emitError() << "warmup-steps must be between 0 and the " << steps
                       << " denoising steps, got " << warmup;
      return failure();
    }
    auto total = [&](int64_t patches) {
      SmallVector<int64_t> lengths(patches, tokens / patches);
      return predictPipeline(cost, PipelineAttr::get(func.getContext(), stages,
                                                     lengths,
                                                     PipelineMode::patches,
                                                     steps, warmup, 1, 1,
                                                     PipelineSchedule::GPipe))
          .seconds;
    };
    int64_t chosen = given->empty() ? 0 : given->size();
    if (!chosen) {
      // Patches of at least 8 tokens (a whole image when it has fewer),
      // the fastest whose activations fit beside the weights and the stale
      // K/V (a video's sequence may need many).
      double best = std::numeric_limits<double>::infinity();
      for (int64_t m = 1; m <= tokens; ++m) {
        // With Ulysses (sp), each of the sp chips takes an equal share of
        // every patch.
        if (tokens % m != 0 || (m > 1 && tokens / m < 8) ||
            (tokens / m) % sequenceDegree != 0 || !memory.fits(m))
          continue;
        // No pipeline beats its busiest stage working every patch of every
        // step back to back: past the best so far, it is not played (a
        // long video has a hundred patchings of thousands of patches).
        double busiest = 0;
        for (int64_t s = 0; s < stages; ++s)
          busiest = std::max(busiest, cost.stageSeconds(s, tokens / m, 0));
        if (double(steps) * double(m) * busiest >= best)
          continue;
        double t = total(m);
        if (t < best * (1 - 1e-9)) {
          best = t;
          chosen = m;
        }
      }
      if (!chosen) {
        // Even the smallest patches leave too little: the stale K/V (or the
        // weights) alone are the problem, which patches cannot solve.
        int64_t worst = 0;
        for (int64_t s = 1; s < stages; ++s)
          if (memory.held(s, 2) > memory.held(worst, 2))
            worst = s;
        func.emitError() << fmt::format(
            "no PipeFusion patching fits in {} of HBM per chip: stage {} "
            "holds {} of weights and stale K/V of the previous step before "
            "any activations; use more stages or tensor parallelism, or "
            "sequence parallelism to split the stale K/V",
            formatQuantity(memory.capacity, "B"), worst,
            formatQuantity(memory.held(worst, 2), "B"));
        return failure();
      }
    }
    if (report) {
      // Without patches is one patch per step, priced as the chosen ones
      // are: with the handovers between the stages and back.
      double m = chosen, s = steps;
      func.emitRemark() << fmt::format(
          "PipeFusion: {} patches of {} tokens on {} stages over {} steps "
          "({} warm-up), predicted {:.3f} ms; pipeline efficiency "
          "M*S/(M*S+K-1) = {:.1f}%; without patches (synchronous steps) "
          "{:.3f} ms",
          chosen, tokens / chosen, stages, steps, warmup,
          total(chosen) * 1e3, 100.0 * m * s / (m * s + stages - 1),
          total(1) * 1e3);
    }
    return SmallVector<int64_t>(chosen, tokens / chosen);
  }
};

} // namespace
