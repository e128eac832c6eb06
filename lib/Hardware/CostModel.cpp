//===- CostModel.cpp - time of compute and communication on a target -----===//
//
// The formulas and their sources are in CostModel.h.
//
//===----------------------------------------------------------------------===//

#include "loom/Hardware/CostModel.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>

using namespace loom;

double CostModel::computeTime(double flops, double bytes,
                              unsigned elementBits, double vectorOps) const {
  double compute = flops / (target.peakFor(elementBits) * target.flopEfficiency);
  double memory = bytes / (target.hbmBandwidth * target.hbmEfficiency);
  // The VPU issues beside the MXU and the DMAs (a VLIW bundle), so its time
  // overlaps theirs; no efficiency is applied to a derived peak.
  double vector = vectorOps > 0 ? vectorOps / vectorRate() : 0;
  return std::max({compute, memory, vector});
}

double CostModel::matmulTime(int64_t m, int64_t k, int64_t n,
                             int64_t bytesPerElement) const {
  int64_t rows = (m + kSublanes - 1) / kSublanes * kSublanes;
  double flops = 2.0 * rows * padToMXU(k) * padToMXU(n);
  double bytes = double(bytesPerElement) * (m * k + k * n + m * n);
  return taskTime(flops, bytes, 8 * bytesPerElement);
}

int64_t CostModel::hops(llvm::ArrayRef<int64_t> topology,
                        llvm::ArrayRef<int64_t> from,
                        llvm::ArrayRef<int64_t> to) const {
  assert(topology.size() == from.size() && topology.size() == to.size());
  // Dimension-order routing takes the shortest way along each axis in turn,
  // so the hop count is the sum of the per-axis distances.
  int64_t total = 0;
  for (size_t axis = 0; axis < topology.size(); ++axis) {
    int64_t d = std::llabs(from[axis] - to[axis]);
    if (target.axisWraps(topology, axis))
      d = std::min(d, topology[axis] - d);
    total += d;
  }
  return total;
}

double CostModel::pointToPointTime(llvm::ArrayRef<int64_t> topology,
                                   llvm::ArrayRef<int64_t> from,
                                   llvm::ArrayRef<int64_t> to,
                                   double bytes) const {
  int64_t n = hops(topology, from, to);
  if (n == 0)
    return 0; // same chip: no link is used
  return n * target.hopLatency +
         bytes / (linkEfficiency(/*ring=*/false) * target.linkBandwidth);
}

bool CostModel::isRing(llvm::ArrayRef<GroupAxis> axes) {
  int64_t members = 1, spanned = 0;
  bool wraps = false;
  for (const GroupAxis &axis : axes) {
    if (axis.size <= 1)
      continue;
    // Members `stride` chips apart are no neighbours.
    if (axis.stride > 1)
      return false;
    members *= axis.size;
    ++spanned;
    wraps = axis.wraps;
  }
  // One wrapping axis closes through its wraparound link; a block of two or
  // more axes with an even chip count has a Hamiltonian cycle of neighbours
  // (the DeviceMesh orders ranks along it).
  return (spanned == 1 && wraps) || (spanned >= 2 && members % 2 == 0);
}

double CostModel::weightGatherTime(llvm::ArrayRef<GroupAxis> axes,
                                   double bytes) const {
  if (bytes <= 0)
    return 0;
  return collectiveTime(CollectiveKind::AllGather, axes, bytes);
}

double CostModel::collectiveTime(CollectiveKind kind,
                                 llvm::ArrayRef<GroupAxis> axes,
                                 double bytes) const {
  int64_t n = 1;
  for (const GroupAxis &axis : axes)
    n *= std::max<int64_t>(axis.size, 1);
  if (n == 1)
    return 0;
  bool ring = isRing(axes);
  // A strided group's steps cross `stride` hops, its links shared by the
  // `stride` groups interleaved with it (GroupAxis).
  int64_t stride = 1;
  for (const GroupAxis &axis : axes)
    if (axis.size > 1)
      stride = std::max(stride, axis.stride);
  double w = linkEfficiency(ring) * target.linkBandwidth / stride;
  double alpha = target.hopLatency * stride;
  // The collective's start/done synchronisation, once (calibration).
  double sync = target.calibration.collectiveSync;
  switch (kind) {
  case CollectiveKind::AllGather:
  case CollectiveKind::ReduceScatter:
    // n - 1 steps; a ring sends half of each step's chunk each way, so every
    // chip takes in data over two links; a line's end chips have one.
    return sync + (n - 1) * alpha + (n - 1.0) / n * bytes / ((ring ? 2 : 1) * w);
  case CollectiveKind::AllReduce:
    // ReduceScatter then AllGather, as one collective: one synchronisation.
    return 2 * collectiveTime(CollectiveKind::AllGather, axes, bytes) - sync;
  case CollectiveKind::AllToAll: {
    // Every chip sends bytes/n straight to every other, by dimension-order
    // routing, so each axis's links carry their own share: the n/k lines of
    // an axis of k chips each carry n/k chunks per (from, to) pair of the
    // axis, and the busiest link of one carries k^2/8 (wrapping, ties split
    // both ways) or k^2/4 (line, the middle link) pairs: bytes k/8 or
    // bytes k/4 over the link. The axes' links work at once, so the busiest
    // axis sets the time (on one axis, n = k: bytes n/8 or n/4). The
    // farthest chunk crosses k/2 or k-1 links of each axis.
    double busiest = 0;
    int64_t farthest = 0;
    for (const GroupAxis &axis : axes) {
      if (axis.size <= 1)
        continue;
      // (Interleaved groups load the axis's links `stride` times.)
      busiest = std::max(busiest, axis.size / (axis.wraps ? 8.0 : 4.0) *
                                      axis.stride);
      farthest += (axis.wraps ? axis.size / 2 : axis.size - 1) * axis.stride;
    }
    return sync + farthest * target.hopLatency +
           bytes * busiest / (linkEfficiency(ring) * target.linkBandwidth);
  }
  }
  return 0;
}
