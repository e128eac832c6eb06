//===- ModelCost.cpp - cost totals of layers and models -------------------===//

#include "loom/Dialect/Loom/ModelCost.h"
#include "loom/Dialect/Loom/LoomOps.h"

#include <optional>

using namespace mlir;
using namespace loom;

void CostTotals::add(CostOpInterface op) {
  CostTotals one;
  one.flops = op.getFlops();
  one.parameters = op.getParameterCount();
  one.parameterBytes = op.getParameterBytes();
  one.bytesRead = op.getBytesRead();
  one.bytesWritten = op.getBytesWritten();
  one.kvCacheBytes = op.getKVCacheBytes();
  *this += one;
}

// Saturating, as every cost figure is (loom::Count).
CostTotals &CostTotals::operator+=(const CostTotals &other) {
  auto add = [](int64_t &total, int64_t more) {
    total = (Count(total) + more).get();
  };
  add(flops, other.flops);
  add(parameters, other.parameters);
  add(parameterBytes, other.parameterBytes);
  add(bytesRead, other.bytesRead);
  add(bytesWritten, other.bytesWritten);
  add(kvCacheBytes, other.kvCacheBytes);
  return *this;
}

SmallVector<PartCost> loom::collectPartCosts(Block &body) {
  PartCost prologue{PartCost::Part::Prologue, -1, "", {}};
  PartCost epilogue{PartCost::Part::Epilogue, -1, "", {}};
  bool hasPrologue = false, hasEpilogue = false;
  SmallVector<PartCost> layers;
  for (Operation &op : body) {
    auto cost = dyn_cast<CostOpInterface>(op);
    if (!cost)
      continue;
    if (auto layer = dyn_cast<LayerOp>(op)) {
      PartCost row{PartCost::Part::Layer, static_cast<int64_t>(layer.getIndex()),
                   layer.getKind().value_or("").str(), {}};
      row.cost.add(cost);
      layers.push_back(std::move(row));
    } else if (layers.empty()) {
      prologue.cost.add(cost);
      hasPrologue = true;
    } else {
      epilogue.cost.add(cost);
      hasEpilogue = true;
    }
  }
  SmallVector<PartCost> rows;
  if (hasPrologue)
    rows.push_back(std::move(prologue));
  rows.append(layers.begin(), layers.end());
  if (hasEpilogue)
    rows.push_back(std::move(epilogue));
  return rows;
}

CostTotals loom::sumPartCosts(ArrayRef<PartCost> parts) {
  CostTotals total;
  for (const PartCost &part : parts)
    total += part.cost;
  return total;
}

/// Whether all of `op`'s FLOPs are the vector unit's: a token-wise op's, a
/// loss's or an optimizer's update.
static bool isVectorWork(Operation *op) {
  return op->hasTrait<TokenWise>() || isa<LossOp, OptimizerUpdateOp>(op);
}

int64_t loom::getVectorOps(Operation *op) {
  // A gradient's work says which of it is the vector unit's.
  if (auto grad = dyn_cast<GradOp>(op))
    return grad.getWork().vectorOps;
  if (!isVectorWork(op))
    return 0;
  return cast<CostOpInterface>(op).getFlops();
}

int64_t loom::getMXUFlops(CostOpInterface op, int64_t tile) {
  return isVectorWork(op) ? 0 : op.getPaddedFlops(tile);
}

static bool isNorm(Operation *op) { return isa<RMSNormOp, LayerNormOp>(op); }

/// `value`, looking through collectives over a group of one chip (tensor
/// parallelism of degree 1 keeps them; they move nothing and compile to
/// nothing, so fusion sees through them).
static Value throughOneChipCollectives(Value value) {
  while (Operation *def = value.getDefiningOp()) {
    auto size = def->getAttrOfType<IntegerAttr>("group_size");
    if (!isa<CollectiveOpInterface>(def) || !size || size.getInt() != 1 ||
        def->getNumOperands() != 1 ||
        def->getOperand(0).getType() != value.getType())
      break;
    value = def->getOperand(0);
  }
  return value;
}

