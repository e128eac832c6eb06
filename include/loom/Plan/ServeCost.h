//===- ServeCost.h - serving iterations priced by Loom's cost model -*- C++ -*-===//
//
// The serving simulator (loom/Serve) asks an IterationCost for the seconds
// of each iteration. PlannedIterationCost answers with the cost model the
// planner and loom-sim share: the model is planned once as one serving
// replica (its layout's tensor parallelism over the replica's chips), and
// every iteration, a batch of prompt chunks and decode tokens, is priced
// on that module's ops (StageSliceCost::batchSeconds): token-wise kernels
// and collectives on all the batch's tokens, attention per sequence over
// its context, the host's dispatch of the step once.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PLAN_SERVECOST_H
#define LOOM_PLAN_SERVECOST_H

#include "loom/Plan/Planner.h"
#include "loom/Serve/Cost.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/Support/Error.h"

#include <memory>
#include <optional>
#include <vector>

namespace loom {

class CostModel;
class StageSliceCost;
struct TargetDesc;

class PlannedIterationCost : public serve::IterationCost {
public:
  /// Plans `problem`'s model as one replica of `layout` on the problem's
  /// topology (its chips are the replica's; one stage, one data-parallel
  /// replica), its forward pass imported for `referenceTokens` tokens of
  /// one sequence: the shapes every iteration is rescaled from. With
  /// `layout.kvBatch` > 1 the iterations with decodes run on that layout,
  /// planned for kv_batch sequences (prompts alone keep kv_batch 1, as
  /// MaxText's prefill program does). Fails with
  /// the planner's reason when the layout cannot run (weights that do not
  /// fit, degrees that do not divide) or prices what a batch cannot
  /// (sequence parallelism, decomposed collectives, gathered weights).
  static llvm::Expected<std::unique_ptr<PlannedIterationCost>>
  create(const PlanProblem &problem, const ParallelLayout &layout,
         int64_t referenceTokens, mlir::MLIRContext &context);
  ~PlannedIterationCost() override;

  double iteration(const serve::Batch &batch) const override;
  /// loom-sim's run of `batch` on the replica, what iteration() is held to:
  /// the iteration lowered on the reference module as one step of all its
  /// sequences (lowerBatchToScheduleFile) and simulated chip by chip, the
  /// host's dispatch included. Fails with the lowering's or the
  /// simulator's error.
  llvm::Expected<double> simulate(const serve::Batch &batch) const;
  /// All chips' K and V bytes per token of context.
  double kvBytesPerToken() const override;
  /// The host's dispatch of the insert program, then each chip reading
  /// its share of the request's cache (its KV heads' keys and values) and
  /// writing it into the slot, at the HBM's roofline.
  double insert(int64_t tokens) const override;
  /// Bytes of HBM on the replica's chips left for the KV cache: each
  /// chip's capacity less the weights it holds (its share of the split
  /// ones, the replicated ones whole), over the replica's chips.
  double kvCapacityBytes() const { return kvCapacity; }
  /// The target the replica runs on.
  const TargetDesc &getTarget() const { return *desc; }
  /// The host's dispatch of a step, part of every iteration's seconds.
  double getDispatch() const { return dispatch; }
  /// The plan of the reference forward pass (loom-plan's view of it).
  const PlanOutcome &getPlan() const { return prompts.plan; }
  /// The chips of each KV head's group that split its cache by batch in
  /// the generate state (the layout's kv_batch; 1: none).
  int64_t getKvBatch() const {
    return decodes ? decodes->plan.layout.kvBatch : 1;
  }

private:
  PlannedIterationCost() = default;
  /// A reference forward pass: its plan, module and costs.
  struct Reference {
    PlanOutcome plan;
    mlir::OwningOpRef<mlir::ModuleOp> module;
    std::unique_ptr<StageSliceCost> cost;
  };
  /// The reference `batch` runs on: prompts alone the prefill program's,
  /// with decodes the generate state's.
  const Reference &referenceFor(const serve::Batch &batch) const;
  std::unique_ptr<TargetDesc> desc;
  std::unique_ptr<CostModel> model;
  /// Prompts alone (one sequence, kv_batch 1), and, with kv_batch > 1,
  /// iterations with decodes (kv_batch sequences).
  Reference prompts;
  std::optional<Reference> decodes;
  double dispatch = 0, kvPerToken = 0, kvCapacity = 0;
  /// One chip's bytes of one sequence's cache per token (kv_batch 1).
  double kvPerTokenPerChip = 0;
};

/// Denoising steps of a diffusion transformer priced by the planner: the
/// model planned as one replica of `layout` (tensor, sequence and
/// data parallelism over its chips, one stage) for a batch of images (a
/// guided model's two rows an image), one step; a step's seconds are the
/// plan's prediction less the host's dispatch, which dispatch() returns
/// (loom-plan's one-step plan simulates to its prediction). Each batch
/// size is planned once, when prepare() first asks for it.
class PlannedDenoisingCost : public serve::DenoisingCost {
public:
  /// Fails when the model is not a diffusion transformer or one image's
  /// step cannot run on the layout.
  static llvm::Expected<std::unique_ptr<PlannedDenoisingCost>>
  create(const PlanProblem &problem, const ParallelLayout &layout,
         mlir::MLIRContext &context);
  /// Plans the steps of `images` images (and, with `upTo`, of every batch
  /// below it); the error says why one cannot run.
  llvm::Error prepare(int64_t images, bool upTo);
  /// A prepared batch's step.
  double step(int64_t images) const override;
  double dispatch() const override { return hostDispatch; }
  /// The denoising steps of a request (the model's pipeline default or
  /// the problem's --steps).
  int64_t getSteps() const { return steps; }
  /// The replica's layout, as loom-plan names it ("tp 8 x 1 stage x dp 2").
  const std::string &getLayoutName() const { return layoutName; }

private:
  PlannedDenoisingCost(const PlanProblem &problem,
                       const ParallelLayout &layout,
                       mlir::MLIRContext &context)
      : problem(problem), layout(layout), context(context) {}
  PlanProblem problem;
  ParallelLayout layout;
  mlir::MLIRContext &context;
  /// Seconds of a step by images - 1 (none: not planned yet).
  std::vector<std::optional<double>> seconds;
  double hostDispatch = 0;
  int64_t rows = 1, steps = 1;
  /// A video transformer's: its requests are videos.
  bool video = false;
  std::string layoutName;
};

/// What serving asks of a model before planning it.
struct ServedModel {
  /// A diffusion transformer, and one of video (more than one frame).
  bool diffusion = false, video = false;
  /// The fewest KV heads of a causal attention (0: none).
  int64_t kvHeads = 0;
  /// A mixture of experts' routed experts a block (0: none).
  int64_t experts = 0;
};
/// Imports `problem`'s model once, with its default workload: the
/// importer's error, naming the config file's place, when it cannot be.
llvm::Expected<ServedModel> importServedModel(const PlanProblem &problem,
                                              mlir::MLIRContext &context);

/// The kv_batch a serving replica of `chips` tensor-parallel chips runs its
/// decodes with: with more chips than `problem`'s model has KV heads, each
/// KV head's cache split by batch over all the chips holding it (the JAX
/// scaling book, Part 7: "we almost always prefer to avoid replicating the
/// cache"); 1 otherwise, or when the model cannot be imported.
int64_t servingKvBatch(const PlanProblem &problem, int64_t chips,
                       mlir::MLIRContext &context);
/// The same from the model's fewest KV heads of a causal attention.
int64_t servingKvBatch(int64_t kvHeads, int64_t chips);

} // namespace loom

#endif // LOOM_PLAN_SERVECOST_H
