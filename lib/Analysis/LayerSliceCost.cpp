//===- LayerSliceCost.cpp - what slices of a layer cost -------------------===//

#include "loom/Analysis/LayerSliceCost.h"

#include "loom/Analysis/CollectiveMatmul.h"
#include "loom/Dialect/Loom/MoE.h"
#include "loom/Dialect/Loom/ModelCost.h"
#include "loom/Hardware/RingTiming.h"

#include <cmath>

using namespace mlir;
using namespace loom;

static bool isTokenTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 3;
}

/// The ops of a layer's body, in order.
static SmallVector<Operation *> bodyOps(LayerOp layer) {
  SmallVector<Operation *> ops;
  for (Operation &op : layer.getBody().front())
    ops.push_back(&op);
  return ops;
}

LayerSliceCost::LayerSliceCost(LayerOp layer, const CostModel &model,
                               ArrayRef<GroupAxis> tpAxes, int64_t tokens,
                               ArrayRef<GroupAxis> spAxes,
                               int64_t microbatches)
    : LayerSliceCost(bodyOps(layer), model, tpAxes, tokens, spAxes,
                     microbatches) {}

LayerSliceCost::LayerSliceCost(ArrayRef<Operation *> ops, const CostModel &model,
                               ArrayRef<GroupAxis> tpAxes, int64_t tokens,
                               ArrayRef<GroupAxis> spAxes,
                               int64_t microbatches)
    : model(model), axes(tpAxes.begin(), tpAxes.end()),
      spAxes(spAxes.begin(), spAxes.end()), tokens(tokens),
      share(1.0 / double(std::max<int64_t>(microbatches, 1))) {
  for (Operation *op : ops)
    addOp(*op);
}

void LayerSliceCost::addOp(Operation &op) {
  auto cost = dyn_cast<CostOpInterface>(op);
  if (!cost)
    return;
  SmallVector<SliceTerm, 3> slice;
  cost.getSliceTerms(model, slice);
  for (const SliceTerm &term : slice) {
    if (term.kind == Term::Kind::WeightGather) {
      gatherBytes += term.fixedBytes;
      continue;
    }
    if (term.kind == Term::Kind::Compute && fuse(term))
      continue;
    if (term.blockRanks > 0)
      kvAxes = kvGroupAxes(term.blockRanks);
    if (term.kind == Term::Kind::Compute)
      kernelOf[term.op] = terms.size();
    terms.push_back(term);
    markPair();
  }
}

bool LayerSliceCost::fuse(const SliceTerm &term) {
  // An elementwise op joins its producer's kernel (as XLA fuses it).
  auto kernelRoot = [&](Operation *producer) -> Operation * {
    auto it = kernelOf.find(producer);
    return it == kernelOf.end() ? nullptr : terms[it->second].op;
  };
  Operation *producer = findFusionProducer(term.op, kernelRoot);
  if (!producer)
    return false;
  size_t index = kernelOf[producer];
  Term &kernel = terms[index];
  kernel.flops += term.flops;
  kernel.vectorOps += term.vectorOps;
  kernel.fixedBytes += term.fixedBytes;
  kernel.tokenBytes += term.tokenBytes;
  (term.scales ? kernel.tokenBytes : kernel.fixedBytes) -=
      getFusedSavings(getFusedOperand(term.op, producer));
  kernel.fused.push_back(term.op);
  kernelOf[term.op] = index;
  return true;
}

/// Whether `op` is a tensor-parallel collective over the tokens of a token
/// tensor (its rows) that a matmul beside it can run as ring steps.
static bool isDecomposableCollective(Operation *op) {
  auto collective = dyn_cast_or_null<CollectiveOpInterface>(op);
  // (Not over a 2-D group's sub-groups: their rings are not built.)
  if (!collective || isBesideGroup(collective.getGroup()) ||
      collective.getGroup() == kTensorXGroup ||
      collective.getGroup() == kKVGroup ||
      collective.getGroup() == kTensorYGroup ||
      collective.getGroupSize() < 2 || !isTokenTensor(op->getOperand(0).getType()))
    return false;
  auto dim = op->getAttrOfType<IntegerAttr>("dim");
  switch (collective.getCollectiveKind()) {
  case CollectiveKind::AllReduce:
    return true;
  case CollectiveKind::ReduceScatter:
  case CollectiveKind::AllGather:
    // Over the sequence (Megatron's sequence-parallel form): its blocks
    // are rows of the matmul.
    return dim && dim.getInt() == 1;
  case CollectiveKind::AllToAll:
    return false;
  }
  return false;
}

