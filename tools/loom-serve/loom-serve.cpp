//===- loom-serve.cpp - a model served under traffic on TPU v5e slices ----===//
//
// Name a model, a traffic (arrival rate and lengths, or a trace) and a
// serving configuration; the request-level simulator serves every request,
// each iteration priced by Loom's cost model for the replica's layout, and
// reports latency percentiles, throughput, goodput and cost. With --search
// and latency targets (--slo), it returns the cheapest configuration that
// meets them. docs/serving.md describes the engines, the workload and the
// price files.
//
//===----------------------------------------------------------------------===//

#include "loom/InitAll.h"
#include "loom/Plan/ServeReport.h"
#include "loom/Support/OutputFile.h"
#include "loom/Support/CommandLine.h"

#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"

#include <fmt/format.h>

using namespace llvm;
using namespace loom;

static cl::OptionCategory category("loom-serve options");

// What to serve.
static cl::opt<std::string>
    model("model", cl::cat(category), cl::value_desc("name|config.json"),
          cl::desc("The model: a bundled name or a HuggingFace config.json"));
static cl::opt<std::string> weightsDtype(
    "weights-dtype", cl::cat(category), cl::value_desc("bf16|int8"),
    cl::desc("Element type of the projections' weights (default bf16)"));
static cl::opt<std::string>
    kvDtype("kv-dtype", cl::cat(category), cl::value_desc("bf16|int8"),
            cl::desc("Element type of the KV cache (default bf16)"));

// The configuration.
static cl::opt<std::string> target(
    "target", cl::cat(category), cl::value_desc("v5e-N"),
    cl::desc("One replica's slice, its chips all in one tensor-parallel "
             "group (default v5e-8; with --search, fixes the slice)"));
static cl::opt<int64_t> replicas(
    "replicas", cl::cat(category), cl::init(1),
    cl::desc("Replicas, each a slice of --target; requests go to them in "
             "turn (disaggregated: the prefill replicas)"));
static cl::opt<std::string> engine(
    "engine", cl::cat(category),
    cl::value_desc("jetstream|chunked|disaggregated|maxdiffusion|step-batching"),
    cl::desc("LLMs: jetstream (the default): decode slots, one prompt "
             "prefilled at a time, padded to a bucket; chunked: continuous "
             "batching with chunked prefill (Sarathi-Serve); disaggregated: "
             "prefill and decode on separate replicas, the KV cache moved "
             "over the DCN (DistServe). Diffusion transformers: maxdiffusion "
             "(the default): batches of --images, each through all its "
             "steps; step-batching: requests join and leave the batch at "
             "any step"));
static cl::opt<int64_t>
    images("images", cl::cat(category), cl::init(4),
           cl::desc("maxdiffusion, step-batching: images a denoising step "
                    "computes (its compiled batch)"));
static cl::opt<int64_t> slots("slots", cl::cat(category), cl::init(8),
                              cl::desc("jetstream: decode slots per replica"));
static cl::opt<int64_t>
    tokenBudget("token-budget", cl::cat(category), cl::init(512),
                cl::desc("chunked: tokens an iteration computes at most"));
static cl::opt<int64_t> decodeReplicas(
    "decode-replicas", cl::cat(category), cl::init(1),
    cl::desc("disaggregated: decode replicas beside the --replicas prefill "
             "ones"));
static cl::opt<std::string> decodeTarget(
    "decode-target", cl::cat(category), cl::value_desc("v5e-N"),
    cl::desc("disaggregated: the decode replicas' slice, their own layout "
             "(default: --target's)"));
static cl::opt<std::string> kvTransfer(
    "kv-transfer", cl::cat(category), cl::value_desc("dcn|ici"),
    cl::init("dcn"),
    cl::desc("disaggregated: how the KV cache moves from prefill to decode "
             "replicas: over the data-center network between slices (dcn), "
             "or over the ICI of one slice holding both (ici)"));
static cl::opt<std::string> kvCache(
    "kv-cache", cl::cat(category), cl::value_desc("split|whole"),
    cl::init("split"),
    cl::desc("LLMs, with more chips a replica than KV heads: split each KV "
             "head's cache by batch over the chips holding it (split), or "
             "hold it whole on each (whole); a search tries both"));
