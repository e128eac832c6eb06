//===- SearchSpace.h - the layouts a search tries ---------------*- C++ -*-===//
//
// Private to lib/Plan. One function per dimension, each with its pruning
// rule (docs/planning.md lists them), over what one import of the whole
// workload tells; candidates() composes them into the layouts a search
// plans, in a fixed order.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_LIB_PLAN_SEARCHSPACE_H
#define LOOM_LIB_PLAN_SEARCHSPACE_H

#include "Evaluate.h"

#include "loom/Plan/SequenceSearch.h"

#include <map>
#include <optional>
#include <tuple>
#include <vector>

namespace loom {

/// A tensor-parallel layout the search tries.
struct TensorChoice {
  int64_t tp, tpX;
  /// Weight-gathered over the tp chips (Pope et al. 2023, section 3.2.3).
  bool gathered;
  /// A 2-D block with Megatron's sequence parallelism over its rows: the
  /// search's choice whenever the sequence splits over them (the same link
  /// traffic; the residual, its norms and adds and the stages' handovers Y
  /// times smaller: 10-15% faster on GPT-3 and LLaMA-65B on v5e-256,
  /// docs/tensor-parallelism.md).
  bool rowsSequenceParallel = false;
  /// 1-D: each KV head's cache split by batch over this many of the chips
  /// holding it (kv-batch; 1: held whole by each).
  int64_t kvBatch = 1;
};

/// An expert-parallel layout: ep chips of the tp group, or (`data`) a
/// group of their own beside it.
struct ExpertChoice {
  int64_t ep;
  bool data;
};

/// Units interleaved around the collectives, or the collective matmuls
/// decomposed (in the all-reduce form, or in Megatron's sequence-parallel
/// form).
struct OverlapChoice {
  int64_t interleave;
  bool decompose, sequenceParallel;
};

/// The candidates of a search: every layout, and the expert-group layouts
/// whose other placements a second round plans for the best of them.
struct Candidates {
  std::vector<ParallelLayout> layouts;
  /// (index in `layouts`, its placements after the first).
  std::vector<std::pair<size_t, std::vector<Placement>>> refinements;
};

class SearchSpace {
public:
  /// The space of `request` on its topology, from one import of the whole
  /// workload; none when the target or the model cannot be read (the
  /// request's own plan then says why).
  static std::optional<SearchSpace> build(const PlanRequest &request,
                                          mlir::MLIRContext &context);

  /// Every layout to plan, in order.
  Candidates candidates();

  const TargetDesc &getTarget() const { return target; }
  const WorkloadFigures &getWorkload() const { return workload; }
  /// The problem every candidate is planned for (the batch made explicit).
  const PlanProblem &getProblem() const { return problem; }

  // The dimensions, each with its pruning rule.
  llvm::SmallVector<TensorChoice> tensorLayouts(mlir::ModuleOp module) const;
  llvm::SmallVector<int64_t> stageCounts(int64_t tp) const;
  llvm::SmallVector<int64_t> dataParallelDegrees(int64_t tp,
                                                 int64_t stages) const;
  llvm::ArrayRef<ExpertChoice> expertLayouts(const TensorChoice &t) const;
  llvm::ArrayRef<OverlapChoice> overlaps() const;
  llvm::SmallVector<int64_t> microbatchCounts(int64_t stages,
                                              int64_t share) const;
  llvm::SmallVector<int64_t> virtualStageCounts(int64_t stages,
                                                int64_t interleave) const;
  const std::vector<Placement> &placements(int64_t tp, int64_t beside,
                                           int64_t stages, bool expertGroup);
  /// A training step's: the replicas that split the model states, the
  /// ZeRO stages of that split, the rematerialisation policies and the
  /// microbatches each replica accumulates.
  llvm::SmallVector<int64_t> fsdpDegrees(int64_t dp) const;
  llvm::SmallVector<int64_t> zeroStages(int64_t fsdp) const;
  llvm::SmallVector<RematPolicy> rematPolicies() const;
  llvm::SmallVector<int64_t> accumulationCounts(int64_t share) const;
  llvm::SmallVector<int64_t> trainingStageCounts(int64_t tp) const;
  llvm::SmallVector<std::pair<PipelineSchedule, int64_t>>
  pipelineSchedules(int64_t stages) const;
  llvm::SmallVector<int64_t> pipelineMicrobatches(int64_t stages,
                                                  int64_t share) const;
  std::optional<Placement> stagesInRing(const Placement &placement,
                                        int64_t tp, int64_t beside,
                                        int64_t stages, int64_t tpX,
                                        bool expertGroup);

private:
  SearchSpace(const PlanRequest &request, TargetDesc target,
              TopologyDesc topology)
      : given(request.layout), problem(request.problem),
        target(std::move(target)), topology(std::move(topology)) {}

  /// The candidates of one (tensor layout, stages, dp, experts, sp) point,
  /// in every overlap, microbatch, virtual stage and placement the rules
  /// allow.
  void addVariants(const TensorChoice &t, int64_t stages, int64_t dp,
                   const ExpertChoice &e, int64_t sp, bool ring,
                   Candidates &out);
  /// A training step's candidates, and those of one (tp, stages, dp).
  Candidates trainingCandidates();
  void addTrainingVariants(const TensorChoice &t, int64_t stages, int64_t dp,
                           Candidates &out);

  LayoutRequest given;
  PlanProblem problem;
  TargetDesc target;
  TopologyDesc topology;
  WorkloadFigures workload;
  /// The chips of the topology, and of one slice (a stage's group lies in
  /// one; its replicas' stages fill slices or whole runs of them).
  int64_t chips = 0, sliceChips = 0, layers = 0, batch = 1;
  /// Whether replicas of `stages` stages of `stageChips` chips tile the
  /// slices (DeviceMesh::build's rule).
  bool tiles(int64_t stageChips, int64_t stages) const {
    return topology.tiledBy(stages, stageChips);
  }
  bool diffusion = false, decode = false, training = false;
  bool givenSequenceParallel = false;
  llvm::SmallVector<TensorChoice> tensor;
  std::map<int64_t, llvm::SmallVector<ExpertChoice>> expertLayoutsOf;
  SequenceDegrees sequence;
  std::map<std::tuple<int64_t, int64_t, int64_t, bool>,
           std::vector<Placement>>
      placementCache;
  std::map<std::tuple<int64_t, int64_t, int64_t, int64_t, bool, std::string>,
           std::optional<Placement>>
      ringCache;
};

} // namespace loom

#endif // LOOM_LIB_PLAN_SEARCHSPACE_H
