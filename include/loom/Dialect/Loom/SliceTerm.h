//===- SliceTerm.h - how an op's cost scales with a token slice -*- C++ -*-===//
//
// The answer of CostOpInterface::getSliceTerms: an op's figures at the full
// sequence and the law by which they scale when a pipeline runs a slice of
// `length` of its tokens after `context` earlier ones (LayerSliceCost
// evaluates the law; lib/Dialect/Loom/SliceTerms.cpp states each op's).
//   Compute          token-wise work and traffic in proportion to the slice,
//                    per-sample work (`scales` off) whole in every slice;
//   CausalAttention  per query/key pair the slice visits, plus the cached K/V
//                    of its context (flash or materialised, decode or not;
//                    latent attention's context decompressed or absorbed);
//   Collective       its token bytes in proportion, its other bytes whole;
//   WeightGather     no task of its own: bytes gathered before the layer.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_DIALECT_LOOM_SLICETERM_H
#define LOOM_DIALECT_LOOM_SLICETERM_H

#include "loom/Support/Enums.h"

#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace mlir {
class Operation;
} // namespace mlir

namespace loom {

class CostModel;

/// Routed experts' weights as a pass reads them: those of the experts its
/// tokens touch (loom::touchedExperts), fewer for a slice of fewer tokens.
struct ExpertReads {
  double held = 0;       ///< experts this chip holds (0: not routed experts)
  int64_t topK = 0, experts = 0;
  double tokens = 0;     ///< tokens a pass of the full sequence routes
  double bytesEach = 0;  ///< one expert's weights
};

/// One term of an op's cost at the full sequence, and how it scales.
struct SliceTerm {
  enum class Kind { Compute, CausalAttention, Collective, WeightGather } kind;
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
  unsigned elementBits = 16;
  CollectiveKind collective = CollectiveKind::AllReduce;
  bool sequenceGroup = false;
  int subAxis = -1;          ///< 2-D tp: the tp_x (0) or tp_y (1) group
  int64_t blockRanks = 0;    ///< over "kv": this many consecutive tensor
                             ///< ranks (0: the op's group is not "kv")
  int64_t batchShards = 1;   ///< causal: the batch's K/V split over this
                             ///< many chips (kv_batch), each running its
                             ///< sequences' attention
  int64_t ringSteps = 0;     ///< ring attention: the sp group's chips
  double ringBytes = 0;      ///< ring attention: K/V block per step
  double absorbedPairFlops = 0; ///< latent: FLOPs per pair of a decode,
                                ///< its projections absorbed (0: pairFlops)
  double contextFlops = 0;   ///< latent: FLOPs per context token a prompt
                             ///< slice spends decompressing its K and V
  ExpertReads experts;       ///< compute: fixedBytes are routed experts'
};

/// The terms of an op without a law of its own: a collective's bytes (token
/// bytes when it moves a token tensor); else one compute kernel
/// (getComputeSliceTerm with the op's parameters as its fixed bytes).
void getDefaultSliceTerms(mlir::Operation *op, const CostModel &model,
                          llvm::SmallVectorImpl<SliceTerm> &terms);

/// `op`'s kernel (getKernelWork) as a compute term, with `fixedBytes` of
/// its traffic repeated by every slice: an op without a token result
/// (adaLN vectors, embedders) is per-sample and repeats all of it.
SliceTerm getComputeSliceTerm(mlir::Operation *op, const CostModel &model,
                              double fixedBytes);

} // namespace loom

#endif // LOOM_DIALECT_LOOM_SLICETERM_H
