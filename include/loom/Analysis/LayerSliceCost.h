//===- LayerSliceCost.h - what slices of a layer cost -----------*- C++ -*-===//
//
// The planner passes need a layer's time for slices of its sequence that
// the IR does not hold (TeraPipe evaluates thousands of (length, context)
// pairs). A LayerSliceCost reads the layer once and rescales each op the
// way its cost depends on the tokens: token-wise work and traffic in
// proportion to the slice, a causal attention by the query/key pairs the
// slice visits plus the cached K/V it reads, a DiT attention over all of
// the image's (partly stale) keys. Every op is then priced by the shared
// CostModel (roofline with MXU padding; collectives on the tensor-parallel
// group's torus axes), so at the full sequence it agrees with loom-estimate.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_ANALYSIS_LAYERSLICECOST_H
#define LOOM_ANALYSIS_LAYERSLICECOST_H

#include "loom/Analysis/ModelAnalysis.h"
#include "loom/Analysis/SliceWork.h"
#include "loom/Dialect/Loom/SliceTerm.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <vector>

namespace loom {

/// The tasks one rank runs for `work`, as the lowering emits them: a
/// compute task per kernel; a start and a done per collective; a ring
/// attention's blocks with a send and a receive before each but the last;
/// a decomposed pair's partials, its ring steps' messages and its
/// accumulations (decomposeParts).
int64_t tasksOf(const SliceWork &work);

/// One sequence of a batched forward pass: `length` tokens computed after
/// `context` of the same sequence already cached.
struct SequenceSlice {
  int64_t length = 0;
  int64_t context = 0;
};

class LayerSliceCost {
public:
  /// `tokens` is the sequence the layer's ops see in full; `tpAxes` the
  /// tensor-parallel group's axes for its collectives.
  /// `spAxes` those of the sequence-parallel group (loom-shard-sequence).
  /// With `microbatches` M a slice holds batch / M of the batch's sequences
  /// (#loom.pipeline's microbatches): the work and traffic that follow the
  /// batch are priced at 1 / M, the weights a slice reads in full.
  LayerSliceCost(LayerOp layer, const CostModel &model,
                 llvm::ArrayRef<GroupAxis> tpAxes, int64_t tokens,
                 llvm::ArrayRef<GroupAxis> spAxes = {},
                 int64_t microbatches = 1);
  /// The same for a run of ops outside the layers (prologue, epilogue).
  LayerSliceCost(llvm::ArrayRef<mlir::Operation *> ops, const CostModel &model,
                 llvm::ArrayRef<GroupAxis> tpAxes, int64_t tokens,
                 llvm::ArrayRef<GroupAxis> spAxes = {},
                 int64_t microbatches = 1);

  /// Seconds for a slice of `length` of the `tokens` after `context` earlier
  /// ones (causal attention reads their cached K/V).
  double seconds(int64_t length, int64_t context) const;
  /// Seconds for one forward pass over several sequences at once, as a
  /// serving iteration runs prompt chunks and decode tokens together: the
  /// token-wise kernels and collectives on all their tokens (the weights
  /// read once), each causal attention one kernel over every sequence's
  /// query/key pairs and cached K/V (a ragged kernel: a decode's grid step
  /// and cache writes once for all decodes, a prompt's flash blocks its
  /// own). A sequence is a microbatch's share of the layer's batch (one
  /// sequence of a batch of M with `microbatches` M). An attention whose
  /// K/V are split by batch (kv_batch) runs each sequence on one of the
  /// chips holding its KV head, the busiest chip setting the time. Not for
  /// a layer with a ring attention or decomposed collectives
  /// (supportsBatches).
  double batchSeconds(llvm::ArrayRef<SequenceSlice> sequences) const;
  /// The works batchSeconds prices, in order: what each chip runs for that
  /// batch (with kv_batch, the busiest chip's attention kernel).
  void forEachBatchWork(llvm::ArrayRef<SequenceSlice> sequences,
                        llvm::function_ref<void(const SliceWork &)> fn) const;
  /// Whether batchSeconds can price this layer.
  bool supportsBatches() const;
  /// Bytes of K and V one token of context holds in the cache (its causal
  /// attentions').
  double kvBytesPerToken() const;
  /// Of those, the seconds the tensor-parallel group's collectives keep
  /// its links busy (their bandwidth terms, decomposed or not, without
  /// hop latencies).
  double tensorLinkSeconds(int64_t length, int64_t context) const;

  /// Each op's seconds on that slice, in order, appended to `times`.
  void appendTimes(int64_t length, int64_t context,
                   llvm::SmallVectorImpl<TaskTime> &times) const;

