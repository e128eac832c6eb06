//===- PartitionTest.cpp - layer partition and token slicing --------------===//
//
// Both algorithms against exhaustive search on small cases, and TeraPipe's
// properties on a causal cost.
//
//===----------------------------------------------------------------------===//

#include "loom/Partition/PartitionLayers.h"
#include "loom/Partition/SplitTokens.h"

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <random>

using namespace loom;

namespace {

//===----------------------------------------------------------------------===//
// Layer partition
//===----------------------------------------------------------------------===//

/// Every placement of the cuts, by brute force.
std::optional<double> exhaustiveBottleneck(const PartitionProblem &p) {
  int64_t L = p.layers.size(), K = p.stages;
  std::optional<double> best;
  std::vector<int64_t> first(K);
  std::function<void(int64_t, int64_t)> place = [&](int64_t stage,
                                                    int64_t begin) {
    if (stage == K)
      return;
    first[stage] = begin;
    if (stage == K - 1) {
      Partition part = evaluatePartition(p, first);
      for (double bytes : part.stageBytes)
        if (bytes > p.capacity)
          return;
      if (!best || part.bottleneck < *best)
        best = part.bottleneck;
      return;
    }
    for (int64_t next = begin + 1; next <= L - (K - stage - 1); ++next) {
      first[stage + 1] = next;
      place(stage + 1, next);
    }
  };
  if (K <= L)
    place(0, 0);
  return best;
}

TEST(PartitionLayers, MatchesExhaustiveSearch) {
  std::mt19937 rng(1234);
  std::uniform_real_distribution<double> time(0.1, 10), bytes(1, 10);
  int cases = 0, infeasible = 0;
  for (int64_t L = 1; L <= 9; ++L)
    for (int64_t K = 1; K <= std::min<int64_t>(L, 5); ++K)
      for (int trial = 0; trial < 20; ++trial) {
        PartitionProblem p;
        p.stages = K;
        for (int64_t i = 0; i < L; ++i)
          p.layers.push_back({time(rng), bytes(rng)});
        p.prologue = {time(rng) / 4, bytes(rng)};
        p.epilogue = {time(rng) / 4, bytes(rng)};
        p.perStageBytes = 1;
        // From generous to too tight.
        p.capacity = 2 + 60.0 * L / K / (1 + trial % 4);
        std::optional<Partition> dp = partitionLayers(p);
        std::optional<double> brute = exhaustiveBottleneck(p);
        ASSERT_EQ(dp.has_value(), brute.has_value()) << L << " " << K;
        if (dp) {
          EXPECT_DOUBLE_EQ(dp->bottleneck, *brute) << L << " " << K;
          for (double b : dp->stageBytes)
            EXPECT_LE(b, p.capacity);
        } else {
          ++infeasible;
        }
        ++cases;
      }
  EXPECT_GT(cases, 500);
  EXPECT_GT(infeasible, 0) << "some cases must exercise the memory limit";
}

TEST(PartitionLayers, MoreStagesThanLayersOrNoFit) {
  PartitionProblem p;
  p.layers = {{1, 1}, {1, 1}};
  p.capacity = 10;
  p.stages = 3;
  EXPECT_FALSE(partitionLayers(p));
  p.stages = 2;
  p.capacity = 0.5;
  EXPECT_FALSE(partitionLayers(p));
}

TEST(PartitionLayers, BalancesEqualLayers) {
  PartitionProblem p;
  p.layers.assign(80, {1.0, 1.0});
  p.stages = 4;
  p.capacity = 100;
  std::optional<Partition> part = partitionLayers(p);
  ASSERT_TRUE(part);
  EXPECT_EQ(part->firstLayer, (llvm::SmallVector<int64_t>{0, 20, 40, 60}));
  EXPECT_DOUBLE_EQ(part->bottleneck, 20);
}

//===----------------------------------------------------------------------===//
// Token slicing
//===----------------------------------------------------------------------===//

/// A causal slice on a roofline: per-token matmul work that cannot go
/// below the time to stream the weights, plus attention over the context.
double causalCost(int64_t l, int64_t c) {
  double matmul = std::max(2e-6 * l, 1.5e-4);
  double attention = 4e-9 * (double(l) * c + double(l) * (l + 1) / 2);
  return matmul + attention + 2e-5; // fixed per-slice overhead
}

/// Every composition of n units, by brute force.
double exhaustiveTotal(int64_t n, int64_t granularity, int64_t stages,
                       SliceCost cost, int64_t microbatches = 1) {
  double best = std::numeric_limits<double>::infinity();
  std::vector<int64_t> lengths;
  std::function<void(int64_t)> extend = [&](int64_t left) {
    if (left == 0) {
      best = std::min(
          best, evaluateSlicing(lengths, stages, cost, microbatches).total);
      return;
    }
    for (int64_t l = 1; l <= left; ++l) {
      lengths.push_back(l * granularity);
      extend(left - l);
      lengths.pop_back();
    }
  };
  extend(n);
  return best;
}

TEST(PartitionLayers, VirtualStagesSumTheirChunks) {
  // 8 equal layers of 1 s and 1 byte on 2 stages of 2 chunks: a layer pair
  // per chunk, chunk c on stage c mod 2, each stage 4 s and 4 bytes plus
  // its activations once (perStageBytes).
  PartitionProblem p;
  p.layers.assign(8, {1.0, 1.0});
  p.stages = 2;
  p.virtualStages = 2;
  p.perStageBytes = 0.5;
  p.capacity = 100;
  std::optional<Partition> part = partitionLayers(p);
  ASSERT_TRUE(part);
  EXPECT_EQ(part->firstLayer, (llvm::SmallVector<int64_t>{0, 2, 4, 6}));
  EXPECT_EQ(part->chunkSeconds, (llvm::SmallVector<double>{2, 2, 2, 2}));
  EXPECT_EQ(part->stageSeconds, (llvm::SmallVector<double>{4, 4}));
  EXPECT_EQ(part->stageBytes, (llvm::SmallVector<double>{4.5, 4.5}));
  EXPECT_DOUBLE_EQ(part->bottleneck, 4);
  // A head of 3 s after the last layer lands on the last chunk (stage 1),
  // which keeps fewer layers; both stages still hold their chunks' sums.
  p.epilogue = {3.0, 0.0};
  part = partitionLayers(p);
  ASSERT_TRUE(part);
  double layerSeconds = 0;
  for (double s : part->chunkSeconds)
    layerSeconds += s;
  EXPECT_DOUBLE_EQ(part->stageSeconds[0] + part->stageSeconds[1],
                   layerSeconds);
  // The last chunk takes one layer (1 + 3 s), the others 3, 2 and 2.
  EXPECT_EQ(part->firstLayer.back(), 7);
  EXPECT_DOUBLE_EQ(part->chunkSeconds.back(), 4);
  // Each stage's chunks must fit: 4 bytes of layers a stage leave no room
  // in 4.4 bytes with 0.5 of activations (each chunk is held to (4.4 - 0.5)
  // / 2 = 1.95 bytes, one layer), and 8 layers do not go in 4 chunks of one.
  p.epilogue = {};
  p.capacity = 4.4;
  EXPECT_FALSE(partitionLayers(p));
  // More chunks than layers.
  p.capacity = 100;
  p.virtualStages = 8;
  EXPECT_FALSE(partitionLayers(p));
}

TEST(SplitTokens, MatchesExhaustiveSearch) {
  for (int64_t n = 1; n <= 12; ++n)
    for (int64_t stages : {1, 2, 4, 8}) {
      Slicing dp = sliceTokens(n * 64, 64, stages, causalCost);
      double brute = exhaustiveTotal(n, 64, stages, causalCost);
      EXPECT_NEAR(dp.total, brute, 1e-12 * brute) << n << " " << stages;
      int64_t covered = 0;
      for (int64_t l : dp.lengths) {
        EXPECT_EQ(l % 64, 0);
        covered += l;
      }
      EXPECT_EQ(covered, n * 64);
    }
  // And on a cost that is not causal at all (random, fixed seed).
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(0.5, 2);
  std::vector<std::vector<double>> table(9, std::vector<double>(10));
  for (auto &row : table)
    for (double &v : row)
      v = u(rng);
  auto randomCost = [&](int64_t l, int64_t c) { return table[c][l] * l; };
  for (int64_t stages : {1, 3, 6}) {
    Slicing dp = sliceTokens(8, 1, stages, randomCost);
    EXPECT_NEAR(dp.total, exhaustiveTotal(8, 1, stages, randomCost), 1e-12);
  }
}

// With M microbatches the DP minimises M * sum + (K - 1) * max, which
// favours longer slices (the bubble is shared by M times the work): the
// optimum of every composition, and slices no more numerous than with one.
TEST(SplitTokens, MicrobatchesWeighTheSum) {
  for (int64_t n = 1; n <= 10; ++n)
    for (int64_t stages : {2, 4, 8})
      for (int64_t microbatches : {2, 4}) {
        Slicing dp = sliceTokens(n * 64, 64, stages, causalCost, microbatches);
        double brute = exhaustiveTotal(n, 64, stages, causalCost, microbatches);
        EXPECT_NEAR(dp.total, brute, 1e-12 * brute)
            << n << " " << stages << " " << microbatches;
        EXPECT_DOUBLE_EQ(dp.total, microbatches * dp.sum + (stages - 1) * dp.max);
        EXPECT_LE(dp.lengths.size(),
                  sliceTokens(n * 64, 64, stages, causalCost).lengths.size());
      }
}

/// TeraPipe's enumeration without its search: the least-sum DP under every
/// value a slice can cost, keeping the best total. O(n^4), for small n.
double enumeratedTotal(int64_t n, int64_t stages, SliceCost cost) {
  double best = std::numeric_limits<double>::infinity();
  for (int64_t end = 1; end <= n; ++end)
    for (int64_t length = 1; length <= end; ++length) {
      double bound = cost(length, end - length);
      std::vector<double> sum(n + 1, std::numeric_limits<double>::infinity());
      std::vector<int64_t> from(n + 1);
      sum[0] = 0;
      for (int64_t j = 1; j <= n; ++j)
        for (int64_t i = 0; i < j; ++i)
          if (cost(j - i, i) <= bound && sum[i] + cost(j - i, i) < sum[j]) {
            sum[j] = sum[i] + cost(j - i, i);
            from[j] = i;
          }
      if (sum[n] == std::numeric_limits<double>::infinity())
        continue;
      llvm::SmallVector<int64_t> lengths;
      for (int64_t j = n; j > 0; j = from[j])
        lengths.insert(lengths.begin(), j - from[j]);
      best = std::min(best, evaluateSlicing(lengths, stages, cost).total);
    }
  return best;
}

// The branch and bound over bounds against solving every bound, past the
// sizes exhaustive search reaches: costs that grow along a row (causal, the
// search's fast path), random ones that do not, and rows of both kinds.
TEST(SplitTokens, MatchesEveryBoundEnumerated) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(0.5, 2);
  for (int trial = 0; trial < 24; ++trial) {
    int64_t n = 13 + trial * 2, stages = 1 + trial % 7 * 3;
    double overhead = u(rng) * 1e-4, perToken = u(rng) * 1e-6,
           pair = u(rng) * 1e-8;
    auto causal = [&](int64_t l, int64_t c) {
      return overhead + perToken * l + pair * l * (c + (l + 1) / 2.0);
    };
    std::vector<double> noise(n * n + n + 1);
    for (double &v : noise)
      v = u(rng);
    auto random = [&](int64_t l, int64_t c) { return noise[c * n + l] * l; };
    // Sorted rows for short slices only: a wobble from 4 units on.
    auto mixed = [&](int64_t l, int64_t c) {
      return causal(l, c) * (l < 4 ? 1 : noise[c * n + l]);
    };
    for (SliceCost cost : {SliceCost(causal), SliceCost(random),
                           SliceCost(mixed)}) {
      double expected = enumeratedTotal(n, stages, cost);
      EXPECT_NEAR(sliceTokens(n, 1, stages, cost).total, expected,
                  1e-12 * expected)
          << "n " << n << ", stages " << stages;
    }
  }
}

