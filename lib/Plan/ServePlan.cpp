//===- ServePlan.cpp - how to serve a model under a latency target --------===//

#include "loom/Plan/ServePlan.h"

#include "loom/Hardware/TargetDesc.h"

#include "llvm/ADT/StringSwitch.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <tuple>

using namespace mlir;
using namespace loom;

/// The largest Ulysses degree a diffusion replica tries (1, 2, 4, 8): each
/// degree plans the model once a slice.
constexpr int64_t kReplicaMaxSp = 8;

llvm::StringRef loom::engineName(ServeEngine engine) {
  switch (engine) {
  case ServeEngine::JetStream:
    return "jetstream";
  case ServeEngine::Chunked:
    return "chunked";
  case ServeEngine::Disaggregated:
    return "disaggregated";
  case ServeEngine::MaxDiffusion:
    return "maxdiffusion";
  case ServeEngine::StepBatching:
    return "step-batching";
  }
  return "jetstream";
}

std::optional<ServeEngine> loom::parseEngine(llvm::StringRef name) {
  return llvm::StringSwitch<std::optional<ServeEngine>>(name)
      .Case("jetstream", ServeEngine::JetStream)
      .Case("chunked", ServeEngine::Chunked)
      .Case("disaggregated", ServeEngine::Disaggregated)
      .Case("maxdiffusion", ServeEngine::MaxDiffusion)
      .Case("step-batching", ServeEngine::StepBatching)
      .Default(std::nullopt);
}

std::string ServeConfig::str(llvm::StringRef unit) const {
  std::string experts;
  if (engine != ServeEngine::Disaggregated && ep > 1)
    experts = fmt::format(", ep {}", ep);
  if (engine == ServeEngine::Disaggregated && (ep > 1 || decodeEp > 1))
    experts = fmt::format(", ep {} prefill, {} decode", ep, decodeEp);
  std::string whole = experts + (wholeKvCache ? ", whole KV cache" : "");
  switch (engine) {
  case ServeEngine::JetStream:
    return fmt::format("{} x v5e-{} jetstream, {} slots{}", replicas, chips,
                       slots, whole);
  case ServeEngine::Chunked:
    return fmt::format("{} x v5e-{} chunked prefill, {}-token budget{}",
                       replicas, chips, tokenBudget, whole);
  case ServeEngine::Disaggregated:
    return fmt::format("{} prefill x v5e-{} + {} decode x v5e-{} "
                       "disaggregated, KV over {}{}",
                       replicas, chips, decodeReplicas, decodeChips,
                       iciTransfer ? "ICI" : "DCN", whole);
  case ServeEngine::MaxDiffusion:
    return fmt::format("{} x v5e-{} maxdiffusion, batches of {} {}{}",
                       replicas, chips, images, unit, images == 1 ? "" : "s");
  case ServeEngine::StepBatching:
    return fmt::format("{} x v5e-{} step batching, {} {}{} a step", replicas,
                       chips, images, unit, images == 1 ? "" : "s");
  }
  return "";
}

bool loom::promptsKeepWholeCache(const ServeConfig &config) {
  // A disaggregated engine's prefill replicas hand the logical cache over
  // (its bytes, not a repeated copy's); the others decode where they
  // prefill.
  return config.engine != ServeEngine::Disaggregated && config.wholeKvCache;
}

ServePlanner::ServePlanner(PlanProblem problem,
                           std::vector<serve::Request> requests,
                           std::vector<serve::LatencyTarget> targets,
                           serve::Price price, MLIRContext &context)
    : problem(std::move(problem)), requests(std::move(requests)),
      targets(std::move(targets)), price(std::move(price)), context(context) {
  for (const serve::Request &request : this->requests)
    longest = std::max(longest, request.inputTokens + request.outputTokens);
  // (A model that does not import is planned later, its error shown.)
  if (llvm::Expected<ServedModel> served =
          importServedModel(this->problem, context)) {
    diffusion = served->diffusion;
    video = served->video;
    kvHeads = served->kvHeads;
    experts = served->experts;
  } else {
    llvm::consumeError(served.takeError());
  }
}

