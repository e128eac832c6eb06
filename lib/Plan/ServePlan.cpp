//===- ServePlan.cpp - how to serve a model under a latency target --------===//

#include "loom/Plan/ServePlan.h"

#include "loom/Hardware/TargetDesc.h"

#include "llvm/ADT/StringSwitch.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

using namespace mlir;
using namespace loom;

llvm::StringRef loom::engineName(ServeEngine engine) {
  switch (engine) {
  case ServeEngine::JetStream:
    return "jetstream";
  case ServeEngine::Chunked:
    return "chunked";
  case ServeEngine::Disaggregated:
    return "disaggregated";
  }
  return "jetstream";
}

std::optional<ServeEngine> loom::parseEngine(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<ServeEngine>>(name)
      .Case("jetstream", ServeEngine::JetStream)
      .Case("chunked", ServeEngine::Chunked)
      .Case("disaggregated", ServeEngine::Disaggregated)
      .Default(std::nullopt);
}

std::string ServeConfig::str() const {
  switch (engine) {
  case ServeEngine::JetStream:
    return fmt::format("{} x v5e-{} jetstream, {} slots", replicas, chips,
                       slots);
  case ServeEngine::Chunked:
    return fmt::format("{} x v5e-{} chunked prefill, {}-token budget",
                       replicas, chips, tokenBudget);
  case ServeEngine::Disaggregated:
    return fmt::format("{} prefill + {} decode x v5e-{} disaggregated",
                       replicas, decodeReplicas, chips);
  }
  return "";
}

ServePlanner::ServePlanner(PlanProblem problem,
                           std::vector<serve::Request> requests,
                           std::vector<serve::LatencyTarget> targets,
                           serve::Price price, MLIRContext &context)
    : problem(std::move(problem)), requests(std::move(requests)),
      targets(std::move(targets)), price(std::move(price)), context(context) {
  for (const serve::Request &request : this->requests)
    longest = std::max(longest, request.inputTokens + request.outputTokens);
}

llvm::Expected<const PlannedIterationCost *>
ServePlanner::costFor(int64_t chips) {
  if (auto it = costs.find(chips); it != costs.end())
    return it->second.get();
  if (auto it = costFailures.find(chips); it != costFailures.end())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   it->second);
  PlanProblem replica = problem;
  replica.topology = "v5e-" + std::to_string(chips);
  ParallelLayout layout;
  layout.tp = chips;
  auto cost = PlannedIterationCost::create(replica, layout, longest, context);
  if (!cost) {
    // (The reference pass is the longest request: a request longer than
    // the model's positions is refused here.)
    std::string why = fmt::format("the longest request ({} tokens, prompt "
                                  "and output) on v5e-{}: {}",
                                  longest, chips,
                                  llvm::toString(cost.takeError()));
    costFailures[chips] = why;
    return llvm::createStringError(llvm::inconvertibleErrorCode(), why);
  }
  return (costs[chips] = std::move(*cost)).get();
}

/// `part` (one replica's run of the requests at `places` of the workload)
/// into `merged`: its requests at their places, its queue added sample by
/// sample.
static void mergeRun(const serve::SimResult &part, llvm::ArrayRef<size_t> places,
                     serve::SimResult &merged) {
  for (auto [request, place] : llvm::zip_equal(part.requests, places))
    merged.requests[place] = request;
  if (merged.queue.size() < part.queue.size())
    for (size_t i = merged.queue.size(); i < part.queue.size(); ++i)
      merged.queue.push_back({part.queue[i].time, 0, 0});
  for (size_t i = 0; i < part.queue.size(); ++i) {
    merged.queue[i].waiting += part.queue[i].waiting;
    merged.queue[i].running += part.queue[i].running;
  }
  merged.iterations += part.iterations;
  merged.peakRunning += part.peakRunning;
}

