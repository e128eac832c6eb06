//===- TokenSlicer.cpp - token slices for a pipeline (TeraPipe) -----------===//

#include "loom/Pipeline/TokenSlicer.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

using namespace loom;

Slicing loom::evaluateSlicing(llvm::ArrayRef<int64_t> lengths, int64_t stages,
                              SliceCost cost) {
  Slicing result;
  result.lengths.assign(lengths.begin(), lengths.end());
  int64_t context = 0;
  for (int64_t length : lengths) {
    double t = cost(length, context);
    result.sum += t;
    result.max = std::max(result.max, t);
    context += length;
  }
  result.total = result.sum + (stages - 1) * result.max;
  return result;
}

Slicing loom::sliceTokens(int64_t tokens, int64_t granularity, int64_t stages,
                          SliceCost cost) {
  int64_t n = tokens / granularity;
  // t[j][l]: the slice of l units that ends at unit j, for l <= j <= n;
  // indexed by its end so that the DP's inner loop reads one row in order.
  std::vector<std::vector<double>> t(n + 1);
  std::vector<double> candidates;
  candidates.reserve(n * (n + 1) / 2);
  for (int64_t j = 1; j <= n; ++j) {
    t[j].resize(j + 1);
    for (int64_t l = 1; l <= j; ++l) {
      t[j][l] = cost(l * granularity, (j - l) * granularity);
      candidates.push_back(t[j][l]);
    }
  }
  std::sort(candidates.begin(), candidates.end());
  candidates.erase(std::unique(candidates.begin(), candidates.end()),
                   candidates.end());

  constexpr double inf = std::numeric_limits<double>::infinity();
  std::vector<double> sum(n + 1);
  std::vector<int64_t> from(n + 1);
  // The least sum over all slicings bounds every candidate's total below.
  auto leastSum = [&](double tmax) {
    std::fill(sum.begin(), sum.end(), inf);
    sum[0] = 0;
    for (int64_t j = 1; j <= n; ++j)
      for (int64_t i = 0; i < j; ++i) {
        double ti = t[j][j - i];
        if (ti > tmax || sum[i] == inf)
          continue;
        // On a tie (to rounding) prefer the shorter last slice, so that the
        // earlier slices, which see less context, are the longer ones.
        double candidate = sum[i] + ti;
        if (candidate <= sum[j] + 1e-12 * std::abs(candidate)) {
          sum[j] = std::min(sum[j], candidate);
          from[j] = i;
        }
      }
    return sum[n];
  };
  // The best slicing whose slices all take at most tmax is also the best
  // for every bound down to its own largest slice t*; so descend through the
  // candidates, jumping each time to the largest one below t*. The least sum
  // only grows as the bound falls, so once it alone reaches the best total,
  // no smaller bound can win.
  Slicing best;
  best.total = inf;
  size_t next = candidates.size();
  while (next > 0) {
    double s = leastSum(candidates[next - 1]);
    if (s == inf || s >= best.total)
      break;
    llvm::SmallVector<int64_t> lengths;
    for (int64_t j = n; j > 0; j = from[j])
      lengths.push_back((j - from[j]) * granularity);
    std::reverse(lengths.begin(), lengths.end());
    Slicing found = evaluateSlicing(lengths, stages, cost);
    // On a tie prefer the smaller largest slice, found later.
    if (found.total <= best.total)
      best = found;
    next = std::lower_bound(candidates.begin(), candidates.begin() + next,
                            found.max) -
           candidates.begin();
  }
  return best;
}

Slicing loom::bestUniformSlicing(int64_t tokens, int64_t granularity,
                                 int64_t stages, SliceCost cost) {
  Slicing best;
  best.total = std::numeric_limits<double>::infinity();
  for (int64_t count = 1; count <= tokens / granularity; ++count) {
    if (tokens % count != 0 || (tokens / count) % granularity != 0)
      continue;
    llvm::SmallVector<int64_t> lengths(count, tokens / count);
    Slicing candidate = evaluateSlicing(lengths, stages, cost);
    if (candidate.total < best.total)
      best = candidate;
  }
  return best;
}