  /// Each op's work on that slice, in order; with decompose on, a
  /// tensor-parallel matmul and the collective beside it come as one work
  /// (SliceWork::decomposed).
  void forEachWork(int64_t length, int64_t context,
                   llvm::function_ref<void(const SliceWork &)> fn) const;

  /// Whether `other` prices every slice exactly as this does: the same
  /// terms (whichever ops they are), groups and sequence. A model's layers
  /// are mostly copies of one or two, so a stage prices each kind once.
  bool pricesAs(const LayerSliceCost &other) const;
  /// Decompose the collective matmuls of this layer (docs/overlap.md).
  void setDecompose(bool on) { decompose = on; }
  /// Weight-gathered (loom.gather_weights): the bytes of the layer's
  /// weights all-gathered before it runs (0: none), and the gather's seconds
  /// on the tp group (CostModel::weightGatherTime).
  double getGatherBytes() const { return gatherBytes; }
  double gatherSeconds() const;
  /// Whether any of its ops would decompose.
  bool hasDecomposable() const {
    return llvm::any_of(terms, [](const Term &t) { return t.pairNext; });
  }

private:
  /// Appends `op`'s slice terms (CostOpInterface::getSliceTerms).
  void addOp(mlir::Operation &op);
  /// Fuses an elementwise op's compute term into its producer's kernel;
  /// false when it runs a kernel of its own.
  bool fuse(const SliceTerm &term);
  /// Seconds of `work`: a ring's by ringSteadySeconds, else the roofline.
  double computeSeconds(const SliceWork &work) const;
  /// A ring whose strided steps cross the tensor-parallel links between its
  /// members: how far, in the steady state, the members before a strided
  /// step run ahead of the ones after it (ringSeconds less
  /// ringSteadySeconds), and one block's compute; {0, 0} for any other work.
  std::pair<double, double> ringLag(const SliceWork &work) const;
  /// One block's compute of a ring's work (1/ringSteps of it).
  double ringBlockSeconds(const SliceWork &work) const;
  /// Whether any work can have a ringLag: a ring over a strided sp group.
  /// Without one the layer's seconds are a plain sum (the search's hot
  /// path: no works collected, no latencies priced).
  bool hasStridedRing() const;
  /// The layer's works' `seconds` (collectives' hop latencies in
  /// `latency`), with each strided ring's messages in flight beside the tp
  /// collectives before and after it added to the one after it.
  void addRingContention(llvm::ArrayRef<SliceWork> works,
                         llvm::MutableArrayRef<double> seconds,
                         llvm::ArrayRef<double> latency) const;

  /// An op's slice term (CostOpInterface::getSliceTerms) as a kernel of
  /// the layer: with the ops fused into it.
  struct Term : SliceTerm {
    Term(const SliceTerm &term) : SliceTerm(term) {}
    /// The elementwise ops fused into `op`'s kernel.
    llvm::SmallVector<mlir::Operation *, 2> fused;
    /// This term and the next are a matmul and a tensor-parallel collective
    /// that may run decomposed (the collective after or before the matmul).
    bool pairNext = false;
  };
  SliceWork workOf(const Term &term, int64_t length, int64_t context) const;
  /// The same for `share` of the batch's sequences.
  SliceWork workOf(const Term &term, int64_t length, int64_t context,
                   double share) const;
  /// A causal attention's kernel over a batch's sequences (batchSeconds).
  SliceWork attentionBatchWork(const Term &term,
                               llvm::ArrayRef<SequenceSlice> sequences) const;
  /// The axes a collective's group runs on: the sp group's, one axis of a
  /// 2-D tp block, or the tp group's.
  llvm::ArrayRef<GroupAxis> groupAxes(const SliceWork &work) const;
  /// Marks a matmul and the collective beside it (the term just added).
  void markPair();
  const CostModel &model;
  /// The "kv" group of `ranks` consecutive tensor ranks: neighbours along
  /// the tp group's walk (DeviceMesh), a line unless it is the whole group.
  llvm::SmallVector<GroupAxis> kvGroupAxes(int64_t ranks) const;
  llvm::SmallVector<GroupAxis> axes, spAxes, kvAxes;
  int64_t tokens;
  /// The share of the batch a slice holds: 1 / microbatches.
  double share;
  std::vector<Term> terms;
  /// The compute term (kernel) each op placed so far runs in.
  llvm::DenseMap<mlir::Operation *, size_t> kernelOf;
  bool decompose = false;
  double gatherBytes = 0;
};

} // namespace loom

#endif // LOOM_ANALYSIS_LAYERSLICECOST_H