llvm::Expected<const PlannedDenoisingCost *>
ServePlanner::denoisingFor(int64_t chips, int64_t images, bool upTo) {
  auto fail = [](const std::string &why) -> llvm::Error {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), why);
  };
  if (auto it = costFailures.find(chips); it != costFailures.end())
    return fail(it->second);
  std::unique_ptr<PlannedDenoisingCost> &cost = denoising[chips];
  if (!cost) {
    PlanProblem replica = problem;
    replica.topology = "v5e-" + std::to_string(chips);
    // The replica's layout: its chips split as data parallelism over a
    // guided model's two rows an image (MaxDiffusion's data axis over the
    // doubled batch; refused for a model without guidance), Ulysses
    // sequence parallelism, and tensor parallelism over the rest; the one
    // whose step of one image predicts fastest. (Tensor parallelism over
    // the whole slice first: its refusal is the slice's when none plans.)
    std::string why;
    for (int64_t dp : {1, 2})
      for (int64_t sp = 1; sp <= kReplicaMaxSp; sp *= 2) {
        if (chips % (dp * sp) != 0)
          continue;
        ParallelLayout layout;
        layout.tp = chips / (dp * sp);
        layout.sp = sp;
        layout.dataParallel = dp;
        auto created = PlannedDenoisingCost::create(replica, layout, context);
        if (!created) {
          std::string error = llvm::toString(created.takeError());
          if (why.empty())
            why = fmt::format("v5e-{}: {}", chips, error);
          continue;
        }
        if (!cost || (*created)->step(1) < cost->step(1))
          cost = std::move(*created);
      }
    if (!cost) {
      costFailures[chips] = why;
      denoising.erase(chips);
      return fail(why);
    }
  }
  // (A batch too large to run fails this configuration, not the slice.)
  if (llvm::Error err = cost->prepare(images, upTo))
    return std::move(err);
  return cost.get();
}

llvm::Expected<const PlannedIterationCost *>
ServePlanner::costFor(int64_t chips, bool wholeKvCache, int64_t ep) {
  CostKey key{chips, wholeKvCache, ep};
  if (auto it = costs.find(key); it != costs.end())
    return it->second.get();
  if (auto it = iterationFailures.find(key); it != iterationFailures.end())
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   it->second);
  PlanProblem replica = problem;
  replica.topology = "v5e-" + std::to_string(chips);
  ParallelLayout layout;
  layout.tp = chips;
  layout.kvBatch = wholeKvCache ? 1 : servingKvBatch(kvHeads, chips);
  layout.ep = ep;
  auto cost = PlannedIterationCost::create(replica, layout, longest, context);
  if (!cost) {
    // (The reference pass is the longest request: a request longer than
    // the model's positions is refused here.)
    std::string why = fmt::format("the longest request ({} tokens, prompt "
                                  "and output) on v5e-{}: {}",
                                  longest, chips,
                                  llvm::toString(cost.takeError()));
    iterationFailures[key] = why;
    return llvm::createStringError(llvm::inconvertibleErrorCode(), why);
  }
  return (costs[key] = std::move(*cost)).get();
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

/// Simulates `requests` on `replicas` replicas, request i on replica
/// i mod replicas (round robin), each with `simulate`, into `merged`.
static llvm::Error runReplicas(
    llvm::ArrayRef<serve::Request> requests, int64_t replicas,
    llvm::function_ref<llvm::Expected<serve::SimResult>(
        llvm::ArrayRef<serve::Request>)>
        simulate,
    serve::SimResult &merged) {
  merged.requests.resize(requests.size());
  for (int64_t replica = 0; replica < replicas; ++replica) {
    std::vector<serve::Request> share;
    std::vector<size_t> places;
    for (size_t i = replica; i < requests.size(); i += replicas) {
      share.push_back(requests[i]);
      places.push_back(i);
    }
    if (share.empty())
      continue;
    llvm::Expected<serve::SimResult> run = simulate(share);
    if (!run)
      return run.takeError();
    mergeRun(*run, places, merged);
  }
  return llvm::Error::success();
}

