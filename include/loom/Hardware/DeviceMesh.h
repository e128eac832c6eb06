//===- DeviceMesh.h - logical groups on the chips of a topology ----*- C++ -*-===//
//
// Maps data-parallel replicas, pipeline stages and the tensor- and
// sequence-parallel ranks of each stage onto the chips of a 2-D torus
// topology, as a Placement says:
// - each stage occupies a block of tp x sp neighbouring chips;
// - inside it the inner group (tp or sp) is a sub-block whose ranks walk a
//   ring of neighbours (a whole wrapping axis, or a block with both sides
//   >= 2 and an even chip count, which has a Hamiltonian cycle; otherwise a
//   line); the outer group is the chips at the same offset in every
//   sub-block, the sub-blocks walked in the same ring order;
// - the blocks are visited in a snake (boustrophedon) order over the block
//   grid, so consecutive blocks are adjacent: each replica takes a run of
//   `stages` blocks (stages inside replicas), or each stage a run of `dp`;
//   or (stages in ring) each replica's stages take a sub-grid of blocks
//   walked as a closed cycle, so the last stage is beside the first.
// On several slices joined by the DCN (docs/multislice.md) each slice
// holds whole replicas (data parallelism over the DCN), or each replica an
// equal run of stages on each of the slices it spans.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_HARDWARE_DEVICEMESH_H
#define LOOM_HARDWARE_DEVICEMESH_H

#include "loom/Hardware/CostModel.h"
#include "loom/Hardware/TargetDesc.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <algorithm>
#include <array>
#include <optional>
#include <string>
#include <vector>

namespace loom {

/// Degrees of parallelism; their product is the number of chips used. A
/// stage's ranks are r = u * tensorParallel + t (sequence rank u, tensor
/// rank t).
struct MeshShape {
  int64_t dataParallel = 1;
  int64_t stages = 1;
  int64_t tensorParallel = 1;
  int64_t sequenceParallel = 1;
  /// Rows of the tensor-parallel block when the plan fixes them (a 2-D
  /// tensor-parallel group's tp_x); 0: chosen by build().
  int64_t tensorRows = 0;
  /// The group beside tp (`sequenceParallel` chips) is the expert-parallel
  /// group of its own (#loom.parallel's ep_data) rather than Ulysses' sp:
  /// laid out alike, named "ep" in placements.
  bool expertGroup = false;

  int64_t ranksPerStage() const { return tensorParallel * sequenceParallel; }
};

using ChipCoord = std::array<int64_t, 2>;

/// Which physical chips each group of a plan occupies (#loom.placement in
/// the IR). A zero block means "the default rule"
/// (DeviceMesh::build resolves it).
struct Placement {
  /// The stage block: rows x cols of chips (rows along axis 0).
  ChipCoord block = {0, 0};
  /// The group whose ranks form a sub-block of neighbours; the other one
  /// strides across the sub-blocks.
  bool sequenceInner = false;
  /// The inner group's sub-block.
  ChipCoord inner = {0, 0};
  /// Blocks in order: a replica's stages contiguous (false), or a stage's
  /// replicas contiguous (true).
  bool replicasInner = false;
  /// A replica's stage blocks walk a closed cycle of neighbouring blocks
  /// (`stages in ring`; never with replicasInner): every handover,
  /// including the last stage's back to the first (virtual stages), is one
  /// block apart.
  bool stagesRing = false;
  /// The group beside tp is the expert-parallel one ("ep"), not sp
  /// (MeshShape::expertGroup).
  bool expertGroup = false;
  /// The tensor-parallel ranks are numbered down each column of their
  /// sub-block in turn (`tp AxB by columns`), not along a ring of
  /// neighbours: the order in which JAX's `mesh_utils.create_device_mesh`
  /// lays a v5e slice's chips on one mesh axis when it has no ring order
  /// for the slice (the generic torus assignment, y fastest: every v5e
  /// slice before JAX 0.4.30, v5e-8 before 0.4.32). Collectives then pass
  /// their chunks over routed, shared links (CostModel::groupRoutes).
  bool byColumns = false;

  bool isDefault() const { return block[0] == 0; }
  /// "4x4, tp 1x4 inside sp, stages inside replicas" (or "..., stages in
  /// ring"; "ep" for sp when expertGroup; "tp 1x4 by columns inside sp"
  /// when byColumns): what #loom.placement prints
  /// between its brackets and --placement takes.
  std::string str() const;
  bool operator==(const Placement &other) const {
    return block == other.block && sequenceInner == other.sequenceInner &&
           inner == other.inner && replicasInner == other.replicasInner &&
           stagesRing == other.stagesRing && expertGroup == other.expertGroup &&
           byColumns == other.byColumns;
  }
};

/// How a layout spreads over the slices of a topology (MaxText's
/// dcn_data_parallelism and dcn_pipeline_parallelism): replicas of
/// `chipsPerReplica` chips each within one slice (data parallelism over the
/// DCN, `slices` ways), or each spanning `pipeline` slices, an equal run of
/// its stages on each (slices / pipeline replicas over the DCN). One slice:
/// 1 and 1.
struct DcnDegrees {
  int64_t dataParallel = 1, pipeline = 1;
};
inline DcnDegrees dcnDegrees(int64_t chipsPerReplica, int64_t sliceChips,
                             int64_t slices) {
  if (slices <= 1 || sliceChips <= 0)
    return {};
  int64_t pipeline = std::max<int64_t>(1, chipsPerReplica / sliceChips);
  return {std::max<int64_t>(1, slices / pipeline), pipeline};
}

/// Parses Placement::str()'s form; the error names the expected form.
llvm::Expected<Placement> parsePlacement(llvm::StringRef text);

class DeviceMesh {
public:
  /// Lays `shape` out on `topology` (2-D) as `placement` says (the default
  /// rule when it is default). Fails, naming the numbers and the valid
  /// choices, when the degrees do not multiply to the topology's chips or
  /// the placement does not tile the topology.
  static llvm::Expected<DeviceMesh> build(const TargetDesc &target,
                                          const TopologyDesc &topology,
                                          MeshShape shape,
                                          const Placement &placement = {});

