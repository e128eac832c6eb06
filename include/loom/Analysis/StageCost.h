//===- StageCost.h - what slices of a layer and a stage cost ----*- C++ -*-===//
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

#ifndef LOOM_ANALYSIS_STAGECOST_H
#define LOOM_ANALYSIS_STAGECOST_H

#include "loom/Analysis/ModelAnalysis.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>

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

/// The tasks one rank runs for `work`, as the lowering emits them: a
/// compute task per kernel; a start and a done per collective; a ring
/// attention's blocks with a send and a receive before each but the last;
/// a decomposed pair's partials, its ring steps' messages and its
/// accumulations (decomposeParts).
int64_t tasksOf(const SliceWork &work);

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
  void addOp(mlir::Operation &op);
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

  struct Term {
    enum class Kind { Compute, CausalAttention, Collective } kind;
    mlir::Operation *op = nullptr;
    double flops = 0;          ///< MXU-padded, at the full sequence
    bool scales = true;        ///< flops scale with the slice
    double fixedBytes = 0;     ///< weights and other traffic a slice repeats
    double tokenBytes = 0;     ///< traffic at the full sequence that scales
    double pairFlops = 0;      ///< causal: FLOPs per query/key pair
    double contextBytes = 0;   ///< causal: K/V bytes read per cached token
    int64_t cached = 0;        ///< causal: tokens cached before the sequence
                               ///< (decode), seen by every slice
    int64_t window = 0;        ///< causal: sliding window (0: none)
    double vectorOps = 0;      ///< VPU work at the full sequence
    double steps = 1;          ///< kernel grid steps at the full sequence
    int64_t batchHeads = 0;    ///< causal: the flash kernel's heads
    int64_t headDim = 0;       ///< causal: head_dim padded to the MXU
    int64_t kvElementBytes = 2;///< causal: bytes of a K/V element
    double queryBytes = 0;     ///< causal: q and out at the full sequence
    bool materialized = false; ///< causal: einsums, scores in HBM
    double newKVBytes = 0;     ///< causal: the sequence's K and V as written
    int64_t decodeQueryRows = 1; ///< materialized: rows a decode query runs as
    /// The elementwise ops fused into `op`'s kernel.
    llvm::SmallVector<mlir::Operation *, 2> fused;
    unsigned elementBits = 16;
    CollectiveKind collective = CollectiveKind::AllReduce;
    bool sequenceGroup = false;
    int subAxis = -1;          ///< 2-D tp: the tp_x (0) or tp_y (1) group
    int64_t ringSteps = 0;     ///< ring attention: the sp group's chips
    double ringBytes = 0;      ///< ring attention: K/V block per step
    /// This term and the next are a matmul and a tensor-parallel collective
    /// that may run decomposed (the collective after or before the matmul).
    bool pairNext = false;
  };
  SliceWork workOf(const Term &term, int64_t length, int64_t context) const;
  /// The axes a collective's group runs on: the sp group's, one axis of a
  /// 2-D tp block, or the tp group's.
  llvm::ArrayRef<GroupAxis> groupAxes(const SliceWork &work) const;
  /// Marks a matmul and the collective beside it (the term just added).
  void markPair();
  const CostModel &model;
  llvm::SmallVector<GroupAxis> axes, spAxes;
  int64_t tokens;
  /// The share of the batch a slice holds: 1 / microbatches.
  double share;
  llvm::SmallVector<Term> terms;
  /// The compute term (kernel) each op placed so far runs in.
  llvm::DenseMap<mlir::Operation *, size_t> kernelOf;
  bool decompose = false;
  double gatherBytes = 0;
};

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

/// A pipeline's time, and the share of it the busiest stage sits idle (its
/// bubble).
struct PipelinePrediction {
  double seconds = 0;
  double bubble = 0;
};