Value loom::getFusedOperand(Operation *consumer, Operation *producer) {
  if (!producer || !consumer->hasTrait<TokenWise>())
    return {};
  bool elementwiseProducer = producer->hasTrait<TokenWise>();
  // A dot (or the patch embedding's convolution) takes elementwise consumers
  // as an output fusion, but not a reduction; an elementwise producer joins
  // any elementwise or reducing consumer.
  bool fuses = elementwiseProducer ||
               (isa<LinearOp, PatchifyOp>(producer) && !isNorm(consumer));
  // Both token-wise or both per-sample, so a slice scales the kernel whole.
  auto tokenWise = [](Operation *op) {
    return llvm::any_of(op->getResultTypes(), [](Type type) {
      auto tensor = dyn_cast<RankedTensorType>(type);
      return tensor && tensor.getRank() == 3;
    });
  };
  if (!fuses || tokenWise(consumer) != tokenWise(producer))
    return {};
  for (Value operand : consumer->getOperands()) {
    operand = throughOneChipCollectives(operand);
    if (operand.getDefiningOp() == producer)
      return operand;
  }
  return {};
}

double loom::getFusedSavings(Value operand) {
  double bytes = getTensorBytes(operand.getType());
  // Not read back; and not written when the consumer is its only use.
  return operand.hasOneUse() ? 2 * bytes : bytes;
}

Operation *
loom::findFusionProducer(Operation *consumer,
                         function_ref<Operation *(Operation *)> kernelRoot) {
  Operation *best = nullptr;
  for (Value operand : consumer->getOperands()) {
    operand = throughOneChipCollectives(operand);
    Operation *producer = operand.getDefiningOp();
    Operation *root = producer ? kernelRoot(producer) : nullptr;
    if (!root || (isNorm(consumer) && !root->hasTrait<TokenWise>()) ||
        producer->getBlock() != consumer->getBlock() ||
        getFusedOperand(consumer, producer) != operand)
      continue;
    bool othersReady = llvm::all_of(consumer->getOperands(), [&](Value other) {
      Operation *def = throughOneChipCollectives(other).getDefiningOp();
      return !def || def == producer || def->getBlock() != producer->getBlock() ||
             def->isBeforeInBlock(producer);
    });
    if (othersReady && (!best || best->isBeforeInBlock(producer)))
      best = producer;
  }
  return best;
}

FlashAttentionWork loom::flashAttentionWork(int64_t batchHeads, int64_t headDim,
                                            int64_t queries, int64_t before,
                                            int64_t keys, bool causal,
                                            int64_t window,
                                            int64_t kvElementBytes) {
  FlashAttentionWork work;
  if (queries <= 0 || batchHeads <= 0)
    return work;
  // The kernel's blocks, no longer than the sequences they tile.
  int64_t totalKeys = causal ? before + queries : keys;
  int64_t blockQ = std::min(kFlashBlockQ, queries);
  int64_t blockK = std::max<int64_t>(std::min(kFlashBlockK, totalKeys), 1);
  int64_t qBlocks = (queries + blockQ - 1) / blockQ;
  int64_t kBlocks = (totalKeys + blockK - 1) / blockK;
  // The kv blocks each q block visits: all, or (causal) those from its
  // first row's window start to its last row's position.
  double visible = 0;
  if (!causal) {
    visible = double(qBlocks) * kBlocks;
  } else {
    for (int64_t i = 0; i < qBlocks; ++i) {
      int64_t first = before + i * blockQ;
      int64_t last = before + std::min((i + 1) * blockQ, queries) - 1;
      int64_t low = window > 0 ? std::max<int64_t>(first - window + 1, 0) : 0;
      visible += last / blockK - low / blockK + 1;
    }
  }
  double perBlock =
      double(blockQ) * blockK *
          (kFlashScoreOps + (causal ? kFlashCausalMaskOps : 0)) +
      double(blockQ) * 128 * kFlashRowOps +
      double(blockQ) * headDim * kFlashAccumulatorOps;
  // The flash kernel has no window: a local layer runs as a block-sparse
  // kernel that steps only through the blocks its mask reaches (splash
  // attention's local mask, jax/experimental/pallas/ops/tpu/
  // splash_attention); a full causal grid also steps through the blocks it
  // skips above the diagonal.
  work.steps = double(batchHeads) *
               (causal && window > 0 ? visible : double(qBlocks) * kBlocks);
  work.vectorOps = double(batchHeads) * visible * perBlock;
  // Each visited block brings a K and a V block of head_dim columns.
  work.kvBytes =
      double(batchHeads) * visible * 2.0 * blockK * headDim * kvElementBytes;
  return work;
}

