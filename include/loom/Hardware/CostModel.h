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
// - Collectives over a group of n chips laid out on one or more torus axes
//   (JAX team, "How to Scale Your Model", part 3 "Sharded Matrices", 2025),
//   run as n - 1 steps of a ring where the group's ranks close a cycle of
//   neighbours (a wrapping axis, or a block of an even chip count), a line
//   otherwise. Per step a chunk crosses one link (latency alpha); a ring
//   sends half of it each way, so each chip takes in data over two links
//   (bandwidth 2W), a line's end chips over one (W). With V the bytes of
//   the whole gathered array:
//     AllGather = ReduceScatter = (n - 1) alpha + (n - 1)/n * V / W_group
//     AllReduce = ReduceScatter + AllGather
//     AllToAll (V = bytes each chip holds): every chip sends V/n straight
//       to each other by dimension-order routing; on one axis the busiest
//       link carries n^2/8 (wrapping) or n^2/4 (line) such chunks:
//       n/2 alpha + V n / (8 W), or (n - 1) alpha + V n / (4 W). A group on
//       several axes (k_i chips on axis i) loads each axis's links as k_i
//       chips would, n/k_i times over, and the axes run at once:
//       sum_i (k_i/2 or k_i - 1) alpha + V max_i (k_i/8 or k_i/4) / W.
//   For small messages the latency term dominates (below ~45 kB per step
//   on v5e, as the book observes). loom-sim executes exactly these steps
//   over the real links, so uncontended it agrees with these formulas.
//   A group whose ranks are not numbered along a walk of neighbours but
//   that fills a block a ring can close over (a placement's `by columns`,
//   JAX's device order before it ordered v5e rings) runs as a ring in its
//   order, XLA's way (jax-ml/jax d6c36255e8): each message routed, links
//   shared, and chained (a chip passes a chunk on as it arrives, no
//   barrier between steps): routedCollectiveTime follows its chains.
// - Collectives across slices (docs/multislice.md): XLA runs a collective
//   whose group spans slices hierarchically (MaxText docs, "sharding":
//   gradients are reduce-scattered over ICI, all-reduced over DCN,
//   all-gathered over ICI). With n chips on `axes` in each of S slices and
//   V the bytes of the whole gathered array:
//     AllReduce     = RS_ici(V) + AR_dcn(V / n) + AG_ici(V)
//     ReduceScatter = RS_ici(V) + RS_dcn(V / n)
//     AllGather     = AG_dcn(V / n) + AG_ici(V)
//   each phase one collective (its own synchronisation). Between slices a
//   collective of B bytes over S chips, one of each slice, runs as a ring
//   through the DCN's switches (S - 1 steps; 2 (S - 1) for an all-reduce),
//   each step's chunk B / S leaving through its host's NIC and entering
//   the next host's; when the c chips of a host all run one at once (each
//   its own shard) they share the NIC, W_dcn per host each way:
//     AG_dcn = RS_dcn = sync + (S - 1) (L_dcn + c B / (S W_dcn))
//     AR_dcn = sync + 2 (S - 1) (L_dcn + c B / (S W_dcn))
//   (the ring's bandwidth term, Patarasuk and Yuan, "Bandwidth optimal
//   all-reduce algorithms for clusters of workstations", JPDC 2009, with
//   the NIC shared c ways; W_dcn and L_dcn from the target's host section).
// - Calibration (the target's `calibration` section, fitted by
//   bench/calibrate.py from targets/tpu-v5e-measurements.json; each
//   constant's cases are listed beside it in the target file):
//   a program pays `program_dispatch` once (the host's launch of a jitted
//   call); every compute task, one fused kernel, pays `kernel_step` before
//   its roofline time (issuing its first DMAs and waiting on them); every
//   collective pays `collective_sync` once (its start/done synchronisation)
//   besides the hop latency of each step; and a link carries `link_efficiency_ring` or
//   `link_efficiency_line` of its bandwidth in a collective on a ring or a
//   line (point-to-point messages: the line figure). The message-size
//   dependence of a collective's achieved bandwidth is these fixed costs
//   against its bytes. A nominal target has none of them.
// - Vector unit (VPU): elementwise work (norms, activations, the softmax)
//   runs on the VPU, beside the MXU and the DMAs, so a kernel takes the
//   slowest of the three: max(MXU FLOPs / MXU rate, vector ops / VPU rate,
//   bytes / HBM rate). The VPU rate is derived, not measured: an (8, 128)
//   array of sublanes x lanes with 4 ALUs each, one op per ALU per cycle
//   ("Each (lane, sublane) pair on v5 contains 4 standard floating-point
//   ALUs", JAX "How to Scale Your Model", Part 2, "VPU", and its pop quiz
//   8 x 128 x 4 x clock), against 4 MXUs of 128 x 128 multiply-adds (2
//   FLOPs) a cycle at the same clock: peak / 32 (v5e: 1.97e14 / 32 =
//   6.16e12 op/s, = 4096 ALUs x 1.5 GHz).
// - Kernel steps: a Pallas kernel runs a grid of steps and each pays the
//   calibrated `kernel_step` (the matmul cases fitted it per grid step); a
//   task of `steps` steps pays it `steps` times (flash attention, below).
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_HARDWARE_COSTMODEL_H
#define LOOM_HARDWARE_COSTMODEL_H

