//===- RingTiming.cpp - ring attention's links and closed forms -----------===//

#include "loom/Hardware/RingTiming.h"

#include "loom/Hardware/DeviceMesh.h"

#include "llvm/ADT/STLExtras.h"

#include <cmath>
#include <limits>
#include <vector>

using namespace loom;

llvm::SmallVector<RingLink> loom::ringLinks(const CostModel &model,
                                           llvm::ArrayRef<GroupAxis> spAxes,
                                           double bytes) {
  // The members' offsets on the grid of sp chips, in the order the
  // lowering walks them (DeviceMesh's ring walk of the same grid; the axes
  // are the grid's, axis 0 first, those of size 1 left out).
  GroupAxis none{1, false, 1};
  const GroupAxis &rows = spAxes.size() == 2 ? spAxes[0] : none;
  const GroupAxis &cols = spAxes.empty() ? none : spAxes.back();
  llvm::SmallVector<ChipCoord> walk =
      DeviceMesh::ringWalk(rows.size, cols.size);
  llvm::SmallVector<RingLink> links;
  if (walk.size() <= 1)
    return links;
  const TargetDesc &target = model.getTarget();
  double perByte =
      1.0 / (model.linkEfficiency(/*ring=*/false) * target.linkBandwidth);
  for (size_t k = 0; k < walk.size(); ++k) {
    const ChipCoord &from = walk[k], &to = walk[(k + 1) % walk.size()];
    // Each axis's steps cost `stride` hops (the shorter way round when the
    // axis wraps); the `stride` rings interleaved with this one share those
    // links. The last member's message back to the first crosses n - 1
    // steps on a line, over the links the others use the other way round.
    int64_t hops = 0, share = 1;
    for (auto [axis, d] : {std::pair{&rows, std::abs(to[0] - from[0])},
                           std::pair{&cols, std::abs(to[1] - from[1])}}) {
      if (d == 0)
        continue;
      if (axis->wraps)
        d = std::min(d, axis->size - d);
      hops += d * axis->stride;
      share = std::max(share, axis->stride);
    }
    links.push_back(
        {double(hops) * target.hopLatency, bytes * double(share) * perByte});
  }
  return links;
}

double loom::ringSeconds(double compute, llvm::ArrayRef<RingLink> links) {
  int64_t n = int64_t(links.size());
  if (n <= 1)
    return compute;
  // Block s (s >= 1) of a chip starts once block s - 1 is done and the K/V
  // block of the member s back has come over the s links between them (a
  // chip passes a block on as it arrives): the busiest chain of s
  // consecutive links, then the chip's n - s blocks.
  llvm::SmallVector<double> prefix(2 * n + 1, 0);
  double busiest = 0;
  for (int64_t i = 0; i < 2 * n; ++i)
    prefix[i + 1] = prefix[i] + links[i % n].seconds();
  // And every link carries n - 1 blocks one after another, each with its
  // latency (a chip sends its next block once its last has arrived, so a
  // lone ring on a line pays the way back's latency every step), then the
  // last block. In a plan the chips stagger over the layers, the ones
  // after a slow link starting later: ringSteadySeconds.
  for (const RingLink &link : links)
    busiest = std::max(busiest, double(n - 1) * link.seconds());
  double total = std::max(double(n) * compute, busiest + compute);
  for (int64_t s = 1; s < n; ++s) {
    double chain = 0;
    for (int64_t k = 0; k < n; ++k)
      chain = std::max(chain, prefix[k + s] - prefix[k]);
    total = std::max(total, chain + double(n - s) * compute);
  }
  return total;
}

double loom::ringSteadySeconds(double compute,
                               llvm::ArrayRef<RingLink> links) {
  int64_t n = int64_t(links.size());
  if (n <= 1)
    return compute;
  // Links all alike (a ring of neighbours: a wrapping axis, a block's
  // cycle): no chip falls behind another, and the largest cycle mean below
  // is the lone ring's, max(n c, (n - 1) l + c): every edge but the
  // self-loops (n c) weighs at least (n - 1) l + c, none more than the
  // larger of the two, and n edges of one link each close a cycle of
  // (n - 1) l + c. Karp's walks cost O(n^3), so that case is taken here.
  if (llvm::all_of(links, [&](const RingLink &link) {
        return link.seconds() == links.front().seconds();
      }))
    return ringSeconds(compute, links);
  // Layer after layer (the lowering runs the same ring every layer, with
  // the layer's other work W between two rings on every chip) a chip does
  // not wait for the others to start: members whose blocks come over a
  // slow link fall behind the ones that feed it, and the ring's cost per
  // layer is the steady state's period less W. Each bound is an edge from
  // one chip's ring start R_i to another's end E_j (E_j >= R_i + w, then
  // R_j of the next layer = E_j + W): block s of chip p comes from p - s
  // over s links (chain + (n - s) c), and link k's n - 1 - s messages
  // after block s reached chip k (the chain to k, then the messages one
  // after another, each with its latency, as the lowering sends the next
  // once the last has arrived; then the last block's compute). The period
  // is the max-plus system's largest cycle mean (Karp 1978), W on every
  // edge: the ring's is that of these weights, at most the largest edge
  // (ringSeconds, the ring alone: every chip starting at once).
  llvm::SmallVector<double> prefix(2 * n + 1, 0);
  for (int64_t i = 0; i < 2 * n; ++i)
    prefix[i + 1] = prefix[i] + links[i % n].seconds();
  auto chain = [&](int64_t from, int64_t s) {
    return prefix[from + s] - prefix[from];
  };
  const double none = -std::numeric_limits<double>::infinity();
  // weight[i][j]: the largest bound from chip i's start to chip j's end.
  std::vector<std::vector<double>> weight(n, std::vector<double>(n, none));
  for (int64_t p = 0; p < n; ++p) {
    weight[p][p] = double(n) * compute;
    for (int64_t s = 1; s < n; ++s) {
      int64_t i = (p + n - s) % n;
      weight[i][p] =
          std::max(weight[i][p], chain(i, s) + double(n - s) * compute);
    }
    const RingLink &link = links[p];
    for (int64_t s = 0; s + 1 < n; ++s) {
      int64_t i = (p + n - s) % n, j = (p + 1) % n;
      weight[i][j] = std::max(weight[i][j],
                              chain(i, s) + double(n - 1 - s) * link.seconds() +
                                  compute);
    }
  }
  // Karp: walks of exactly k edges from chip 0.
  std::vector<std::vector<double>> walk(n + 1, std::vector<double>(n, none));
  walk[0][0] = 0;
  for (int64_t k = 1; k <= n; ++k)
    for (int64_t i = 0; i < n; ++i)
      if (walk[k - 1][i] > none)
        for (int64_t j = 0; j < n; ++j)
          if (weight[i][j] > none)
            walk[k][j] = std::max(walk[k][j], walk[k - 1][i] + weight[i][j]);
  double period = 0;
  for (int64_t v = 0; v < n; ++v) {
    if (walk[n][v] == none)
      continue;
    double least = std::numeric_limits<double>::infinity();
    for (int64_t k = 0; k < n; ++k)
      if (walk[k][v] > none)
        least = std::min(least, (walk[n][v] - walk[k][v]) / double(n - k));
    period = std::max(period, least);
  }
  return std::min(period, ringSeconds(compute, links));
}
