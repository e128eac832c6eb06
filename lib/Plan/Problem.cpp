//===- Problem.cpp - what is checked before a plan is solved --------------===//
//
// A request is checked before any work (CIRCT's Problem::check): the
// degrees are at least 1 before any product of them is formed, and the
// choices that cannot go together are refused with the reason the pass or
// the lowering would give, so that a search never spends a planning run on
// them and a user hears why at once. A plan is verified after it is
// evaluated (Problem::verify): no figure a ranking or a report would use is
// out of range.
//
//===----------------------------------------------------------------------===//

#include "Evaluate.h"

#include "loom/Analysis/TrainingSchedule.h"

#include <fmt/format.h>

#include <cmath>

using namespace loom;

/// The first layout degree below 1 (its option's name and value), or a
/// null name. (ep is checked by loom-shard-experts, which names the valid
/// degrees; tp-x by loom-shard-heads.)
static std::pair<const char *, int64_t>
degreeBelowOne(const ParallelLayout &layout) {
  const LayoutDimensions &d = layoutDimensions();
  for (auto [name, value] :
       {std::pair{d.tp.name.data(), layout.tp},
        {d.kvBatch.name.data(), layout.kvBatch},
        {d.sp.name.data(), layout.sp},
        {d.stages.name.data(), layout.stages},
        {d.dataParallel.name.data(), layout.dataParallel},
        {d.interleave.name.data(), layout.interleave},
        {d.microbatches.name.data(), layout.microbatches},
        {d.virtualStages.name.data(), layout.virtualStages}})
    if (value < 1)
      return {name, value};
  return {nullptr, 0};
}

/// Why the weight-gathered layout cannot run with the rest of `layout`.
static const char *whyNotWeightGathered(const ParallelLayout &layout) {
  return layout.tpX != 1 ? "it gathers over the whole tp group, not a 2-D "
                           "block"
         : layout.tp < 2 ? "it needs a group of at least 2 chips (give --tp)"
         : layout.sp > 1 || layout.ep > 1
             ? "its tp chips split the batch alone (no sp, no ep)"
         : layout.sequenceParallel ? "it does not split the sequence"
         : layout.decompose ? "it has no collective matmul to decompose"
         : layout.interleave > 1 || layout.microbatches > 1 ||
                 layout.virtualStages > 1
             ? "each stage runs its units one after another, each layer's "
               "gather prefetched under the layer before (give interleave, "
               "microbatches and virtual stages 1)"
             : nullptr;
}

/// The lowering's own refusals of the scatter/gather handover
/// (LoomToSched, checkScatter).
static const char *whyNotScattered(const ParallelLayout &layout) {
  return layout.stages < 2 ? "the plan has one stage: there is no boundary "
                             "to hand over"
         : layout.tp < 2 ? "it needs tensor parallelism (tp >= 2): each "
                           "stage's one rank sends its results once"
         : layout.isTwoD() ? "a 2-D block's layer results are already split "
                             "over its tp_x rows"
         : layout.sequenceParallel
             ? "with Megatron sequence parallelism the layer results are "
               "already split over tp: each rank sends its own share, no "
               "gather needed"
         : layout.isWeightGathered()
             ? "a weight-gathered plan's ranks each hold their own "
               "sequences' results"
             : nullptr;
}

std::string loom::checkLayout(const ParallelLayout &layout) {
  if (auto [name, value] = degreeBelowOne(layout); name)
    return std::string(name) + " must be at least 1, got " +
           std::to_string(value);
  if (layout.isWeightGathered())
    if (const char *why = whyNotWeightGathered(layout))
      return std::string("the weight-gathered layout cannot run: ") + why;
  if (layout.hasExpertGroup() &&
      (layout.ep < 2 || layout.sp > 1 || layout.isTwoD() ||
       layout.isWeightGathered()))
    return fmt::format(
        "--ep-layout=data gives the ep chips a group of their own beside a "
        "1-D tp group: it needs --ep 2 or more{}",
        layout.ep < 2 ? fmt::format(" (got {})", layout.ep)
                      : ", and no --sp, 2-D or weight-gathered layout");
  if (layout.kvBatch > 1 &&
      (layout.isTwoD() || layout.isWeightGathered() || layout.sp > 1 ||
       layout.hasExpertGroup() || layout.sequenceParallel ||
       layout.microbatches > 1))
    return "--kv-batch splits each KV head's cache over a 1-D "
           "tensor-parallel group's chips by whole batch: it runs without a "
           "2-D or weight-gathered layout, --sp, --ep-layout=data, "
           "--sequence-parallel or microbatches";
  if (layout.isTwoD() && layout.decompose)
    return "decompose runs on a 1-D tensor-parallel ring; a 2-D block's "
           "sub-groups are not decomposed";
  if (layout.scatterHandover)
    if (const char *why = whyNotScattered(layout))
      return std::string("the scatter/gather handover cannot run: ") + why;
  return "";
}