MaterializedAttentionWork
loom::materializedAttentionWork(int64_t batchHeads, int64_t headDim,
                                int64_t queries, int64_t keys, bool masked,
                                int64_t scoreElementBytes) {
  MaterializedAttentionWork work;
  double scores = double(std::max<int64_t>(batchHeads, 0)) *
                  std::max<int64_t>(queries, 0) * std::max<int64_t>(keys, 0);
  // Q K^T and P V: a multiply-add (2 FLOPs) per score and head_dim each.
  work.flops = 2.0 * 2.0 * scores * headDim;
  work.vectorOps =
      scores * (kMaterializedScoreOps + (masked ? kMaterializedMaskOps : 0));
  work.scoreBytes =
      scores * scoreElementBytes *
      (kMaterializedScorePasses + (masked ? kMaterializedMaskPasses : 0));
  return work;
}

/// An attention's kernel: the flash kernel's steps, vector work and K/V
/// traffic in place of reading K/V once; a decode step's as one kernel;
/// einsums with the scores in HBM when the runtime materialises them.
static void addAttentionWork(KernelWork &work, Operation *op,
                             const CostModel &model) {
  if (auto attn = dyn_cast<AttentionOp>(op)) {
    ArrayRef<int64_t> q = cast<RankedTensorType>(attn.getQ().getType()).getShape();
    ArrayRef<int64_t> k = cast<RankedTensorType>(attn.getK().getType()).getShape();
    int64_t bh = q[0] * attn.getHeads();
    if (isDecodeAttention(q[1], attn.getCausal())) {
      // The new token's K and V into the cache (kDecodeCacheWriteKernels).
      double newKV = double(getTensorBytes(attn.getK().getType())) +
                     getTensorBytes(attn.getV().getType());
      double cacheElements = 2.0 * getNumElements(attn.getK().getType());
      work.bytes += newKV + cacheElements * attn.getKVElementBytes();
      work.steps += kDecodeCacheWriteKernels;
    }
    if (attn.getMaterializedScores()) {
      // The cached keys it sees too (a window's cache holds its keys).
      int64_t keys = k[1] + (attn.getCausal() ? attn.getVisibleCached() : 0);
      // A decode step's query as the rows the runtime runs it as
      // (decode_query_rows; jetstream-pytorch's two).
      int64_t queries = isDecodeAttention(q[1], attn.getCausal())
                            ? attn.getDecodeQueryRows().value_or(1) * q[1]
                            : q[1];
      MaterializedAttentionWork dense = materializedAttentionWork(
          bh, model.padToMXU(attn.getHeadDim()), queries, keys,
          attn.getCausal());
      work.flops = dense.flops;
      work.vectorOps = dense.vectorOps;
      work.bytes += dense.scoreBytes;
      work.steps += dense.steps - 1;
      return;
    }
    if (isDecodeAttention(q[1], attn.getCausal())) {
      work.vectorOps = double(bh) * attn.getScorePairs() * kFlashScoreOps;
      return;
    }
    FlashAttentionWork flash = flashAttentionWork(
        bh, model.padToMXU(attn.getHeadDim()), q[1],
        attn.getCausal() ? attn.getCached() : 0, attn.getCached() + k[1],
        attn.getCausal(), attn.getWindow().value_or(0),
        attn.getKVElementBytes());
    work.steps = flash.steps;
    work.vectorOps = flash.vectorOps;
    work.bytes = getTensorBytes(attn.getQ().getType()) +
                 getTensorBytes(attn.getResult().getType()) + flash.kvBytes;
    return;
  }
  if (auto ring = dyn_cast<RingAttentionOp>(op)) {
    // This chip's queries against every block of the ring, one block per
    // step: the flash kernel's work over group_size x the keys in hand.
    ArrayRef<int64_t> q = cast<RankedTensorType>(ring.getQ().getType()).getShape();
    int64_t keys = (Count(cast<RankedTensorType>(ring.getK().getType())
                              .getDimSize(1)) *
                    ring.getGroupSize())
                       .get();
    FlashAttentionWork flash;
    if (ring.getCausal()) {
      // Striped: every step a causally masked block of the stripes.
      // A window of W tokens spans about W / n of each stripe.
      int64_t n = ring.getGroupSize();
      int64_t window = (ring.getWindow().value_or(0) + n - 1) / n;
      flash = flashAttentionWork(q[0] * ring.getHeads(),
                                 model.padToMXU(ring.getHeadDim()), q[1], 0,
                                 q[1], /*causal=*/true, window,
                                 getElementBytes(ring.getK().getType()));
      flash.steps *= n;
      flash.vectorOps *= n;
      flash.kvBytes *= n;
    } else {
      flash = flashAttentionWork(q[0] * ring.getHeads(),
                                 model.padToMXU(ring.getHeadDim()), q[1], 0,
                                 keys, /*causal=*/false, 0,
                                 getElementBytes(ring.getK().getType()));
    }
    work.steps = flash.steps;
    work.vectorOps = flash.vectorOps;
    work.bytes = 2.0 * getTensorBytes(ring.getQ().getType()) + flash.kvBytes;
    return;
  }
  if (auto joint = dyn_cast<JointAttentionOp>(op)) {
    ArrayRef<int64_t> img =
        cast<RankedTensorType>(joint.getQImg().getType()).getShape();
    ArrayRef<int64_t> txt =
        cast<RankedTensorType>(joint.getQTxt().getType()).getShape();
    int64_t tokens = img[1] + txt[1];
    int64_t elementBytes = getElementBytes(joint.getQImg().getType());
    FlashAttentionWork flash = flashAttentionWork(
        img[0] * joint.getHeads(), model.padToMXU(joint.getHeadDim()),
        tokens, 0, joint.getKeyTokens(), /*causal=*/false, 0, elementBytes);
    work.steps = flash.steps;
    work.vectorOps = flash.vectorOps;
    // Queries in, results out, K/V as the blocks bring them.
    work.bytes = 2.0 * (getTensorBytes(joint.getQImg().getType()) +
                        getTensorBytes(joint.getQTxt().getType())) +
                 flash.kvBytes;
  }
}

