//===- CostModel.cpp - time of compute and communication on a target -----===//
//
// The formulas and their sources are in CostModel.h.
//
//===----------------------------------------------------------------------===//

#include "loom/Hardware/CostModel.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <map>
#include <tuple>

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

void CostModel::route(
    llvm::ArrayRef<int64_t> topology, llvm::ArrayRef<int64_t> from,
    llvm::ArrayRef<int64_t> to,
    llvm::function_ref<void(llvm::ArrayRef<int64_t>, unsigned, int)> link)
    const {
  assert(topology.size() == from.size() && topology.size() == to.size());
  llvm::SmallVector<int64_t, 3> at(from);
  for (unsigned axis = 0; axis < topology.size(); ++axis) {
    int64_t n = topology[axis];
    int64_t forward = ((to[axis] - at[axis]) % n + n) % n;
    if (forward == 0)
      continue;
    int dir = 1;
    int64_t steps = forward;
    if (target.axisWraps(topology, axis)) {
      int64_t backward = n - forward;
      if (backward < forward || (backward == forward && at[axis] % 2 == 1)) {
        dir = -1;
        steps = backward;
      }
    } else if (to[axis] < at[axis]) {
      dir = -1;
      steps = at[axis] - to[axis];
    }
    for (int64_t s = 0; s < steps; ++s) {
      link(at, axis, dir);
      at[axis] = ((at[axis] + dir) % n + n) % n;
    }
  }
}

bool CostModel::runsAsRing(
    llvm::ArrayRef<int64_t> topology,
    llvm::ArrayRef<llvm::SmallVector<int64_t, 3>> group) const {
  int64_t n = group.size();
  if (n <= 2)
    return false;
  bool neighbours = true;
  for (int64_t i = 0; i < n; ++i)
    neighbours &= hops(topology, group[i], group[(i + 1) % n]) == 1;
  if (neighbours)
    return true;
  // The block the members span, and whether they fill it.
  llvm::SmallVector<GroupAxis, 3> axes;
  int64_t area = 1;
  for (unsigned axis = 0; axis < topology.size(); ++axis) {
    int64_t lo = group[0][axis], hi = lo;
    for (const auto &member : group) {
      lo = std::min(lo, member[axis]);
      hi = std::max(hi, member[axis]);
    }
    int64_t span = hi - lo + 1;
    area *= span;
    axes.push_back({span, span == topology[axis] &&
                              target.axisWraps(topology, axis)});
  }
  if (area != n || !isRing(axes))
    return false;
  llvm::SmallVector<llvm::SmallVector<int64_t, 3>> sorted(group);
  llvm::sort(sorted);
  return std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end();
}

/// The largest figure of either direction's members.
static int64_t most(const std::array<llvm::SmallVector<int64_t, 8>, 2> &ways) {
  int64_t most = 0;
  for (const auto &way : ways)
    for (int64_t figure : way)
      most = std::max(most, figure);
  return most;
}

int64_t GroupRoutes::maxShare() const { return most(share); }
int64_t GroupRoutes::maxReach() const { return most(hops); }

GroupRoutes CostModel::groupRoutes(
    llvm::ArrayRef<int64_t> topology,
    llvm::ArrayRef<llvm::SmallVector<int64_t, 3>> group) const {
  GroupRoutes routes;
  int64_t n = group.size();
  routes.ring = runsAsRing(topology, group);
  for (unsigned way = 0; way < 2; ++way) {
    routes.hops[way].assign(n, 0);
    routes.share[way].assign(n, 0);
  }
  // Which members send each way: all round a ring; on a line not the end
  // member that has no neighbour that way.
  auto sends = [&](int64_t member, unsigned way) {
    return routes.ring || (way == 0 ? member + 1 < n : member > 0);
  };
  auto peer = [&](int64_t member, unsigned way) {
    return way == 0 ? (member + 1) % n : (member + n - 1) % n;
  };
  using LinkKey = std::tuple<llvm::SmallVector<int64_t, 3>, unsigned, int>;
  std::map<LinkKey, int64_t> load;
  std::map<LinkKey, llvm::SmallVector<int64_t, 2>> senders;
  std::array<std::vector<std::vector<LinkKey>>, 2> paths;
  for (unsigned way = 0; way < 2; ++way) {
    paths[way].resize(n);
    for (int64_t m = 0; m < n; ++m) {
      if (n < 2 || !sends(m, way))
        continue;
      route(topology, group[m], group[peer(m, way)],
            [&](llvm::ArrayRef<int64_t> at, unsigned axis, int dir) {
              LinkKey key{llvm::SmallVector<int64_t, 3>(at), axis, dir};
              ++load[key];
              senders[key].push_back(m);
              paths[way][m].push_back(key);
            });
    }
  }
  routes.paired.assign(n, false);
  for (int64_t m = 0; m < n; ++m) {
    bool shared = false, alone = true;
    for (unsigned way = 0; way < 2; ++way)
      for (const LinkKey &key : paths[way][m])
        if (load[key] > 1) {
          shared = true;
          alone &= load[key] == 2 && senders[key][0] == m &&
                   senders[key][1] == m;
        }
    routes.paired[m] = shared && alone;
  }
  for (unsigned way = 0; way < 2; ++way)
    for (int64_t m = 0; m < n; ++m) {
      routes.hops[way][m] = paths[way][m].size();
      for (const LinkKey &key : paths[way][m])
        routes.share[way][m] = std::max(routes.share[way][m], load[key]);
    }
  return routes;
}