static cl::opt<int64_t> expertParallel(
    "ep", cl::cat(category), cl::init(1),
    cl::desc("A mixture of experts: split its routed experts over this many "
             "of each replica's chips (dividing the chips and the experts; 1: "
             "every expert's width over all of them; disaggregated: the "
             "prefill replicas'); a search tries every such degree"));
static cl::opt<int64_t> decodeExpertParallel(
    "decode-ep", cl::cat(category), cl::init(1),
    cl::desc("disaggregated, a mixture of experts: --ep of the decode "
             "replicas"));
static cl::opt<int64_t>
    pageTokens("page-tokens", cl::cat(category), cl::init(16),
               cl::desc("Tokens per page of the paged KV cache"));

// The traffic.
static cl::opt<double> rate("rate", cl::cat(category),
                            cl::desc("Requests per second (default 1)"));
static cl::opt<std::string>
    arrivals("arrivals", cl::cat(category), cl::value_desc("poisson|gamma"),
             cl::init("poisson"),
             cl::desc("Arrival process; gamma with --cv gives bursts"));
static cl::opt<double>
    cv("cv", cl::cat(category),
       cl::desc("gamma: the gaps' coefficient of variation (default 1)"));
static cl::opt<int64_t> requestCount(
    "requests", cl::cat(category),
    cl::desc("Requests to generate (default 1000 unless --duration)"));
static cl::opt<double>
    duration("duration", cl::cat(category),
             cl::desc("Seconds of arrivals, instead of --requests"));
static cl::opt<std::string> inputLen(
    "input-len", cl::cat(category), cl::value_desc("N|LO-HI|hist.csv"),
    cl::init("512"),
    cl::desc("Prompt tokens: fixed, uniform over LO..HI, or a histogram "
             "file (docs/serving.md)"));
static cl::opt<std::string> outputLen(
    "output-len", cl::cat(category), cl::value_desc("N|LO-HI|hist.csv"),
    cl::init("128"), cl::desc("Generated tokens, as --input-len"));
static cl::opt<std::string>
    trace("trace", cl::cat(category), cl::value_desc("trace.csv"),
          cl::desc("Requests from a trace file instead (docs/serving.md)"));
static cl::opt<uint64_t> seed("seed", cl::cat(category), cl::init(1),
                              cl::desc("Seed of the generated requests"));

// Targets and prices.
static cl::opt<std::string> slo(
    "slo", cl::cat(category), cl::value_desc("ttft_p99=2s,tpot_p99=100ms"),
    cl::desc("Latency targets: METRIC_STAT=TIME, METRIC ttft|tpot|e2e, STAT "
             "mean|p50|p90|p99|max"));
static cl::opt<bool> searchFlag(
    "search", cl::cat(category),
    cl::desc("Find the cheapest configuration meeting --slo: slices v5e-1 "
             "to v5e-256, replicas, and the engine's setting"));
static cl::list<std::string> searchEngines(
    "search-engines", cl::cat(category), cl::CommaSeparated,
    cl::value_desc("engine,..."),
    cl::desc("--search: the engines to try (default jetstream,chunked)"));
static cl::opt<int64_t>
    maxChips("max-chips", cl::cat(category), cl::init(256),
             cl::desc("--search: chips of all replicas at most"));
static cl::opt<std::string>
    prices("prices", cl::cat(category), cl::init("tpu-v5e"),
           cl::value_desc("name|prices.json"),
           cl::desc("Price table: a bundled one or a file (docs/serving.md)"));
static cl::opt<std::string> region("region", cl::cat(category),
                                   cl::init("us-central1"),
                                   cl::desc("The price's region"));
static cl::opt<std::string>
    pricing("pricing", cl::cat(category), cl::init("on-demand"),
            cl::desc("The price's kind (on-demand, spot, ... as the table "
                     "lists)"));
static cl::opt<bool> jsonFlag("json", cl::cat(category),
                          cl::desc("Print the result as JSON"));