#include "loom/Hardware/TargetDesc.h"
#include "loom/Support/Enums.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <array>
#include <memory>
#include <tuple>

namespace loom {

/// One torus axis a group spans: how many of its chips are in the group and
/// whether those chips close a ring through a wraparound link. A group
/// whose members sit `stride` chips apart (the outer group of a placement,
/// DeviceMesh) shares the axis's links with the `stride` groups interleaved
/// with it: each step crosses `stride` hops at 1/stride of the link.
/// A group whose ranks are not numbered along a walk of neighbours (a
/// placement's `by columns`, DeviceMesh) carries `routes`: how its steps'
/// messages cross the links (CostModel::groupRoutes; the same on every
/// axis of the group). Null on a walk of neighbours.
struct GroupRoutes;
struct GroupAxis {
  int64_t size;
  bool wraps;
  int64_t stride = 1;
  std::shared_ptr<const GroupRoutes> routes = nullptr;

  bool operator==(const GroupAxis &other) const;
  bool operator<(const GroupAxis &other) const;
};

/// The messages one step of a collective over a group sends, as loom-sim
/// starts them (a ring's from every member to both neighbours, a line's
/// from every member to each neighbour it has), routed.
struct GroupRoutes {
  bool ring = false;
  /// Per direction (0: to the next member, 1: to the previous one) and per
  /// sending member: the links its message crosses, and the most messages
  /// of the step that share one of them; 0 and 0 for a line's end member,
  /// which sends one way only.
  std::array<llvm::SmallVector<int64_t, 8>, 2> hops, share;
  /// Per member: its two messages share links with each other and with no
  /// other message (each then runs at the full link while alone on it).
  llvm::SmallVector<bool, 8> paired;

  /// The most messages sharing a link, and the most links one crosses.
  int64_t maxShare() const;
  int64_t maxReach() const;
  auto key() const { return std::tie(ring, hops, share, paired); }
};

inline bool GroupAxis::operator==(const GroupAxis &other) const {
  if (std::tie(size, wraps, stride) !=
      std::tie(other.size, other.wraps, other.stride))
    return false;
  if (!routes || !other.routes)
    return !routes && !other.routes;
  return routes->key() == other.routes->key();
}
inline bool GroupAxis::operator<(const GroupAxis &other) const {
  if (std::tie(size, wraps, stride) !=
      std::tie(other.size, other.wraps, other.stride))
    return std::tie(size, wraps, stride) <
           std::tie(other.size, other.wraps, other.stride);
  if (!routes || !other.routes)
    return !routes && other.routes;
  return routes->key() < other.routes->key();
}

/// One phase of a collective over a group spanning slices, as XLA runs it
/// (file comment, "Collectives across slices"): over the group's chips in
/// one slice (ICI, the whole bytes), or over the chips at one place in
/// each slice (DCN, the bytes over the n chips of a slice).
struct SlicePhase {
  CollectiveKind kind;
  bool overDcn;
};
/// The phases of `kind` across slices: an all-reduce is a reduce-scatter
/// in the slice, an all-reduce over the DCN and an all-gather in the
/// slice; a reduce-scatter the first two, an all-gather the last two (an
/// all-to-all, not decomposed, only its DCN phase).
inline llvm::SmallVector<SlicePhase, 3> multislicePhases(CollectiveKind kind) {
  llvm::SmallVector<SlicePhase, 3> phases;
  if (kind == CollectiveKind::AllReduce ||
      kind == CollectiveKind::ReduceScatter)
    phases.push_back({CollectiveKind::ReduceScatter, false});
  phases.push_back({kind, true});
  if (kind == CollectiveKind::AllReduce || kind == CollectiveKind::AllGather)
    phases.push_back({CollectiveKind::AllGather, false});
  return phases;
}

class CostModel {
public:
  explicit CostModel(const TargetDesc &target) : target(target) {}