double CostModel::routedCollectiveTime(CollectiveKind kind,
                                       const GroupRoutes &routes,
                                       double bytes) const {
  int64_t n = routes.hops[0].size();
  int64_t steps = kind == CollectiveKind::AllReduce ? 2 * (n - 1) : n - 1;
  double chunk = routes.ring ? bytes / (2.0 * n) : bytes / n;
  double w = linkEfficiency(routes.ring) * target.linkBandwidth;
  double sync = target.calibration.collectiveSync, done = sync;
  double tau = chunk / w;
  if (!routes.ring) {
    // A line runs step by step: each step as long as its slowest message
    // (at the share of its busiest link).
    double slowest = 0;
    for (unsigned way = 0; way < 2; ++way)
      for (int64_t m = 0; m < n; ++m)
        if (routes.share[way][m] > 0)
          slowest = std::max(slowest,
                             tau * routes.share[way][m] +
                                 routes.hops[way][m] * target.hopLatency);
    return sync + steps * slowest;
  }
  // A ring: loom-sim's chains, member by member. A member sends step k + 1
  // one way once its step-k message has left and the message it passes on
  // has arrived from the member behind it (its route's hops later), all
  // after the collective's synchronisation. A message leaves tau after it
  // starts on links of its own; a member's two messages on a link they
  // alone share split it while both are on it (each at the full link
  // alone: processor sharing); any other shared link is taken at its
  // share throughout.
  std::array<llvm::SmallVector<double, 16>, 2> start, left;
  for (unsigned way = 0; way < 2; ++way) {
    start[way].assign(n, sync);
    left[way].assign(n, 0);
  }
  auto behind = [&](unsigned way, int64_t m) {
    return way == 0 ? (m + n - 1) % n : (m + 1) % n;
  };
  for (int64_t k = 0; k < steps; ++k) {
    for (int64_t m = 0; m < n; ++m) {
      for (unsigned way = 0; way < 2; ++way)
        left[way][m] = start[way][m] + tau * routes.share[way][m];
      // Two messages started `gap` apart on a link of their own: the first
      // runs alone for the gap, then both at half the link; the second
      // finishes alone what is left of it.
      double gap = std::fabs(start[0][m] - start[1][m]);
      if (routes.paired[m] && gap < tau) {
        unsigned first = start[0][m] <= start[1][m] ? 0 : 1;
        double later = std::max(start[0][m], start[1][m]);
        left[first][m] = later + 2 * (tau - gap);
        left[1 - first][m] = later + 2 * tau - gap;
      } else if (routes.paired[m]) {
        for (unsigned way = 0; way < 2; ++way)
          left[way][m] = start[way][m] + tau;
      }
    }
    auto arrived = [&](unsigned way, int64_t m) {
      return left[way][m] + routes.hops[way][m] * target.hopLatency;
    };
    for (unsigned way = 0; way < 2; ++way)
      for (int64_t m = 0; m < n; ++m) {
        if (k + 1 == steps)
          done = std::max(done, arrived(way, m));
        else
          start[way][m] = std::max(left[way][m], arrived(way, behind(way, m)));
      }
  }
  return done;
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
  // A group numbered out of walk order: its messages' own routes.
  if (kind != CollectiveKind::AllToAll)
    for (const GroupAxis &axis : axes)
      if (axis.routes)
        return routedCollectiveTime(kind, *axis.routes, bytes);
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

double CostModel::dcnCollectiveTime(CollectiveKind kind, int64_t slices,
                                    double bytes, int64_t sharers) const {
  if (slices <= 1)
    return 0;
  if (!target.missingDcnFigure().empty())
    return std::numeric_limits<double>::infinity();
  double s = slices, sync = target.calibration.collectiveSync;
  // Each step a chip sends bytes / S through its host's NIC (both halves
  // of a ring's chunk leave through it), shared by the host's `sharers`.
  double step = target.dcnLatency +
                std::max<int64_t>(sharers, 1) * bytes / (s * target.dcnBandwidth);
  switch (kind) {
  case CollectiveKind::AllGather:
  case CollectiveKind::ReduceScatter:
    return sync + (s - 1) * step;
  case CollectiveKind::AllReduce:
    return sync + 2 * (s - 1) * step;
  case CollectiveKind::AllToAll:
    return sync + target.dcnLatency +
           std::max<int64_t>(sharers, 1) * (s - 1) * bytes /
               (s * target.dcnBandwidth);
  }
  return 0;
}

double CostModel::multisliceCollectiveTime(CollectiveKind kind,
                                           llvm::ArrayRef<GroupAxis> axes,
                                           const TopologyDesc &topology,
                                           double bytes) const {
  if (topology.slices <= 1)
    return collectiveTime(kind, axes, bytes);
  if (kind == CollectiveKind::AllToAll || !target.missingDcnFigure().empty())
    return std::numeric_limits<double>::infinity();
  int64_t n = 1;
  for (const GroupAxis &axis : axes)
    n *= std::max<int64_t>(axis.size, 1);
  // Every chip of a host runs its shard's DCN phase at once.
  int64_t sharers = std::min(target.chipsPerHost, topology.sliceChips());
  double seconds = 0;
  for (const SlicePhase &phase : multislicePhases(kind))
    seconds += phase.overDcn ? dcnCollectiveTime(phase.kind, topology.slices,
                                                 bytes / n, sharers)
                             : collectiveTime(phase.kind, axes, bytes);
  return seconds;
}