  /// Every placement of `shape` on `topology` that tiles, in a fixed order
  /// (blocks by rows, inner tp before sp, sub-blocks by rows), stages
  /// inside replicas.
  static std::vector<Placement> placements(const TopologyDesc &topology,
                                           MeshShape shape);

  /// Offsets of a rows x cols block in the order its group's ranks walk
  /// it: consecutive offsets are neighbours, closing a cycle when possible
  /// (down column 0, then a snake through the other columns back to row 0;
  /// an odd row count with even columns walks the transpose). A 1 x n block
  /// is a line.
  static llvm::SmallVector<ChipCoord> ringWalk(int64_t rows, int64_t cols);

  /// The sub-grid of stage blocks (rows x cols, in blocks) that each
  /// replica's stages walk as a closed cycle under `stages in ring`, the
  /// one whose cycle crosses the fewest chip hops (then the fewest rows);
  /// none when no sub-grid of `stages` blocks tiles the block grid and
  /// closes (a grid of an odd count above 2, a line that does not wrap).
  static std::optional<ChipCoord> stageRingGrid(const TargetDesc &target,
                                                const TopologyDesc &topology,
                                                ChipCoord block,
                                                int64_t stages);

  const MeshShape &getShape() const { return shape; }
  llvm::ArrayRef<int64_t> getTopologyShape() const { return topologyShape; }
  /// The placement, resolved (never default).
  const Placement &getPlacement() const { return placement; }

  /// Chip hops from each stage's rank-0 chip to the next stage's (the last
  /// to the first), in replica 0 (within a slice).
  int64_t stageHops(int64_t stage) const;

  /// The chip of a (replica, stage, rank), rank = u * tp + t. Within a
  /// group, consecutive ranks are neighbours when the group's stride is 1.
  /// On several slices, slice k's chips are rows k * X to (k + 1) * X - 1
  /// of a stack of the slices (X rows each): the coordinate within the
  /// slice is {row mod X, column}.
  ChipCoord chip(int64_t replica, int64_t stage, int64_t rank) const;

  /// Chip id in row-major order of the topology (slice-major on several
  /// slices: the stack's row-major order).
  int64_t chipId(ChipCoord coord) const {
    return coord[0] * topologyShape[1] + coord[1];
  }

  /// The slices of the topology; the slice a (replica, stage) is on.
  int64_t numSlices() const { return slices; }
  int64_t sliceOf(int64_t replica, int64_t stage) const;
  /// The slice of a chip coordinate, and the coordinate within its slice.
  int64_t sliceOf(ChipCoord coord) const {
    return coord[0] / topologyShape[0];
  }
  ChipCoord inSlice(ChipCoord coord) const {
    return {coord[0] % topologyShape[0], coord[1]};
  }
  /// One slice's part of the shape: its replicas and, when a replica spans
  /// slices, the stages on each (the whole shape on one slice).
  const MeshShape &getSliceShape() const { return sliceShape; }

  /// The torus axes a tensor-parallel group spans, for the cost model (a
  /// 4x4 group on a 16x16 topology: two 4-chip axes, no wrap); a strided
  /// (outer) group's axes carry its stride.
  llvm::ArrayRef<GroupAxis> tensorParallelAxes() const { return tensorAxes; }
  /// The same for a sequence-parallel group.
  llvm::ArrayRef<GroupAxis> sequenceParallelAxes() const {
    return sequenceAxes;
  }

  /// Whether the tensor-parallel group's ranks close a ring of neighbours.
  bool tensorParallelIsRing() const { return tensorRing; }

  /// The tensor-parallel group's rows and columns: its sub-block, or, when
  /// sp is inside, the grid of sp sub-blocks it strides across.
  std::array<int64_t, 2> tensorParallelBlock() const;
  /// The stage ranks of a 2-D group's sub-ring through `rank` along block
  /// `axis` (0: the chips of its column, one per row; 1: those of its row),
  /// in order along the axis, so that consecutive ones are neighbours (when
  /// the tp group is inside).
  llvm::SmallVector<int64_t> tensorParallelSubGroup(int64_t rank,
                                                    unsigned axis) const;

private:
  DeviceMesh() = default;
  /// build() on a topology of several slices: one slice's mesh, its
  /// replicas (or runs of stages) repeated on each slice.
  static llvm::Expected<DeviceMesh> buildSlices(const TargetDesc &target,
                                                const TopologyDesc &topology,
                                                MeshShape shape,
                                                const Placement &requested);

  MeshShape shape, sliceShape;
  int64_t slices = 1;
  Placement placement;
  llvm::SmallVector<int64_t, 2> topologyShape;
  /// Blocks in snake order: their top-left chip.
  llvm::SmallVector<ChipCoord> blockOrigins;
  /// Offsets of the inner group's ranks within its sub-block, in ring order,
  /// and of the sub-blocks within the block (in sub-block units).
  llvm::SmallVector<ChipCoord> innerOrder, outerOrder;
  llvm::SmallVector<GroupAxis, 2> tensorAxes, sequenceAxes;
  bool tensorRing = false;
  std::array<bool, 2> axisWraps = {false, false};
};

} // namespace loom

#endif // LOOM_HARDWARE_DEVICEMESH_H