  const TargetDesc &getTarget() const { return target; }

  /// `dim` rounded up to a multiple of the MXU edge.
  int64_t padToMXU(int64_t dim) const {
    int64_t tile = target.mxuTile;
    return (dim + tile - 1) / tile * tile;
  }

  /// Roofline time of work of `flops` on the MXU and `vectorOps` on the
  /// VPU moving `bytes` through HBM, at the peak of `elementBits`-wide
  /// operands: the slowest of the three units.
  double computeTime(double flops, double bytes, unsigned elementBits = 16,
                     double vectorOps = 0) const;

  /// Time of one compute task (a fused kernel of `steps` grid steps): its
  /// fixed step cost per step, then the roofline. The simulator runs every
  /// compute task for this long.
  double taskTime(double flops, double bytes, unsigned elementBits = 16,
                  double vectorOps = 0, double steps = 1) const {
    return steps * target.calibration.kernelStep +
           computeTime(flops, bytes, elementBits, vectorOps);
  }

  /// The VPU's MXU-to-VPU rate ratio: 4 MXUs x 128 x 128 x 2 FLOPs over
  /// 8 x 128 x 4 ALU ops a cycle (see the file comment; JAX "How to Scale
  /// Your Model", Part 2). Derived for v5e and v5p (4 MXUs of 128 x 128
  /// per TensorCore), not measured.
  static constexpr double kMXUToVPURate = 32;

  /// Element operations a second on the VPU (f32: v5e has no bf16 VPU
  /// path, JAX book Part 2), derived from the bf16 peak.
  double vectorRate() const { return target.peakFlopsBf16 / kMXUToVPURate; }

  /// The host's launch of one program, paid once per run of a schedule.
  double programDispatch() const { return target.calibration.programDispatch; }

  /// Fraction of a link's bandwidth a collective step (or a message, as a
  /// line) achieves.
  double linkEfficiency(bool ring) const {
    return ring ? target.calibration.ringEfficiency
                : target.calibration.lineEfficiency;
  }

  /// Rows of a matmul's streamed operand pad to the MXU's 8 sublanes: it
  /// takes bf16[8,128] tiles (JAX "How to Scale Your Model", Part 2,
  /// Appendix B; jax _src/pallas/mosaic/tpu_info.py, num_sublanes 8).
  static constexpr int64_t kSublanes = 8;

  /// Task time of an m x k x n matmul (2 FLOPs per multiply-add, m padded
  /// to the sublanes, k and n to the MXU), reading both operands and
  /// writing the result.
  double matmulTime(int64_t m, int64_t k, int64_t n,
                    int64_t bytesPerElement = 2) const;

  /// Links crossed from `from` to `to` on `topology` (dimension-order routing).
  int64_t hops(llvm::ArrayRef<int64_t> topology, llvm::ArrayRef<int64_t> from,
               llvm::ArrayRef<int64_t> to) const;

  /// The links a message from `from` to `to` crosses, in order, as loom-sim
  /// routes it: axis by axis (axis 0 first), the shorter way round a
  /// wrapping axis (a tie goes by the source's parity, so that an
  /// all-to-all loads both directions evenly); `link` gets the chip each
  /// link leaves, the axis and the direction (+1 or -1).
  void route(llvm::ArrayRef<int64_t> topology, llvm::ArrayRef<int64_t> from,
             llvm::ArrayRef<int64_t> to,
             llvm::function_ref<void(llvm::ArrayRef<int64_t> at,
                                     unsigned axis, int dir)>
                 link) const;