static cl::opt<std::string>
    html("html", cl::cat(category), cl::value_desc("file.html"),
         cl::desc("Write the report as one HTML page: latency CDFs, "
                  "throughput and the queue over time"));
static cl::opt<bool>
    perRequest("per-request", cl::cat(category),
               cl::desc("--json: every request's times too"));

static Error refusal(const Twine &why) {
  return createStringError(inconvertibleErrorCode(), why);
}

/// --input-len / --output-len: N, LO-HI or a histogram file.
static Expected<serve::LengthDistribution> parseLength(StringRef option,
                                                       StringRef text) {
  if (text.empty())
    return refusal("--" + option + " is empty");
  int64_t n = 0;
  if (!text.getAsInteger(10, n)) {
    if (n < 1)
      return refusal("--" + option + " " + text + ": at least 1 token");
    return serve::LengthDistribution::fixed(n);
  }
  auto [lo, hi] = text.split('-');
  int64_t a = 0, b = 0;
  if (!hi.empty() && !lo.getAsInteger(10, a) && !hi.getAsInteger(10, b)) {
    serve::LengthDistribution uniform = serve::LengthDistribution::uniform(a, b);
    if (Error bad = uniform.check("--" + option.str()))
      return std::move(bad);
    return uniform;
  }
  auto histogram = serve::readHistogram(text);
  if (!histogram)
    return refusal("--" + option + " is a token count N, a range LO-HI or a "
                   "histogram file: " + toString(histogram.takeError()));
  return histogram;
}

static Expected<std::vector<serve::Request>> makeRequests() {
  if (!trace.empty()) {
    for (const cl::Option *o :
         std::initializer_list<const cl::Option *>{
             &rate, &cv, &arrivals, &seed, &requestCount, &duration,
             &inputLen, &outputLen})
      if (o->getNumOccurrences())
        return refusal("--" + o->ArgStr + " does not apply to --trace, "
                       "whose requests are given");
    return serve::readTrace(trace);
  }
  serve::WorkloadSpec spec;
  if (arrivals == "gamma")
    spec.arrivals.kind = serve::ArrivalProcess::Kind::Gamma;
  else if (arrivals != "poisson")
    return refusal("--arrivals must be poisson or gamma, not '" + arrivals +
                   "'");
  if (cv.getNumOccurrences() &&
      spec.arrivals.kind != serve::ArrivalProcess::Kind::Gamma)
    return refusal("--cv is gamma's; give --arrivals gamma");
  // (Named as options here; the workload's own checks name its fields.)
  for (auto [o, what] :
       {std::pair<const cl::opt<double> *, const char *>{
            &rate, "a positive number of requests a second"},
        {&cv, "a positive coefficient of variation"},
        {&duration, "a positive number of seconds"}})
    if (o->getNumOccurrences() &&
        (!(o->getValue() > 0) || !std::isfinite(o->getValue())))
      return refusal(fmt::format("--{} must be {}, not {}", o->ArgStr.str(),
                                 what, o->getValue()));
  if (rate.getNumOccurrences())
    spec.arrivals.rate = rate;
  if (cv.getNumOccurrences())
    spec.arrivals.cv = cv;
  if (requestCount.getNumOccurrences() && duration.getNumOccurrences())
    return refusal("give --requests or --duration, not both");
  spec.count = duration.getNumOccurrences() ? 0 : 1000;
  if (requestCount.getNumOccurrences()) {
    if (requestCount < 1)
      return refusal("--requests must be at least 1");
    spec.count = requestCount;
  }
  if (duration.getNumOccurrences())
    spec.duration = duration;
  auto input = parseLength("input-len", inputLen);
  if (!input)
    return input.takeError();
  auto output = parseLength("output-len", outputLen);
  if (!output)
    return output.takeError();
  spec.input = *input;
  spec.output = *output;
  spec.seed = seed;
  return serve::generateWorkload(spec);
}

