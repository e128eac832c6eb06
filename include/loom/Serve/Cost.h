//===- Cost.h - the time of one serving iteration ---------------*- C++ -*-===//
//
// A serving engine runs iterations: forward passes over a batch of prompt
// chunks (prefill) and single generated tokens (decode). The simulator asks
// an IterationCost how long each takes, so that any model of the hardware
// can price them: RooflineCost here (FLOPs and bytes against a chip's peak),
// Loom's calibrated cost model later, or a table for tests.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_SERVE_COST_H
#define LOOM_SERVE_COST_H

#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <cstdint>

namespace loom::serve {

/// A piece of one prompt in an iteration.
struct PrefillChunk {
  /// Tokens computed in this iteration (padding included).
  int64_t tokens = 0;
  /// Tokens of the same request already in the KV cache, which the chunk
  /// attends to.
  int64_t context = 0;
};

/// What one iteration computes.
struct Batch {
  /// The prompt chunks, one per request.
  llvm::SmallVector<PrefillChunk, 4> prefills;
  /// For each request that generates a token: the tokens in its KV cache.
  llvm::SmallVector<int64_t, 64> decodeContexts;
  /// The batch size the decode step is compiled for, when it is larger than
  /// decodeContexts.size() (a fixed-shape step over every slot, as
  /// JetStream's generate runs); 0 means decodeContexts.size().
  int64_t paddedDecodes = 0;

  /// Tokens the iteration computes: prompt tokens plus one per decode (the
  /// padded count when there is one).
  int64_t tokens() const;
};

/// Prices iterations. Implementations must return finite, non-negative
/// seconds, and more for a batch that computes more.
class IterationCost {
public:
  virtual ~IterationCost();

  /// Seconds for one iteration over `batch` (which is not empty).
  virtual double iteration(const Batch &batch) const = 0;

  /// Bytes of KV cache per token of context (all layers), what a
  /// disaggregated engine moves from its prefill to its decode instance.
  virtual double kvBytesPerToken() const = 0;

  /// Seconds to copy one prefilled request's KV cache of `tokens` tokens
  /// into its decode slot: JetStream's insert, a jitted program of its own
  /// that reads the prefill's cache and writes it into the decode state
  /// (MaxText's `_insert_jit`, `jax.lax.dynamic_update_index_in_dim` on
  /// each layer's cache, its buffers donated).
  virtual double insert(int64_t tokens) const = 0;

  /// Seconds to prefill `tokens` prompt tokens of one request from scratch.
  double prefill(int64_t tokens) const;
};

/// Prices the denoising steps of a diffusion transformer: one step over a
/// batch of images (or videos) of the workload's size.
class DenoisingCost {
public:
  virtual ~DenoisingCost();
  /// Seconds of one denoising step over `images` (>= 1) at once.
  virtual double step(int64_t images) const = 0;
  /// Seconds the host takes to launch one jitted call (a whole request
  /// batch's loop over its steps, or one step).
  virtual double dispatch() const = 0;
};

/// A dense decoder-only transformer's dimensions.
struct ModelDims {
  int64_t layers = 32;
  int64_t hidden = 4096;
  int64_t heads = 32;
  int64_t kvHeads = 32;
  int64_t headDim = 128;
  /// The MLP's inner size (gated: three matrices of hidden x ffn).
  int64_t ffn = 11008;
  int64_t vocab = 32000;
  /// Bytes per weight and per KV element (2 for bf16).
  double bytesPerParam = 2;
  double bytesPerKv = 2;

  /// LLaMA-7B (Touvron et al., "LLaMA", 2023, Table 2; the dimensions of
  /// models/llama-7b.json).
  static ModelDims llama7B();

  /// Weights: attention (q, k, v, o), the gated MLP and the LM head; the
  /// input embedding is a lookup, not a matmul, and is left out.
  double matmulParams() const;
};

/// The hardware an engine instance runs on.
struct ChipFigures {
  /// Peak dense FLOP/s of one chip (bf16).
  double peakFlops = 197e12;
  /// HBM bytes/s of one chip.
  double hbmBandwidth = 819e9;
  /// Chips that split each iteration evenly (tensor parallelism); the
  /// collectives between them are not priced.
  int64_t chips = 1;
  /// Fractions of peak that large matmuls and streaming reads reach.
  double flopsEfficiency = 1;
  double bandwidthEfficiency = 1;
  /// Seconds added to every iteration (launch, host, sampling).
  double overhead = 0;

  /// TPU v5e (Google Cloud TPU docs, "TPU v5e", key specifications: 197
  /// TFLOP/s bf16 and 819 GB/s HBM per chip,
  /// https://cloud.google.com/tpu/docs/v5e; the figures of
  /// targets/tpu-v5e.json).
  static ChipFigures tpuV5e(int64_t chips = 1);
};

/// A roofline: an iteration takes the larger of its FLOPs over the chips'
/// peak and its HBM bytes over their bandwidth, plus a fixed overhead.
///   FLOPs = 2 P T + 4 L H d sum_i(t_i (c_i + (t_i + 1) / 2))
/// for T tokens, P matmul weights, and each sequence i computing t_i tokens
/// over c_i cached ones (2 N per token for the weights and 2 n_layer n_ctx
/// d_attn for attention's scores and values: Kaplan et al., "Scaling Laws
/// for Neural Language Models", 2020, Table 1; causal, so the t_i new
/// tokens see on average c_i + (t_i + 1) / 2).
///   bytes = P b_w + 2 L G d b_kv sum_i(c_i + t_i)
/// (the weights once per iteration, and every sequence's keys and values
/// read or written once; Pope et al., "Efficiently Scaling Transformer
/// Inference", MLSys 2023, section 2).
class RooflineCost : public IterationCost {
public:
  RooflineCost(ModelDims model, ChipFigures chip);

  double iteration(const Batch &batch) const override;
  double kvBytesPerToken() const override;
  /// The cache's bytes read and written once over the chips' HBM, plus
  /// the overhead.
  double insert(int64_t tokens) const override;

  /// FLOPs and HBM bytes of `batch`, before dividing by the chips.
  double flops(const Batch &batch) const;
  double bytes(const Batch &batch) const;

  /// Checks the dimensions and figures are positive; the error names the
  /// field.
  llvm::Error check() const;

private:
  ModelDims model;
  ChipFigures chip;
  double params;
};

} // namespace loom::serve

#endif // LOOM_SERVE_COST_H