// Costs that are not finite and non-negative have no optimum to search
// for; the slicer says so instead of hanging or guessing.
TEST(SplitTokens, RefusesCostsItCannotOrder) {
  for (double bad : {std::numeric_limits<double>::quiet_NaN(),
                     std::numeric_limits<double>::infinity(), -1.0}) {
    auto cost = [&](int64_t l, int64_t c) {
      return l == 1 && c == 0 ? bad : causalCost(l, c);
    };
    Slicing result = sliceTokens(16, 1, 4, cost);
    EXPECT_TRUE(result.lengths.empty()) << bad;
    EXPECT_EQ(result.total, std::numeric_limits<double>::infinity()) << bad;
  }
  // Zero costs are fine: every slicing ties.
  Slicing zero = sliceTokens(16, 1, 4, [](int64_t, int64_t) { return 0.0; });
  EXPECT_EQ(zero.total, 0);
  EXPECT_FALSE(zero.lengths.empty());
}

TEST(SplitTokens, CoarsensGranularityToTheTable) {
  // Within the table: as given.
  EXPECT_EQ(coarsenGranularity(2048, 8), 8);
  EXPECT_EQ(coarsenGranularity(512, 1), 1);
  // The least multiple of the granularity that divides the tokens into at
  // most kMaxSliceUnits units.
  EXPECT_EQ(coarsenGranularity(16384, 1), 32);
  EXPECT_EQ(coarsenGranularity(16384, 16), 32);
  EXPECT_EQ(coarsenGranularity(513, 1), 3);       // 3 x 171
  EXPECT_EQ(coarsenGranularity(3 * 1031, 3), 3 * 1031); // 1031 is prime
  EXPECT_EQ(coarsenGranularity(1000000, 1), 2000);
  for (int64_t tokens : {513, 1024, 4096, 6000, 16384, 1 << 20, 999999})
    for (int64_t granularity : {1, 3, 8}) {
      if (tokens % granularity != 0)
        continue;
      int64_t unit = coarsenGranularity(tokens, granularity);
      EXPECT_EQ(unit % granularity, 0) << tokens << " " << granularity;
      EXPECT_EQ(tokens % unit, 0) << tokens << " " << granularity;
      EXPECT_LE(tokens / unit, kMaxSliceUnits) << tokens << " " << granularity;
      // No smaller multiple would do.
      for (int64_t smaller = granularity; smaller < unit; smaller += granularity)
        EXPECT_TRUE(tokens % smaller != 0 || tokens / smaller > kMaxSliceUnits)
            << tokens << " " << granularity << " " << smaller;
    }
}

TEST(SplitTokens, CausalSlicesDoNotGrowAlongTheSequence) {
  for (int64_t stages : {2, 4, 8, 16}) {
    Slicing dp = sliceTokens(2048, 16, stages, causalCost);
    for (size_t i = 1; i < dp.lengths.size(); ++i)
      EXPECT_LE(dp.lengths[i], dp.lengths[i - 1])
          << "stages " << stages << ", slice " << i;
  }
}

TEST(SplitTokens, NeverWorseThanTheBestUniformSlicing) {
  for (int64_t stages : {2, 4, 8}) {
    Slicing dp = sliceTokens(2048, 16, stages, causalCost);
    Slicing uniform = bestUniformSlicing(2048, 16, stages, causalCost);
    EXPECT_LE(dp.total, uniform.total * (1 + 1e-12)) << stages;
    // Causal costs reward shrinking slices: strictly better here.
    EXPECT_LT(dp.total, uniform.total) << stages;
  }
}

} // namespace