std::string loom::checkTraining(const ParallelLayout &layout, bool training) {
  const LayoutDimensions &d = layoutDimensions();
  if (!training) {
    for (auto [name, changed] :
         {std::pair{d.fsdp.name, layout.fsdp != d.fsdp.defaultValue},
          {d.zero.name, layout.zero != d.zero.defaultValue},
          {d.remat.name, layout.remat != d.remat.defaultValue},
          {d.schedule.name, layout.schedule != d.schedule.defaultValue}})
      if (changed)
        return "--" + name.str() +
               " applies to a training step; give --mode train";
    return "";
  }
  if (layout.kvBatch > 1)
    return "--kv-batch splits an inference KV cache; a training step keeps "
           "none";
  if (layout.fsdp < 1)
    return fmt::format("--fsdp must be at least 1, got {}", layout.fsdp);
  if (layout.dataParallel % layout.fsdp != 0)
    return fmt::format("--fsdp {} must divide --data-parallel {}: each "
                       "group of fsdp replicas splits the model states",
                       layout.fsdp, layout.dataParallel);
  if (layout.fsdp == 1 && layout.zero != d.zero.defaultValue)
    return "--zero sets the stage of the split --fsdp makes; give --fsdp 2 "
           "or more";
  if (layout.zero < 1 || layout.zero > 3)
    return fmt::format("--zero must be 1, 2 or 3, got {}", layout.zero);
  // What the training step's lowering builds (docs/training.md).
  if (layout.virtualStages > 1 &&
      (layout.stages < 2 || !runsChunks(layout.schedule)))
    return fmt::format("--virtual-stages {} runs a training step's chunks "
                       "with --schedule interleaved or circular on 2 or more "
                       "--stages (got {} stage{}, schedule {})",
                       layout.virtualStages, layout.stages,
                       layout.stages == 1 ? "" : "s",
                       formatDimension(layout.schedule));
  if (layout.tpLayout != TensorLayout::OneD)
    return "a training step's tensor parallelism is 1-D (Megatron); give "
           "--tp-layout 1d";
  if (layout.interleave > 1 || layout.decompose || layout.scatterHandover)
    return "a training step is lowered with interleave 1, without decompose "
           "and without scatter-handover";
  return "";
}

std::string loom::checkSchedule(const ParallelLayout &layout) {
  if (layout.virtualStages > 1 && layout.interleave > 1)
    return "virtual stages run each stage's units in Megatron's order, not "
           "zipped: give interleave 1";
  if (layout.decompose && layout.interleave > 1)
    return "decompose runs with interleave 1 only (units interleaved around "
           "decomposed collective matmuls are not built)";
  if (layout.decompose && layout.tp < 2)
    return "decompose needs tensor parallelism (tp >= 2): there is no "
           "collective matmul to decompose";
  return "";
}

std::string loom::checkRequest(const PlanRequest &request, bool search,
                               const PlanOptions &options, bool topGiven) {
  if (auto [flag, degree] = degreeBelowOne(request.layout.complete()); flag)
    return "--" + std::string(flag) + " must be at least 1, got " +
           std::to_string(degree);
  if (search && request.layout.slices)
    return "--search chooses the slices of each plan; drop --slices or "
           "--search";
  if (topGiven && !search)
    return "--simulate-top applies only to a search (--search, or no --tp, "
           "--stages, --data-parallel or --slices)";
  if (options.simulateTop < 0)
    return "--simulate-top must be 0 or more, got " +
           std::to_string(options.simulateTop);
  return "";
}

std::string loom::verifyPlan(const PlanOutcome &plan) {
  // No success with a wrong answer: a figure out of range shows as a time
  // that is not a number, which no ranking or report may use.
  if (!std::isfinite(plan.predicted) || !std::isfinite(plan.roofline) ||
      !std::isfinite(plan.bubble) || !std::isfinite(plan.ideal))
    return "the cost model's prediction is not a finite time; the target's "
           "figures are out of range";
  return "";
}
