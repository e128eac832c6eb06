//===- SlicingBench.cpp - TeraPipe's slicing DP at planner sizes ----------===//
//
// loom-split-tokens and every --search candidate solve TeraPipe's dynamic
// program (Li et al. 2021, "TeraPipe", section 3.3; the paper's solver
// finishes "within a minute"). This times it on a 2048-token sequence at
// granularity 1 and 8 for K = 4 to 48 stages. Run through
// bench/slicing.sh, which prints each case as a ratio to the best uniform
// slicing measured in the same run.
//
//===----------------------------------------------------------------------===//

#include "loom/Partition/SplitTokens.h"
#include "loom/Hardware/CostModel.h"
#include "loom/Hardware/TargetDesc.h"

#include <benchmark/benchmark.h>

using namespace loom;

namespace {

/// One of K pipeline stages of LLaMA-65B at tp = 4 on TPU v5e, priced by the
/// cost model's roofline: 2 FLOPs per parameter and token against streaming
/// the bf16 weights, plus causal attention's 4 * hidden FLOPs per (query,
/// key) pair. models/llama-65b.json: 80 layers, hidden 8192, intermediate
/// 22016, so 4 * 8192^2 + 3 * 8192 * 22016 = 809,500,672 parameters a layer.
class StageCost {
public:
  explicit StageCost(int64_t stages) : layers(80.0 / stages) {}

  double operator()(int64_t length, int64_t context) const {
    constexpr double params = 809500672.0 / 4, hidden = 8192.0 / 4;
    double pairs = double(length) * (context + (length + 1) / 2.0);
    double flops = 2 * params * length + 4 * hidden * pairs;
    return layers * model.computeTime(flops, 2 * params);
  }

private:
  CostModel model{*lookupTarget("tpu-v5e")};
  double layers;
};

/// Times `solve` on 2048 tokens at granularity range(0), K = range(1).
template <Slicing (*solve)(int64_t, int64_t, int64_t, SliceCost, int64_t)>
void slicing(benchmark::State &state) {
  int64_t granularity = state.range(0), stages = state.range(1);
  StageCost cost(stages);
  for (auto _ : state)
    benchmark::DoNotOptimize(solve(2048, granularity, stages, cost, 1).total);
}

} // namespace

BENCHMARK(slicing<bestUniformSlicing>)
    ->Name("Uniform")
    ->ArgsProduct({{1, 8}, {4, 8, 16, 32, 48}});
BENCHMARK(slicing<sliceTokens>)
    ->Name("TeraPipe")
    ->ArgsProduct({{1, 8}, {4, 8, 16, 32, 48}});

BENCHMARK_MAIN();