void LayerSliceCost::markPair() {
  if (terms.size() < 2)
    return;
  Term &first = terms[terms.size() - 2];
  const Term &second = terms.back();
  // A matmul, then the reduce-scatter or all-reduce of its partial sums.
  if (first.kind == Term::Kind::Compute && isa<LinearOp>(first.op) &&
      second.kind == Term::Kind::Collective &&
      second.collective != CollectiveKind::AllGather &&
      isDecomposableCollective(second.op)) {
    Operation *input = second.op->getOperand(0).getDefiningOp();
    if (input == first.op || llvm::is_contained(first.fused, input))
      first.pairNext = true;
    return;
  }
  // An all-gather of the tokens, then a matmul reading them.
  if (first.kind == Term::Kind::Collective &&
      first.collective == CollectiveKind::AllGather &&
      isDecomposableCollective(first.op) &&
      second.kind == Term::Kind::Compute && isa<LinearOp>(second.op) &&
      second.op->getOperand(0) == first.op->getResult(0))
    first.pairNext = true;
}

SliceWork LayerSliceCost::workOf(const Term &term, int64_t length,
                                 int64_t context) const {
  return workOf(term, length, context, share);
}

SliceWork LayerSliceCost::workOf(const Term &term, int64_t length,
                                 int64_t context, double share) const {
  // A slice of `length` tokens of `share` of the batch's sequences.
  double fraction = double(length) / double(tokens) * share;
  SliceWork work;
  work.op = term.op;
  work.elementBits = term.elementBits;
  work.fused = term.fused;
  work.fixedBytes = term.fixedBytes;
  switch (term.kind) {
  case Term::Kind::Collective:
    work.collective = true;
    work.kind = term.collective;
    work.sequenceGroup = term.sequenceGroup;
    work.subAxis = term.subAxis;
    work.blockRanks = term.blockRanks;
    // (A collective's data all follow the batch.)
    work.bytes = term.fixedBytes * share + term.tokenBytes * fraction;
    break;
  case Term::Kind::CausalAttention: {
    if (term.ringSteps > 1) {
      // A striped ring of n (Brandon et al. 2023): each chip takes 1/n of
      // the slice's queries and of its causal pairs, in n steps of
      // causally masked blocks; each step passes the chip's stripe of
      // every key so far (the context's and the slice's) to the next.
      // A sliding window keeps fewer pairs, and only the keys it reaches
      // go round.
      double n = double(term.ringSteps);
      double pairs =
          double(AttentionOp::countCausalPairs(length, context, term.window));
      int64_t visible =
          term.window ? std::min<int64_t>(context, term.window - 1) : context;
      // (A microbatch's share of the batch, as below.)
      work.flops = term.pairFlops * pairs / n * share;
      FlashAttentionWork flash = flashAttentionWork(
          std::max<int64_t>(std::llround(term.batchHeads * share), 1),
          term.headDim,
          std::max<int64_t>(std::llround(length / n), 1),
          std::llround(context / n), 0, /*causal=*/true,
          term.window ? int64_t(std::ceil(term.window / n)) : 0,
          term.kvElementBytes);
      work.bytes = term.queryBytes * fraction + n * flash.kvBytes;
      work.vectorOps = n * flash.vectorOps;
      work.steps = std::llround(n * flash.steps);
      work.ringSteps = term.ringSteps;
      work.ringBytes =
          term.contextBytes * double(visible + length) / n * share;
      break;
    }
    // The slice sees the cached tokens and the sequence before it.
    // A local (windowed) layer sees at most the window of them.
    int64_t before = term.cached + context;
    double pairs =
        AttentionOp::countCausalPairs(length, before, term.window);
    double seen = term.window ? std::min(before, term.window) : before;
    // A decode step writes the new K and V into the cache
    // (kDecodeCacheWriteKernels): read as written, stored at the cache's
    // width (contextBytes a token).
    bool decode = isDecodeAttention(length, /*causal=*/true);
    double cacheWrite = decode ? term.newKVBytes * fraction +
                                     term.contextBytes * length * share
                               : 0;
    int64_t writeSteps = decode ? kDecodeCacheWriteKernels : 0;
    // (A microbatch's sequences times the heads: a whole number, as the
    // microbatches divide the batch.)
    int64_t batchHeads =
        std::max<int64_t>(std::llround(term.batchHeads * share), 1);
    if (term.materialized) {
      // The einsums over every key the slice sees, masked
      // (materializedAttentionWork); a window's cache holds its keys; a
      // decode step's query run as the runtime's rows (decode_query_rows).
      MaterializedAttentionWork dense = materializedAttentionWork(
          batchHeads, term.headDim,
          decode ? term.decodeQueryRows * length : length,
          std::llround(seen) + length, /*masked=*/true);
      work.flops = dense.flops;
      work.vectorOps = dense.vectorOps;
      work.steps = std::llround(dense.steps) + writeSteps;
      work.bytes = term.tokenBytes * fraction +
                   term.contextBytes * seen * share + dense.scoreBytes +
                   cacheWrite;
      break;
    }
    if (decode) {
      // (Latent attention attends over the cached latent itself.)
      work.flops = (term.absorbedPairFlops > 0 ? term.absorbedPairFlops
                                               : term.pairFlops) *
                   pairs * share;
      work.bytes = term.tokenBytes * fraction +
                   term.contextBytes * seen * share + cacheWrite;
      work.vectorOps = term.batchHeads * share * pairs * kFlashScoreOps;
      work.steps = 1 + writeSteps;
      break;
    }
    FlashAttentionWork flash = flashAttentionWork(
        batchHeads, term.headDim, length, before, 0, /*causal=*/true,
        term.window, term.kvElementBytes);
    work.flops = term.pairFlops * pairs * share;
    work.bytes = term.queryBytes * fraction + flash.kvBytes;
    work.vectorOps = flash.vectorOps;
    work.steps = std::llround(flash.steps);
    if (term.contextFlops > 0) {
      // Latent attention: the context's K and V decompressed from its
      // cached latent before the prompt slice attends to them.
      work.flops += term.contextFlops * seen * share;
      work.bytes += term.contextBytes * seen * share;
    }
    break;
  }
  case Term::Kind::Compute:
    // Per-sample work follows the batch, not the slice.
    work.flops = term.flops * (term.scales ? fraction : share);
    work.vectorOps = term.vectorOps * (term.scales ? fraction : share);
    // A flash kernel's grid shrinks with the slice's query blocks.
    work.steps = std::max<int64_t>(
        std::llround(term.scales ? term.steps * fraction : term.steps), 1);
    if (term.experts.held > 0) {
      // Routed experts: the weights of those the slice's tokens touch.
      const ExpertReads &e = term.experts;
      work.fixedBytes = e.bytesEach * touchedExperts(e.held, e.topK, e.experts,
                                                     e.tokens * fraction);
    }
    work.bytes = work.fixedBytes + term.tokenBytes * fraction;
    if (!term.scales)
      work.fixedBytes = work.bytes;
    work.ringSteps = term.ringSteps;
    work.ringBytes = term.ringBytes;
    break;
  }
  return work;
}

