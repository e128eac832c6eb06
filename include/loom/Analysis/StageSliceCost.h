//===- StageSliceCost.h - what slices of a stage cost -----------*- C++ -*-===//
//
// A pipelined model's stages priced on a token slice: each stage's layers
// (LayerSliceCost, one price per kind of layer), its weight gathers, the
// ops before and after the layers, and the handovers between stages.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_ANALYSIS_STAGESLICECOST_H
#define LOOM_ANALYSIS_STAGESLICECOST_H

#include "loom/Analysis/LayerSliceCost.h"
#include "loom/Analysis/TrainingStep.h"

#include <optional>
#include <vector>

namespace loom {

/// A weight-gathered stage's seconds for one unit (Pope et al. 2023,
/// section 3.2.3), as the lowering runs it: layer i's gather (`gather[i]`
/// seconds) and compute (`compute[i]`) with the next layer's gather
/// prefetched into a second buffer while a layer computes. The first gather
/// runs beside the ops before the layers (`before` seconds); then layer i
/// and the gather of layer i + 1 start together, so
///   max(before, g_0) + sum_{i < n-1} max(c_i, g_{i+1}) + c_{n-1}.
double weightGatheredSeconds(double before, llvm::ArrayRef<double> compute,
                             llvm::ArrayRef<double> gather);

/// Seconds of a slice on the slowest stage of a pipelined model: each stage
/// runs its layers (by their `stage`) one after another; the first also the
/// ops before the layers (embeddings, patchify), the last those after them
/// (final norm, LM head or unpatchify), as the lowering places them.
class StageSliceCost {
public:
  StageSliceCost(llvm::ArrayRef<LayerOp> layers, const CostModel &model,
                 llvm::ArrayRef<GroupAxis> axes, int64_t tokens,
                 int64_t stages, llvm::ArrayRef<GroupAxis> spAxes = {},
                 int64_t microbatches = 1);
  double operator()(int64_t length, int64_t context) const;
  /// Seconds of one forward pass of the whole model (every stage's layers
  /// in turn, the ops before and after them) over several sequences at
  /// once (LayerSliceCost::batchSeconds): a serving iteration. Each kind of
  /// layer is priced once.
  double batchSeconds(llvm::ArrayRef<SequenceSlice> sequences) const;
  /// Whether batchSeconds can price the model (no ring attention, no
  /// decomposed collectives, no weight gathers).
  bool supportsBatches() const;
  /// Bytes of K and V one token of context holds over all layers, on one
  /// chip of a stage's tensor-parallel group.
  double kvBytesPerToken() const;
  /// The same on stage `stage` alone.
  double stageSeconds(int64_t stage, int64_t length, int64_t context) const;
  /// The share of stage `stage`'s seconds on a slice during which its
  /// tensor-parallel group's collectives occupy the group's links (at
  /// most 1): how often a handover crossing the stage's block meets them.
  double tensorLinkShare(int64_t stage, int64_t length) const;
  /// Each task of stage `stage` on that slice, in the lowering's order.
  llvm::SmallVector<TaskTime> stageTasks(int64_t stage, int64_t length,
                                         int64_t context) const;
  int64_t getStages() const { return stageLayers.size(); }
  /// Decompose the tensor-parallel collective matmuls (docs/overlap.md).
  void setDecompose(bool on);
  /// Whether any op of the model would decompose.
  bool hasDecomposable() const;
  /// The tasks one rank of each stage runs, over all stages, for the ops of
  /// one slice of `length` (tasksOf, every layer, prologue and epilogue).
  int64_t tasksPerRank(int64_t length) const;

  /// Seconds to hand a slice of `length` tokens into stage `stage` (>= 1):
  /// the previous stage's results over one ICI hop (CostModel's
  /// point-to-point formula; stages sit on neighbouring chips). Into stage
  /// 0 (a patch returning for its next step) one hop's latency.
  double transferSeconds(int64_t stage, int64_t length) const;
  /// Bytes each rank hands into stage `stage` (>= 1) for `length` tokens.
  double boundaryBytesInto(int64_t stage, int64_t length) const {
    return boundaryBytes[stage - 1] * length / tokens / microbatches;
  }
  int64_t getMicrobatches() const { return microbatches; }

private:
  /// Stage `stage`'s seconds with `priced[k]` caching kind k's layer
  /// seconds for this slice.
  double stageSeconds(int64_t stage, int64_t length, int64_t context,
                      llvm::SmallVectorImpl<std::optional<double>> &priced)
      const;

  std::vector<std::vector<LayerSliceCost>> stageLayers;
  /// Per stage, each layer's kind: the index in `kinds` of the first layer
  /// (of any stage) that prices as it does, as (stage, index in stage).
  std::vector<llvm::SmallVector<unsigned>> kindOf;
  std::vector<std::pair<unsigned, unsigned>> kinds;
  std::optional<LayerSliceCost> prologue, epilogue;
  /// Per stage but the last, the bytes of its last layer's results at the
  /// full sequence.
  std::vector<double> boundaryBytes;
  int64_t tokens, microbatches;
  /// A message's: the hop, and the link at its (line) efficiency.
  double hopLatency, linkBandwidth;
};

/// Seconds of a slice's forward and backward passes on the slowest chunk
/// of a pipelined training step (TeraPipe's cost for training: Li et al.,
/// ICML 2021, section 3.3, slices the step on forward plus backward time).
/// A chunk runs its layers and their layer_grads (the backward ops, not
/// the kept forward ones), and the ops between them; the first also the ops
/// before the layers and their gradients, the last those after them
/// through the loss. A later slice costs more both ways: its queries visit
/// more keys, and its backward pass makes the gradients of those keys.
class TrainingSliceCost {
public:
  TrainingSliceCost(const TrainingView &view, const CostModel &model,
                    llvm::ArrayRef<GroupAxis> axes, int64_t tokens,
                    int64_t chunks, llvm::ArrayRef<GroupAxis> spAxes = {},
                    int64_t microbatches = 1);
  double operator()(int64_t length, int64_t context) const;

private:
  /// Adds a run of ops to chunk `chunk`, priced once per kind of run.
  void add(int64_t chunk, LayerSliceCost cost);
  /// The distinct runs (pricesAs), and per chunk each kind's count.
  std::vector<LayerSliceCost> kinds;
  std::vector<llvm::SmallVector<std::pair<unsigned, unsigned>>> uses;
};

} // namespace loom

#endif // LOOM_ANALYSIS_STAGESLICECOST_H
