//===- CostModelBench.cpp - the cost model's hot calls --------------------===//
//
// The planners call these millions of times. Run through
// bench/cost_model.sh, which prints each call's time as a ratio to a
// baseline measured in the same run (one double division and max, the
// cheapest possible roofline), since this machine is noisy.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Dialect/Loom/ModelCost.h"
#include "loom/Import/ModelImporter.h"
#include "loom/Hardware/CostModel.h"
#include "loom/Hardware/DeviceMesh.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"

#include <benchmark/benchmark.h>

using namespace loom;

static const TargetDesc &v5e() { return *lookupTarget("tpu-v5e"); }

static void Baseline(benchmark::State &state) {
  double flops = 1e12, bytes = 1e9, peak = 1.576e14, bw = 7.3728e11;
  for (auto _ : state) {
    benchmark::DoNotOptimize(flops);
    benchmark::DoNotOptimize(std::max(flops / peak, bytes / bw));
    flops += 1;
  }
}
BENCHMARK(Baseline);

static void ComputeTime(benchmark::State &state) {
  CostModel model(v5e());
  double flops = 1e12;
  for (auto _ : state) {
    benchmark::DoNotOptimize(model.computeTime(flops, 1e9));
    flops += 1;
  }
}
BENCHMARK(ComputeTime);

static void MatmulTime(benchmark::State &state) {
  CostModel model(v5e());
  int64_t m = 2048;
  for (auto _ : state) {
    benchmark::DoNotOptimize(model.matmulTime(m, 8192, 1000));
    m = m % 4096 + 1;
  }
}
BENCHMARK(MatmulTime);

static void PointToPoint(benchmark::State &state) {
  CostModel model(v5e());
  int64_t slice[] = {16, 16}, from[] = {0, 0}, to[] = {9, 13};
  for (auto _ : state) {
    benchmark::DoNotOptimize(model.pointToPointTime(slice, from, to, 4e6));
    to[0] = (to[0] + 1) % 16;
  }
}
BENCHMARK(PointToPoint);

static void AllReduceTwoAxes(benchmark::State &state) {
  CostModel model(v5e());
  GroupAxis axes[] = {{16, true}, {4, false}};
  double bytes = 1e8;
  for (auto _ : state) {
    benchmark::DoNotOptimize(
        model.collectiveTime(CollectiveKind::AllReduce, axes, bytes));
    bytes += 1;
  }
}
BENCHMARK(AllReduceTwoAxes);

static void MeshChipLookup(benchmark::State &state) {
  auto mesh = DeviceMesh::build(v5e(), *v5e().findTopology("v5e-256"), {4, 8, 8});
  if (!mesh) {
    state.SkipWithError(llvm::toString(mesh.takeError()).c_str());
    return;
  }
  int64_t i = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(mesh->chip(i % 4, (i / 4) % 8, (i / 32) % 8));
    ++i;
  }
}
BENCHMARK(MeshChipLookup);

// The estimate of one LLaMA-65B layer through the op interface: 16 ops.
static void EstimateLlamaLayer(benchmark::State &state) {
  mlir::MLIRContext context;
  ImportOptions options;
  auto module = importModel("llama-65b", options, &context);
  LayerOp layer;
  module->walk([&](LayerOp op) {
    if (!layer)
      layer = op;
  });
  CostModel model(v5e());
  for (auto _ : state)
    benchmark::DoNotOptimize(estimateTime(model, layer));
}
BENCHMARK(EstimateLlamaLayer);

BENCHMARK_MAIN();