void LayerSliceCost::forEachWork(
    int64_t length, int64_t context,
    llvm::function_ref<void(const SliceWork &)> fn) const {
  for (size_t i = 0; i < terms.size(); ++i) {
    const Term &term = terms[i];
    if (!decompose || !term.pairNext) {
      fn(workOf(term, length, context));
      continue;
    }
    // The matmul's work, with the collective beside it.
    bool gatherFirst = term.kind == Term::Kind::Collective;
    const Term &matmul = gatherFirst ? terms[i + 1] : term;
    const Term &collective = gatherFirst ? term : terms[i + 1];
    SliceWork work = workOf(matmul, length, context);
    SliceWork moved = workOf(collective, length, context);
    work.decomposed = collective.collective == CollectiveKind::AllGather
                          ? Decomposed::AllGather
                      : collective.collective == CollectiveKind::AllReduce
                          ? Decomposed::AllReduce
                          : Decomposed::ReduceScatter;
    work.collectiveOp = collective.op;
    work.collectiveBytes = moved.bytes;
    work.kind = collective.collective;
    auto coll = cast<CollectiveOpInterface>(collective.op);
    work.ring = coll.getGroupSize();
    auto type = cast<RankedTensorType>(collective.op->getResult(0).getType());
    work.collectiveElementBytes = std::max<int64_t>(
        getTensorBytes(type) / std::max<int64_t>(getNumElements(type), 1), 1);
    Value input = matmul.op->getOperand(0);
    work.inputBytes = getTensorBytes(input.getType()) *
                      (isTokenTensor(input.getType())
                           ? double(length) / double(tokens) * share
                           : share);
    ++i;
    // Every further matmul that reads the gathered tokens runs its partials
    // in the same steps (k and v after q; up after gate).
    if (gatherFirst)
      while (i + 1 < terms.size() &&
             terms[i + 1].kind == Term::Kind::Compute &&
             isa<LinearOp>(terms[i + 1].op) &&
             terms[i + 1].op->getOperand(0) == collective.op->getResult(0))
        work.alsoGathered.push_back(workOf(terms[++i], length, context));
    fn(work);
  }
}

