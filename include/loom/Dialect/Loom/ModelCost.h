//===- ModelCost.h - cost totals of layers and models -----------*- C++ -*-===//
//
// Sums of the cost interface over the ops of a model, grouped the way a
// reader and the planners look at a model: the ops before the blocks, each
// `loom.layer`, and the ops after them.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_DIALECT_LOOM_MODELCOST_H
#define LOOM_DIALECT_LOOM_MODELCOST_H

#include "loom/Dialect/Loom/CostOpInterface.h"
#include "loom/Hardware/CostModel.h"

#include "mlir/IR/Block.h"
#include "llvm/ADT/SmallVector.h"

#include <string>

namespace loom {

/// What the cost interface says, summed over some ops.
struct CostTotals {
  int64_t flops = 0;
  int64_t parameters = 0;
  int64_t parameterBytes = 0;
  int64_t bytesRead = 0;
  int64_t bytesWritten = 0;
  int64_t kvCacheBytes = 0;

  void add(CostOpInterface op);
  CostTotals &operator+=(const CostTotals &other);
};

/// One row of a model's cost table.
struct PartCost {
  enum class Part { Prologue, Layer, Epilogue };
  Part part;
  int64_t layerIndex = -1; // for Part::Layer
  std::string kind;        // the layer's kind, if any
  CostTotals cost;
};

/// The rows of the model whose body is `body`: the ops before the first
/// `loom.layer`, each layer in order, and the ops after the last layer (ops
/// between layers count towards the epilogue row). Empty prologue and
/// epilogue rows are omitted.
llvm::SmallVector<PartCost> collectPartCosts(mlir::Block &body);

/// The sum of all rows.
CostTotals sumPartCosts(llvm::ArrayRef<PartCost> parts);

/// Estimated seconds for `op` on one chip of the model's target: the
/// roofline of its MXU-padded FLOPs, its vector-unit work and its HBM
/// bytes, or for a collective its time on the group's torus axes
/// `groupAxes` (none: free). A loom.layer is its ops run one after
/// another, elementwise ones fused as getFusedOperand says.
double estimateTime(const CostModel &model, CostOpInterface op,
                    llvm::ArrayRef<GroupAxis> groupAxes = {});

/// The same for ops run one after another (a layer's body, or the ops of a
/// model around its layers), fusing elementwise ops into their producers.
double estimateTime(const CostModel &model,
                    llvm::ArrayRef<mlir::Operation *> ops,
                    llvm::ArrayRef<GroupAxis> groupAxes = {});

/// The work of one compute kernel, as CostModel::taskTime prices it.
struct KernelWork {
  double flops = 0;     ///< on the MXU, padded to its tile
  double vectorOps = 0; ///< on the VPU
  double bytes = 0;     ///< HBM, read and written
  double steps = 1;     ///< grid steps, each paying the kernel step
  unsigned elementBits = 16;
};

/// `op` run alone as one kernel (not a collective).
KernelWork getKernelWork(const CostModel &model, CostOpInterface op);

/// Element operations an elementwise (TokenWise) op runs on the vector unit:
/// its FLOPs, which use no MXU. 0 for other ops (attention's softmax is in
/// flashAttentionWork).
int64_t getVectorOps(mlir::Operation *op);

/// FLOPs `op` runs on the MXU: its padded FLOPs, none for elementwise ops.
int64_t getMXUFlops(CostOpInterface op, int64_t tile);

/// XLA's fusion of elementwise ops into their producer (XLA "Operation
/// Semantics" and the fusion passes, xla/service/instruction_fusion.cc,
/// gpu/tpu "producer-consumer fusion"; a dot's elementwise consumers join
/// it as an output fusion, an elementwise op's as a loop fusion, a
/// reduction such as a norm takes elementwise producers as an input
/// fusion). When `consumer` runs in `producer`'s kernel, returns the
/// operand it takes from `producer`: that operand is not read back from HBM,
/// and not written at all when `consumer` is its only use. Null otherwise:
/// the consumer is not elementwise, or the producer is a custom kernel
/// (attention, experts), a collective or another kind of op.
mlir::Value getFusedOperand(mlir::Operation *consumer,
                            mlir::Operation *producer);

/// HBM bytes a fusion through `operand` saves (see getFusedOperand).
double getFusedSavings(mlir::Value operand);

/// The producer whose kernel `consumer` joins, among the ops placed in a
/// kernel so far (`kernelRoot` gives the first op of an op's kernel, null
/// for an op in none): fusion follows the data, not the program order, as
/// XLA's does on the HLO graph, but a consumer joins a producer only when
/// its other operands exist before that producer runs, and a reduction
/// (a norm) never joins a matmul's kernel, even through an elementwise op
/// fused into it. The latest such producer, or null.
mlir::Operation *findFusionProducer(
    mlir::Operation *consumer,
    llvm::function_ref<mlir::Operation *(mlir::Operation *)> kernelRoot);

/// Attention as the TPU's flash-attention kernels run it: a grid of
/// (batch x heads, q blocks, kv blocks) steps, each bringing a K and a V
/// block into VMEM, so every q block re-reads the K/V blocks it visits; a
/// causal kernel skips the blocks above the diagonal but still steps
/// through them; a sliding-window layer steps only through the blocks its
/// window reaches (a block-sparse mask, as splash attention's).
/// Block sizes: 512 queries x 512 keys, MaxText's defaults for its splash
/// attention kernel on TPU (MaxText/configs/base.yml: sa_block_q: 512,
/// sa_block_kv: 512, sa_block_kv_compute: 512; the runtime loom-plan
/// --emit writes plans for). The bare JAX Pallas flash kernel defaults to
/// 128 x 128 (jax/experimental/pallas/ops/tpu/flash_attention.py,
/// BlockSizes.get_default), which runs 16x the grid steps of 512 blocks.
constexpr int64_t kFlashBlockQ = 512, kFlashBlockK = 512;

/// Vector-unit operations of the kernel's body (the online softmax of
/// jax/experimental/pallas/ops/tpu/flash_attention.py,
/// _flash_attention_kernel_single_batch; splash attention's is the same
/// recurrence), counted per f32 element:
/// per score (block_q x block_k): scale, max, subtract, exp, sum and the
/// cast to bf16 (6), plus a causal mask's two iota offsets, compare,
/// select and add (5); per row statistic (block_q x 128 lanes, each kv
/// block): the max, two exps' subtract and exp, the rescales, the sum and
/// the reciprocal (9); per accumulator element (block_q x head_dim, each kv
/// block): rescale, scale and add (3). Derived from the source, not
/// measured.
constexpr int64_t kFlashScoreOps = 6, kFlashCausalMaskOps = 5,
                  kFlashRowOps = 9, kFlashAccumulatorOps = 3;

struct FlashAttentionWork {
  double steps = 1;     ///< grid steps
  double vectorOps = 0; ///< VPU element operations
  double kvBytes = 0;   ///< K/V blocks read from HBM, re-reads included
};

/// The kernel on `batchHeads` (batch x heads) independent heads of
/// `headDim` (padded to the MXU tile), `queries` queries after `before`
/// earlier tokens (causal: each sees itself and the ones before it, at
/// most `window`, 0 for none; otherwise all `keys`), with K/V elements of
/// `kvElementBytes`.
FlashAttentionWork flashAttentionWork(int64_t batchHeads, int64_t headDim,
                                      int64_t queries, int64_t before,
                                      int64_t keys, bool causal,
                                      int64_t window, int64_t kvElementBytes);

/// Attention written as einsums and run by XLA without a flash kernel
/// (`materialized_scores`): jetstream-pytorch's Attention.forward
/// (jetstream_pt/layers.py at 9606a1f, the code of its published Llama 2
/// prefill run): scores = einsum(q, k) / sqrt(head_dim) + mask, then
/// softmax(scores.float()).type_as(q), then einsum(scores, v), with bf16
/// scores and a bf16 [L, L] causal mask. Every query meets every key (the
/// mask is added, no block is skipped), so the MXU does the whole square,
/// and the scores cross HBM between five kernels as XLA fuses that HLO:
/// the first einsum with its scale and mask add (writes the scores, reads
/// the mask), jax.nn.softmax's max, its exp-and-sum and its normalise
/// (jax/_src/nn/functions.py: x - max, exp, / sum; each a reduction or
/// its consumer, each reading the scores) writing the probabilities, and
/// the second einsum reading them: 6 score-sized passes, 7 with a mask.
/// Vector ops per score, in f32: the scale; the max pass's convert and
/// max; the sum pass's convert, subtract, exp and add; the normalise
/// pass's convert, subtract, exp, divide and cast (12); the mask's add
/// (1). Derived from the source, not measured; the five kernels are
/// HBM-bound at any length (a score is 2 B written or read against 2
/// head_dim FLOPs, under v5e's 240 FLOP/B ridge for head_dim <= 128), so
/// one task of their summed work prices them.
constexpr int64_t kMaterializedScorePasses = 6, kMaterializedMaskPasses = 1;
constexpr int64_t kMaterializedScoreOps = 12, kMaterializedMaskOps = 1;
constexpr int64_t kMaterializedKernels = 5;

/// jetstream-pytorch's decode step runs its einsums over two queries, not
/// one (loom-import --attention jetstream-pytorch marks its attentions
/// `decode_query_rows` = this): its Attention.forward broadcasts the single
/// new query
/// (`if seqlen == 1: xq = torch.broadcast_to(xq, (b, 2, h, d))`) and keeps
/// the first row of the result (`output[:, :, 0:1, :]`; jetstream_pt/
/// layers.py at 9606a1f, both the bf16 and the int8-cache branches), so
/// both einsums, the scores' HBM passes and the softmax see twice a single
/// query's scores. Counted from the code. Other einsum attentions
/// (MaxText's attention=dot_product) run the one query as one row.
constexpr int64_t kMaterializedDecodeQueries = 2;

struct MaterializedAttentionWork {
  double flops = 0;      ///< MXU: both einsums over the whole square
  double vectorOps = 0;  ///< VPU element operations
  double scoreBytes = 0; ///< HBM traffic of the scores (and the mask)
  double steps = kMaterializedKernels; ///< one kernel step each
};

/// `batchHeads` heads of `headDim` (padded to the MXU tile), `queries`
/// queries each meeting `keys` keys, with a mask added when `masked`,
/// scores of `scoreElementBytes`.
MaterializedAttentionWork
materializedAttentionWork(int64_t batchHeads, int64_t headDim,
                          int64_t queries, int64_t keys, bool masked,
                          int64_t scoreElementBytes = 2);

/// A decode step also writes each sequence's new K and V into its cache, in
/// place, one kernel each a layer: MaxText's KVCache update
/// (jax.lax.dynamic_update_slice), jetstream-pytorch's KVCacheGenerate.update
/// (cache.at[:, :, pos].set(k), a scatter at each sequence's position;
/// jetstream_pt/cache_manager.py at 9606a1f). Both runtimes donate the
/// decode state to the jitted step (engine.py: donate_argnums), so XLA
/// updates the buffers instead of copying the cache. Each kernel reads the
/// new token's K (or V) and writes it at the cache's width; priced on the
/// attention's task as two more kernel steps and those bytes.
constexpr int64_t kDecodeCacheWriteKernels = 2;

/// A decode step's attention (one query per sequence over a cache) does not
/// run the flash kernel's blocks; it is priced as one kernel reading the
/// cache (a serving stack's ragged decode kernel; its grid is not modelled)
/// and the two kernels writing the new K and V into it.
inline bool isDecodeAttention(int64_t queries, bool causal) {
  return causal && queries <= 1;
}

} // namespace loom

#endif // LOOM_DIALECT_LOOM_MODELCOST_H
