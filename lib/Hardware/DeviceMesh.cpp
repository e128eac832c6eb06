//===- DeviceMesh.cpp - logical groups on the chips of a topology ------------===//

#include "loom/Hardware/DeviceMesh.h"

#include "llvm/Support/FormatVariadic.h"

using namespace loom;

namespace {

/// A candidate block shape for a tensor-parallel group and how good it is.
struct BlockChoice {
  int64_t rows, cols;
  bool ring;
  bool usesWrap;
};

/// Offsets of an r x c block in an order where consecutive offsets are
/// neighbours, closing a cycle when possible: down column 0, then snake
/// through the remaining columns row by row back up to row 0.
llvm::SmallVector<ChipCoord> ringWalk(int64_t rows, int64_t cols) {
  llvm::SmallVector<ChipCoord> order;
  if (rows == 1 || cols == 1) {
    for (int64_t i = 0; i < rows * cols; ++i)
      order.push_back(rows == 1 ? ChipCoord{0, i} : ChipCoord{i, 0});
    return order;
  }
  // With an even row count this is a Hamiltonian cycle: it ends on row 0,
  // next to the start. With an odd row count but even columns, walk the
  // transpose.
  bool transpose = rows % 2 != 0 && cols % 2 == 0;
  int64_t r = transpose ? cols : rows, c = transpose ? rows : cols;
  auto emit = [&](int64_t i, int64_t j) {
    order.push_back(transpose ? ChipCoord{j, i} : ChipCoord{i, j});
  };
  for (int64_t i = 0; i < r; ++i)
    emit(i, 0);
  for (int64_t i = r - 1; i >= 0; --i) {
    bool rightward = (r - 1 - i) % 2 == 0;
    for (int64_t k = 1; k < c; ++k)
      emit(i, rightward ? k : c - k);
  }
  return order;
}

} // namespace

llvm::Expected<DeviceMesh> DeviceMesh::build(const TargetDesc &target,
                                             const TopologyDesc &topology,
                                             MeshShape shape) {
  auto fail = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  };
  if (topology.shape.size() != 2)
    return fail("device meshes are built on 2-D topologies; " + topology.name +
                " has " + llvm::Twine(topology.shape.size()) + " axes");
  if (shape.dataParallel < 1 || shape.stages < 1 || shape.tensorParallel < 1)
    return fail("parallel degrees must be positive");
  int64_t X = topology.shape[0], Y = topology.shape[1];
  int64_t used = shape.dataParallel * shape.stages * shape.tensorParallel;
  if (used != X * Y)
    return fail(llvm::formatv("data-parallel {0} x stages {1} x "
                              "tensor-parallel {2} = {3} chips, but topology {4} "
                              "({5}x{6}) has {7}",
                              shape.dataParallel, shape.stages,
                              shape.tensorParallel, used, topology.name, X, Y,
                              X * Y));

  // Choose the tensor-parallel block: it must tile the topology; prefer a
  // ring, then a ring through a wraparound link, then the squarest block
  // (fewest links on its boundary).
  int64_t tp = shape.tensorParallel;
  std::optional<BlockChoice> best;
  auto better = [](const BlockChoice &a, const BlockChoice &b) {
    if (a.ring != b.ring)
      return a.ring;
    if (a.usesWrap != b.usesWrap)
      return a.usesWrap;
    return a.rows + a.cols < b.rows + b.cols;
  };
  for (int64_t rows = 1; rows <= tp; ++rows) {
    if (tp % rows != 0)
      continue;
    int64_t cols = tp / rows;
    if (X % rows != 0 || Y % cols != 0)
      continue;
    if (shape.tensorRows > 0 && rows != shape.tensorRows)
      continue;
    bool wrapRow = cols == Y && target.axisWraps(topology.shape, 1) && rows == 1;
    bool wrapCol = rows == X && target.axisWraps(topology.shape, 0) && cols == 1;
    bool block2d = rows >= 2 && cols >= 2 && (rows * cols) % 2 == 0;
    BlockChoice choice{rows, cols, wrapRow || wrapCol || block2d || tp <= 2,
                       wrapRow || wrapCol};
    if (!best || better(choice, *best))
      best = choice;
  }
  if (!best && shape.tensorRows > 0)
    return fail(llvm::formatv("a {0} x {1} tensor-parallel block does not tile "
                              "topology {2} ({3}x{4})",
                              shape.tensorRows, tp / shape.tensorRows,
                              topology.name, X, Y));
  if (!best)
    return fail(llvm::formatv("tensor-parallel degree {0} does not tile topology "
                              "{1} ({2}x{3}) with rectangular blocks",
                              tp, topology.name, X, Y));

  DeviceMesh mesh;
  mesh.shape = shape;
  mesh.topologyShape.assign(topology.shape.begin(), topology.shape.end());
  mesh.block = {best->rows, best->cols};
  mesh.ringOrder = ringWalk(best->rows, best->cols);
  mesh.groupIsRing = best->ring;
  for (unsigned axis = 0; axis < 2; ++axis) {
    int64_t extent = axis == 0 ? best->rows : best->cols;
    if (extent > 1)
      mesh.groupAxes.push_back(
          {extent, extent == topology.shape[axis] && target.axisWraps(topology.shape, axis)});
  }

  // Blocks in a snake over the block grid: adjacent in the list means
  // adjacent on the torus.
  int64_t blockRows = X / best->rows, blockCols = Y / best->cols;
  for (int64_t i = 0; i < blockRows; ++i)
    for (int64_t k = 0; k < blockCols; ++k) {
      int64_t j = i % 2 == 0 ? k : blockCols - 1 - k;
      mesh.blockOrigins.push_back({i * best->rows, j * best->cols});
    }
  return mesh;
}

ChipCoord DeviceMesh::chip(int64_t replica, int64_t stage, int64_t rank) const {
  const ChipCoord &origin = blockOrigins[replica * shape.stages + stage];
  const ChipCoord &offset = ringOrder[rank];
  return {origin[0] + offset[0], origin[1] + offset[1]};
}

llvm::SmallVector<int64_t> DeviceMesh::tensorParallelSubGroup(int64_t rank,
                                                              unsigned axis) const {
  const ChipCoord &at = ringOrder[rank];
  llvm::SmallVector<int64_t> ranks(block[axis], -1);
  for (auto [r, offset] : llvm::enumerate(ringOrder))
    if (offset[1 - axis] == at[1 - axis])
      ranks[offset[axis]] = r;
  return ranks;
}
