//===- Handover.h - a stage boundary's handover, simulated ------*- C++ -*-===//
//
// Private to lib/Plan: the prediction of the stage handovers on the chips
// the lowering puts the stages on (used by Evaluate.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_LIB_PLAN_HANDOVER_H
#define LOOM_LIB_PLAN_HANDOVER_H

#include "Evaluate.h"

#include "loom/Analysis/StageCost.h"
#include "loom/Hardware/DeviceMesh.h"

#include <map>
#include <optional>
#include <tuple>
#include <vector>

namespace loom {

/// The seconds of a stage boundary's handover on the chips the lowering
/// puts the stages on: every tensor-parallel rank sends its copy to the
/// same rank of the next stage at once. In a pipeline's steady state every
/// stage hands its unit on at about the same time, so all boundaries (with
/// virtual stages, the last stage's back to the first too) are simulated
/// together: the sends into and out of a stage share its block's links, and
/// a multi-hop handover crosses other blocks'. They are simulated on idle
/// links, and with every stage's tensor-parallel ring busy (a message each
/// way between ring neighbours), beside the rings alone; a handover takes
/// the idle time plus, times the share of the stage's time its collectives
/// hold the links (StageSliceCost::tensorLinkShare), how much the busy
/// rings slow it and how much it slows the receiving stage's ring. Once
/// per (slice length, bytes). A 2-D block (tp_x > 1) runs its collectives
/// on rows and columns, which that ring does not stand for: its boundaries
/// are simulated one at a time, alone. Into stage 0 (a patch's return) and
/// where no mesh can be built, the cost model's one-hop figure.
/// Scattered (Megatron-LM's scatter/gather, Narayanan et al., SC'21, section
/// 4.1), each rank sends 1/tp of the boundary and the receiving stage's tp
/// groups all-gather it after the receives, as the lowering emits it: the
/// handover lasts until the gather is done, and the busy rings meet the
/// gathers on their own links too (one contention, counted once).
class BoundaryTransfers {
public:
  /// With virtual stages `cost` prices chunks: the handover into chunk c
  /// goes from stage (c - 1) mod `stages` to stage c mod `stages` (into the
  /// first stage from the last, round the ring).
  BoundaryTransfers(const TargetDesc &target, const TopologyDesc &topology,
                    const StageSliceCost &cost, int64_t tp, int64_t sp,
                    int64_t stages, int64_t tpX, const Placement &placement,
                    bool scatter = false, HandoverCache *cache = nullptr)
      : target(target), topology(topology), cost(cost), tp(tp), sp(sp),
        ranks(tp * sp), stages(stages), tpX(tpX), steadyState(tpX <= 1),
        scatter(scatter && tp > 1), cache(cache) {
    if (topology.numChips() % (tp * sp * stages) != 0)
      return;
    MeshShape shape{topology.numChips() / (tp * sp * stages), stages, tp, sp};
    if (tpX > 1)
      shape.tensorRows = tpX;
    auto built = DeviceMesh::build(target, topology, shape, placement);
    if (built)
      mesh.emplace(std::move(*built));
    else
      llvm::consumeError(built.takeError());
  }

  double operator()(int64_t stage, int64_t length);

private:
  /// Every boundary's handover of `bytes` a rank, sent at once (with each
  /// stage's tensor-parallel ring busy; or the rings alone): the seconds
  /// until each boundary's last receive, by the stage it goes into, then
  /// until each stage's ring's last message; empty if it cannot run. With
  /// `only`, that boundary's handover alone.
  std::vector<double> boundaries(int64_t bytes, bool busyRings,
                                 bool handovers, int64_t only = -1);

  std::vector<double> simulateBoundaries(int64_t bytes, bool busyRings,
                                         bool handovers, int64_t only);

  const TargetDesc &target;
  const TopologyDesc &topology;
  const StageSliceCost &cost;
  int64_t tp, sp, ranks, stages, tpX;
  bool steadyState, scatter;
  HandoverCache *cache;
  std::optional<DeviceMesh> mesh;
  std::map<std::tuple<int64_t, int64_t, int64_t>, double> aloneSeconds;
  std::map<std::pair<int64_t, int64_t>,
           std::tuple<std::vector<double>, std::vector<double>,
                      std::vector<double>>>
      seconds;
};

} // namespace loom

#endif // LOOM_LIB_PLAN_HANDOVER_H