/// "v5e-8" -> 8; `option` names the option in the error.
static Expected<int64_t> sliceChips(StringRef text,
                                    StringRef option = "target") {
  int64_t chips = 0;
  StringRef name = text;
  if (!name.consume_front("v5e-") || name.getAsInteger(10, chips) ||
      chips < 1 || chips > 256)
    return refusal("--" + option + " must be a v5e slice, v5e-1 to v5e-256, "
                   "not '" + text + "'");
  return chips;
}

static int run(mlir::MLIRContext &context) {
  auto fail = [](const Twine &why) {
    errs() << "loom-serve: error: " << why << "\n";
    return 1;
  };
  if (model.empty())
    return fail("--model is required");
  for (const cl::opt<std::string> *o :
       {&trace, &prices, &target, &html, &decodeTarget})
    if (o->getNumOccurrences() && o->getValue().empty())
      return fail("--" + o->ArgStr + " is empty");
  PlanProblem problem;
  problem.model = model;
  // The model first: one that does not import is its own error, not a
  // search that finds nothing.
  llvm::Expected<ServedModel> served = importServedModel(problem, context);
  if (!served)
    return fail(toString(served.takeError()));
  bool diffusion = served->diffusion;
  std::string engineText =
      engine.empty() ? std::string(diffusion ? "maxdiffusion" : "jetstream")
                     : engine.getValue();
  std::optional<ServeEngine> kind = parseEngine(engineText);
  if (!kind)
    return fail("--engine must be jetstream, chunked, disaggregated, "
                "maxdiffusion or step-batching, not '" +
                engineText + "'");
  if (servesImages(*kind) != diffusion)
    return fail(diffusion ? "--engine " + engineText +
                                " serves LLMs; " + model +
                                " is a diffusion transformer: use "
                                "maxdiffusion or step-batching"
                          : "--engine " + engineText +
                                " serves diffusion transformers; " + model +
                                " is an LLM");
  for (auto [o, min] : {std::pair<cl::opt<int64_t> *, int64_t>{&replicas, 1},
                        {&slots, 1},
                        {&tokenBudget, 1},
                        {&decodeReplicas, 1},
                        {&pageTokens, 1},
                        {&images, 1},
                        {&expertParallel, 1},
                        {&decodeExpertParallel, 1},
                        {&maxChips, 1}})
    if (o->getValue() < min)
      return fail("--" + o->ArgStr + " must be at least " +
                  std::to_string(min));
  if (searchFlag && (replicas.getNumOccurrences() || engine.getNumOccurrences() ||
                 decodeTarget.getNumOccurrences() ||
                 decodeReplicas.getNumOccurrences() ||
                 kvTransfer.getNumOccurrences() ||
                 kvCache.getNumOccurrences() ||
                 expertParallel.getNumOccurrences() ||
                 decodeExpertParallel.getNumOccurrences() ||
                 slots.getNumOccurrences() ||
                 tokenBudget.getNumOccurrences() ||
                 images.getNumOccurrences()))
    return fail("--search chooses the replicas and the engine's setting; "
                "give --search-engines to limit the engines");
  // Options of another engine are refused, not ignored.
  if (slots.getNumOccurrences() && *kind != ServeEngine::JetStream)
    return fail("--slots is jetstream's; this is --engine " + engineText);
  if (tokenBudget.getNumOccurrences() && *kind != ServeEngine::Chunked)
    return fail("--token-budget is chunked's; this is --engine " +
                engineText);
  if ((decodeReplicas.getNumOccurrences() ||
       decodeTarget.getNumOccurrences() || kvTransfer.getNumOccurrences() ||
       decodeExpertParallel.getNumOccurrences()) &&
      *kind != ServeEngine::Disaggregated)
    return fail("--decode-replicas, --decode-target, --decode-ep and "
                "--kv-transfer are disaggregated's; this is --engine " +
                engineText);
  if (expertParallel.getNumOccurrences() && servesImages(*kind))
    return fail("--ep splits an LLM's experts; this is --engine " +
                engineText);
  if (kvCache != "split" && kvCache != "whole")
    return fail("--kv-cache must be split or whole, not '" + kvCache + "'");
  if (kvTransfer != "dcn" && kvTransfer != "ici")
    return fail("--kv-transfer must be dcn or ici, not '" + kvTransfer + "'");
  if (images.getNumOccurrences() && !servesImages(*kind))
    return fail("--images is the diffusion engines'; this is --engine " +
                engineText);
  if (searchFlag && slo.empty())
    return fail("--search needs latency targets: give --slo, e.g. "
                "--slo ttft_p99=2s,tpot_p99=100ms");
  if (!searchFlag && (searchEngines.getNumOccurrences() ||
                  maxChips.getNumOccurrences()))
    return fail("--search-engines and --max-chips are --search's");
  if (perRequest && !jsonFlag)
    return fail("--per-request is --json's");

  // No output replaces an input.
  std::string clash = findOutputClash({{"--model", model},
                                       {"--trace", trace},
                                       {"--prices", prices},
                                       {"--input-len", inputLen},
                                       {"--output-len", outputLen}},
                                      {{"--html", html}});
  if (!clash.empty())
    return fail(clash);
  std::vector<serve::LatencyTarget> targets;
  if (!slo.empty()) {
    auto parsed = serve::parseTargets(slo);
    if (!parsed)
      return fail("--slo " + toString(parsed.takeError()));
    targets = std::move(*parsed);
  }
  // An image has no tokens after its first.
  if (diffusion)
    for (const serve::LatencyTarget &t : targets)
      if (t.metric == serve::LatencyTarget::Metric::TPOT)
        return fail("--slo " + t.name() + ": a diffusion transformer's "
                    "requests are images, with no time per output token; "
                    "give e2e (or ttft, the same) targets");
  if (diffusion && (inputLen.getNumOccurrences() ||
                    outputLen.getNumOccurrences()))
    return fail("--input-len and --output-len are LLMs'; a diffusion "
                "transformer's requests are images of the model's size");
  if (diffusion && (pageTokens.getNumOccurrences() ||
                    kvDtype.getNumOccurrences() || kvCache.getNumOccurrences()))
    return fail("--page-tokens, --kv-dtype and --kv-cache are an LLM's KV "
                "cache's; a diffusion transformer keeps none between "
                "requests");
  auto table = serve::loadPrices(prices);
  if (!table)
    return fail(toString(table.takeError()));
  auto price = table->find("v5e", region, pricing);
  if (!price)
    return fail(toString(price.takeError()));
  auto requests = makeRequests();
  if (!requests)
    return fail(toString(requests.takeError()));

  if (std::string bad = setPrecisions(problem.import,
                                      weightsDtype.empty() ? std::string("bf16")
                                                           : weightsDtype.getValue(),
                                      kvDtype.empty() ? std::string("bf16") : kvDtype.getValue(),
                                      "bf16");
      !bad.empty())
    return fail(bad);
  ServePlanner planner(problem, *requests, targets, *price, context);

  ServeEvaluation result;
  ServeSearchResult searched;
  if (searchFlag) {
    ServeSpace space;
    space.maxTotalChips = maxChips;
    space.pageTokens = pageTokens;
    if (!target.empty()) {
      auto chips = sliceChips(target);
      if (!chips)
        return fail(toString(chips.takeError()));
      if (*chips > maxChips)
        return fail(fmt::format("--max-chips {} is below the {} chips of "
                                "--target {}",
                                maxChips.getValue(), *chips,
                                target.getValue()));
      space.chips = {*chips};
    }
    space.engines =
        diffusion ? std::vector<ServeEngine>{ServeEngine::MaxDiffusion,
                                             ServeEngine::StepBatching}
                  : std::vector<ServeEngine>{ServeEngine::JetStream,
                                             ServeEngine::Chunked};
    if (searchEngines.getNumOccurrences()) {
      space.engines.clear();
      for (const std::string &name : searchEngines) {
        std::optional<ServeEngine> e = parseEngine(name);
        if (!e)
          return fail("--search-engines: '" + name +
                      "' is not jetstream, chunked, disaggregated, "
                      "maxdiffusion or step-batching");
        if (servesImages(*e) != diffusion)
          return fail("--search-engines: " + name + " does not serve " +
                      model);
        space.engines.push_back(*e);
      }
    }
    searched = planner.search(space);
    if (!searched.unservable.empty())
      return fail("no slice of the search can serve " + model + ": " +
                  searched.unservable);
    if (searched.impossible) {
      auto [t, least] = *searched.impossible;
      static const char *what[] = {"the first token comes",
                                   "a decode step takes",
                                   "a request takes"};
      return fail(fmt::format(
          "--slo {} <= {} cannot be met: {} at least {} on every "
          "configuration of the search",
          t.name(), formatServeSeconds(t.seconds), what[int(t.metric)],
          formatServeSeconds(least)));
    }
    if (!searched.best) {
      errs() << fmt::format(
          "loom-serve: error: no configuration of the {} tried ({} "
          "simulated) meets {} within {} chips\n",
          searched.considered, searched.simulated, slo.getValue(),
          maxChips.getValue());
      return 1;
    }
    result = std::move(*searched.best);
  } else {
    ServeConfig config;
    config.engine = *kind;
    auto chips = sliceChips(target.empty() ? "v5e-8" : StringRef(target));
    if (!chips)
      return fail(toString(chips.takeError()));
    config.chips = *chips;
    config.replicas = replicas;
    config.decodeReplicas = decodeReplicas;
    config.decodeChips = config.chips;
    if (!decodeTarget.empty()) {
      auto decodeChips = sliceChips(decodeTarget, "decode-target");
      if (!decodeChips)
        return fail(toString(decodeChips.takeError()));
      config.decodeChips = *decodeChips;
    }
    config.iciTransfer = kvTransfer == "ici";
    config.wholeKvCache = kvCache == "whole";
    config.ep = expertParallel;
    config.decodeEp = decodeExpertParallel;
    const TargetDesc *v5e = lookupTarget("tpu-v5e");
    if (config.iciTransfer && v5e && config.totalChips() > v5e->maxChips)
      return fail(fmt::format("--kv-transfer ici: one v5e slice ({} chips "
                              "at most) must hold both phases' {} chips",
                              v5e->maxChips, config.totalChips()));
    config.slots = slots;
    config.tokenBudget = tokenBudget;
    config.pageTokens = pageTokens;
    config.images = images;
    result = planner.evaluate(config);
    if (!result.failure.empty())
      return fail(config.str(planner.requestUnit()) + ": " + result.failure);
  }
  ServeReportContext report;
  report.iterations = describeIterations(planner, result.config);
  report.requestUnit = planner.requestUnit().str();
  report.model = model;
  report.requests = int64_t(requests->size());
  report.targets = targets;
  report.price = *price;
  report.pricesRetrieved = table->retrieved;
  report.search = searchFlag ? &searched : nullptr;
  report.slo = slo;
  if (!html.empty()) {
    StagedOutputs outputs("loom-serve");
    outputs.add(html, [&](raw_ostream &os) {
      writeServeHtml(result, report, os);
    });
    if (!outputs.commit())
      return 1;
  }
  if (jsonFlag)
    outs() << formatv("{0:2}", serveJSON(result, report, perRequest)) << "\n";
  else
    printServeRun(result, report, outs());
  // Targets given and missed: the run says so, and fails.
  if (result.missed) {
    errs() << "loom-serve: the configuration misses " << result.missed->name()
           << " <= " << formatServeSeconds(result.missed->seconds) << "\n";
    return 2;
  }
  return 0;
}

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  if (std::string bad = findHelpLikeTypo(argc, argv); !bad.empty()) {
    errs() << "loom-serve: Unknown command line argument '" << bad
           << "'.  Try: 'loom-serve --help'\n";
    return 1;
  }
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "loom-serve: serve a model under traffic on TPU v5e slices\n\n"
      "Generates requests (or reads a trace), serves them with a serving "
      "engine on replicas of a slice, each iteration priced by Loom's cost "
      "model for the replica's layout, and reports time to first token, "
      "time per output token and latency percentiles, throughput, goodput "
      "and cost. With --search and --slo: the cheapest configuration that "
      "meets the targets.\n");
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();
  return run(context);
}
