//===- SequenceSearch.h - which sequence-parallel degrees to search -*- C++ -*-===//
//
// The pruning rule of --search for Ulysses sequence parallelism (issue 19,
// items 1 and 5), kept apart from the planner's loop so it reads in one
// place: sp > 1 is tried only where attention dominates the layers' work
// and only at degrees that divide the heads of each tensor-parallel rank.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PLAN_SEQUENCESEARCH_H
#define LOOM_PLAN_SEQUENCESEARCH_H

#include "loom/Plan/Planner.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"

namespace loom {

/// Attention's share of the layers' FLOPs at which --search tries sp > 1.
/// Below it the all-to-alls buy little: the projections and MLP, which
/// tensor parallelism already splits without replicating weights, are most
/// of the work.
constexpr double kSequenceSearchAttentionShare = 0.25;

struct SequenceDegrees {
  /// The unsharded model's valid degrees (loom-shard-sequence's rule with
  /// tp = 1), empty of anything above 1 when attention does not dominate.
  llvm::SmallVector<int64_t> valid{1};
  /// The gcd of every self-attention's heads and KV heads.
  int64_t heads = 1;
  /// Attention's share of the layers' FLOPs.
  double attentionShare = 0;

  /// The degrees to try with tensor parallelism `tp`: with tp = 1 (or a tp
  /// the request fixes) those whose product with tp divides the heads (each
  /// tp rank's heads split sp ways); only 1 with a searched tp > 1; the
  /// request's own when it fixes sp.
  llvm::SmallVector<int64_t> forTp(int64_t tp, const PlanRequest &request) const;

  /// The degrees of ring attention (loom-shard-sequence mode=ring), which
  /// needs no condition on the heads: those dividing the sequence and the
  /// chips; empty of anything above 1 when attention does not dominate or
  /// the model has attention a ring does not split (causal, joint).
  llvm::SmallVector<int64_t> ring{1};

  /// Every (degree, ring) pair to try with `tp`: forTp's degrees as
  /// Ulysses, then ring attention where Ulysses cannot go (a degree that
  /// does not divide the heads), under forTp's rule for tp; the request's
  /// own degree and mode when it fixes sp.
  llvm::SmallVector<std::pair<int64_t, bool>>
  withModes(int64_t tp, const PlanRequest &request) const;
};

/// The degrees --search tries for `module` (imported, unsharded) on a
/// topology of `chips`.
SequenceDegrees searchedSequenceDegrees(mlir::ModuleOp module, int64_t chips);

} // namespace loom

#endif // LOOM_PLAN_SEQUENCESEARCH_H
