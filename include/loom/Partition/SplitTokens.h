//===- SplitTokens.h - token slices for a pipeline (TeraPipe) ---*- C++ -*-===//
//
// TeraPipe (Li et al., "TeraPipe: Token-Level Pipeline Parallelism for
// Training Large-Scale Language Models", ICML 2021, section 3.3): a causal
// model's sequence is cut into slices l_1..l_M that flow through K stages.
// Slice i costs t_i = t(l_i, l_1 + ... + l_{i-1}) on a stage (it attends to
// everything before it), and the pipeline takes
//     T = sum_i t_i + (K - 1) * max_i t_i.
// For a bound b on the largest slice, a dynamic program over prefixes finds
// S(b), the least sum of a slicing whose slices all cost at most b, in
// O(n^2) for n = L / granularity (less when costs grow with the slice's
// length, as causal ones do). The optimum is the least S(b) + (K - 1) b over
// the values b that a slice can cost. TeraPipe (section 3.3) solves those
// O(n^2) values in increasing order until (K - 1) b alone exceeds the best
// T found; Loom searches them by branch and bound instead: a solve at b
// whose largest slice costs t* settles all of [t*, b], and a range of bounds
// whose least possible S(b) + (K - 1) b cannot beat the best slicing found
// is never solved. On 2048 tokens at granularity 1 that takes 4 to 82
// solves (bench/slicing.sh and the unit tests' costs) where the candidates
// number about 2 million.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PARTITION_SPLITTOKENS_H
#define LOOM_PARTITION_SPLITTOKENS_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/SmallVector.h"

namespace loom {

/// Seconds for a slice of `length` tokens after `context` earlier tokens.
using SliceCost = llvm::function_ref<double(int64_t length, int64_t context)>;

struct Slicing {
  llvm::SmallVector<int64_t> lengths;
  double sum = 0, max = 0;
  /// The pipeline's time: microbatches * sum + (stages - 1) * max (every
  /// microbatch of the batch runs the same slices one after another).
  double total = 0;
};

/// The most units (tokens / granularity) that the slicing DP is given: its
/// table holds a cost for every slice, n (n + 1) / 2 of them, 131,328 at
/// n = 512. The planner's cost of a slice prices every op of the slowest
/// stage (about 2 us for LLaMA-7B), so 512 units fill the table in about a
/// quarter of a second, and 16,384 would take minutes and 1 GB.
constexpr int64_t kMaxSliceUnits = 512;

/// The granularity to slice `tokens` with when `granularity` is asked for:
/// `granularity` itself when it cuts the tokens into at most
/// kMaxSliceUnits units, else its smallest multiple that divides the tokens
/// and does (at worst the whole sequence). `granularity` must divide
/// `tokens`.
int64_t coarsenGranularity(int64_t tokens, int64_t granularity);

/// Evaluates given slice lengths, run by `microbatches` microbatches.
Slicing evaluateSlicing(llvm::ArrayRef<int64_t> lengths, int64_t stages,
                        SliceCost cost, int64_t microbatches = 1);

/// TeraPipe's optimal slicing of `tokens` tokens (a multiple of
/// `granularity`) into slices that are multiples of `granularity`. Costs
/// must be finite and non-negative; if one is not, the result has no slices
/// and an infinite total.
/// With `microbatches` M the slices minimise M * sum + (stages - 1) * max.
Slicing sliceTokens(int64_t tokens, int64_t granularity, int64_t stages,
                    SliceCost cost, int64_t microbatches = 1);

/// The best slicing into equal slices (any count that divides the tokens in
/// multiples of `granularity`).
Slicing bestUniformSlicing(int64_t tokens, int64_t granularity,
                           int64_t stages, SliceCost cost,
                           int64_t microbatches = 1);

} // namespace loom

#endif // LOOM_PARTITION_SPLITTOKENS_H
