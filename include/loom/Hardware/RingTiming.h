//===- RingTiming.h - ring attention's links and closed forms ---*- C++ -*-===//
//
// The time of a ring of K/V blocks round a sequence-parallel group: its
// links on the torus and the closed forms of the ring alone and layer after
// layer. Pure hardware timing over CostModel's point-to-point figures.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_HARDWARE_RINGTIMING_H
#define LOOM_HARDWARE_RINGTIMING_H

#include "loom/Hardware/CostModel.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"

namespace loom {

/// One link of a ring: the seconds a K/V block's message takes on it, its
/// hops' latency and the time it holds the link's bandwidth.
struct RingLink {
  double latency = 0, transfer = 0;
  double seconds() const { return latency + transfer; }
};

/// The links of the ring of the sequence-parallel group on `spAxes` (the
/// DeviceMesh's, whose stride says how far apart its members sit) for
/// blocks of `bytes`, in the order the lowering walks the members
/// (DeviceMesh::ringWalk); the last link closes the ring. A step along an
/// axis crosses `stride` hops, its links shared by the `stride` rings
/// interleaved with this one; on a line the last member sends back over
/// n - 1 steps, over the links the others use the other way. A message
/// moves at the line efficiency, as CostModel::pointToPointTime. Empty for
/// a group of one.
llvm::SmallVector<RingLink> ringLinks(const CostModel &model,
                                      llvm::ArrayRef<GroupAxis> spAxes,
                                      double bytes);

/// Ring attention's closed form: one block of `compute` seconds per link,
/// block s + 1 starting once block s is done and the K/V block it needs
/// has arrived; each chip passes a block on as soon as it arrives (as
/// loom-sim runs the lowering's messages), so block s's K/V comes over a
/// chain of s consecutive links, and each link carries n - 1 blocks in
/// turn. With equal links t: c + (n - 1) max(c, t) when either side
/// dominates (Liu et al. 2023, section 3: the transfer hides under the
/// compute when c >= t). A link carries its blocks one after another,
/// each with its latency (a chip sends its next once its last has
/// arrived), so a slow link, by latency (a line's way back) or by
/// bandwidth (a strided step sharing its links), holds back every block
/// after it. This is the ring alone, every chip starting at once; in a
/// plan, ringSteadySeconds.
double ringSeconds(double compute, llvm::ArrayRef<RingLink> links);

/// The same ring run layer after layer, each chip free to start its ring
/// when its own layer reaches it: the steady state's seconds per layer (the
/// largest cycle mean of the ring's bounds as edges between the chips'
/// starts and ends, a link's messages one after another with their
/// latency). At most ringSeconds; less where slow links (a strided step
/// shared by interleaved rings) let the chips feeding them run ahead, which
/// loom-sim shows from the second layer on (RingAttentionTest).
double ringSteadySeconds(double compute, llvm::ArrayRef<RingLink> links);

} // namespace loom

#endif // LOOM_HARDWARE_RINGTIMING_H