void ServePlanner::finish(ServeEvaluation &out) const {
  out.metrics =
      serve::computeMetrics(out.result, serve::goodputTargets(targets));
  out.missed = serve::firstMissed(targets, out.metrics);
  // (Per million tokens, or images: an image is its request's one output.)
  if (out.metrics.outputTokensPerSecond > 0)
    out.usdPerMillionOutput =
        out.usdPerHour / 3600.0 / out.metrics.outputTokensPerSecond * 1e6;
}

ServeEvaluation ServePlanner::evaluate(const ServeConfig &config) {
  ServeEvaluation out;
  out.config = config;
  out.usdPerHour = double(config.totalChips()) * price.usdPerChipHour;
  if (servesImages(config.engine) != diffusion) {
    out.failure = diffusion ? "a diffusion transformer is served with the "
                              "maxdiffusion or step-batching engine"
                            : "an LLM is served with the jetstream, chunked "
                              "or disaggregated engine";
    return out;
  }
  if (diffusion)
    return evaluateImages(config, std::move(out));
  if (experts == 0 && (config.ep > 1 || config.decodingEp() > 1)) {
    out.failure = fmt::format("expert parallelism (ep {}) applies to a "
                              "mixture of experts; {} has no routed experts",
                              std::max(config.ep, config.decodingEp()),
                              problem.model);
    return out;
  }
  llvm::Expected<const PlannedIterationCost *> cost =
      costFor(config.chips, promptsKeepWholeCache(config), config.ep);
  if (!cost) {
    out.failure = llvm::toString(cost.takeError());
    return out;
  }
  const PlannedIterationCost &iteration = **cost;
  // The decode replicas' slice (a disaggregated engine's own) holds the
  // cache requests decode from.
  bool disaggregated = config.engine == ServeEngine::Disaggregated;
  int64_t decodeChips = disaggregated ? config.decodeChips : config.chips;
  llvm::Expected<const PlannedIterationCost *> decodeCost =
      costFor(decodeChips, config.wholeKvCache, config.decodingEp());
  if (!decodeCost) {
    out.failure = llvm::toString(decodeCost.takeError());
    return out;
  }
  const PlannedIterationCost &decoding = **decodeCost;
  serve::KvCache kv;
  kv.pageTokens = config.pageTokens;
  // (A model that caches nothing never runs out: 0 pages is no limit.)
  double pages =
      decoding.kvBytesPerToken() > 0
          ? std::floor(decoding.kvCapacityBytes() /
                       (decoding.kvBytesPerToken() * double(config.pageTokens)))
          : 0;
  kv.pages = int64_t(std::min(pages, 1e15));
  if (decoding.kvBytesPerToken() > 0 && kv.pages < 1) {
    out.failure = fmt::format(
        "v5e-{} has no HBM left for a page of KV cache after the weights",
        decodeChips);
    return out;
  }
  auto fail = [&](llvm::Error error) {
    out.failure = llvm::toString(std::move(error));
    return out;
  };
  // The disaggregated engine serves every request on its instances; the
  // others each serve a replica's share.
  std::function<llvm::Expected<serve::SimResult>(
      llvm::ArrayRef<serve::Request>)>
      simulate;
  int64_t shares = config.replicas;
  if (config.engine == ServeEngine::Disaggregated) {
    serve::DisaggregatedOptions options;
    options.prefillInstances = config.replicas;
    options.decodeInstances = config.decodeReplicas;
    options.decodeKv = kv;
    if (config.iciTransfer) {
      // Within one slice: a prompt's cache, split over the prefill block's
      // chips, crosses the links between that block and a decode block
      // beside it, as many as the smaller block's longer side (v5e slices
      // are a x b blocks with b = a or 2a: 2x4 beside 2x4 along their 4
      // chips), each at its one-way bandwidth, a hop's latency.
      const TargetDesc &target = iteration.getTarget();
      int64_t smaller = std::min(config.chips, config.decodeChips);
      int64_t rows = 1;
      while (rows * rows * 4 <= smaller)
        rows *= 2;
      options.transferBandwidth =
          target.linkBandwidth * double(smaller / rows);
      options.transferLatency = target.hopLatency;
    } else {
      // The KV cache leaves the prefill slice through its hosts' NICs over
      // the data-center network (the target file's DCN figures; a plan of
      // one slice carries none, so they are read from the bundled target).
      const TargetDesc *bundled = lookupTarget(iteration.getTarget().name);
      const TargetDesc &target = bundled ? *bundled : iteration.getTarget();
      int64_t hosts =
          target.chipsPerHost > 0
              ? std::max<int64_t>(config.chips / target.chipsPerHost, 1)
              : 1;
      options.transferBandwidth = target.dcnBandwidth * double(hosts);
      options.transferLatency = target.dcnLatency;
    }
    if (!(options.transferBandwidth > 0))
      return fail(llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          "the target has no DCN figures to move the KV cache with"));
    simulate = [options, &iteration,
                &decoding](llvm::ArrayRef<serve::Request> all) {
      return serve::simulateDisaggregated(all, options, iteration, decoding);
    };
    shares = 1;
  } else if (config.engine == ServeEngine::JetStream) {
    serve::JetStreamOptions options;
    options.slots = config.slots;
    options.kv = kv;
    simulate = [options, &iteration](llvm::ArrayRef<serve::Request> share) {
      return serve::simulateJetStream(share, options, iteration);
    };
  } else {
    serve::ChunkedOptions options;
    options.tokenBudget = config.tokenBudget;
    options.kv = kv;
    simulate = [options, &iteration](llvm::ArrayRef<serve::Request> share) {
      return serve::simulateChunked(share, options, iteration);
    };
  }
  if (llvm::Error err = runReplicas(requests, shares, simulate, out.result))
    return fail(std::move(err));
  finish(out);
  if (out.metrics.refused > 0)
    out.failure = fmt::format(
        "{} of the requests are longer than a replica's KV cache ({} tokens)",
        out.metrics.refused, kv.pages * kv.pageTokens);
  return out;
}

