//===- ServeBench.cpp - the serving simulator on 10,000 requests ----------===//
//
// Generates 10,000 requests (Poisson arrivals; prompt and output lengths
// from the Azure 2023 conversation histograms in data/serving), then times
// simulating them on each engine, LLaMA-7B on v5e-4 priced by the roofline
// (RooflineCost), with the iterations run as a counter. The baseline is
// generating the 10,000 requests, measured in the same run.
// Usage: loom-bench-serve [benchmark flags] DATA_DIR
//
//===----------------------------------------------------------------------===//

#include "loom/Serve/Engine.h"
#include "loom/Serve/Metrics.h"

#include "llvm/Support/raw_ostream.h"

#include <benchmark/benchmark.h>

#include <functional>

using namespace loom::serve;

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (argc != 2) {
    llvm::errs() << "usage: " << argv[0] << " [benchmark flags] DATA_DIR\n";
    return 1;
  }
  std::string dir = argv[1];
  llvm::Expected<LengthDistribution> input =
      readHistogram(dir + "/azure-conv-2023-input.csv");
  llvm::Expected<LengthDistribution> output =
      readHistogram(dir + "/azure-conv-2023-output.csv");
  if (!input || !output) {
    llvm::errs() << (input ? llvm::toString(output.takeError())
                           : llvm::toString(input.takeError()))
                 << "\n";
    return 1;
  }
  WorkloadSpec spec;
  spec.arrivals.rate = 8;
  spec.input = *input;
  spec.output = *output;
  spec.count = 10000;
  llvm::Expected<std::vector<Request>> requests = generateWorkload(spec);
  if (!requests) {
    llvm::errs() << llvm::toString(requests.takeError()) << "\n";
    return 1;
  }

  // LLaMA-7B (13.2 GB of bf16 weights) over 4 chips of 16 GB leaves about
  // 50 GB of KV cache at 512 KiB a token: 6,000 pages of 16 tokens.
  RooflineCost cost(ModelDims::llama7B(), ChipFigures::tpuV5e(4));
  KvCache kv{16, 6000};

  benchmark::RegisterBenchmark("Baseline", [&](benchmark::State &state) {
    for (auto _ : state) {
      llvm::Expected<std::vector<Request>> generated = generateWorkload(spec);
      if (!generated) {
        llvm::consumeError(generated.takeError());
        state.SkipWithError("generation failed");
        return;
      }
      benchmark::DoNotOptimize(generated->data());
    }
  })->Unit(benchmark::kMillisecond);

  using Simulate = std::function<llvm::Expected<SimResult>()>;
  JetStreamOptions jet;
  jet.slots = 32;
  jet.kv = kv;
  ChunkedOptions chunked;
  chunked.kv = kv;
  ChunkedOptions prefillFirst = chunked;
  prefillFirst.stallFree = false;
  prefillFirst.tokenBudget = 8192;
  DisaggregatedOptions disagg;
  disagg.decodeKv = kv;
  std::pair<const char *, Simulate> engines[] = {
      {"JetStream", [&] { return simulateJetStream(*requests, jet, cost); }},
      {"Chunked", [&] { return simulateChunked(*requests, chunked, cost); }},
      {"PrefillFirst",
       [&] { return simulateChunked(*requests, prefillFirst, cost); }},
      {"Disaggregated",
       [&] { return simulateDisaggregated(*requests, disagg, cost); }},
  };
  for (auto &[name, simulate] : engines) {
    benchmark::RegisterBenchmark(name, [&](benchmark::State &state) {
      SimResult last;
      for (auto _ : state) {
        llvm::Expected<SimResult> result = simulate();
        if (!result) {
          llvm::consumeError(result.takeError());
          state.SkipWithError("the simulation failed");
          return;
        }
        last = std::move(*result);
      }
      ServingMetrics metrics = computeMetrics(last, {});
      state.counters["iterations"] = double(last.iterations);
      state.counters["ttft_p99_s"] = metrics.ttft.p99;
      state.counters["tpot_p99_ms"] = metrics.tpot.p99 * 1e3;
      state.counters["tok/s"] = metrics.outputTokensPerSecond;
    })->Unit(benchmark::kMillisecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