double LayerSliceCost::ringBlockSeconds(const SliceWork &work) const {
  // The lowering's blocks: an equal share of the work each.
  double n = double(work.ringSteps);
  return model.taskTime(
      work.flops / n, work.bytes / n, work.elementBits, work.vectorOps / n,
      double(std::max<int64_t>(std::llround(work.steps / n), 1)));
}

double LayerSliceCost::computeSeconds(const SliceWork &work) const {
  if (work.ringSteps <= 1)
    return model.taskTime(work.flops, work.bytes, work.elementBits,
                          work.vectorOps, double(work.steps));
  double block = ringBlockSeconds(work);
  SmallVector<RingLink> links = ringLinks(model, spAxes, work.ringBytes);
  // (Without the group's axes, as in a bare cost query, the blocks are
  // priced as if they moved for free.)
  if (int64_t(links.size()) != work.ringSteps)
    links.assign(work.ringSteps, RingLink{});
  return ringSteadySeconds(block, links);
}

std::pair<double, double>
LayerSliceCost::ringLag(const SliceWork &work) const {
  // Only where tp ranks sit between the sp members (a stride above 1):
  // then a strided step's message crosses a tp group's links.
  if (work.ringSteps <= 1 ||
      llvm::none_of(spAxes, [](const GroupAxis &a) { return a.stride > 1; }))
    return {0, 0};
  double block = ringBlockSeconds(work);
  SmallVector<RingLink> links = ringLinks(model, spAxes, work.ringBytes);
  if (int64_t(links.size()) != work.ringSteps)
    return {0, 0};
  return {ringSeconds(block, links) - ringSteadySeconds(block, links), block};
}

bool LayerSliceCost::hasStridedRing() const {
  return llvm::any_of(spAxes,
                      [](const GroupAxis &a) { return a.stride > 1; }) &&
         llvm::any_of(terms, [](const Term &t) { return t.ringSteps > 1; });
}

