//===- StageCost.cpp - what slices of a layer and a stage cost ------------===//

#include "loom/Analysis/StageCost.h"

#include "loom/Dialect/Loom/ModelCost.h"
#include "loom/Hardware/DeviceMesh.h"

#include <cmath>
#include <limits>


using namespace mlir;
using namespace loom;

static bool isTokenTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 3;
}

LayerSliceCost::LayerSliceCost(LayerOp layer, const CostModel &model,
                               ArrayRef<GroupAxis> tpAxes, int64_t tokens,
                               ArrayRef<GroupAxis> spAxes,
                               int64_t microbatches)
    : model(model), axes(tpAxes.begin(), tpAxes.end()),
      spAxes(spAxes.begin(), spAxes.end()), tokens(tokens),
      share(1.0 / double(std::max<int64_t>(microbatches, 1))) {
  for (Operation &op : layer.getBody().front())
    addOp(op);
}

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
  // Weight-gathered: no task of the layer's own; the stage prefetches it.
  if (auto gather = dyn_cast<GatherWeightsOp>(op)) {
    gatherBytes += double(gather.getBytes());
    return;
  }
  auto cost = dyn_cast<CostOpInterface>(op);
  if (!cost || isa<YieldOp, LocalShardOp, LayerOp>(op))
    return;
  int64_t tile = model.getTarget().mxuTile;
  Term term;
  term.kind = Term::Kind::Compute;
  term.op = &op;
  term.elementBits = cost.getComputeBits();
  double moved = cost.getBytesRead() + cost.getBytesWritten();
  if (auto collective = dyn_cast<CollectiveOpInterface>(op)) {
    term.kind = Term::Kind::Collective;
    term.collective = collective.getCollectiveKind();
    term.sequenceGroup = isBesideGroup(collective.getGroup());
    term.subAxis = collective.getGroup() == kTensorXGroup   ? 0
                   : collective.getGroup() == kTensorYGroup ? 1
                                                            : -1;
    (isTokenTensor(op.getOperand(0).getType())
         ? term.tokenBytes
         : term.fixedBytes) = collective.getCollectiveBytes();
    terms.push_back(term);
    markPair();
    return;
  }
  if (auto ring = dyn_cast<RingAttentionOp>(op); ring && ring.getCausal()) {
    // Striped causal ring: per pair at the full sequence, rescaled by the
    // pairs a slice visits over its context (forEachWork).
    term.kind = Term::Kind::CausalAttention;
    term.ringSteps = ring.getGroupSize();
    term.window = ring.getWindow().value_or(0);
    term.pairFlops =
        double(cost.getPaddedFlops(tile)) / double(ring.getScorePairs());
    auto kType = cast<RankedTensorType>(ring.getK().getType());
    int64_t elementBytes = getElementBytes(kType);
    double kvPerToken = double(getNumElements(kType)) / kType.getDimSize(1);
    term.contextBytes = 2.0 * kvPerToken * elementBytes;
    term.batchHeads = kType.getDimSize(0) * ring.getHeads();
    term.headDim = model.padToMXU(ring.getHeadDim());
    term.kvElementBytes = elementBytes;
    term.queryBytes = getTensorBytes(ring.getQ().getType()) +
                      getTensorBytes(ring.getResult().getType());
    terms.push_back(term);
    return;
  }
  if (auto attn = dyn_cast<AttentionOp>(op); attn && attn.getCausal()) {
    auto qType = cast<RankedTensorType>(attn.getQ().getType());
    if (attn.getKvScalesAcrossHeads() &&
        isDecodeAttention(qType.getDimSize(1), /*causal=*/true)) {
      // One scale a sequence over all heads, for K and for V: a cross-chip
      // max of each (bf16, one a sequence) before the cache write.
      Term scale = term;
      scale.kind = Term::Kind::Collective;
      scale.collective = CollectiveKind::AllReduce;
      scale.fixedBytes = 2.0 * qType.getDimSize(0);
      terms.push_back(scale);
      terms.push_back(scale);
    }
    // Per pair at the full sequence, then rescaled by the pairs a slice
    // visits; the K/V of the context is read from the cache.
    term.kind = Term::Kind::CausalAttention;
    term.pairFlops =
        double(cost.getPaddedFlops(tile)) / double(attn.getScorePairs());
    auto kType = cast<RankedTensorType>(attn.getK().getType());
    double kvPerToken = double(getNumElements(kType)) / kType.getDimSize(1);
    term.contextBytes = 2.0 * kvPerToken * attn.getKVElementBytes();
    term.cached = attn.getCached();
    term.window = attn.getWindow().value_or(0);
    term.tokenBytes = getTensorBytes(op.getOperandTypes()) +
                      getTensorBytes(op.getResultTypes());
    // The flash kernel's blocks (flashAttentionWork), sized per slice.
    term.batchHeads = kType.getDimSize(0) * attn.getHeads();
    term.headDim = model.padToMXU(attn.getHeadDim());
    term.kvElementBytes = attn.getKVElementBytes();
    term.queryBytes = getTensorBytes(attn.getQ().getType()) +
                      getTensorBytes(attn.getResult().getType());
    term.materialized = attn.getMaterializedScores();
    term.decodeQueryRows = attn.getDecodeQueryRows().value_or(1);
    term.newKVBytes = getTensorBytes(attn.getK().getType()) +
                      getTensorBytes(attn.getV().getType());
    terms.push_back(term);
    return;
  }
  KernelWork work = getKernelWork(model, cost);
  term.flops = work.flops;
  term.vectorOps = work.vectorOps;
  term.steps = work.steps;
  term.fixedBytes = cost.getParameterBytes();
  // Routed experts: only the weights of the experts a pass touches are read.
  if (isa<MoEExpertsOp>(op))
    term.fixedBytes = cost.getBytesRead() -
                      double(getTensorBytes(op.getOperandTypes()));
  // A gather reads the rows its tokens pick (its bytes read), not the
  // table it holds: nothing a slice reads again.
  if (isa<EmbedOp>(op))
    term.fixedBytes = 0;
  if (!llvm::any_of(op.getResultTypes(), isTokenTensor)) {
    // Per-sample work (adaLN vectors, embedders): every slice repeats it.
    term.fixedBytes = moved;
    term.scales = false;
  } else if (auto ring = dyn_cast<RingAttentionOp>(op)) {
    // Every query block of the slice attends to every K/V block of the
    // ring; the blocks go round whole whatever the slice (PipeFusion's
    // stale K/V included).
    term.fixedBytes = 0;
    term.tokenBytes = work.bytes;
    term.ringSteps = ring.getGroupSize();
    term.ringBytes = double(ring.getBlockBytes());
  } else if (isa<AttentionOp, JointAttentionOp>(op)) {
    // Full (DiT), cross or joint attention as the flash kernel runs it: a
    // slice's query blocks each read the K/V blocks, so all of its traffic
    // scales with the slice. A joint ring's blocks go round whole, as a
    // ring attention's.
    term.fixedBytes = 0;
    term.tokenBytes = work.bytes;
    if (auto joint = dyn_cast<JointAttentionOp>(op);
        joint && joint.getRingSteps() > 1) {
      term.ringSteps = joint.getRingSteps();
      term.ringBytes = double(joint.getRingBlockBytes());
    }
  } else {
    term.tokenBytes = moved - term.fixedBytes;
  }
  // An elementwise op joins its producer's kernel (as XLA fuses it).
  auto kernelRoot = [&](Operation *producer) -> Operation * {
    auto it = kernelOf.find(producer);
    return it == kernelOf.end() ? nullptr : terms[it->second].op;
  };
  if (Operation *producer = findFusionProducer(&op, kernelRoot)) {
    size_t index = kernelOf[producer];
    Term &kernel = terms[index];
    kernel.flops += term.flops;
    kernel.vectorOps += term.vectorOps;
    kernel.fixedBytes += term.fixedBytes;
    kernel.tokenBytes += term.tokenBytes;
    (term.scales ? kernel.tokenBytes : kernel.fixedBytes) -=
        getFusedSavings(getFusedOperand(&op, producer));
    kernel.fused.push_back(&op);
    kernelOf[&op] = index;
    return;
  }
  kernelOf[&op] = terms.size();
  terms.push_back(term);
  markPair();
}

