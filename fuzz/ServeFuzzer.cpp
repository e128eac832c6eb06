//===- ServeFuzzer.cpp - fuzzes the serving simulator's input files -------===//
//
// The input is a request trace, a length histogram, a price file or a
// list of latency targets (docs/serving.md); every parser sees it. What
// one accepts must be usable: a trace's arrivals finite, non-negative and
// in order, its lengths at least 1, and every request it holds served by
// the JetStream, chunked and diffusion engines (each admitted one's first token
// after its arrival and no later than its last); a histogram passes its
// own check and samples lengths inside its bins; a price table's prices
// are positive and found by their keys; targets are positive and finite
// and name themselves back.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "loom/Serve/Engine.h"
#include "loom/Serve/Metrics.h"
#include "loom/Serve/Prices.h"
#include "loom/Serve/Workload.h"

#include <cmath>
#include <string>

using namespace loom::fuzz;
using namespace loom::serve;

/// The tokens a trace may hold for the engine to serve it within the
/// fuzzer's time per input (an input past it is only parsed).
constexpr double kServedTokens = 1e6;

static void checkTrace(llvm::StringRef text) {
  llvm::Expected<std::vector<Request>> trace = parseTrace(text, "fuzz.csv");
  if (!trace) {
    llvm::consumeError(trace.takeError());
    return;
  }
  double last = 0, tokens = 0;
  for (const Request &r : *trace) {
    if (!std::isfinite(r.arrival) || r.arrival < last)
      fuzzInvariantFailed("a parsed trace's arrivals are not finite and in "
                          "order",
                          std::to_string(r.arrival));
    if (r.inputTokens < 1 || r.outputTokens < 1)
      fuzzInvariantFailed("a parsed request has no tokens");
    last = r.arrival;
    tokens += double(r.inputTokens) + double(r.outputTokens);
  }
  if (tokens > kServedTokens)
    return;
  RooflineCost cost(ModelDims::llama7B(), ChipFigures::tpuV5e(4));
  ChunkedOptions engine;
  engine.kv = {/*pageTokens=*/16, /*pages=*/256};
  SimOptions sim;
  sim.sampleInterval = 0;
  llvm::Expected<SimResult> run = simulateChunked(*trace, engine, cost, sim);
  if (!run)
    fuzzInvariantFailed("a parsed trace is refused by the engine",
                        llvm::toString(run.takeError()));
  auto checkTimes = [](const SimResult &result) {
    for (const RequestResult &r : result.requests)
      if (!r.refused &&
          !(r.firstToken >= r.arrival && r.finish >= r.firstToken &&
            std::isfinite(r.finish)))
        fuzzInvariantFailed("a served request's times are out of order",
                            std::to_string(r.id));
  };
  checkTimes(*run);
  // JetStream's threads and queues, their sizes varied with the trace.
  JetStreamOptions jet;
  jet.slots = 1 + int64_t(trace->size() % 8);
  jet.detokenizeBacklog = 1 + int64_t(trace->size() % 9);
  jet.kv = engine.kv;
  llvm::Expected<SimResult> jetRun = simulateJetStream(*trace, jet, cost, sim);
  if (!jetRun)
    fuzzInvariantFailed("a parsed trace is refused by the JetStream engine",
                        llvm::toString(jetRun.takeError()));
  checkTimes(*jetRun);
  // The same requests as images, a step at a time.
  struct Steps : DenoisingCost {
    double step(int64_t images) const override { return 0.01 * images; }
    double dispatch() const override { return 0.001; }
  } steps;
  DiffusionOptions diffusion;
  diffusion.steps = 4;
  diffusion.stepBatching = trace->size() % 2;
  llvm::Expected<SimResult> images =
      simulateDiffusion(*trace, diffusion, steps, sim);
  if (!images)
    fuzzInvariantFailed("a parsed trace is refused by the diffusion engine",
                        llvm::toString(images.takeError()));
  checkTimes(*images);
}

static void checkPrices(llvm::StringRef text) {
  llvm::Expected<PriceTable> table = parsePrices(text, "fuzz.json");
  if (!table) {
    llvm::consumeError(table.takeError());
    return;
  }
  if (table->prices.empty())
    fuzzInvariantFailed("a parsed price table has no price");
  for (const Price &price : table->prices) {
    if (!(price.usdPerChipHour > 0) || !std::isfinite(price.usdPerChipHour))
      fuzzInvariantFailed("a parsed price is not positive and finite");
    llvm::Expected<Price> found =
        table->find(price.chip, price.region, price.kind);
    if (!found || found->usdPerChipHour != price.usdPerChipHour)
      fuzzInvariantFailed("a parsed price is not found by its keys",
                          found ? "" : llvm::toString(found.takeError()));
  }
}

static void checkTargets(llvm::StringRef text) {
  llvm::Expected<std::vector<LatencyTarget>> targets = parseTargets(text);
  if (!targets) {
    llvm::consumeError(targets.takeError());
    return;
  }
  for (const LatencyTarget &target : *targets) {
    if (!(target.seconds > 0) || !std::isfinite(target.seconds))
      fuzzInvariantFailed("a parsed target is not positive and finite");
    // Its name parses back to it.
    auto again = parseTargets(target.name() + "=1s");
    if (!again || again->size() != 1 || again->front().metric != target.metric ||
        again->front().statistic != target.statistic)
      fuzzInvariantFailed("a target's name does not parse back",
                          target.name());
    if (!again)
      llvm::consumeError(again.takeError());
  }
}

static void checkHistogram(llvm::StringRef text) {
  llvm::Expected<LengthDistribution> lengths =
      parseHistogram(text, "fuzz.csv");
  if (!lengths) {
    llvm::consumeError(lengths.takeError());
    return;
  }
  if (llvm::Error err = lengths->check("fuzz"))
    fuzzInvariantFailed("a parsed histogram fails its check",
                        llvm::toString(std::move(err)));
  if (!std::isfinite(lengths->mean()))
    fuzzInvariantFailed("a parsed histogram's mean is not finite");
  Rng rng(1);
  for (int i = 0; i < 64; ++i) {
    int64_t length = lengths->sample(rng);
    bool inside = llvm::any_of(lengths->bins, [&](const LengthBin &bin) {
      return bin.count > 0 && length >= bin.lo && length < bin.hi;
    });
    if (!inside)
      fuzzInvariantFailed("a sampled length lies in no bin",
                          std::to_string(length));
  }
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::StringRef text = asText(data, size);
  checkTrace(text);
  checkHistogram(text);
  checkPrices(text);
  checkTargets(text);
  return 0;
}
