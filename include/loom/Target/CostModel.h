//===- CostModel.h - time of compute and communication on a target -*- C++ -*-===//
//
// The one cost model, used by the planner passes and by the simulator so the
// two agree. Formulas and their sources:
//
// - Compute: the roofline, max(FLOPs / (peak * efficiency), bytes /
//   (HBM bandwidth * efficiency)) (Williams et al., "Roofline", CACM 2009),
//   with MXU padding: a matmul dimension that is not a multiple of the MXU
//   edge (128 on v5e) costs as if padded to one.
// - Point to point: dimension-order routing on the torus (x first, then y);
//   an axis's distance is min(d, n - d) when the axis wraps, d otherwise;
//   time = hops * hop latency + bytes / link bandwidth.
// - Collectives over a group spanning one or more torus axes (JAX team,
//   "How to Scale Your Model", part 3 "Sharded Matrices", 2025): per axis a
//   bidirectional ring when it wraps (2 links' bandwidth) or a line when it
//   does not (1 link's); the axes run in parallel, so their bandwidths add.
//   With V the bytes of the whole gathered array and N the group size:
//     AllGather = ReduceScatter: steps * latency + (N-1)/N * V / W_group
//     AllReduce = ReduceScatter + AllGather
//     AllToAll (V = bytes each chip holds): a bisection bound,
//       steps * latency + V * n / (8 W) on a wrapped axis of n chips,
//       V * n / (4 W) on a line.
//   steps is the ring's step count: floor(n/2) on a bidirectional ring,
//   n - 1 on a line, summed over axes. For small messages the latency term
//   dominates (below ~45 kB per step on v5e), as the book observes.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_TARGET_COSTMODEL_H
#define LOOM_TARGET_COSTMODEL_H

#include "loom/Target/TargetDesc.h"

namespace loom {

enum class CollectiveKind { AllGather, ReduceScatter, AllReduce, AllToAll };

/// One torus axis a group spans: how many of its chips are in the group and
/// whether those chips close a ring through a wraparound link.
struct GroupAxis {
  int64_t size;
  bool wraps;
};

class CostModel {
public:
  explicit CostModel(const TargetDesc &target) : target(target) {}

  const TargetDesc &getTarget() const { return target; }

  /// `dim` rounded up to a multiple of the MXU edge.
  int64_t padToMXU(int64_t dim) const {
    int64_t tile = target.mxuTile;
    return (dim + tile - 1) / tile * tile;
  }

  /// Roofline time of work of `flops` moving `bytes` through HBM, at the
  /// peak of `elementBits`-wide operands.
  double computeTime(double flops, double bytes,
                     unsigned elementBits = 16) const;

  /// Roofline time of an m x k x n matmul (2 FLOPs per multiply-add, k and
  /// n padded to the MXU), reading both operands and writing the result.
  double matmulTime(int64_t m, int64_t k, int64_t n,
                    int64_t bytesPerElement = 2) const;

  /// Links crossed from `from` to `to` on `slice` (dimension-order routing).
  int64_t hops(llvm::ArrayRef<int64_t> slice, llvm::ArrayRef<int64_t> from,
               llvm::ArrayRef<int64_t> to) const;

  /// Time to send `bytes` from `from` to `to`.
  double pointToPointTime(llvm::ArrayRef<int64_t> slice,
                          llvm::ArrayRef<int64_t> from,
                          llvm::ArrayRef<int64_t> to, double bytes) const;

  /// Time of a collective over a group spanning `axes`, for `bytes` as
  /// described above (the whole gathered array; per-chip for AllToAll).
  double collectiveTime(CollectiveKind kind, llvm::ArrayRef<GroupAxis> axes,
                        double bytes) const;

private:
  const TargetDesc &target;
};

} // namespace loom

#endif // LOOM_TARGET_COSTMODEL_H
