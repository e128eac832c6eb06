//===- CostModel.cpp - time of compute and communication on a target -----===//
//
// The formulas and their sources are in CostModel.h.
//
//===----------------------------------------------------------------------===//

#include "loom/Target/CostModel.h"

#include <algorithm>
#include <cassert>
#include <cstdlib>

using namespace loom;

double CostModel::computeTime(double flops, double bytes,
                              unsigned elementBits) const {
  double compute = flops / (target.peakFor(elementBits) * target.flopEfficiency);
  double memory = bytes / (target.hbmBandwidth * target.hbmEfficiency);
  return std::max(compute, memory);
}

double CostModel::matmulTime(int64_t m, int64_t k, int64_t n,
                             int64_t bytesPerElement) const {
  double flops = 2.0 * m * padToMXU(k) * padToMXU(n);
  double bytes = double(bytesPerElement) * (m * k + k * n + m * n);
  return computeTime(flops, bytes, 8 * bytesPerElement);
}

int64_t CostModel::hops(llvm::ArrayRef<int64_t> slice,
                        llvm::ArrayRef<int64_t> from,
                        llvm::ArrayRef<int64_t> to) const {
  assert(slice.size() == from.size() && slice.size() == to.size());
  // Dimension-order routing takes the shortest way along each axis in turn,
  // so the hop count is the sum of the per-axis distances.
  int64_t total = 0;
  for (size_t axis = 0; axis < slice.size(); ++axis) {
    int64_t d = std::llabs(from[axis] - to[axis]);
    if (target.axisWraps(slice, axis))
      d = std::min(d, slice[axis] - d);
    total += d;
  }
  return total;
}

double CostModel::pointToPointTime(llvm::ArrayRef<int64_t> slice,
                                   llvm::ArrayRef<int64_t> from,
                                   llvm::ArrayRef<int64_t> to,
                                   double bytes) const {
  int64_t n = hops(slice, from, to);
  if (n == 0)
    return 0; // same chip: no link is used
  return n * target.hopLatency + bytes / target.linkBandwidth;
}

double CostModel::collectiveTime(CollectiveKind kind,
                                 llvm::ArrayRef<GroupAxis> axes,
                                 double bytes) const {
  int64_t members = 1, steps = 0;
  double bandwidth = 0;
  for (const GroupAxis &axis : axes) {
    if (axis.size <= 1)
      continue;
    members *= axis.size;
    steps += axis.wraps ? axis.size / 2 : axis.size - 1;
    bandwidth += (axis.wraps ? 2 : 1) * target.linkBandwidth;
  }
  if (members == 1)
    return 0;
  double latency = steps * target.hopLatency;
  switch (kind) {
  case CollectiveKind::AllGather:
  case CollectiveKind::ReduceScatter:
    return latency + (members - 1.0) / members * bytes / bandwidth;
  case CollectiveKind::AllReduce:
    return 2 * collectiveTime(CollectiveKind::AllGather, axes, bytes);
  case CollectiveKind::AllToAll: {
    // Bisection bound per axis, axes in parallel: the slowest axis.
    double slowest = 0;
    for (const GroupAxis &axis : axes) {
      if (axis.size <= 1)
        continue;
      double divisor = axis.wraps ? 8.0 : 4.0;
      slowest = std::max(slowest, bytes * axis.size /
                                      (divisor * target.linkBandwidth));
    }
    return latency + slowest;
  }
  }
  return latency;
}
