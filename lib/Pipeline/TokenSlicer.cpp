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
  // t[c][l]: a slice of l units after c units, for c + l <= n.
  std::vector<std::vector<double>> t(n + 1);
  std::vector<double> candidates;
  for (int64_t c = 0; c < n; ++c) {
    t[c].resize(n - c + 1);
    for (int64_t l = 1; c + l <= n; ++l) {
      t[c][l] = cost(l * granularity, c * granularity);
      candidates.push_back(t[c][l]);
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
        double ti = t[i][j - i];
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
  double floor = leastSum(inf);

  Slicing best;
  best.total = inf;
  for (double tmax : candidates) {
    if (floor + (stages - 1) * tmax >= best.total)
      break;
    double s = leastSum(tmax);
    if (s == inf || s + (stages - 1) * tmax >= best.total)
      continue;
    llvm::SmallVector<int64_t> lengths;
    for (int64_t j = n; j > 0; j = from[j])
      lengths.push_back((j - from[j]) * granularity);
    std::reverse(lengths.begin(), lengths.end());
    best = evaluateSlicing(lengths, stages, cost);
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