ServeEvaluation ServePlanner::evaluateImages(const ServeConfig &config,
                                             ServeEvaluation out) {
  serve::DiffusionOptions options;
  options.maxBatch = config.images;
  options.stepBatching = config.engine == ServeEngine::StepBatching;
  llvm::Expected<const PlannedDenoisingCost *> cost =
      denoisingFor(config.chips, config.images, /*upTo=*/!options.padded);
  if (!cost) {
    out.failure = llvm::toString(cost.takeError());
    return out;
  }
  options.steps = (*cost)->getSteps();
  auto simulate = [&](llvm::ArrayRef<serve::Request> share) {
    return serve::simulateDiffusion(share, options, **cost);
  };
  if (llvm::Error err =
          runReplicas(requests, config.replicas, simulate, out.result)) {
    out.failure = llvm::toString(std::move(err));
    return out;
  }
  finish(out);
  return out;
}

std::vector<ServeConfig>
ServePlanner::enumerate(const ServeSpace &space) const {
  // The largest v5e slice, which one ICI joins (the bundled target's).
  const TargetDesc *v5e = lookupTarget("tpu-v5e");
  int64_t sliceMost = v5e ? v5e->maxChips : 0;
  std::vector<ServeConfig> configs;
  for (ServeEngine engine : space.engines)
    for (int64_t chips : space.chips) {
      if (chips < 1 || chips > space.maxTotalChips)
        continue;
      int64_t most = space.maxTotalChips / chips;
      for (int64_t replicas = 1; replicas <= most; ++replicas) {
        ServeConfig config;
        config.pageTokens = space.pageTokens;
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
          for (int64_t decodeChips : space.chips) {
            if (decodeChips < 1)
              continue;
            config.decodeChips = decodeChips;
            for (int64_t decode = 1; chips * replicas + decodeChips * decode <=
                                     space.maxTotalChips;
                 ++decode) {
              config.decodeReplicas = decode;
              // Over ICI when one slice holds both phases, and over DCN.
              for (bool ici : {true, false}) {
                if (ici && config.totalChips() > sliceMost)
                  continue;
                config.iciTransfer = ici;
                configs.push_back(config);
              }
              config.iciTransfer = false;
            }
          }
          break;
        case ServeEngine::MaxDiffusion:
        case ServeEngine::StepBatching:
          for (int64_t images : space.imageBatches) {
            config.images = images;
            configs.push_back(config);
          }
          break;
        }
      }
    }
  // An LLM's decodes also with each KV head's cache whole, where the
  // decoding replica's chips outnumber the KV heads (else the two are one).
  if (!diffusion)
    for (size_t i = 0, n = configs.size(); i < n; ++i) {
      ServeConfig whole = configs[i];
      int64_t decodeChips = whole.engine == ServeEngine::Disaggregated
                                ? whole.decodeChips
                                : whole.chips;
      if (servingKvBatch(kvHeads, decodeChips) <= 1)
        continue;
      whole.wholeKvCache = true;
      configs.push_back(whole);
    }
  // A mixture of experts' replicas also with their experts split over 2,
  // 4, ... of their chips (each degree dividing the chips and the experts);
  // a disaggregated engine's prefill and decode replicas each their own.
  if (experts > 0) {
    auto degrees = [&](int64_t chips) {
      SmallVector<int64_t, 8> out;
      for (int64_t ep = 1; ep <= chips && chips % ep == 0 && experts % ep == 0;
           ep *= 2)
        out.push_back(ep);
      return out;
    };
    for (size_t i = 0, n = configs.size(); i < n; ++i) {
      bool disaggregated = configs[i].engine == ServeEngine::Disaggregated;
      SmallVector<int64_t, 8> decodeDegrees =
          disaggregated ? degrees(configs[i].decodeChips)
                        : SmallVector<int64_t, 8>{1};
      for (int64_t ep : degrees(configs[i].chips))
        for (int64_t decodeEp : decodeDegrees) {
          if (ep == 1 && decodeEp == 1)
            continue;
          ServeConfig split = configs[i];
          split.ep = ep;
          split.decodeEp = decodeEp;
          configs.push_back(split);
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

/// The configurations alike but for the replicas (a disaggregated
/// engine's prefill replicas): a family, in which a miss with some replicas
/// is taken to rule out fewer.
static auto familyOf(const ServeConfig &config) {
  return std::make_tuple(int(config.engine), config.chips, config.slots,
                         config.tokenBudget, config.decodeReplicas,
                         config.decodeChips, config.pageTokens, config.images,
                         config.iciTransfer, config.wholeKvCache, config.ep,
                         config.decodeEp);
}

std::optional<ServeBound> ServePlanner::bound(const ServeConfig &config) {
  if (servesImages(config.engine) != diffusion)
    return std::nullopt;
  if (diffusion) {
    // An image waits at least for its steps, each of a padded batch (or
    // of one image unpadded), and one dispatch.
    serve::DiffusionOptions options;
    int64_t images = options.padded ? config.images : 1;
    auto cost = denoisingFor(config.chips, images, false);
    if (!cost) {
      llvm::consumeError(cost.takeError());
      return std::nullopt;
    }
    ServeBound out;
    out.e2e = (*cost)->dispatch() +
              double((*cost)->getSteps()) * (*cost)->step(images);
    out.ttft = out.e2e;
    return out;
  }
  llvm::Expected<const PlannedIterationCost *> cost =
      costFor(config.chips, promptsKeepWholeCache(config), config.ep);
  if (!cost) {
    llvm::consumeError(cost.takeError());
    return std::nullopt;
  }
  int64_t input = requests.front().inputTokens;
  int64_t output = requests.front().outputTokens;
  for (const serve::Request &request : requests) {
    input = std::min(input, request.inputTokens);
    output = std::min(output, request.outputTokens);
  }
  // Every request's first token waits for its prompt's prefill at least
  // (JetStream's padded to its bucket; chunks cost no less than the whole,
  // each reading the weights again), and each later token for a decode
  // step at least as long as one sequence's at the shortest prompt
  // (JetStream's over every slot). Iterations cost more with more tokens
  // and longer contexts, so the shortest request's are the least.
  ServeBound out;
  int64_t prompt = config.engine == ServeEngine::JetStream
                       ? serve::bucketFor(serve::jetStreamPrefillBuckets(),
                                          input)
                       : input;
  out.ttft = (*cost)->prefill(prompt);
  // (A disaggregated engine decodes on its decode replicas' slice.)
  const PlannedIterationCost *decoding = *cost;
  if (config.engine == ServeEngine::Disaggregated) {
    auto decodeCost =
        costFor(config.decodeChips, config.wholeKvCache, config.decodeEp);
    if (!decodeCost) {
      llvm::consumeError(decodeCost.takeError());
      return std::nullopt;
    }
    decoding = *decodeCost;
  }
  serve::Batch decode;
  decode.decodeContexts.push_back(input);
  if (config.engine == ServeEngine::JetStream)
    decode.paddedDecodes = config.slots;
  out.tpot = decoding->iteration(decode);
  out.e2e = out.ttft + double(output - 1) * out.tpot;
  return out;
}

double ServeBound::of(const serve::LatencyTarget &target) const {
  switch (target.metric) {
  case serve::LatencyTarget::Metric::TTFT:
    return ttft;
  case serve::LatencyTarget::Metric::TPOT:
    return tpot;
  case serve::LatencyTarget::Metric::E2E:
    return e2e;
  }
  return 0;
}

ServeSearchResult ServePlanner::search(const ServeSpace &space) {
  ServeSearchResult result;
  std::vector<ServeConfig> configs = enumerate(space);
  result.considered = int64_t(configs.size());
  // Each family's configurations, cheapest first (their order in
  // `configs`), families in the order of their cheapest.
  std::map<decltype(familyOf(ServeConfig())), size_t> familyIndex;
  std::vector<std::vector<size_t>> families;
  for (size_t i = 0; i < configs.size(); ++i) {
    auto [it, added] =
        familyIndex.try_emplace(familyOf(configs[i]), families.size());
    if (added)
      families.emplace_back();
    families[it->second].push_back(i);
  }
  std::map<size_t, bool> meets;
  std::optional<ServeEvaluation> best;
  size_t bestAt = configs.size();
  auto tryConfig = [&](size_t i) {
    if (auto it = meets.find(i); it != meets.end())
      return it->second;
    ServeEvaluation evaluation = evaluate(configs[i]);
    ++result.simulated;
    bool ok = evaluation.meets();
    meets[i] = ok;
    if (ok && i < bestAt) {
      bestAt = i;
      best = std::move(evaluation);
    }
    return ok;
  };
  std::vector<double> fastest(targets.size(), INFINITY);
  bool anyRuns = false;
  for (const std::vector<size_t> &family : families) {
    // A family whose least latency misses a target never meets it.
    std::optional<ServeBound> least = bound(configs[family.front()]);
    if (!least)
      continue;
    anyRuns = true;
    for (auto [k, target] : llvm::enumerate(targets))
      fastest[k] = std::min(fastest[k], least->of(target));
    if (llvm::any_of(targets, [&](const serve::LatencyTarget &target) {
          return least->of(target) > target.seconds;
        })) {
      ++result.ruledOut;
      continue;
    }
    // Only the family's configurations cheaper than the best so far can
    // win; when the dearest of them misses, so do the rest.
    size_t end = std::lower_bound(family.begin(), family.end(), bestAt) -
                 family.begin();
    if (end == 0 || !tryConfig(family[end - 1]))
      continue;
    // The fewest replicas that meet the targets: a bisection.
    size_t lo = 0, hi = end - 1;
    while (lo < hi) {
      size_t mid = (lo + hi) / 2;
      if (tryConfig(family[mid]))
        hi = mid;
      else
        lo = mid + 1;
    }
  }
  result.best = std::move(best);
  // No slice of the space can serve the model: say why, for the largest
  // (where weights that do not fit a smaller one fit).
  if (!anyRuns && !costFailures.empty())
    result.unservable = costFailures.rbegin()->second;
  for (auto [k, target] : llvm::enumerate(targets))
    if (!result.impossible && fastest[k] > target.seconds &&
        std::isfinite(fastest[k]))
      result.impossible = {target, fastest[k]};
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