ServeEvaluation ServePlanner::evaluate(const ServeConfig &config) {
  ServeEvaluation out;
  out.config = config;
  out.usdPerHour = double(config.totalChips()) * price.usdPerChipHour;
  llvm::Expected<const PlannedIterationCost *> cost = costFor(config.chips);
  if (!cost) {
    out.failure = llvm::toString(cost.takeError());
    return out;
  }
  const PlannedIterationCost &iteration = **cost;
  serve::KvCache kv;
  kv.pageTokens = config.pageTokens;
  kv.pages = int64_t(std::floor(iteration.kvCapacityBytes() /
                                (iteration.kvBytesPerToken() *
                                 double(config.pageTokens))));
  if (kv.pages < 1) {
    out.failure = fmt::format(
        "v5e-{} has no HBM left for a page of KV cache after the weights",
        config.chips);
    return out;
  }
  serve::SimResult &merged = out.result;
  merged.requests.resize(requests.size());
  auto fail = [&](llvm::Error error) {
    out.failure = llvm::toString(std::move(error));
    return out;
  };
  if (config.engine == ServeEngine::Disaggregated) {
    serve::DisaggregatedOptions options;
    options.prefillInstances = config.replicas;
    options.decodeInstances = config.decodeReplicas;
    options.decodeKv = kv;
    // The KV cache leaves the prefill slice through its hosts' NICs over
    // the data-center network (the target's DCN figures).
    const TargetDesc &target = iteration.getTarget();
    int64_t hosts =
        target.chipsPerHost > 0
            ? std::max<int64_t>(config.chips / target.chipsPerHost, 1)
            : 1;
    options.transferBandwidth = target.dcnBandwidth * double(hosts);
    options.transferLatency = target.dcnLatency;
    if (!(options.transferBandwidth > 0))
      return fail(llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "the target has no DCN figures to move the KV cache with"));
    llvm::Expected<serve::SimResult> run =
        serve::simulateDisaggregated(requests, options, iteration);
    if (!run)
      return fail(run.takeError());
    std::vector<size_t> places(requests.size());
    std::iota(places.begin(), places.end(), size_t(0));
    mergeRun(*run, places, merged);
  } else {
    auto simulateShare = [&](llvm::ArrayRef<serve::Request> share)
        -> llvm::Expected<serve::SimResult> {
      if (config.engine == ServeEngine::JetStream) {
        serve::JetStreamOptions options;
        options.slots = config.slots;
        options.kv = kv;
        return serve::simulateJetStream(share, options, iteration);
      }
      serve::ChunkedOptions options;
      options.tokenBudget = config.tokenBudget;
      options.kv = kv;
      return serve::simulateChunked(share, options, iteration);
    };
    for (int64_t replica = 0; replica < config.replicas; ++replica) {
      std::vector<serve::Request> share;
      std::vector<size_t> places;
      for (size_t i = replica; i < requests.size(); i += config.replicas) {
        share.push_back(requests[i]);
        places.push_back(i);
      }
      if (share.empty())
        continue;
      llvm::Expected<serve::SimResult> run = simulateShare(share);
      if (!run)
        return fail(run.takeError());
      mergeRun(*run, places, merged);
    }
  }
  out.metrics =
      serve::computeMetrics(merged, serve::goodputTargets(targets));
  if (out.metrics.refused > 0)
    out.failure = fmt::format(
        "{} of the requests are longer than a replica's KV cache ({} tokens)",
        out.metrics.refused, kv.pages * kv.pageTokens);
  out.missed = serve::firstMissed(targets, out.metrics);
  if (out.metrics.outputTokensPerSecond > 0)
    out.usdPerMillionOutput =
        out.usdPerHour / 3600.0 / out.metrics.outputTokensPerSecond * 1e6;
  return out;
}

std::vector<ServeConfig>
ServePlanner::enumerate(const ServeSpace &space) const {
  std::vector<ServeConfig> configs;
  for (ServeEngine engine : space.engines)
    for (int64_t chips : space.chips) {
      if (chips < 1 || chips > space.maxTotalChips)
        continue;
      int64_t most = space.maxTotalChips / chips;
      for (int64_t replicas = 1; replicas <= most; ++replicas) {
        ServeConfig config;
        config.engine = engine;
        config.chips = chips;
        config.replicas = replicas;
        switch (engine) {
        case ServeEngine::JetStream:
          for (int64_t slots : space.slots) {
            config.slots = slots;
            configs.push_back(config);
          }
          break;
        case ServeEngine::Chunked:
          for (int64_t budget : space.tokenBudgets) {
            config.tokenBudget = budget;
            configs.push_back(config);
          }
          break;
        case ServeEngine::Disaggregated:
          for (int64_t decode = 1; replicas + decode <= most; ++decode) {
            config.decodeReplicas = decode;
            configs.push_back(config);
          }
          break;
        }
      }
    }
  // By price, then smaller slices, then fewer replicas; the space's order
  // of engines and settings after that.
  std::stable_sort(configs.begin(), configs.end(),
                   [](const ServeConfig &a, const ServeConfig &b) {
                     return std::make_tuple(a.totalChips(), a.chips,
                                            a.replicas) <
                            std::make_tuple(b.totalChips(), b.chips,
                                            b.replicas);
                   });
  return configs;
}

/// The configurations alike but for the replicas (and a disaggregated
/// engine's prefill replicas): the family a miss with more replicas rules
/// out fewer of.
static auto familyOf(const ServeConfig &config) {
  return std::make_tuple(int(config.engine), config.chips, config.slots,
                         config.tokenBudget, config.decodeReplicas,
                         config.pageTokens);
}

ServeSearchResult ServePlanner::search(const ServeSpace &space) {
  ServeSearchResult result;
  std::vector<ServeConfig> configs = enumerate(space);
  result.considered = int64_t(configs.size());
  std::map<decltype(familyOf(ServeConfig())), int64_t> missedWith;
  for (const ServeConfig &config : configs) {
    if (costFailures.count(config.chips))
      continue;
    auto family = familyOf(config);
    if (auto it = missedWith.find(family);
        it != missedWith.end() && config.replicas <= it->second)
      continue;
    ServeEvaluation evaluation = evaluate(config);
    if (evaluation.failure.empty() || evaluation.missed)
      ++result.simulated;
    if (evaluation.meets()) {
      result.best = std::move(evaluation);
      return result;
    }
    if (evaluation.failure.empty())
      missedWith[family] = std::max(missedWith[family], config.replicas);
  }
  return result;
}

ServeSearchResult ServePlanner::exhaustive(const ServeSpace &space) {
  ServeSearchResult result;
  std::vector<ServeConfig> configs = enumerate(space);
  result.considered = int64_t(configs.size());
  for (const ServeConfig &config : configs) {
    ServeEvaluation evaluation = evaluate(config);
    ++result.simulated;
    if (evaluation.meets() && !result.best)
      result.best = std::move(evaluation);
  }
  return result;
}
