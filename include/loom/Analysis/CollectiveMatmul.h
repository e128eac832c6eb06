//===- CollectiveMatmul.h - decomposed collective matmuls -------*- C++ -*-===//
//
// A tensor-parallel matmul and the collective beside it run as ring
// neighbour steps (Wang et al., ASPLOS 2023; docs/overlap.md): their parts
// and their time on one chip.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_ANALYSIS_COLLECTIVEMATMUL_H
#define LOOM_ANALYSIS_COLLECTIVEMATMUL_H

#include "loom/Analysis/SliceWork.h"
#include "loom/Hardware/CostModel.h"

#include "llvm/ADT/SmallVector.h"

namespace loom {

/// The parts of a decomposed collective matmul on its ring of n chips
/// (docs/overlap.md): n partial matmuls, each of 1/n of the rows (1/n of
/// the FLOPs and token traffic, all of the weights; an all-reduce's, whose
/// scattered half is gathered again, of 1/n of the output columns instead:
/// all of the input, 1/n of the weights and output); for a reduce-scatter,
/// n - 1 accumulations of a received partial sum into the chip's own
/// (reading both, writing one, on the VPU); and per step one message to
/// each ring neighbour of half a block (a block, 1/n of the collective's
/// bytes, when n = 2: both neighbours are one chip), as the bidirectional
/// ring collective moves half of each chunk each way.
struct DecomposedParts {
  /// Each step's partial matmuls (one per matmul of the pair: an
  /// all-gather's q, k and v), in order.
  llvm::SmallVector<SliceWork, 3> partials;
  SliceWork accumulate;
  double messageBytes = 0;
  bool bothWays = false;
};
DecomposedParts decomposeParts(const SliceWork &work);

/// Seconds of a decomposed pair on one chip, the critical path of its
/// steps as loom-sim runs them: the TensorCore takes the partial matmuls
/// (and accumulations) in order, a message takes one hop's latency and its
/// bytes at the line efficiency of one link (a point-to-point message;
/// CostModel::pointToPointTime). Reduce-scatter: accumulation k waits for
/// partial k and the sum received at step k - 1, which was sent after
/// accumulation k - 1. All-gather: partial k waits for the block received
/// at step k - 1, forwarded as it arrives, so it is there at k t. An
/// all-reduce then runs its all-gather half as a collective on `axes`.
double decomposedSeconds(const CostModel &model, const SliceWork &work,
                         llvm::ArrayRef<GroupAxis> axes);

} // namespace loom

#endif // LOOM_ANALYSIS_COLLECTIVEMATMUL_H