void LayerSliceCost::addRingContention(ArrayRef<SliceWork> works,
                                       MutableArrayRef<double> seconds,
                                       ArrayRef<double> latency) const {
  // In the steady state (ringSteadySeconds) the members before a strided
  // step run `lag` ahead of the ones after it: the step's queue of
  // messages, which crosses a tp group's link on each side (the chips in
  // between are the tp ranks beside the members), is still going `lag`
  // (less the last block) after the senders' ring, and starts `lag` before
  // the receivers'. A tp collective that runs meanwhile shares that link
  // with it, at half its bandwidth (loom-sim's fair share between two
  // flows) while they overlap: over o seconds it loses o / 2, at most its
  // bandwidth term. The senders lose it after the ring (the compute before
  // their next collective shortens the overlap), the receivers before it
  // (the compute after their last collective does); every chip's layer
  // must fit in the period, so it grows by the larger loss.
  int64_t count = int64_t(works.size());
  auto isTensorCollective = [&](int64_t i) {
    return works[i].collective && !works[i].sequenceGroup &&
           works[i].decomposed == Decomposed::None;
  };
  for (int64_t i = 0; i < count; ++i) {
    auto [lag, block] = ringLag(works[i]);
    if (lag <= 0)
      continue;
    // Every tp collective within `window` of the ring, walking away from
    // it (forward or back, round the layer: the layers repeat), loses half
    // its overlap with the window, at most its bandwidth term; the first
    // one after the ring is charged.
    auto lost = [&](int64_t direction, double window, int64_t &first) {
      double total = 0, elapsed = 0;
      for (int64_t k = 1; k < count && elapsed < window; ++k) {
        int64_t j = ((i + direction * k) % count + count) % count;
        if (isTensorCollective(j)) {
          if (first < 0)
            first = j;
          // (Stretched while it overlaps: what is left of the window.)
          total += std::min(std::max(seconds[j] - latency[j], 0.0),
                            (window - elapsed) / 2);
        }
        elapsed += seconds[j];
      }
      return total;
    };
    int64_t after = -1, unused = -1;
    double senders = lost(+1, lag - block, after);
    double receivers = lost(-1, lag, unused);
    if (after < 0)
      continue;
    seconds[after] += std::max(senders, receivers);
  }
}

void LayerSliceCost::appendTimes(int64_t length, int64_t context,
                                 SmallVectorImpl<TaskTime> &times) const {
  SmallVector<SliceWork> works;
  size_t first = times.size();
  bool contend = hasStridedRing();
  forEachWork(length, context, [&](const SliceWork &work) {
    if (contend)
      works.push_back(work);
    if (work.decomposed != Decomposed::None) {
      // (Only with interleave 1, which sums the tasks: the planner and the
      // lowering refuse decomposition with units interleaved.)
      times.push_back({false, decomposedSeconds(model, work, axes)});
      return;
    }
    if (!work.collective) {
      // The simulator runs a compute task for its kernel step and roofline
      // (a ring's blocks hold the TensorCore between its transfers).
      times.push_back({false, computeSeconds(work)});
      return;
    }
    ArrayRef<GroupAxis> group = groupAxes(work);
    times.push_back({true, model.collectiveTime(work.kind, group, work.bytes),
                     model.collectiveTime(work.kind, group, 0),
                     work.subAxis});
  });
  if (!contend)
    return;
  SmallVector<double> seconds, latency;
  for (size_t i = first; i < times.size(); ++i) {
    seconds.push_back(times[i].seconds);
    latency.push_back(times[i].latency);
  }
  addRingContention(works, seconds, latency);
  for (size_t i = first; i < times.size(); ++i)
    times[i].seconds = seconds[i - first];
}

bool LayerSliceCost::pricesAs(const LayerSliceCost &other) const {
  auto sameAxes = [](ArrayRef<GroupAxis> a, ArrayRef<GroupAxis> b) {
    return llvm::equal(a, b);
  };
  auto price = [](const Term &t) {
    return std::make_tuple(t.kind, t.flops, t.scales, t.fixedBytes,
                           t.tokenBytes, t.pairFlops, t.contextBytes, t.cached,
                           t.window, t.vectorOps, t.steps, t.batchHeads,
                           t.headDim, t.kvElementBytes, t.queryBytes,
                           t.elementBits, t.collective, t.sequenceGroup,
                           t.subAxis, t.blockRanks, t.batchShards,
                           t.materialized, t.decodeQueryRows, t.newKVBytes,
                           t.ringSteps, t.ringBytes, t.absorbedPairFlops,
                           t.contextFlops, t.experts.held, t.experts.topK,
                           t.experts.experts, t.experts.tokens,
                           t.experts.bytesEach, t.pairNext);
  };
  return &model == &other.model && tokens == other.tokens &&
         share == other.share && decompose == other.decompose &&
         gatherBytes == other.gatherBytes &&
         sameAxes(axes, other.axes) && sameAxes(spAxes, other.spAxes) &&
         llvm::equal(terms, other.terms, [&](const Term &a, const Term &b) {
           return price(a) == price(b);
         });
}