/// One unit of a pipeline (a token slice or a PipeFusion patch): its
/// seconds on each stage, and the seconds of its handover into each stage
/// (into stage 0: its return from the last stage for its next step).
struct PipelineUnit {
  llvm::SmallVector<double> work, handover;
};

/// Plays a pipeline through: every stage takes the units in order, `steps`
/// times over (PipeFusion's denoising steps; 1 for token slices). A unit
/// starts on a stage once the stage is free and the unit has arrived from
/// the previous stage, or, on stage 0 in a later step, from the last stage;
/// after each of the first `warmup` steps all units must be back first.
/// Each stage takes its own time, so uneven stages are priced as they are.
/// With equal stages of t and no handovers this gives TeraPipe's
/// sum(t_i) + (K - 1) max(t_i) for increasing t_i and PipeFusion's
/// (S M + K - 1) t for M >= K patches (Wang et al. 2024).
PipelinePrediction playPipeline(llvm::ArrayRef<PipelineUnit> units,
                                int64_t steps, int64_t warmup);

/// Plays an interleaved pipeline (Narayanan et al., SC'21, section 2.2.2):
/// each unit's `work` and `handover` are per chunk (K v of them), chunk c on
/// stage c mod `stages`. Each stage runs in program order, as the lowering
/// emits it: the units in groups of K, and per group chunk s for every unit
/// of the group, then chunk s + K for every unit, and so on. A unit's chunk
/// c starts once the stage is free and its chunk c - 1 is done and handed
/// over. With N units (a multiple of K) of equal chunks t and no handovers
/// this gives (N v + K - 1) t: the bubble of one chunk, 1/v of a stage's. A
/// last group of g < K units waits K - g chunks each round for its units to
/// come back round the ring.
PipelinePrediction playVirtualStages(llvm::ArrayRef<PipelineUnit> units,
                                     int64_t stages);

/// Plays units' tasks zipped on one chip, as convert-loom-to-sched{interleave}
/// orders them (task 1 of every unit, then task 2 of every unit, ...): each
/// task waits for its unit's previous one; compute tasks run one at a time
/// in that order; collectives start as soon as they may and share the
/// group's links equally while several run (loom-sim gives every flow on a
/// link an equal share): k of them take latency + k x (seconds - latency). Returns the time the last task ends. One unit
/// gives the sum of its tasks; two units whose collectives each fit under
/// the other's next compute expose only the first and last.
double playInterleaved(llvm::ArrayRef<llvm::SmallVector<TaskTime>> chains);

/// The units a pipeline runs on each stage, in order, as (length, context):
/// each microbatch's slices in turn, a slice seeing its microbatch's earlier
/// ones (a patch sees none). One step of a diffusion model's patches.
llvm::SmallVector<std::pair<int64_t, int64_t>>
pipelineUnits(PipelineAttr pipeline);

/// The cost model's prediction for a planned model: its slices or patches
/// played through (playPipeline) with `cost`'s stage times and handovers.
/// The passes choose slices by TeraPipe's closed form instead, which prices
/// every stage as the slowest; this prices each as it is.
/// `transfer(stage, length)`, when given, replaces
/// `cost.transferSeconds(stage, length)` (loom-plan measures the transfers
/// on the chips the stages really occupy). With `interleave` > 1 each group
/// of that many units of a step is played zipped on every stage
/// (playInterleaved) and moves through the pipeline as one unit, handed
/// over when its last unit is. With virtual stages, `cost` prices chunks
/// (its stages are the pipeline's chunks) and the units play through
/// playVirtualStages; `transfer(c, length)` is then the handover into chunk
/// c, from stage (c - 1) mod K.
PipelinePrediction predictPipeline(
    const StageSliceCost &cost, PipelineAttr pipeline,
    llvm::function_ref<double(int64_t stage, int64_t length)> transfer = {},
    int64_t interleave = 1);

} // namespace loom

#endif // LOOM_ANALYSIS_STAGECOST_H