KernelWork loom::getKernelWork(const CostModel &model, CostOpInterface op) {
  int64_t tile = model.getTarget().mxuTile;
  KernelWork work;
  work.flops = getMXUFlops(op, tile);
  work.vectorOps = getVectorOps(op);
  work.bytes = double(op.getBytesRead()) + op.getBytesWritten();
  work.elementBits = op.getComputeBits();
  addAttentionWork(work, op, model);
  return work;
}

double loom::estimateTime(const CostModel &model, ArrayRef<Operation *> ops,
                          ArrayRef<GroupAxis> groupAxes) {
  double total = 0;
  SmallVector<KernelWork> kernels;
  llvm::DenseMap<Operation *, size_t> kernelOf;
  SmallVector<Operation *> roots;
  auto kernelRoot = [&](Operation *op) -> Operation * {
    auto it = kernelOf.find(op);
    return it == kernelOf.end() ? nullptr : roots[it->second];
  };
  for (Operation *op : ops) {
    auto cost = dyn_cast<CostOpInterface>(op);
    // Keeping a local piece of a replicated tensor moves nothing.
    if (!cost || isa<LocalShardOp, YieldOp>(op))
      continue;
    if (isa<LayerOp, CollectiveOpInterface>(op)) {
      total += estimateTime(model, cost, groupAxes);
      continue;
    }
    KernelWork work = getKernelWork(model, cost);
    if (Operation *producer = findFusionProducer(op, kernelRoot)) {
      // In the producer's kernel: no step of its own, no round trip.
      size_t index = kernelOf[producer];
      KernelWork &kernel = kernels[index];
      kernel.flops += work.flops;
      kernel.vectorOps += work.vectorOps;
      kernel.bytes +=
          work.bytes - getFusedSavings(getFusedOperand(op, producer));
      kernelOf[op] = index;
      continue;
    }
    kernelOf[op] = kernels.size();
    kernels.push_back(work);
    roots.push_back(op);
  }
  for (const KernelWork &kernel : kernels)
    total += model.taskTime(kernel.flops, kernel.bytes, kernel.elementBits,
                            kernel.vectorOps, kernel.steps);
  return total;
}

double loom::estimateTime(const CostModel &model, CostOpInterface op,
                          ArrayRef<GroupAxis> groupAxes) {
  if (auto layer = dyn_cast<LayerOp>(op.getOperation())) {
    SmallVector<Operation *> body;
    for (Operation &inner : layer.getBody().front())
      body.push_back(&inner);
    return estimateTime(model, body, groupAxes);
  }
  if (auto collective = dyn_cast<CollectiveOpInterface>(op.getOperation()))
    return model.collectiveTime(collective.getCollectiveKind(), groupAxes,
                                collective.getCollectiveBytes());
  // Keeping a local piece of a replicated tensor moves nothing.
  if (isa<LocalShardOp, YieldOp>(op.getOperation()))
    return 0;
  KernelWork work = getKernelWork(model, op);
  return model.taskTime(work.flops, work.bytes, work.elementBits,
                        work.vectorOps, work.steps);
}
