//===- DeviceMesh.h - logical groups on the chips of a topology ----*- C++ -*-===//
//
// Maps data-parallel replicas, pipeline stages and tensor-parallel ranks
// onto the chips of a 2-D torus topology:
// - each tensor-parallel group is a block of neighbouring chips that forms
//   a ring: a whole wrapping axis when the group is that big, otherwise a
//   block with both sides >= 2 and an even chip count (it has a Hamiltonian
//   cycle), otherwise a straight line;
// - the blocks are visited in a snake (boustrophedon) order over the block
//   grid, so consecutive pipeline stages sit in adjacent blocks, and each
//   data-parallel replica takes a run of `stages` blocks.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_HARDWARE_DEVICEMESH_H
#define LOOM_HARDWARE_DEVICEMESH_H

#include "loom/Hardware/CostModel.h"
#include "loom/Hardware/TargetDesc.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <array>

namespace loom {

/// Degrees of parallelism; their product is the number of chips used.
struct MeshShape {
  int64_t dataParallel = 1;
  int64_t stages = 1;
  int64_t tensorParallel = 1;
  /// Rows of the tensor-parallel block when the plan fixes them (a 2-D
  /// tensor-parallel group's tp_x); 0: chosen by build().
  int64_t tensorRows = 0;
};

using ChipCoord = std::array<int64_t, 2>;

class DeviceMesh {
public:
  /// Lays `shape` out on `topology` (2-D). Fails, naming the numbers, when the
  /// degrees do not multiply to the topology's chips or the tensor-parallel
  /// degree does not tile the topology.
  static llvm::Expected<DeviceMesh> build(const TargetDesc &target,
                                          const TopologyDesc &topology,
                                          MeshShape shape);

  const MeshShape &getShape() const { return shape; }
  llvm::ArrayRef<int64_t> getTopologyShape() const { return topologyShape; }

  /// The chip of a (replica, stage, tensor-parallel rank); rank order walks
  /// the group's ring, so ranks r and r+1 are neighbours.
  ChipCoord chip(int64_t replica, int64_t stage, int64_t rank) const;

  /// Chip id in row-major order of the topology.
  int64_t chipId(ChipCoord coord) const {
    return coord[0] * topologyShape[1] + coord[1];
  }

  /// The block a tensor-parallel group occupies, as torus axes for the cost
  /// model (a 4x4 group on a 16x16 topology: two 4-chip axes, no wrap).
  llvm::ArrayRef<GroupAxis> tensorParallelAxes() const { return groupAxes; }

  /// Whether the group's ranks close a ring of neighbours.
  bool tensorParallelIsRing() const { return groupIsRing; }

  /// The tensor-parallel block's rows and columns.
  std::array<int64_t, 2> tensorParallelBlock() const { return block; }
  /// The ranks of a 2-D group's sub-ring through `rank` along block `axis`
  /// (0: the chips of its column, one per row; 1: those of its row), in
  /// order along the axis, so that consecutive ones are neighbours.
  llvm::SmallVector<int64_t> tensorParallelSubGroup(int64_t rank,
                                                    unsigned axis) const;

private:
  DeviceMesh() = default;

  MeshShape shape;
  llvm::SmallVector<int64_t, 2> topologyShape;
  /// Block extent along each axis.
  std::array<int64_t, 2> block = {1, 1};
  /// Blocks in snake order: their top-left chip.
  llvm::SmallVector<ChipCoord> blockOrigins;
  /// Offsets within a block in ring order.
  llvm::SmallVector<ChipCoord> ringOrder;
  llvm::SmallVector<GroupAxis, 2> groupAxes;
  bool groupIsRing = false;
};

} // namespace loom

#endif // LOOM_HARDWARE_DEVICEMESH_H
