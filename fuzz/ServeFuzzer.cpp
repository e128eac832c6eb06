//===- ServeFuzzer.cpp - fuzzes the serving simulator's input files -------===//
//
// The input is a request trace or a length histogram (docs/serving.md,
// "The trace format"); both parsers see it. What either accepts must be
// usable: a trace's arrivals finite, non-negative and in order, its
// lengths at least 1, and every request it holds served by the chunked
// engine (each admitted one's first token after its arrival and no later
// than its last); a histogram passes its own check and samples lengths
// inside its bins.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "loom/Serve/Engine.h"
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
  for (const RequestResult &r : run->requests)
    if (!r.refused && !(r.firstToken >= r.arrival && r.finish >= r.firstToken &&
                        std::isfinite(r.finish)))
      fuzzInvariantFailed("a served request's times are out of order",
                          std::to_string(r.id));
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
  return 0;
}
