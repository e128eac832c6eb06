//===- SliceWork.h - the work of one op on one slice ------------*- C++ -*-===//
//
// What the slice cost analyses hand each other and the lowering: one op's
// work on one token slice (SliceWork) and one task's seconds (TaskTime).
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_ANALYSIS_SLICEWORK_H
#define LOOM_ANALYSIS_SLICEWORK_H

#include "loom/Support/Enums.h"

#include "mlir/IR/Operation.h"
#include "llvm/ADT/ArrayRef.h"

#include <vector>

namespace loom {

/// A tensor-parallel matmul run with its collective decomposed into ring
/// neighbour steps (Wang et al., ASPLOS 2023; docs/overlap.md): the
/// reduce-scatter after it, the reduce-scatter half of the all-reduce after
/// it (the all-gather half stays a collective), or the all-gather before it
/// (with every matmul after it that reads the gathered tokens).
enum class Decomposed { None, ReduceScatter, AllReduce, AllGather };

/// The work of one op on one slice, as the cost model prices it.
struct SliceWork {
  mlir::Operation *op;
  /// A collective of `kind` over the whole array of `bytes`; otherwise
  /// compute of `flops` (MXU-padded) moving `bytes` through HBM.
  bool collective = false;
  CollectiveKind kind = CollectiveKind::AllReduce;
  /// The collective is over the sequence-parallel group ("sp"), not "tp".
  bool sequenceGroup = false;
  /// Over one sub-group of a 2-D tensor-parallel block: 0 the tp_x group
  /// (a column of the block), 1 the tp_y group (a row); -1 the whole group.
  int subAxis = -1;
  /// Over the "kv" group: this many consecutive tensor ranks (0: not).
  int64_t blockRanks = 0;
  double flops = 0, bytes = 0;
  unsigned elementBits = 16;
  /// Vector-unit work and the kernel's grid steps (CostModel::taskTime).
  double vectorOps = 0;
  int64_t steps = 1;
  /// Elementwise ops fused into `op`'s kernel (getFusedOperand), in order.
  llvm::ArrayRef<mlir::Operation *> fused;
  /// Ring attention (loom.ring_attention): the work runs in `ringSteps`
  /// equal blocks, each after the K/V block of `ringBytes` it attends to
  /// has come from the previous chip of the sp group, which it passes on
  /// meanwhile (0: not a ring).
  int64_t ringSteps = 0;
  double ringBytes = 0;
  /// Of `bytes`, the weights and other traffic that do not scale with the
  /// tokens (each partial matmul of a decomposed pair reads them again).
  double fixedBytes = 0;
  /// A matmul (`op`, its work above) and `collectiveOp`, of
  /// `collectiveBytes` over a ring of `ring` chips, decomposed.
  Decomposed decomposed = Decomposed::None;
  mlir::Operation *collectiveOp = nullptr;
  double collectiveBytes = 0;
  int64_t ring = 1;
  /// Bytes of one element of the collective's tensor.
  int64_t collectiveElementBytes = 2;
  /// Of `bytes`, the matmul's input tokens: an all-reduce's partials split
  /// the output columns instead of the rows, and each reads them all.
  double inputBytes = 0;
  /// An all-gather's: the further matmuls after `op` that read the
  /// gathered tokens (k and v after q), decomposed with it.
  std::vector<SliceWork> alsoGathered;
};

/// A task's seconds as the cost model prices it: on the TensorCore, or on
/// the tensor-parallel group's links.
struct TaskTime {
  bool collective = false;
  double seconds = 0;
  /// Of a collective's seconds, its steps' hop latencies: the part that
  /// does not slow down when collectives share the links.
  double latency = 0;
  /// The links a collective runs on: a 2-D block's tp_x (0) or tp_y (1)
  /// axis, which share none; -1: all of its group's.
  int links = -1;
};

} // namespace loom

#endif // LOOM_ANALYSIS_SLICEWORK_H