/// Whether `op` is a tensor-parallel collective over the tokens of a token
/// tensor (its rows) that a matmul beside it can run as ring steps.
static bool isDecomposableCollective(Operation *op) {
  auto collective = dyn_cast_or_null<CollectiveOpInterface>(op);
  // (Not over a 2-D group's sub-groups: their rings are not built.)
  if (!collective || isBesideGroup(collective.getGroup()) ||
      collective.getGroup() == kTensorXGroup ||
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
    work.flops = term.pairFlops * pairs * share;
    if (decode) {
      work.bytes = term.tokenBytes * fraction +
                   term.contextBytes * seen * share + cacheWrite;
      work.vectorOps = term.batchHeads * share * pairs * kFlashScoreOps;
      work.steps = 1 + writeSteps;
      break;
    }
    FlashAttentionWork flash = flashAttentionWork(
        batchHeads, term.headDim, length, before, 0, /*causal=*/true,
        term.window, term.kvElementBytes);
    work.bytes = term.queryBytes * fraction + flash.kvBytes;
    work.vectorOps = flash.vectorOps;
    work.steps = std::llround(flash.steps);
    break;
  }
  case Term::Kind::Compute:
    // Per-sample work follows the batch, not the slice.
    work.flops = term.flops * (term.scales ? fraction : share);
    work.vectorOps = term.vectorOps * (term.scales ? fraction : share);
    // A flash kernel's grid shrinks with the slice's query blocks.
    work.steps = std::max<int64_t>(
        std::llround(term.scales ? term.steps * fraction : term.steps), 1);
    work.bytes = term.fixedBytes + term.tokenBytes * fraction;
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

SmallVector<RingLink> loom::ringLinks(const CostModel &model,
                                     ArrayRef<GroupAxis> spAxes,
                                     double bytes) {
  // The members' offsets on the grid of sp chips, in the order the
  // lowering walks them (DeviceMesh's ring walk of the same grid; the axes
  // are the grid's, axis 0 first, those of size 1 left out).
  GroupAxis none{1, false, 1};
  const GroupAxis &rows = spAxes.size() == 2 ? spAxes[0] : none;
  const GroupAxis &cols = spAxes.empty() ? none : spAxes.back();
  SmallVector<ChipCoord> walk = DeviceMesh::ringWalk(rows.size, cols.size);
  SmallVector<RingLink> links;
  if (walk.size() <= 1)
    return links;
  const TargetDesc &target = model.getTarget();
  double perByte =
      1.0 / (model.linkEfficiency(/*ring=*/false) * target.linkBandwidth);
  for (size_t k = 0; k < walk.size(); ++k) {
    const ChipCoord &from = walk[k], &to = walk[(k + 1) % walk.size()];
    // Each axis's steps cost `stride` hops (the shorter way round when the
    // axis wraps); the `stride` rings interleaved with this one share those
    // links. The last member's message back to the first crosses n - 1
    // steps on a line, over the links the others use the other way round.
    int64_t hops = 0, share = 1;
    for (auto [axis, d] : {std::pair{&rows, std::abs(to[0] - from[0])},
                           std::pair{&cols, std::abs(to[1] - from[1])}}) {
      if (d == 0)
        continue;
      if (axis->wraps)
        d = std::min(d, axis->size - d);
      hops += d * axis->stride;
      share = std::max(share, axis->stride);
    }
    links.push_back(
        {double(hops) * target.hopLatency, bytes * double(share) * perByte});
  }
  return links;
}

double loom::ringSeconds(double compute, ArrayRef<RingLink> links) {
  int64_t n = int64_t(links.size());
  if (n <= 1)
    return compute;
  // Block s (s >= 1) of a chip starts once block s - 1 is done and the K/V
  // block of the member s back has come over the s links between them (a
  // chip passes a block on as it arrives): the busiest chain of s
  // consecutive links, then the chip's n - s blocks.
  SmallVector<double> prefix(2 * n + 1, 0);
  double busiest = 0;
  for (int64_t i = 0; i < 2 * n; ++i)
    prefix[i + 1] = prefix[i] + links[i % n].seconds();
  // And every link carries n - 1 blocks one after another, each with its
  // latency (a chip sends its next block once its last has arrived, so a
  // lone ring on a line pays the way back's latency every step), then the
  // last block. In a plan the chips stagger over the layers, the ones
  // after a slow link starting later: ringSteadySeconds.
  for (const RingLink &link : links)
    busiest = std::max(busiest, double(n - 1) * link.seconds());
  double total = std::max(double(n) * compute, busiest + compute);
  for (int64_t s = 1; s < n; ++s) {
    double chain = 0;
    for (int64_t k = 0; k < n; ++k)
      chain = std::max(chain, prefix[k + s] - prefix[k]);
    total = std::max(total, chain + double(n - s) * compute);
  }
  return total;
}

double loom::ringSteadySeconds(double compute, ArrayRef<RingLink> links) {
  int64_t n = int64_t(links.size());
  if (n <= 1)
    return compute;
  // Links all alike (a ring of neighbours: a wrapping axis, a block's
  // cycle): no chip falls behind another, and the largest cycle mean below
  // is the lone ring's, max(n c, (n - 1) l + c): every edge but the
  // self-loops (n c) weighs at least (n - 1) l + c, none more than the
  // larger of the two, and n edges of one link each close a cycle of
  // (n - 1) l + c. Karp's walks cost O(n^3), so that case is taken here.
  if (llvm::all_of(links, [&](const RingLink &link) {
        return link.seconds() == links.front().seconds();
      }))
    return ringSeconds(compute, links);
  // Layer after layer (the lowering runs the same ring every layer, with
  // the layer's other work W between two rings on every chip) a chip does
  // not wait for the others to start: members whose blocks come over a
  // slow link fall behind the ones that feed it, and the ring's cost per
  // layer is the steady state's period less W. Each bound is an edge from
  // one chip's ring start R_i to another's end E_j (E_j >= R_i + w, then
  // R_j of the next layer = E_j + W): block s of chip p comes from p - s
  // over s links (chain + (n - s) c), and link k's n - 1 - s messages
  // after block s reached chip k (the chain to k, then the messages one
  // after another, each with its latency, as the lowering sends the next
  // once the last has arrived; then the last block's compute). The period
  // is the max-plus system's largest cycle mean (Karp 1978), W on every
  // edge: the ring's is that of these weights, at most the largest edge
  // (ringSeconds, the ring alone: every chip starting at once).
  SmallVector<double> prefix(2 * n + 1, 0);
  for (int64_t i = 0; i < 2 * n; ++i)
    prefix[i + 1] = prefix[i] + links[i % n].seconds();
  auto chain = [&](int64_t from, int64_t s) {
    return prefix[from + s] - prefix[from];
  };
  const double none = -std::numeric_limits<double>::infinity();
  // weight[i][j]: the largest bound from chip i's start to chip j's end.
  std::vector<std::vector<double>> weight(n, std::vector<double>(n, none));
  for (int64_t p = 0; p < n; ++p) {
    weight[p][p] = double(n) * compute;
    for (int64_t s = 1; s < n; ++s) {
      int64_t i = (p + n - s) % n;
      weight[i][p] =
          std::max(weight[i][p], chain(i, s) + double(n - s) * compute);
    }
    const RingLink &link = links[p];
    for (int64_t s = 0; s + 1 < n; ++s) {
      int64_t i = (p + n - s) % n, j = (p + 1) % n;
      weight[i][j] = std::max(weight[i][j],
                              chain(i, s) + double(n - 1 - s) * link.seconds() +
                                  compute);
    }
  }
  // Karp: walks of exactly k edges from chip 0.
  std::vector<std::vector<double>> walk(n + 1, std::vector<double>(n, none));
  walk[0][0] = 0;
  for (int64_t k = 1; k <= n; ++k)
    for (int64_t i = 0; i < n; ++i)
      if (walk[k - 1][i] > none)
        for (int64_t j = 0; j < n; ++j)
          if (weight[i][j] > none)
            walk[k][j] = std::max(walk[k][j], walk[k - 1][i] + weight[i][j]);
  double period = 0;
  for (int64_t v = 0; v < n; ++v) {
    if (walk[n][v] == none)
      continue;
    double least = std::numeric_limits<double>::infinity();
    for (int64_t k = 0; k < n; ++k)
      if (walk[k][v] > none)
        least = std::min(least, (walk[n][v] - walk[k][v]) / double(n - k));
    period = std::max(period, least);
  }
  return std::min(period, ringSeconds(compute, links));
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

DecomposedParts loom::decomposeParts(const SliceWork &work) {
  DecomposedParts parts;
  double n = double(work.ring);
  auto addPartial = [&](const SliceWork &whole) {
    SliceWork &partial = parts.partials.emplace_back();
    partial.op = whole.op;
    partial.elementBits = whole.elementBits;
    partial.fused = whole.fused;
    // 1/n of the rows: of the FLOPs, the vector work and the token
    // traffic; every partial reads the weights again.
    partial.flops = whole.flops / n;
    partial.vectorOps = whole.vectorOps / n;
    partial.fixedBytes = whole.fixedBytes;
    partial.bytes = whole.fixedBytes + (whole.bytes - whole.fixedBytes) / n;
    // An all-reduce's reduce-scatter half may scatter any dimension, since
    // its all-gather half gathers it back: the output columns, so the
    // weights are read once in all and the input by every partial.
    if (work.decomposed == Decomposed::AllReduce)
      partial.bytes = whole.inputBytes + (whole.bytes - whole.inputBytes) / n;
    partial.steps = std::max<int64_t>(std::llround(whole.steps / n), 1);
  };
  addPartial(work);
  for (const SliceWork &also : work.alsoGathered)
    addPartial(also);
  double block = work.collectiveBytes / n;
  // A received partial sum added to the chip's own: both read, one written.
  SliceWork &accumulate = parts.accumulate;
  accumulate.op = work.collectiveOp;
  accumulate.bytes = 3 * block;
  accumulate.vectorOps = block / double(work.collectiveElementBytes);
  parts.bothWays = work.ring > 2;
  parts.messageBytes = parts.bothWays ? block / 2 : block;
  return parts;
}

double loom::decomposedSeconds(const CostModel &model, const SliceWork &work,
                               ArrayRef<GroupAxis> axes) {
  DecomposedParts parts = decomposeParts(work);
  const TargetDesc &target = model.getTarget();
  auto timeOf = [&](const SliceWork &w) {
    return model.taskTime(w.flops, w.bytes, w.elementBits, w.vectorOps,
                          double(w.steps));
  };
  double p = 0;
  for (const SliceWork &partial : parts.partials)
    p += timeOf(partial);
  // One hop to a ring neighbour (the lowering refuses a ring that is not).
  double t = target.hopLatency +
             parts.messageBytes /
                 (model.linkEfficiency(/*ring=*/false) * target.linkBandwidth);
  int64_t n = work.ring;
  if (work.decomposed == Decomposed::AllGather) {
    // Partial k needs the block that arrives at k t.
    double core = p;
    for (int64_t k = 1; k < n; ++k)
      core = std::max(core, double(k) * t) + p;
    return core;
  }
  double a = timeOf(parts.accumulate);
  double core = p, arrive = p + t;
  for (int64_t k = 1; k < n; ++k) {
    core = std::max(core + p, arrive) + a;
    arrive = core + t;
  }
  if (work.decomposed == Decomposed::AllReduce)
    core += model.collectiveTime(CollectiveKind::AllGather, axes,
                                 work.collectiveBytes);
  return core;
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
                           t.subAxis,
                           t.materialized, t.decodeQueryRows, t.newKVBytes,
                           t.ringSteps,
                           t.ringBytes, t.pairNext);
  };
  return &model == &other.model && tokens == other.tokens &&
         share == other.share && decompose == other.decompose &&
         gatherBytes == other.gatherBytes &&
         sameAxes(axes, other.axes) && sameAxes(spAxes, other.spAxes) &&
         llvm::equal(terms, other.terms, [&](const Term &a, const Term &b) {
           return price(a) == price(b);
         });
}

