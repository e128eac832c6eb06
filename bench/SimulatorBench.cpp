//===- SimulatorBench.cpp - loom-sim's two phases, timed apart ------------===//
//
// Reads a schedule file (bench/simulator.sh writes LLaMA-65B's on v5e-16
// and v5e-256), then times reading it (parse and validate, from memory)
// and simulating it (the event loop alone) as separate benchmarks, with
// the simulation's events per second as a counter; the simulation also
// with every flow of the ring and line steps on its own. Timing the two phases
// in process replaces subtracting whole-tool runs, which could not resolve
// a 0.1 s simulation on this noisy machine.
// Usage: loom-bench-simulator [benchmark flags] SCHEDULE.json
//
//===----------------------------------------------------------------------===//

#include "loom/Schedule/Schedule.h"
#include "loom/Sim/Simulator.h"

#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <benchmark/benchmark.h>

#include <tuple>

using namespace loom;

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (argc != 2) {
    llvm::errs() << "usage: " << argv[0] << " [benchmark flags] SCHEDULE.json\n";
    return 1;
  }
  auto buffer = llvm::MemoryBuffer::getFile(argv[1], /*IsText=*/true);
  if (!buffer) {
    llvm::errs() << argv[1] << ": " << buffer.getError().message() << "\n";
    return 1;
  }
  llvm::StringRef text = (*buffer)->getBuffer();
  llvm::Expected<schedule::Schedule> parsed =
      schedule::parseSchedule(text, argv[1]);
  if (!parsed) {
    llvm::errs() << llvm::toString(parsed.takeError()) << "\n";
    return 1;
  }
  const TargetDesc *target = lookupTarget(parsed->targetName);
  if (!target) {
    llvm::errs() << "unknown target " << parsed->targetName << "\n";
    return 1;
  }

  benchmark::RegisterBenchmark("Read", [&](benchmark::State &state) {
    for (auto _ : state) {
      llvm::Expected<schedule::Schedule> schedule =
          schedule::parseSchedule(text, argv[1]);
      if (!schedule) {
        llvm::consumeError(schedule.takeError());
        state.SkipWithError("the schedule stopped reading");
        return;
      }
      benchmark::DoNotOptimize(schedule->chips.data());
    }
  })->Unit(benchmark::kMillisecond);
  // Every chip run: ring and line steps as bundles (the default), and
  // every flow on its own (the reference, SimOptions::everyFlow); then
  // data-parallel replicas run once for all (the default).
  for (auto [name, everyFlow, everyReplica] :
       {std::make_tuple("Simulate", false, true),
        std::make_tuple("SimulateEveryFlow", true, true),
        std::make_tuple("SimulateReplicasOnce", false, false)}) {
    sim::SimOptions options;
    options.everyFlow = everyFlow;
    options.everyReplica = everyReplica;
    auto simulate = [&, options](benchmark::State &state) {
      uint64_t events = 0;
      for (auto _ : state) {
        llvm::Expected<sim::SimResult> result = sim::simulate(
            *target, *parsed, /*recordTrace=*/false, 0, options);
        if (!result || !result->failure.empty()) {
          llvm::consumeError(result.takeError());
          state.SkipWithError("the simulation failed");
          return;
        }
        events = result->events;
      }
      state.counters["events"] = double(events);
      state.counters["events/s"] = benchmark::Counter(
          double(events), benchmark::Counter::kIsIterationInvariantRate);
    };
    benchmark::RegisterBenchmark(name, simulate)
        ->Unit(benchmark::kMillisecond);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
