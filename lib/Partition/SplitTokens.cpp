//===- SplitTokens.cpp - token slices for a pipeline (TeraPipe) -----------===//

#include "loom/Partition/SplitTokens.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

using namespace loom;

int64_t loom::coarsenGranularity(int64_t tokens, int64_t granularity) {
  assert(granularity >= 1 && tokens >= granularity &&
         tokens % granularity == 0 && "tokens must be whole units");
  int64_t units = tokens / granularity;
  if (units <= kMaxSliceUnits)
    return granularity;
  // The least divisor d of `units` with units / d <= kMaxSliceUnits, found
  // among the divisor pairs (i, units / i) with i * i <= units.
  int64_t least = (units + kMaxSliceUnits - 1) / kMaxSliceUnits;
  int64_t best = units;
  for (int64_t i = 1; i <= units / i; ++i) {
    if (units % i != 0)
      continue;
    for (int64_t d : {i, units / i})
      if (d >= least && d < best)
        best = d;
  }
  return best * granularity;
}

Slicing loom::evaluateSlicing(llvm::ArrayRef<int64_t> lengths, int64_t stages,
                              SliceCost cost, int64_t microbatches) {
  Slicing result;
  result.lengths.assign(lengths.begin(), lengths.end());
  int64_t context = 0;
  for (int64_t length : lengths) {
    double t = cost(length, context);
    result.sum += t;
    result.max = std::max(result.max, t);
    context += length;
  }
  result.total = microbatches * result.sum + (stages - 1) * result.max;
  return result;
}

Slicing loom::sliceTokens(int64_t tokens, int64_t granularity, int64_t stages,
                          SliceCost cost, int64_t microbatches) {
  assert(granularity >= 1 && tokens >= granularity &&
         tokens % granularity == 0 && "tokens must be whole units");
  constexpr double inf = std::numeric_limits<double>::infinity();
  int64_t n = tokens / granularity;
  // t[j][l]: the slice of l units that ends at unit j, for 1 <= l <= j <= n;
  // indexed by its end so that the DP's inner loop reads one row in order.
  // Causal costs grow with l along a row (the slice takes in earlier
  // tokens); such a row is marked sorted, and a bound then cuts it to a
  // prefix found by binary search instead of a test of every entry.
  std::vector<std::vector<double>> t(n + 1);
  std::vector<char> sorted(n + 1);
  for (int64_t j = 1; j <= n; ++j) {
    t[j].resize(j + 1);
    for (int64_t l = 1; l <= j; ++l) {
      double seconds = cost(l * granularity, (j - l) * granularity);
      // The search below relies on costs being finite and non-negative.
      if (!std::isfinite(seconds) || seconds < 0) {
        Slicing none;
        none.total = inf;
        return none;
      }
      t[j][l] = seconds;
    }
    sorted[j] = std::is_sorted(t[j].begin() + 1, t[j].end());
  }
  // Every slicing has a slice that ends at unit n, so its largest slice
  // costs at least the cheapest of those.
  double lowest = *std::min_element(t[n].begin() + 1, t[n].end());

  // The least sum of a slicing whose slices all cost at most `bound`, and
  // its slices; S(bound) does not grow as the bound grows.
  std::vector<double> sum(n + 1);
  std::vector<int64_t> from(n + 1);
  auto solve = [&](double bound) -> std::optional<Slicing> {
    sum[0] = 0;
    for (int64_t j = 1; j <= n; ++j) {
      const double *row = t[j].data();
      int64_t longest =
          sorted[j] ? std::upper_bound(row + 1, row + j + 1, bound) - (row + 1)
                    : j;
      double least = inf;
      int64_t start = 0;
      // On a tie (to rounding) keep the shorter last slice, so that the
      // earlier slices, which see less context, are the longer ones.
      for (int64_t l = 1; l <= longest; ++l) {
        double candidate = sum[j - l] + row[l];
        if (row[l] <= bound && candidate < least - 1e-12 * candidate) {
          least = candidate;
          start = j - l;
        }
      }
      sum[j] = least;
      from[j] = start;
    }
    if (sum[n] == inf)
      return std::nullopt;
    llvm::SmallVector<int64_t> lengths;
    for (int64_t j = n; j > 0; j = from[j])
      lengths.push_back((j - from[j]) * granularity);
    std::reverse(lengths.begin(), lengths.end());
    return evaluateSlicing(lengths, stages, cost, microbatches);
  };

  // (With M microbatches, T(b) = M S(b) + (K - 1) b throughout.)
  // T(b) = S(b) + (K - 1) b, over the values b that a slice can cost, is
  // least at the optimum: the optimal slicing's sum is at least S(t_max),
  // and S(t_max)'s slicing takes at most T(t_max). Searching b, a solve at b
  // that finds largest slice t* <= b settles every bound in [t*, b], where S
  // is constant and T least at t*. What is left is a set of closed ranges of
  // bounds; in [lo, hi], S is at least its value just above hi, so T is at
  // least that plus (K - 1) lo. The search takes the range with the least
  // such bound first, probes its middle, and stops when no range's bound
  // beats the best slicing found.
  struct Range {
    double lo, hi;
    double sumAbove; // S just above hi: a lower bound of S in the range
    double sumBelow; // S at or below lo, where known: an upper bound
    bool probeTop;
  };
  auto floorOf = [&](const Range &r) {
    return microbatches * r.sumAbove + (stages - 1) * r.lo;
  };
  auto later = [&](const Range &a, const Range &b) {
    return floorOf(a) > floorOf(b);
  };
  std::vector<Range> ranges;
  auto push = [&](Range r) {
    // A range in which S cannot change holds no bound better than its end.
    if (r.lo > r.hi || r.sumBelow <= r.sumAbove * (1 + 1e-12))
      return;
    ranges.push_back(r);
    std::push_heap(ranges.begin(), ranges.end(), later);
  };
  Slicing best = *solve(inf);
  push({lowest, std::nextafter(best.max, -inf), best.sum, inf, false});
  while (!ranges.empty()) {
    std::pop_heap(ranges.begin(), ranges.end(), later);
    Range r = ranges.back();
    ranges.pop_back();
    if (floorOf(r) >= best.total)
      break;
    double b = r.probeTop ? r.hi : r.lo + (r.hi - r.lo) / 2;
    std::optional<Slicing> found = solve(b);
    if (!found) {
      // Nothing fits under b, so nothing under anything below it.
      push({std::nextafter(b, inf), r.hi, r.sumAbove, inf, false});
      continue;
    }
    // On a tie prefer the smaller largest slice.
    if (found->total < best.total ||
        (found->total == best.total && found->max < best.max))
      best = *found;
    push(
        {r.lo, std::nextafter(found->max, -inf), found->sum, r.sumBelow, false});
    // A probe that settled nothing new below it settles the rest from the
    // top, where each solve settles at least one value a slice can take.
    push({std::nextafter(b, inf), r.hi, r.sumAbove, found->sum,
          found->max < r.lo});
  }
  return best;
}

Slicing loom::bestUniformSlicing(int64_t tokens, int64_t granularity,
                                 int64_t stages, SliceCost cost,
                                 int64_t microbatches) {
  Slicing best;
  best.total = std::numeric_limits<double>::infinity();
  for (int64_t count = 1; count <= tokens / granularity; ++count) {
    if (tokens % count != 0 || (tokens / count) % granularity != 0)
      continue;
    llvm::SmallVector<int64_t> lengths(count, tokens / count);
    Slicing candidate = evaluateSlicing(lengths, stages, cost, microbatches);
    if (candidate.total < best.total)
      best = candidate;
  }
  return best;
}