SmallVector<GroupAxis> LayerSliceCost::kvGroupAxes(int64_t ranks) const {
  int64_t all = 1;
  for (const GroupAxis &axis : axes)
    all *= axis.size;
  if (ranks == all)
    return axes;
  return {GroupAxis{ranks, /*wraps=*/false}};
}

ArrayRef<GroupAxis> LayerSliceCost::groupAxes(const SliceWork &work) const {
  if (work.sequenceGroup)
    return spAxes;
  if (work.blockRanks > 0)
    return kvAxes;
  // A 2-D block's axes are its rows then its columns (stageGroupAxes).
  if (work.subAxis >= 0 && axes.size() == 2)
    return ArrayRef<GroupAxis>(axes).slice(work.subAxis, 1);
  return axes;
}

double LayerSliceCost::tensorLinkSeconds(int64_t length,
                                         int64_t context) const {
  double total = 0;
  forEachWork(length, context, [&](const SliceWork &work) {
    if (work.sequenceGroup)
      return;
    if (work.decomposed != Decomposed::None) {
      total += model.collectiveTime(work.kind, axes, work.collectiveBytes) -
               model.collectiveTime(work.kind, axes, 0);
      return;
    }
    if (!work.collective)
      return;
    ArrayRef<GroupAxis> group = groupAxes(work);
    total += model.collectiveTime(work.kind, group, work.bytes) -
             model.collectiveTime(work.kind, group, 0);
  });
  return total;
}

double LayerSliceCost::seconds(int64_t length, int64_t context) const {
  if (!hasStridedRing()) {
    double total = 0;
    forEachWork(length, context, [&](const SliceWork &work) {
      if (work.decomposed != Decomposed::None)
        total += decomposedSeconds(model, work, axes);
      else if (work.collective)
        total +=
            model.collectiveTime(work.kind, groupAxes(work), work.bytes);
      else
        total += computeSeconds(work);
    });
    return total;
  }
  SmallVector<SliceWork> works;
  SmallVector<double> times, latency;
  forEachWork(length, context, [&](const SliceWork &work) {
    works.push_back(work);
    if (work.decomposed != Decomposed::None) {
      times.push_back(decomposedSeconds(model, work, axes));
      latency.push_back(0);
      return;
    }
    if (!work.collective) {
      times.push_back(computeSeconds(work));
      latency.push_back(0);
      return;
    }
    ArrayRef<GroupAxis> group = groupAxes(work);
    times.push_back(model.collectiveTime(work.kind, group, work.bytes));
    latency.push_back(model.collectiveTime(work.kind, group, 0));
  });
  addRingContention(works, times, latency);
  double total = 0;
  for (double t : times)
    total += t;
  return total;
}

bool LayerSliceCost::supportsBatches() const {
  return !decompose &&
         llvm::none_of(terms, [](const Term &t) { return t.ringSteps > 1; });
}

double LayerSliceCost::kvBytesPerToken() const {
  double bytes = 0;
  for (const Term &term : terms)
    if (term.kind == Term::Kind::CausalAttention)
      bytes += term.contextBytes;
  return bytes;
}

void LayerSliceCost::forEachBatchWork(
    ArrayRef<SequenceSlice> sequences,
    function_ref<void(const SliceWork &)> fn) const {
  assert(supportsBatches() && "a ring or decomposed layer in a batch");
  int64_t tokensIn = 0;
  for (const SequenceSlice &sequence : sequences)
    tokensIn += sequence.length;
  for (const Term &term : terms) {
    if (term.kind == Term::Kind::CausalAttention) {
      fn(attentionBatchWork(term, sequences));
      continue;
    }
    SliceWork work = workOf(term, tokensIn, 0);
    // Per-sample work (a layer's batch of one) once per sequence.
    if (term.kind == Term::Kind::Compute && !term.scales) {
      work.flops *= double(sequences.size());
      work.vectorOps *= double(sequences.size());
    }
    fn(work);
  }
}

