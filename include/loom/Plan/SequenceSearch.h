//===- SequenceSearch.h - which sequence-parallel degrees to search -*- C++ -*-===//
//
// The pruning rule of --search for sequence parallelism, the search
// space's sequence dimension (lib/Plan/SearchSpace.cpp), in one place:
// sp > 1 is tried only at degrees that divide the heads of each
// tensor-parallel rank (Ulysses) and where the weights, which sp
// replicates, can fit on the chips left for stages.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PLAN_SEQUENCESEARCH_H
#define LOOM_PLAN_SEQUENCESEARCH_H

#include "loom/Plan/Planner.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/SmallVector.h"

namespace loom {

struct SequenceDegrees {
  /// The unsharded model's valid degrees (loom-shard-sequence's rule with
  /// tp = 1) at which the weights can fit (weightsCanFit with tp = 1).
  llvm::SmallVector<int64_t> valid{1};
  /// The gcd of every self-attention's heads and KV heads.
  int64_t heads = 1;
  /// The model's weights, its layers, the slice's chips and each chip's HBM.
  double weightBytes = 0;
  int64_t layers = 0, chips = 1;
  double hbmBytes = 0;

  /// Whether tp x sp chips a stage can hold the weights at all: sp
  /// replicates them, so they split over tp and at most min(layers, chips /
  /// (tp sp)) stages, and no cut of whole layers beats the even share.
  /// (A necessary condition: the plan's own memory check decides.)
  bool weightsCanFit(int64_t tp, int64_t sp) const;

  /// The degrees to try with tensor parallelism `tp`: with tp = 1 (or a tp
  /// the request gives) those whose product with tp divides the heads (each
  /// tp rank's heads split sp ways); only 1 with a searched tp > 1; the
  /// request's own when it gives sp.
  llvm::SmallVector<int64_t> forTp(int64_t tp, const LayoutRequest &given) const;

  /// The degrees of ring attention (loom-shard-sequence mode=ring), which
  /// needs no condition on the heads: those dividing the sequence and the
  /// chips where the weights can fit; empty of anything above 1 when the
  /// model has attention a ring does not split.
  llvm::SmallVector<int64_t> ring{1};

  /// Every (degree, ring) pair to try with `tp`: forTp's degrees as
  /// Ulysses, then ring attention where Ulysses cannot go (a degree that
  /// does not divide the heads), under forTp's rule for tp; the request's
  /// own degree and mode when it gives sp.
  llvm::SmallVector<std::pair<int64_t, bool>>
  withModes(int64_t tp, const LayoutRequest &given) const;
};

/// The degrees --search tries for `module` (imported, unsharded) on a
/// topology of `chips` with `hbmBytes` of HBM each (0: no memory rule).
SequenceDegrees searchedSequenceDegrees(mlir::ModuleOp module, int64_t chips,
                                        double hbmBytes);

} // namespace loom

#endif // LOOM_PLAN_SEQUENCESEARCH_H