ArrayRef<GroupAxis> LayerSliceCost::groupAxes(const SliceWork &work) const {
  if (work.sequenceGroup)
    return spAxes;
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

double LayerSliceCost::gatherSeconds() const {
  return model.weightGatherTime(axes, gatherBytes);
}

double loom::weightGatheredSeconds(double before, ArrayRef<double> compute,
                                   ArrayRef<double> gather) {
  if (compute.empty())
    return before;
  double total = std::max(before, gather.front());
  for (size_t i = 0; i + 1 < compute.size(); ++i)
    total += std::max(compute[i], gather[i + 1]);
  return total + compute.back();
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

StageSliceCost::StageSliceCost(ArrayRef<LayerOp> layers, const CostModel &model,
                               ArrayRef<GroupAxis> axes, int64_t tokens,
                               int64_t stages, ArrayRef<GroupAxis> spAxes,
                               int64_t microbatches)
    : stageLayers(stages), kindOf(stages),
      boundaryBytes(std::max<int64_t>(stages - 1, 0)),
      tokens(tokens), microbatches(std::max<int64_t>(microbatches, 1)),
      hopLatency(model.getTarget().hopLatency),
      linkBandwidth(model.linkEfficiency(/*ring=*/false) *
                    model.getTarget().linkBandwidth) {
  for (LayerOp layer : layers) {
    int64_t stage = LayerOp(layer).getStage().value_or(0);
    stageLayers[stage].emplace_back(layer, model, axes, tokens, spAxes,
                                    this->microbatches);
    // Layers are in order, so a stage's last layer writes last.
    if (stage + 1 < stages)
      boundaryBytes[stage] = getTensorBytes(layer->getResultTypes());
  }
  for (auto [stage, costs] : llvm::enumerate(stageLayers))
    for (auto [index, layer] : llvm::enumerate(costs)) {
      auto same = llvm::find_if(kinds, [&](std::pair<unsigned, unsigned> kind) {
        return stageLayers[kind.first][kind.second].pricesAs(layer);
      });
      kindOf[stage].push_back(same - kinds.begin());
      if (same == kinds.end())
        kinds.push_back({unsigned(stage), unsigned(index)});
    }
  if (layers.empty())
    return;
  SmallVector<Operation *> before, after;
  for (Operation &op : *layers.front()->getBlock()) {
    if (isa<LayerOp>(op))
      continue;
    (op.isBeforeInBlock(layers.front()) ? before : after).push_back(&op);
  }
  prologue.emplace(before, model, axes, tokens, spAxes, this->microbatches);
  epilogue.emplace(after, model, axes, tokens, spAxes, this->microbatches);
}

void StageSliceCost::setDecompose(bool on) {
  for (std::vector<LayerSliceCost> &stage : stageLayers)
    for (LayerSliceCost &layer : stage)
      layer.setDecompose(on);
  if (prologue)
    prologue->setDecompose(on);
  if (epilogue)
    epilogue->setDecompose(on);
}

int64_t StageSliceCost::tasksPerRank(int64_t length) const {
  auto count = [&](const LayerSliceCost &layer) {
    int64_t tasks = 0;
    layer.forEachWork(length, 0,
                      [&](const SliceWork &work) { tasks += tasksOf(work); });
    return tasks;
  };
  SmallVector<std::optional<int64_t>, 4> counted(kinds.size());
  int64_t tasks = 0;
  for (const SmallVector<unsigned> &stage : kindOf)
    for (unsigned kind : stage) {
      if (!counted[kind]) {
        auto [s, index] = kinds[kind];
        counted[kind] = count(stageLayers[s][index]);
      }
      tasks += *counted[kind];
      // Weight-gathered: the buffer's allocation and release and the
      // gather's start and done.
      if (stageLayers[kinds[kind].first][kinds[kind].second]
              .getGatherBytes() > 0)
        tasks += 4;
    }
  if (prologue)
    tasks += count(*prologue);
  if (epilogue)
    tasks += count(*epilogue);
  return tasks;
}

bool StageSliceCost::hasDecomposable() const {
  for (const std::vector<LayerSliceCost> &stage : stageLayers)
    for (const LayerSliceCost &layer : stage)
      if (layer.hasDecomposable())
        return true;
  return (prologue && prologue->hasDecomposable()) ||
         (epilogue && epilogue->hasDecomposable());
}

double StageSliceCost::transferSeconds(int64_t stage, int64_t length) const {
  if (stage == 0)
    return hopLatency;
  return hopLatency + boundaryBytesInto(stage, length) / linkBandwidth;
}

double StageSliceCost::stageSeconds(int64_t stage, int64_t length,
                                    int64_t context) const {
  SmallVector<std::optional<double>, 4> priced(kinds.size());
  return stageSeconds(stage, length, context, priced);
}

double StageSliceCost::stageSeconds(
    int64_t stage, int64_t length, int64_t context,
    SmallVectorImpl<std::optional<double>> &priced) const {
  // Each kind of layer priced once; the sum still adds every layer in
  // order, so it is the same to the bit (the search's DPs price thousands
  // of slices per plan, each over every layer: issue 19, item 5).
  double total = 0;
  bool gathered = false;
  SmallVector<double> compute, gather;
  for (unsigned kind : kindOf[stage]) {
    const LayerSliceCost &layer =
        stageLayers[kinds[kind].first][kinds[kind].second];
    if (!priced[kind])
      priced[kind] = layer.seconds(length, context);
    total += *priced[kind];
    compute.push_back(*priced[kind]);
    gather.push_back(layer.gatherSeconds());
    gathered |= layer.getGatherBytes() > 0;
  }
  double before =
      stage == 0 && prologue ? prologue->seconds(length, context) : 0;
  // Weight-gathered: each layer's gather prefetched under the one before.
  if (gathered)
    total = weightGatheredSeconds(before, compute, gather);
  else
    total += before;
  if (stage + 1 == getStages() && epilogue)
    total += epilogue->seconds(length, context);
  return total;
}

double StageSliceCost::tensorLinkShare(int64_t stage, int64_t length) const {
  double busy = 0;
  for (const LayerSliceCost &layer : stageLayers[stage])
    busy += layer.tensorLinkSeconds(length, 0);
  double total = stageSeconds(stage, length, 0);
  return total > 0 ? std::min(1.0, busy / total) : 0.0;
}

SmallVector<TaskTime> StageSliceCost::stageTasks(int64_t stage, int64_t length,
                                                int64_t context) const {
  SmallVector<TaskTime> times;
  if (stage == 0 && prologue)
    prologue->appendTimes(length, context, times);
  for (const LayerSliceCost &layer : stageLayers[stage])
    layer.appendTimes(length, context, times);
  if (stage + 1 == getStages() && epilogue)
    epilogue->appendTimes(length, context, times);
  return times;
}

double StageSliceCost::operator()(int64_t length, int64_t context) const {
  double slowest = 0;
  SmallVector<std::optional<double>, 4> priced(kinds.size());
  for (int64_t s = 0; s < getStages(); ++s)
    slowest = std::max(slowest, stageSeconds(s, length, context, priced));
  return slowest;
}

PipelinePrediction loom::playPipeline(ArrayRef<PipelineUnit> units,
                                      int64_t steps, int64_t warmup) {
  PipelinePrediction prediction;
  if (units.empty())
    return prediction;
  int64_t stages = units.front().work.size();
  SmallVector<double> free(stages, 0.0), busy(stages, 0.0);
  // When each unit of the previous step left the last stage.
  SmallVector<double> left(units.size(), 0.0), leaving(units.size(), 0.0);
  // The state after the previous step (each stage's free time, then each
  // unit's leaving time) and the stages' busy time then.
  SmallVector<double> previous, state;
  SmallVector<double> busyBefore;
  for (int64_t step = 0; step < steps; ++step) {
    for (auto [i, unit] : llvm::enumerate(units)) {
      double arrived = 0;
      if (step > 0 && stages > 1) {
        // Back from the last stage; during warm-up, all of the last step.
        bool barrier = step - 1 < warmup;
        arrived = (barrier ? *llvm::max_element(left) : left[i]) +
                  unit.handover[0];
      }
      for (int64_t s = 0; s < stages; ++s) {
        if (s > 0)
          arrived += unit.handover[s];
        double start = std::max(arrived, free[s]);
        free[s] = arrived = start + unit.work[s];
        busy[s] += unit.work[s];
      }
      leaving[i] = arrived;
    }
    std::swap(left, leaving);
    // Past the warm-up every step is the same max-plus map of the state
    // before it (each stage's free time and each unit's return), so once a
    // step shifts the whole state by one delta, every later step shifts it
    // by the same delta: the rest are added, not played (a long video's
    // thousands of patches over 50 steps would otherwise cost seconds per
    // prediction).
    state.assign(free.begin(), free.end());
    state.append(left.begin(), left.end());
    if (step > warmup && !previous.empty()) {
      double delta = state.front() - previous.front();
      double scale = std::max(1.0, std::abs(state.back()));
      bool periodic = llvm::all_of(llvm::seq<size_t>(0, state.size()),
                                   [&](size_t k) {
                                     return std::abs(state[k] - previous[k] -
                                                     delta) <= 1e-12 * scale;
                                   });
      if (periodic) {
        double rest = double(steps - 1 - step);
        for (int64_t s = 0; s < stages; ++s) {
          free[s] += rest * delta;
          busy[s] += rest * (busy[s] - busyBefore[s]);
        }
        break;
      }
    }
    previous = state;
    busyBefore.assign(busy.begin(), busy.end());
  }
  prediction.seconds = free[stages - 1];
  if (prediction.seconds > 0)
    prediction.bubble = 1 - *llvm::max_element(busy) / prediction.seconds;
  return prediction;
}

double loom::playInterleaved(ArrayRef<SmallVector<TaskTime>> chains) {
  size_t n = chains.size();
  // The compute tasks in zipped order: (unit, task).
  SmallVector<std::pair<size_t, size_t>> order;
  size_t longest = 0;
  for (const SmallVector<TaskTime> &chain : chains)
    longest = std::max(longest, chain.size());
  for (size_t i = 0; i < longest; ++i)
    for (size_t u = 0; u < n; ++u)
      if (i < chains[u].size() && !chains[u][i].collective)
        order.push_back({u, i});
  // Per unit: its next task and whether that task runs; per running
  // collective, the fraction of it left.
  SmallVector<size_t> next(n, 0);
  SmallVector<bool> running(n, false);
  SmallVector<double> left(n, 0);
  size_t pc = 0;
  double now = 0, coreEnd = 0;
  int64_t onCore = -1;
  const double inf = std::numeric_limits<double>::infinity();
  while (true) {
    // Start whatever may start now.
    for (size_t u = 0; u < n; ++u)
      if (!running[u] && next[u] < chains[u].size() &&
          chains[u][next[u]].collective) {
        running[u] = true;
        left[u] = 1;
      }
    if (onCore < 0 && pc < order.size()) {
      auto [u, i] = order[pc];
      if (!running[u] && next[u] == i) {
        running[u] = true;
        onCore = u;
        coreEnd = now + chains[u][i].seconds;
        ++pc;
      }
    }
    // The next end: the core's, or the first collective's at its share.
    // A collective alone takes its seconds: its steps' latencies L and
    // transfers B. Beside others, its transfers share the links with theirs
    // but not with their latencies, when the links are theirs alone: it
    // takes L + B (1 + sum of the others' busy fractions), a collective's
    // busy fraction being its transfers' share of its span (a fixed point;
    // three rounds settle it). loom-sim's flows give every transfer on a
    // link an equal share and run each step's latency after its transfer.
    SmallVector<double> spans(n, 0), busy(n, 0);
    for (size_t u = 0; u < n; ++u)
      busy[u] = running[u] && int64_t(u) != onCore;
    // (Collectives on different axes of a 2-D block share no links.)
    auto share = [&](size_t u, size_t v) {
      int a = chains[u][next[u]].links, b = chains[v][next[v]].links;
      return a < 0 || b < 0 || a == b;
    };
    for (int round = 0; round < 3; ++round) {
      for (size_t u = 0; u < n; ++u) {
        if (!running[u] || int64_t(u) == onCore)
          continue;
        double others = 0;
        for (size_t v = 0; v < n; ++v)
          if (v != u && busy[v] > 0 && share(u, v))
            others += busy[v];
        const TaskTime &task = chains[u][next[u]];
        double transfer = task.seconds - task.latency;
        spans[u] = task.latency + transfer * (1 + others);
      }
      for (size_t u = 0; u < n; ++u)
        if (running[u] && int64_t(u) != onCore)
          busy[u] = spans[u] > 0 ? (spans[u] - chains[u][next[u]].latency) /
                                       spans[u]
                                 : 0;
    }
    auto span = [&](size_t u) { return spans[u]; };
    double until = onCore >= 0 ? coreEnd : inf;
    int64_t first = -1; // the collective that ends first, if before the core
    for (size_t u = 0; u < n; ++u)
      if (running[u] && int64_t(u) != onCore &&
          now + left[u] * span(u) < until) {
        until = now + left[u] * span(u);
        first = u;
      }
    if (until == inf)
      break;
    for (size_t u = 0; u < n; ++u)
      if (running[u] && int64_t(u) != onCore) {
        double whole = span(u);
        left[u] = whole > 0 ? left[u] - (until - now) / whole : 0;
        // The first to end ends exactly (rounding must not keep it alive).
        if (int64_t(u) == first || left[u] <= 1e-12) {
          running[u] = false;
          ++next[u];
        }
      }
    now = until;
    if (onCore >= 0 && coreEnd <= now) {
      running[onCore] = false;
      ++next[onCore];
      onCore = -1;
    }
  }
  return now;
}

PipelinePrediction loom::playVirtualStages(ArrayRef<PipelineUnit> units,
                                           int64_t stages) {
  PipelinePrediction prediction;
  if (units.empty() || stages < 1)
    return prediction;
  int64_t chunks = units.front().work.size();
  int64_t v = chunks / stages;
  int64_t n = units.size();
  // Each stage's program: groups of K units; per group, chunk s for each
  // unit, then chunk s + K for each, ... (Megatron's order).
  SmallVector<SmallVector<std::pair<int64_t, int64_t>>> program(stages);
  for (int64_t first = 0; first < n; first += stages)
    for (int64_t j = 0; j < v; ++j)
      for (int64_t s = 0; s < stages; ++s)
        for (int64_t u = first; u < std::min(first + stages, n); ++u)
          program[s].push_back({u, j * stages + s});
  // done[u][c]: when unit u's chunk c ends (negative: not yet played).
  std::vector<std::vector<double>> done(n, std::vector<double>(chunks, -1));
  SmallVector<size_t> next(stages, 0);
  SmallVector<double> free(stages, 0.0), busy(stages, 0.0);
  // Play each stage as far as its next task's input has been computed; the
  // order is deadlock-free (a unit's chunk c - 1 comes earlier in the
  // order (group, round, unit + stage)), so every sweep advances.
  for (bool progressed = true; progressed;) {
    progressed = false;
    for (int64_t s = 0; s < stages; ++s)
      while (next[s] < program[s].size()) {
        auto [u, c] = program[s][next[s]];
        double arrived = 0;
        if (c > 0) {
          if (done[u][c - 1] < 0)
            break;
          arrived = done[u][c - 1] + units[u].handover[c];
        }
        double start = std::max(arrived, free[s]);
        free[s] = done[u][c] = start + units[u].work[c];
        busy[s] += units[u].work[c];
        ++next[s];
        progressed = true;
      }
  }
  prediction.seconds = *llvm::max_element(free);
  if (prediction.seconds > 0)
    prediction.bubble = 1 - *llvm::max_element(busy) / prediction.seconds;
  return prediction;
}

SmallVector<std::pair<int64_t, int64_t>>
loom::pipelineUnits(PipelineAttr pipeline) {
  bool patches = pipeline.getMode() == PipelineMode::patches;
  SmallVector<std::pair<int64_t, int64_t>> units;
  for (int64_t m = 0; m < pipeline.getMicrobatches(); ++m) {
    int64_t context = 0;
    for (int64_t length : pipeline.getSlices()) {
      units.push_back({length, patches ? 0 : context});
      context += length;
    }
  }
  return units;
}

PipelinePrediction loom::predictPipeline(
    const StageSliceCost &cost, PipelineAttr pipeline,
    llvm::function_ref<double(int64_t stage, int64_t length)> transfer,
    int64_t interleave) {
  bool patches = pipeline.getMode() == PipelineMode::patches;
  // Patches see no earlier context; slices see the ones before them in
  // their microbatch.
  SmallVector<std::pair<int64_t, int64_t>> all = pipelineUnits(pipeline);
  auto handover = [&](int64_t s, int64_t length) {
    return transfer ? transfer(s, length) : cost.transferSeconds(s, length);
  };
  SmallVector<PipelineUnit> units;
  // Each unit on each stage (with virtual stages, each chunk: a layer's
  // stage), its handover into it; equal units cost the same, so only the
  // first is priced.
  auto priceEach = [&](bool firstFree) {
    for (auto [i, unit] : llvm::enumerate(all)) {
      if (i > 0 && unit == all[i - 1]) {
        units.push_back(units.back());
        continue;
      }
      PipelineUnit &next = units.emplace_back();
      for (int64_t s = 0; s < cost.getStages(); ++s) {
        next.work.push_back(cost.stageSeconds(s, unit.first, unit.second));
        next.handover.push_back(firstFree && s == 0 ? 0.0
                                                    : handover(s, unit.first));
      }
    }
  };
  if (pipeline.getVirtualStages() > 1) {
    // Chunk c runs on stage c mod K and its handover comes from stage
    // (c - 1) mod K, round the ring; the first chunk's input is at hand.
    priceEach(/*firstFree=*/true);
    return playVirtualStages(units, pipeline.getStages());
  }
  if (interleave > 1) {
    // Groups of `interleave` units, each played zipped on every stage.
    for (size_t first = 0; first < all.size(); first += interleave) {
      size_t end = std::min<size_t>(first + interleave, all.size());
      PipelineUnit &group = units.emplace_back();
      for (int64_t s = 0; s < cost.getStages(); ++s) {
        SmallVector<SmallVector<TaskTime>> chains;
        for (size_t i = first; i < end; ++i)
          chains.push_back(cost.stageTasks(s, all[i].first, all[i].second));
        group.work.push_back(playInterleaved(chains));
        group.handover.push_back(handover(s, all[end - 1].first));
      }
    }
  } else {
    priceEach(/*firstFree=*/false);
  }
  if (!patches)
    return playPipeline(units, 1, 0);
  return playPipeline(units, std::max<int64_t>(pipeline.getSteps(), 1),
                      pipeline.getWarmup());
}