double LayerSliceCost::batchSeconds(ArrayRef<SequenceSlice> sequences) const {
  double total = 0;
  forEachBatchWork(sequences, [&](const SliceWork &work) {
    total += work.collective
                 ? model.collectiveTime(work.kind, groupAxes(work), work.bytes)
                 : computeSeconds(work);
  });
  return total;
}

SliceWork
LayerSliceCost::attentionBatchWork(const Term &term,
                                   ArrayRef<SequenceSlice> sequences) const {
  // One kernel over every sequence: their work adds up; the prompts'
  // flash blocks are grid steps each, the decodes share one step and
  // their cache writes (what a decode step of the whole batch runs).
  struct Kernel {
    SliceWork work;
    double steps = 0, decodeSteps = 0;
    void add(const SliceWork &w, bool decode) {
      work.flops += w.flops;
      work.bytes += w.bytes;
      work.vectorOps += w.vectorOps;
      if (decode)
        decodeSteps = std::max(decodeSteps, double(w.steps));
      else
        steps += double(w.steps);
    }
  };
  // kv_batch: each sequence's K/V, and its attention, on one of the
  // batchShards chips holding its KV head (a whole sequence of the op's
  // batch, which holds 1 / batchShards of the batch's sequences); the
  // engine gives each chip its sequences, the busiest one sets the time
  // (longest first onto the least loaded: LPT, within 4/3 of the best).
  int64_t shards = term.batchShards;
  double sequenceShare = share * double(shards);
  struct Sequence {
    double seconds;
    SliceWork work;
    bool decode;
  };
  SmallVector<Sequence, 64> works;
  for (const SequenceSlice &sequence : sequences) {
    SliceWork work =
        workOf(term, sequence.length, sequence.context, sequenceShare);
    works.push_back({shards > 1 ? computeSeconds(work) : 0, work,
                     isDecodeAttention(sequence.length, /*causal=*/true)});
  }
  SmallVector<Kernel, 4> kernels(shards);
  SmallVector<double, 4> load(shards, 0);
  if (shards > 1)
    llvm::stable_sort(works, [](const Sequence &a, const Sequence &b) {
      return a.seconds > b.seconds;
    });
  for (const Sequence &sequence : works) {
    size_t chip = std::min_element(load.begin(), load.end()) - load.begin();
    load[chip] += sequence.seconds;
    kernels[chip].add(sequence.work, sequence.decode);
  }
  // The busiest chip's kernel (every chip's, without kv_batch).
  SliceWork slowest;
  double slowestSeconds = -1;
  for (Kernel &kernel : kernels) {
    kernel.work.op = term.op;
    kernel.work.elementBits = term.elementBits;
    kernel.work.steps =
        std::max<int64_t>(std::llround(kernel.steps + kernel.decodeSteps), 1);
    double seconds = computeSeconds(kernel.work);
    if (seconds > slowestSeconds) {
      slowestSeconds = seconds;
      slowest = kernel.work;
    }
  }
  return slowest;
}

double LayerSliceCost::gatherSeconds() const {
  return model.weightGatherTime(axes, gatherBytes);
}

int64_t loom::tasksOf(const SliceWork &work) {
  if (work.decomposed != Decomposed::None) {
    DecomposedParts parts = decomposeParts(work);
    int64_t steps = work.ring - 1;
    return int64_t(parts.partials.size()) * work.ring +
           steps * (parts.bothWays ? 4 : 2) +
           (work.decomposed == Decomposed::AllGather ? 0 : steps) +
           (work.decomposed == Decomposed::AllReduce ? 2 : 0);
  }
  if (work.collective)
    return 2;
  if (work.ringSteps > 1)
    return work.ringSteps + 2 * (work.ringSteps - 1);
  return 1;
}
