//===- ServeTest.cpp - the request-level serving simulator ----------------===//
//
// Workloads (the generator, the samplers, the readers and their refusals),
// the engines against queueing theory and against traces worked by hand,
// KV capacity, chunked prefill against prefill-first, and the metrics.
//
//===----------------------------------------------------------------------===//

#include "loom/Serve/Engine.h"
#include "loom/Serve/Metrics.h"
#include "loom/Serve/Prices.h"
#include "loom/Serve/Workload.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace loom::serve;

namespace {

/// Seconds = base + perPrefillToken * prompt tokens + perDecode * decode
/// rows (padded rows included), and `insertSeconds` an insert: easy to work
/// by hand.
class LinearCost : public IterationCost {
public:
  LinearCost(double base, double perPrefillToken, double perDecode = 0,
             double kvBytes = 0)
      : base(base), perPrefillToken(perPrefillToken), perDecode(perDecode),
        kvBytes(kvBytes) {}
  double insert(int64_t) const override { return insertSeconds; }
  double insertSeconds = 0;
  double iteration(const Batch &batch) const override {
    int64_t prompt = 0;
    for (const PrefillChunk &chunk : batch.prefills)
      prompt += chunk.tokens;
    int64_t rows = std::max<int64_t>(batch.paddedDecodes,
                                     batch.decodeContexts.size());
    return base + perPrefillToken * prompt + perDecode * rows;
  }
  double kvBytesPerToken() const override { return kvBytes; }

private:
  double base, perPrefillToken, perDecode, kvBytes;
};

/// The message of `error`, consumed.
std::string message(llvm::Error error) {
  return llvm::toString(std::move(error));
}

template <typename T> std::string message(llvm::Expected<T> &value) {
  EXPECT_FALSE(static_cast<bool>(value));
  return value ? std::string() : message(value.takeError());
}

/// Two requests: 100 tokens in and 3 out at 0 s, 50 in and 2 out at 0.5 s.
std::vector<Request> twoRequests() {
  return {{0, 0.0, 100, 3}, {1, 0.5, 50, 2}};
}

//===----------------------------------------------------------------------===//
// Workloads
//===----------------------------------------------------------------------===//

TEST(ServeWorkload, SplitMix64MatchesItsReference) {
  // splitmix64.c seeded with 0: its first output is 0xe220a8397b1dcdaf.
  Rng rng(0);
  EXPECT_EQ(rng.next(), 0xe220a8397b1dcdafULL);
  Rng a(42), b(42);
  for (int i = 0; i < 100; ++i)
    EXPECT_EQ(a.next(), b.next());
}

TEST(ServeWorkload, GammaGapsHaveTheAskedMeanAndCv) {
  for (double cv : {0.5, 1.0, 3.0}) {
    WorkloadSpec spec;
    spec.arrivals = {ArrivalProcess::Kind::Gamma, /*rate=*/4.0, cv};
    spec.count = 100000;
    llvm::Expected<std::vector<Request>> requests = generateWorkload(spec);
    ASSERT_TRUE(static_cast<bool>(requests));
    double sum = 0, squares = 0, previous = 0;
    for (const Request &r : *requests) {
      double gap = r.arrival - previous;
      previous = r.arrival;
      sum += gap;
      squares += gap * gap;
    }
    double n = requests->size(), mean = sum / n;
    double sd = std::sqrt(squares / n - mean * mean);
    EXPECT_NEAR(mean, 0.25, 0.25 * 0.03) << "cv " << cv;
    EXPECT_NEAR(sd / mean, cv, cv * 0.05) << "cv " << cv;
  }
}

TEST(ServeWorkload, DurationBoundsTheArrivals) {
  WorkloadSpec spec;
  spec.arrivals.rate = 100;
  spec.duration = 50;
  llvm::Expected<std::vector<Request>> requests = generateWorkload(spec);
  ASSERT_TRUE(static_cast<bool>(requests));
  EXPECT_NEAR(double(requests->size()), 5000, 4 * std::sqrt(5000.0));
  EXPECT_LT(requests->back().arrival, 50);
}

TEST(ServeWorkload, UniformAndHistogramLengthsStayInRange) {
  llvm::Expected<LengthDistribution> histogram =
      parseHistogram("# comment\nlo,hi,count\n1,2,1\n10,20,3\n", "h.csv");
  ASSERT_TRUE(static_cast<bool>(histogram)) << message(histogram.takeError());
  EXPECT_DOUBLE_EQ(histogram->mean(), 0.25 * 1 + 0.75 * 14.5);
  Rng rng(7);
  int ones = 0;
  LengthDistribution uniform = LengthDistribution::uniform(5, 8);
  for (int i = 0; i < 40000; ++i) {
    int64_t u = uniform.sample(rng);
    EXPECT_TRUE(u >= 5 && u <= 8);
    int64_t h = histogram->sample(rng);
    EXPECT_TRUE(h == 1 || (h >= 10 && h < 20)) << h;
    ones += h == 1;
  }
  EXPECT_NEAR(ones / 40000.0, 0.25, 0.01);
}

TEST(ServeWorkload, ShippedHistogramsRead) {
  for (const char *name : {"azure-conv-2023-input.csv",
                           "azure-conv-2023-output.csv"}) {
    std::string path =
        std::string(LOOM_SOURCE_DIR) + "/data/serving/" + name;
    llvm::Expected<LengthDistribution> d = readHistogram(path);
    ASSERT_TRUE(static_cast<bool>(d)) << message(d.takeError());
    double total = 0;
    for (const LengthBin &bin : d->bins)
      total += bin.count;
    EXPECT_EQ(total, 19366) << name; // every request of the trace
  }
}

TEST(ServeWorkload, TraceReadsEitherHeader) {
  llvm::Expected<std::vector<Request>> ours = parseTrace(
      "arrival_s,input_tokens,output_tokens\n0,10,2\n0.5, 20 ,3 # late\n",
      "t.csv");
  ASSERT_TRUE(static_cast<bool>(ours)) << message(ours.takeError());
  ASSERT_EQ(ours->size(), 2u);
  EXPECT_EQ((*ours)[1].inputTokens, 20);
  EXPECT_EQ((*ours)[1].id, 1);
  // vidur's processed traces: other names, other order.
  llvm::Expected<std::vector<Request>> vidur = parseTrace(
      "num_decode_tokens,arrived_at,num_prefill_tokens\n44,0.0,374\n",
      "v.csv");
  ASSERT_TRUE(static_cast<bool>(vidur)) << message(vidur.takeError());
  EXPECT_EQ((*vidur)[0].inputTokens, 374);
  EXPECT_EQ((*vidur)[0].outputTokens, 44);
}

TEST(ServeWorkload, BadTracesAreRefusedWithTheFieldAndLine) {
  struct Case {
    const char *text, *expected;
  } cases[] = {
      {"arrival_s,input_tokens,output_tokens\n0,1,1\n-1,1,1\n",
       "t.csv:3: 'arrival_s' must not be negative"},
      {"arrival_s,input_tokens,output_tokens\n0,1\n",
       "t.csv:2: missing value for 'output_tokens'"},
      {"arrival_s,input_tokens,output_tokens\n2,1,1\n1,1,1\n",
       "t.csv:3: 'arrival_s' goes back in time"},
      {"arrival_s,input_tokens\n0,1\n",
       "t.csv:1: the header has no 'output_tokens' column"},
      {"arrival_s,input_tokens,output_tokens\n0,x,1\n",
       "t.csv:2: 'input_tokens' is not an integer"},
      {"arrival_s,input_tokens,output_tokens\n0,1,0\n",
       "t.csv:2: 'output_tokens' must be at least 1"},
      {"arrival_s,input_tokens,output_tokens\nnan,1,1\n",
       "t.csv:2: 'arrival_s' is not a number"},
      {"arrival_s,input_tokens,output_tokens\n", "t.csv: the trace has no requests"},
      {"", "t.csv: the trace has no header line"},
  };
  for (const Case &c : cases) {
    llvm::Expected<std::vector<Request>> trace = parseTrace(c.text, "t.csv");
    EXPECT_NE(message(trace).find(c.expected), std::string::npos)
        << c.text;
  }
}

TEST(ServeWorkload, BadDistributionsAreRefusedWithTheField) {
  struct Case {
    const char *text, *expected;
  } histograms[] = {
      {"lo,hi,count\n1,5\n", "h.csv:2: missing value for 'count'"},
      {"lo,hi,count\n5,5,1\n", "h.csv:2: 'hi' (5) must exceed 'lo' (5)"},
      {"lo,hi,count\n1,5,-2\n", "h.csv:2: 'count' must not be negative"},
      {"1,5,1\n3,8,1\n", "h.csv:2: 'lo' (3) overlaps the bin before it"},
      {"lo,hi,count\n1,5,0\n", "h.csv: the histogram's counts sum to 0"},
      {"# nothing\n", "h.csv: the histogram has no bins"},
  };
  for (const Case &c : histograms) {
    llvm::Expected<LengthDistribution> d = parseHistogram(c.text, "h.csv");
    EXPECT_NE(message(d).find(c.expected), std::string::npos) << c.text;
  }

  WorkloadSpec spec;
  spec.count = 10;
  spec.arrivals.rate = 0;
  llvm::Expected<std::vector<Request>> zeroRate = generateWorkload(spec);
  EXPECT_NE(message(zeroRate).find("arrivals.rate"), std::string::npos);
  spec.arrivals = {ArrivalProcess::Kind::Gamma, 1.0, -1.0};
  llvm::Expected<std::vector<Request>> badCv = generateWorkload(spec);
  EXPECT_NE(message(badCv).find("arrivals.cv"), std::string::npos);
  spec.arrivals = {};
  spec.output = LengthDistribution::uniform(10, 5);
  llvm::Expected<std::vector<Request>> badOutput = generateWorkload(spec);
  EXPECT_NE(message(badOutput).find("output: the uniform upper bound 5"),
            std::string::npos);
  spec.output = LengthDistribution::fixed(0);
  llvm::Expected<std::vector<Request>> zeroOutput = generateWorkload(spec);
  EXPECT_NE(message(zeroOutput).find("output: the fixed length"),
            std::string::npos);
  spec.output = LengthDistribution::fixed(1);
  spec.count = 0;
  llvm::Expected<std::vector<Request>> noBound = generateWorkload(spec);
  EXPECT_NE(message(noBound).find("duration"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// Engines against queueing theory
//===----------------------------------------------------------------------===//

/// Poisson arrivals at `rho` requests a second of one output token each,
/// served one at a time in 1 s: an M/D/1 queue.
std::vector<Request> mD1Workload(double rho) {
  WorkloadSpec spec;
  spec.arrivals.rate = rho;
  spec.input = LengthDistribution::fixed(100);
  spec.output = LengthDistribution::fixed(1);
  spec.count = 100000;
  spec.seed = 2024;
  llvm::Expected<std::vector<Request>> requests = generateWorkload(spec);
  EXPECT_TRUE(static_cast<bool>(requests));
  return requests ? std::move(*requests) : std::vector<Request>();
}

/// The mean wait before service, from each request's first token.
double meanWait(const SimResult &result, double service) {
  double sum = 0;
  for (const RequestResult &r : result.requests)
    sum += r.firstToken - r.arrival - service;
  return sum / result.requests.size();
}

TEST(ServeEngines, MD1MeanWaitMatchesPollaczekKhinchine) {
  // Pollaczek-Khinchine for deterministic service: Wq = rho / (2 mu (1 -
  // rho)), mu = 1 / service (Kleinrock, Queueing Systems vol. 1, 1975,
  // eq. 5.73 with the service's second moment 1 / mu^2).
  LinearCost cost(/*base=*/0.5, /*perPrefillToken=*/0.5 / 128);
  for (double rho : {0.5, 0.8}) {
    // Arrivals at rho a second. A one-request chunked engine is an M/D/1
    // queue; its service is 0.5 + 100 * 0.5 / 128 s, its load rho times
    // that. (JetStream's is not: its generate thread runs steps beside the
    // prefills.)
    std::vector<Request> requests = mD1Workload(rho);
    ChunkedOptions chunked;
    chunked.maxRunning = 1;
    double service = 0.5 + 100 * 0.5 / 128;
    double rhoChunked = rho * service;
    double expectedChunked =
        rhoChunked * service / (2 * (1 - rhoChunked));
    llvm::Expected<SimResult> c = simulateChunked(requests, chunked, cost);
    ASSERT_TRUE(static_cast<bool>(c));
    EXPECT_NEAR(meanWait(*c, service), expectedChunked,
                0.06 * expectedChunked) << rho;
  }
}

//===----------------------------------------------------------------------===//
// Engines against traces worked by hand
//===----------------------------------------------------------------------===//

/// Expects each request's first-token and finish times.
void expectTimes(const SimResult &result,
                 std::initializer_list<std::pair<double, double>> times) {
  ASSERT_EQ(result.requests.size(), times.size());
  size_t i = 0;
  for (auto [first, finish] : times) {
    EXPECT_NEAR(result.requests[i].firstToken, first, 1e-9) << "request " << i;
    EXPECT_NEAR(result.requests[i].finish, finish, 1e-9) << "request " << i;
    ++i;
  }
}

/// 1 s an iteration plus 0.01 s a padded prompt token, 0.1 s an insert.
LinearCost jetStreamCost() {
  LinearCost cost(1.0, 0.01);
  cost.insertSeconds = 0.1;
  return cost;
}

TEST(ServeEngines, JetStreamByHand) {
  LinearCost cost = jetStreamCost();
  JetStreamOptions options;
  options.slots = 2;
  llvm::Expected<SimResult> two =
      simulateJetStream(twoRequests(), options, cost);
  ASSERT_TRUE(static_cast<bool>(two));
  // At 0 r0's prefill (its bucket, 128 tokens) is dispatched, to 2.28; the
  // generate thread inserts r0 (to 2.38) and dispatches steps until the
  // detokenize backlog (8) is full: r0's first token, its slot, steps to
  // 3.38, ..., 8.38, and a seventh step, to 9.38, waiting to be put. r1
  // arrives at 0.5: its prefill (64 tokens, 1.64 s) runs after those
  // steps, to 11.02; its first token waits to be put too. At 2.28 the
  // backlog has room: the step goes in, and the generate thread, a slot
  // free and no request in the backlogs, dispatches step 8 (to 12.02)
  // before r1's first token is in and r1 reaches it; r1's insert follows
  // (12.12). r0's tokens come at 2.28 (prefill), 3.38 and 4.38; r1's slot
  // is live after step 8, so step 9 (to 13.12) gives its second token.
  expectTimes(*two, {{2.28, 4.38}, {11.02, 13.12}});
  // 2 prefills and 17 steps (the generate thread stays 8 ahead).
  EXPECT_EQ(two->iterations, 19);
  EXPECT_EQ(two->peakRunning, 2);

  // With one slot r1 takes r0's slot: its insert is dispatched after the
  // 9th step (13.02) and step 10 (to 14.12) gives its second token.
  options.slots = 1;
  llvm::Expected<SimResult> one =
      simulateJetStream(twoRequests(), options, cost);
  ASSERT_TRUE(static_cast<bool>(one));
  expectTimes(*one, {{2.28, 4.38}, {11.02, 14.12}});

  // A generate thread that may not run ahead (a detokenize backlog of 1):
  // r0's slot entry waits for its first token (2.28); r1's prefill,
  // dispatched at 0.5, runs after r0's insert, 2.38 to 4.02; step 1 (r0
  // alone, to 5.02) was dispatched at 2.28, then r1's insert (5.12), and
  // step 2 (to 6.12) gives r0's third token and r1's second.
  options.slots = 2;
  options.detokenizeBacklog = 1;
  llvm::Expected<SimResult> tight =
      simulateJetStream(twoRequests(), options, cost);
  ASSERT_TRUE(static_cast<bool>(tight));
  expectTimes(*tight, {{2.28, 6.12}, {4.02, 6.12}});

  options.detokenizeBacklog = 0;
  llvm::Expected<SimResult> noBacklog =
      simulateJetStream(twoRequests(), options, cost);
  EXPECT_NE(message(noBacklog).find("detokenizeBacklog"), std::string::npos);
  options.detokenizeBacklog = 8;
  options.backlog = 0;
  llvm::Expected<SimResult> noQueue =
      simulateJetStream(twoRequests(), options, cost);
  EXPECT_NE(message(noQueue).find("backlog: must"), std::string::npos);
}

/// A denoising step of n images takes n seconds; a call's launch `d`.
class PerImageCost : public DenoisingCost {
public:
  explicit PerImageCost(double dispatch) : launch(dispatch) {}
  double step(int64_t images) const override { return double(images); }
  double dispatch() const override { return launch; }
  double launch;
};

std::vector<Request> threeImages() {
  // Two at 0, one at 0.1 (lengths are ignored).
  return {{0, 0.0, 7, 9}, {1, 0.0, 7, 9}, {2, 0.1, 7, 9}};
}

TEST(ServeEngines, DiffusionStaticBatchesByHand) {
  PerImageCost cost(0.5);
  DiffusionOptions options;
  options.maxBatch = 2;
  options.steps = 3;
  // Padded: every step computes 2 images (2 s). r0 and r1 run 0.5 + 3 x 2
  // = 6.5 s; r2 (arrived at 0.1) waits for them, then alone, padded, to 13.
  llvm::Expected<SimResult> padded =
      simulateDiffusion(threeImages(), options, cost);
  ASSERT_TRUE(static_cast<bool>(padded));
  expectTimes(*padded, {{6.5, 6.5}, {6.5, 6.5}, {13, 13}});
  EXPECT_EQ(padded->iterations, 6);
  // Unpadded, r2's batch of one takes 0.5 + 3 x 1.
  options.padded = false;
  llvm::Expected<SimResult> exact =
      simulateDiffusion(threeImages(), options, cost);
  ASSERT_TRUE(static_cast<bool>(exact));
  expectTimes(*exact, {{6.5, 6.5}, {6.5, 6.5}, {10, 10}});
  // An image is one output and no prompt: images/s are its requests/s.
  ServingMetrics metrics = computeMetrics(*exact, {});
  EXPECT_EQ(metrics.tpot.count, 0);
  EXPECT_DOUBLE_EQ(metrics.outputTokensPerSecond, 3 / 10.0);
  EXPECT_DOUBLE_EQ(metrics.inputTokensPerSecond, 0);
}

TEST(ServeEngines, DiffusionStepBatchingByHand) {
  PerImageCost cost(0);
  DiffusionOptions options;
  options.maxBatch = 3;
  options.steps = 3;
  options.stepBatching = true;
  options.padded = false;
  // Step 1: r0, r1 (2 s, to 2); r2 joins: steps of 3 to 5 and 8 (r0, r1
  // done at 8); r2's last step alone, to 9.
  llvm::Expected<SimResult> run =
      simulateDiffusion(threeImages(), options, cost);
  ASSERT_TRUE(static_cast<bool>(run));
  expectTimes(*run, {{8, 8}, {8, 8}, {9, 9}});
  EXPECT_EQ(run->iterations, 4);
  EXPECT_EQ(run->peakRunning, 3);
  // A full batch keeps a newcomer waiting for a place.
  options.maxBatch = 2;
  llvm::Expected<SimResult> full =
      simulateDiffusion(threeImages(), options, cost);
  ASSERT_TRUE(static_cast<bool>(full));
  // r0, r1: 3 steps of 2 s to 6; r2 then 3 steps of 1 s to 9.
  expectTimes(*full, {{6, 6}, {6, 6}, {9, 9}});
  options.steps = 0;
  llvm::Expected<SimResult> bad =
      simulateDiffusion(threeImages(), options, cost);
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()), "steps: must be at least 1, not 0");
}

TEST(ServeMetrics, LatencyTargetsParseAndCheck) {
  auto targets = parseTargets("ttft_p99=2s, tpot_p50=100ms,e2e_max=1500us");
  ASSERT_TRUE(static_cast<bool>(targets));
  ASSERT_EQ(targets->size(), 3u);
  EXPECT_EQ((*targets)[0].name(), "ttft_p99");
  EXPECT_DOUBLE_EQ((*targets)[1].seconds, 0.1);
  EXPECT_DOUBLE_EQ((*targets)[2].seconds, 1.5e-3);
  SloTargets slo = goodputTargets(*targets);
  EXPECT_DOUBLE_EQ(slo.ttft, 2);
  EXPECT_DOUBLE_EQ(slo.tpot, 0.1);
  EXPECT_DOUBLE_EQ(slo.e2e, 1.5e-3);
  ServingMetrics metrics;
  metrics.ttft.p99 = 1.9;
  metrics.tpot.p50 = 0.2;
  std::optional<LatencyTarget> missed = firstMissed(*targets, metrics);
  ASSERT_TRUE(missed.has_value());
  EXPECT_EQ(missed->name(), "tpot_p50");
  for (auto [text, message] :
       {std::pair<const char *, const char *>{
            "ttft=2s", "'ttft=2s': the statistic '' is not mean, p50, p90, "
                       "p99 or max"},
        {"ttft_p99", "'ttft_p99': expected METRIC_STAT=TIME, e.g. ttft_p99=2s"},
        {"ttft_p99=0s", "'ttft_p99=0s': the time must be a positive number"},
        {"ttft_p99=nans", "'ttft_p99=nans': the time must be a positive number"},
        {"ttft_p99=1s,", "'': expected METRIC_STAT=TIME, e.g. ttft_p99=2s"}}) {
    auto bad = parseTargets(text);
    ASSERT_FALSE(static_cast<bool>(bad)) << text;
    EXPECT_EQ(llvm::toString(bad.takeError()), message);
  }
}

TEST(ServePrices, TheBundledTableReadsAndFindsPrices) {
  auto table = loadPrices("tpu-v5e");
  ASSERT_TRUE(static_cast<bool>(table)) << llvm::toString(table.takeError());
  auto price = table->find("v5e", "us-central1", "on-demand");
  ASSERT_TRUE(static_cast<bool>(price));
  EXPECT_DOUBLE_EQ(price->usdPerChipHour, 1.2);
  EXPECT_FALSE(price->source.empty());
  // Spot is cheaper than on demand in every region the table lists.
  for (const Price &p : table->prices)
    if (p.kind == "spot") {
      auto onDemand = table->find(p.chip, p.region, "on-demand");
      ASSERT_TRUE(static_cast<bool>(onDemand)) << p.region;
      EXPECT_LT(p.usdPerChipHour, onDemand->usdPerChipHour) << p.region;
    }
  auto missing = table->find("v5e", "us-central1", "3y-commit");
  ASSERT_FALSE(static_cast<bool>(missing));
  EXPECT_NE(llvm::toString(missing.takeError())
                .find("has no 3y-commit price of v5e in us-central1"),
            std::string::npos);
  auto bad = parsePrices("{\"format\": \"loom-prices\", \"retrieved\": "
                         "\"2026-13-01\", \"currency\": \"USD\", \"unit\": "
                         "\"chip-hour\", \"prices\": []}",
                         "p.json");
  ASSERT_FALSE(static_cast<bool>(bad));
  EXPECT_EQ(llvm::toString(bad.takeError()),
            "p.json: $.retrieved: must be a date, YYYY-MM-DD");
}

TEST(ServeEngines, ChunkedByHand) {
  LinearCost cost(1.0, 0.01);
  ChunkedOptions options;
  options.tokenBudget = 64;
  llvm::Expected<SimResult> result =
      simulateChunked(twoRequests(), options, cost);
  ASSERT_TRUE(static_cast<bool>(result));
  // 0    -> 1.64: r0's first 64 prompt tokens.
  // 1.64 -> 3.28: r0's last 36 (its first token) and r1's first 28.
  // 3.28 -> 4.50: r0 decodes, r1's last 22 (its first token).
  // 4.50 -> 5.50: both decode: r0 has 3 tokens, r1 has 2.
  expectTimes(*result, {{3.28, 5.50}, {4.50, 5.50}});
  EXPECT_EQ(result->iterations, 4);

  // Prefill-first: whole prompts, decodes wait: r0 to 2.0, r1 to 3.5, then
  // two steps of both.
  options.tokenBudget = 512;
  options.stallFree = false;
  llvm::Expected<SimResult> first =
      simulateChunked(twoRequests(), options, cost);
  ASSERT_TRUE(static_cast<bool>(first));
  expectTimes(*first, {{2.0, 5.5}, {3.5, 4.5}});
}

TEST(ServeEngines, DisaggregatedByHand) {
  // 500 KV bytes a token over 100 kB/s: r0's cache moves in 0.5 s, r1's in
  // 0.25 s.
  LinearCost cost(1.0, 0.01, 0, /*kvBytes=*/500);
  DisaggregatedOptions options;
  options.transferBandwidth = 1e5;
  options.transferLatency = 0;
  llvm::Expected<SimResult> result =
      simulateDisaggregated(twoRequests(), options, cost);
  ASSERT_TRUE(static_cast<bool>(result));
  // Prefill: r0 0 -> 2.0, r1 2.0 -> 3.5 (it arrived while r0 ran).
  // r0 moves 2.0 -> 2.5 and decodes 2.5 -> 3.5 -> 4.5 (3 tokens).
  // r1 moves 3.5 -> 3.75, joins the step at 4.5 and ends at 5.5.
  expectTimes(*result, {{2.0, 4.5}, {3.5, 5.5}});
  EXPECT_EQ(result->iterations, 5);
}

//===----------------------------------------------------------------------===//
// KV capacity, refusals, scheduling policy
//===----------------------------------------------------------------------===//

TEST(ServeEngines, KvCapacityLimitsConcurrency) {
  // 16 requests at once, each 100 + 28 tokens = 8 pages of 16.
  std::vector<Request> requests;
  for (int i = 0; i < 16; ++i)
    requests.push_back({i, 0.0, 100, 28});
  requests.push_back({16, 0.0, 600, 100}); // 44 pages: never fits
  LinearCost cost(0.01, 1e-4, 1e-3);
  ChunkedOptions options;
  options.kv = {16, 24}; // room for 3
  llvm::Expected<SimResult> limited = simulateChunked(requests, options, cost);
  ASSERT_TRUE(static_cast<bool>(limited));
  EXPECT_EQ(limited->peakRunning, 3);
  EXPECT_TRUE(limited->requests[16].refused);
  ServingMetrics metrics = computeMetrics(*limited, {});
  EXPECT_EQ(metrics.completed, 16);
  EXPECT_EQ(metrics.refused, 1);

  options.kv = {16, 0};
  llvm::Expected<SimResult> unlimited =
      simulateChunked(requests, options, cost);
  ASSERT_TRUE(static_cast<bool>(unlimited));
  EXPECT_EQ(unlimited->peakRunning, 17);
  EXPECT_LT(computeMetrics(*unlimited, {}).e2e.max, metrics.e2e.max);

  // The same cache caps JetStream's slots and DistServe's decode instance.
  JetStreamOptions jet;
  jet.slots = 8;
  jet.kv = {16, 24};
  llvm::Expected<SimResult> j = simulateJetStream(requests, jet, cost);
  ASSERT_TRUE(static_cast<bool>(j));
  EXPECT_EQ(j->peakRunning, 3);
  DisaggregatedOptions disagg;
  disagg.decodeKv = {16, 24};
  llvm::Expected<SimResult> d = simulateDisaggregated(requests, disagg, cost);
  ASSERT_TRUE(static_cast<bool>(d));
  EXPECT_TRUE(d->requests[16].refused);
  int64_t most = 0;
  for (const QueueSample &s : d->queue)
    most = std::max(most, s.running);
  EXPECT_GT(most, 0);
}

TEST(ServeEngines, QueueSamplesCountWaitingAndRunning) {
  // Seven prompts at 0 on one slot: the prefill thread takes four ahead of
  // the slot's request (one it holds, one on the transfer backlog, one the
  // transfer thread holds, one on the generate backlog); two wait.
  LinearCost cost = jetStreamCost();
  JetStreamOptions options;
  options.slots = 1;
  std::vector<Request> seven;
  for (int64_t i = 0; i < 7; ++i)
    seven.push_back({i, 0.0, 100, 3});
  SimOptions sim;
  sim.sampleInterval = 1;
  llvm::Expected<SimResult> result =
      simulateJetStream(seven, options, cost, sim);
  ASSERT_TRUE(static_cast<bool>(result));
  EXPECT_EQ(result->peakRunning, 5);
  ASSERT_GT(result->queue.size(), 10u);
  EXPECT_EQ(result->queue[0].waiting, 2);
  EXPECT_EQ(result->queue[0].running, 5);
  // r0 finishes at 8.94; the prefill thread takes r5.
  EXPECT_EQ(result->queue[8].waiting, 2);
  EXPECT_EQ(result->queue[9].waiting, 1);
  EXPECT_EQ(result->queue[9].running, 5);
  EXPECT_EQ(result->queue.back().waiting, 0);
  EXPECT_EQ(result->queue.back().running, 1);
  // Each request's first token, in order, before its finish.
  for (size_t i = 1; i < seven.size(); ++i)
    EXPECT_LT(result->requests[i - 1].firstToken,
              result->requests[i].firstToken);
}

TEST(ServeEngines, ChunkedPrefillBoundsTheDecodeStalls) {
  // LLaMA-7B on one v5e chip, prompts of 256 to 4096 tokens: prefill-first
  // stops every decode for each arriving prompt; stall-free batches give
  // each decode a chunk's time at most (Sarathi-Serve, section 3.3).
  RooflineCost cost(ModelDims::llama7B(), ChipFigures::tpuV5e());
  ASSERT_FALSE(static_cast<bool>(cost.check()));
  WorkloadSpec spec;
  spec.arrivals.rate = 1.5;
  spec.input = LengthDistribution::uniform(256, 4096);
  spec.output = LengthDistribution::uniform(64, 512);
  spec.count = 2000;
  llvm::Expected<std::vector<Request>> requests = generateWorkload(spec);
  ASSERT_TRUE(static_cast<bool>(requests));
  ChunkedOptions options;
  options.tokenBudget = 512;
  options.kv = {16, 0};
  llvm::Expected<SimResult> chunked =
      simulateChunked(*requests, options, cost);
  options.stallFree = false;
  options.tokenBudget = 8192;
  llvm::Expected<SimResult> prefillFirst =
      simulateChunked(*requests, options, cost);
  ASSERT_TRUE(chunked && prefillFirst);
  ServingMetrics c = computeMetrics(*chunked, {});
  ServingMetrics p = computeMetrics(*prefillFirst, {});
  EXPECT_LT(c.tpot.p99, p.tpot.p99);
  EXPECT_LT(c.tpot.p50, p.tpot.p50);
  // The price: prompts wait for chunks, so the first token comes later.
  EXPECT_GT(c.ttft.p50, p.ttft.p50);
}

TEST(ServeEngines, BadOptionsAreRefused) {
  LinearCost cost(1.0, 0.01);
  JetStreamOptions jet;
  jet.slots = 0;
  llvm::Expected<SimResult> j = simulateJetStream(twoRequests(), jet, cost);
  EXPECT_NE(message(j).find("slots"), std::string::npos);
  ChunkedOptions chunked;
  chunked.kv.pageTokens = 0;
  llvm::Expected<SimResult> c = simulateChunked(twoRequests(), chunked, cost);
  EXPECT_NE(message(c).find("kv.pageTokens"), std::string::npos);
  std::vector<Request> backwards = {{0, 2.0, 1, 1}, {1, 1.0, 1, 1}};
  llvm::Expected<SimResult> b =
      simulateChunked(backwards, ChunkedOptions(), cost);
  EXPECT_NE(message(b).find("request 1: arrival"), std::string::npos);
  DisaggregatedOptions disagg;
  disagg.transferBandwidth = 0;
  llvm::Expected<SimResult> d =
      simulateDisaggregated(twoRequests(), disagg, cost);
  EXPECT_NE(message(d).find("transferBandwidth"), std::string::npos);
}

//===----------------------------------------------------------------------===//
// Cost and metrics
//===----------------------------------------------------------------------===//

TEST(ServeCost, RooflineOfLlama7B) {
  RooflineCost cost(ModelDims::llama7B(), ChipFigures::tpuV5e());
  // 6.61e9 matmul weights (6.48e9 in the layers, 0.13e9 in the head).
  EXPECT_NEAR(ModelDims::llama7B().matmulParams(), 6.607e9, 0.001e9);
  // One decode reads every weight once: 13.2 GB at 819 GB/s = 16.1 ms.
  Batch decode;
  decode.decodeContexts.push_back(0);
  EXPECT_NEAR(cost.iteration(decode), 2 * 6.607e9 / 819e9, 0.0002);
  // A 2048-token prompt is compute bound: 2 P T + attention over 197 TF/s.
  double prompt = cost.prefill(2048);
  double flops = 2 * 6.607e9 * 2048 + 4.0 * 32 * 32 * 128 * 2048 * 1024.5;
  EXPECT_NEAR(prompt, flops / 197e12, 0.001);
  // 2 x 32 layers x 32 heads x 128 x 2 bytes = 512 KiB a token.
  EXPECT_EQ(cost.kvBytesPerToken(), 524288);
}

TEST(ServeMetrics, PercentilesOfAKnownList) {
  std::vector<double> values;
  for (int i = 1; i <= 10; ++i)
    values.push_back(i);
  // numpy.percentile(range(1, 11), [50, 90, 99]) = 5.5, 9.1, 9.91.
  EXPECT_DOUBLE_EQ(percentile(values, 50), 5.5);
  EXPECT_NEAR(percentile(values, 90), 9.1, 1e-12);
  EXPECT_NEAR(percentile(values, 99), 9.91, 1e-12);
  EXPECT_DOUBLE_EQ(percentile(values, 0), 1);
  EXPECT_DOUBLE_EQ(percentile(values, 100), 10);
  LatencySummary s = summarize({3, 1, 2});
  EXPECT_EQ(s.count, 3);
  EXPECT_DOUBLE_EQ(s.mean, 2);
  EXPECT_DOUBLE_EQ(s.p50, 2);
  EXPECT_DOUBLE_EQ(s.max, 3);
}

TEST(ServeMetrics, GoodputCountsRequestsMeetingBothTargets) {
  SimResult result;
  // TTFT 0.5 and TPOT 0.1; TTFT 2; TPOT 0.3; one token, TTFT 0.2.
  result.requests = {{0, 0, 10, 11, 0.5, 1.5},
                     {1, 1, 10, 2, 3.0, 3.1},
                     {2, 2, 10, 3, 2.5, 3.1},
                     {3, 3, 10, 1, 3.2, 3.2}};
  ServingMetrics metrics = computeMetrics(result, {/*ttft=*/1, /*tpot=*/0.2});
  EXPECT_EQ(metrics.completed, 4);
  EXPECT_DOUBLE_EQ(metrics.duration, 3.2);
  EXPECT_DOUBLE_EQ(metrics.goodput, 2 / 3.2);
  EXPECT_DOUBLE_EQ(metrics.attainment, 0.5);
  EXPECT_DOUBLE_EQ(metrics.outputTokensPerSecond, 17 / 3.2);
  EXPECT_EQ(metrics.tpot.count, 3);

  std::string text;
  llvm::raw_string_ostream os(text);
  writeJSON(os, metrics, result, /*perRequest=*/true);
  llvm::Expected<llvm::json::Value> parsed = llvm::json::parse(text);
  ASSERT_TRUE(static_cast<bool>(parsed));
  const llvm::json::Object *root = parsed->getAsObject();
  ASSERT_TRUE(root);
  EXPECT_EQ(root->getNumber("goodput_per_s"), 2 / 3.2);
  EXPECT_EQ(root->getObject("ttft_s")->getNumber("max"), 2.0);
  EXPECT_EQ(root->getArray("requests")->size(), 4u);
  EXPECT_FALSE((*root->getArray("requests"))[3].getAsObject()->get("tpot_s"));
}

} // namespace