  /// Whether a collective over `group` (each member's coordinates, in rank
  /// order) runs as a ring: XLA passes a replica group's chunks round the
  /// group in its device order (JAX's mesh_utils orders v5e devices into a
  /// physical ring for that reason: `_TRAY_2x2_RING_ORDER`, and
  /// `_V5E_TRAY_RING_ORDER` "Create optimal order for v5e:8 devices",
  /// jax-ml/jax d6c36255e8). It closes when consecutive members are
  /// neighbours round to the first, or when the group fills a block the
  /// ring can close over whatever its order (isRing's shapes: a whole
  /// wrapping axis, or a block of two or more axes and an even count), its
  /// messages then routed; otherwise the group runs as a line. Groups of
  /// two run as a line (one link, both ways).
  bool runsAsRing(llvm::ArrayRef<int64_t> topology,
                  llvm::ArrayRef<llvm::SmallVector<int64_t, 3>> group) const;

  /// The messages one step of a collective over `group` (each member's
  /// coordinates, in rank order) sends, routed (GroupRoutes).
  GroupRoutes groupRoutes(
      llvm::ArrayRef<int64_t> topology,
      llvm::ArrayRef<llvm::SmallVector<int64_t, 3>> group) const;

  /// Time to send `bytes` from `from` to `to`.
  double pointToPointTime(llvm::ArrayRef<int64_t> topology,
                          llvm::ArrayRef<int64_t> from,
                          llvm::ArrayRef<int64_t> to, double bytes) const;

  /// Time of a collective over a group spanning `axes`, for `bytes` as
  /// described above (the whole gathered array; per-chip for AllToAll).
  double collectiveTime(CollectiveKind kind, llvm::ArrayRef<GroupAxis> axes,
                        double bytes) const;

  /// Weight-gathered (Pope et al., MLSys 2023, section 3.2.3): the
  /// all-gather of a layer's `bytes` of weights, stored 1/N on each chip of
  /// the group on `axes`, before the layer runs: each chip receives
  /// (N - 1) / N of them, on the group's ring or line as any all-gather.
  double weightGatherTime(llvm::ArrayRef<GroupAxis> axes, double bytes) const;

  /// A collective of `kind` over a group whose messages take `routes`, as
  /// loom-sim runs it: each member sends a step's chunk once its last one
  /// has left and the chunk it passes on has arrived (no barrier between
  /// steps), so the routes' latencies add up along the chains.
  double routedCollectiveTime(CollectiveKind kind, const GroupRoutes &routes,
                              double bytes) const;

  /// Time of a collective of `kind` over `slices` chips, one of each slice,
  /// through the DCN, `sharers` chips of each host running one alike at
  /// once (their NIC shared), for `bytes` as collectiveTime takes them
  /// (AG_dcn, RS_dcn and AR_dcn in the file comment; an all-to-all sends
  /// bytes / S to each other chip at once: sync + L_dcn + c (S - 1) B /
  /// (S W_dcn)). Infinite on a target without the DCN's figures.
  double dcnCollectiveTime(CollectiveKind kind, int64_t slices, double bytes,
                           int64_t sharers) const;

  /// Time of a collective of `kind` over the chips on `axes` in every
  /// slice of `topology` (the same chips in each), for `bytes` as
  /// collectiveTime takes them, run hierarchically (file comment): within
  /// the slices over ICI, between them over the DCN, every chip of a host
  /// running the DCN phase at once (as data parallelism over slices does:
  /// each chip reduces its own shard). One slice: collectiveTime. Infinite
  /// for an all-to-all across slices (not decomposed) and on a target
  /// without the DCN's figures (parseTopology refuses such a topology).
  double multisliceCollectiveTime(CollectiveKind kind,
                                  llvm::ArrayRef<GroupAxis> axes,
                                  const TopologyDesc &topology,
                                  double bytes) const;

  /// Whether a group on `axes` runs its collectives as a ring (else a line).
  static bool isRing(llvm::ArrayRef<GroupAxis> axes);

private:
  const TargetDesc &target;
};

} // namespace loom

#endif // LOOM_HARDWARE_COSTMODEL_H
