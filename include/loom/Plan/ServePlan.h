//===- ServePlan.h - how to serve a model under a latency target -*- C++ -*-===//
//
// A serving configuration is a number of replicas, each one slice of
// `chips` chips running the model with tensor parallelism over them and a
// serving engine: for an LLM, JetStream's slots, continuous batching with
// chunked prefill, or separate prefill and decode replicas (each phase on
// slices of its own size); for a diffusion transformer, MaxDiffusion's
// batches or step-level batching. ServePlanner simulates a workload on a
// configuration, its iterations priced by the planner's cost model
// (PlannedIterationCost, PlannedDenoisingCost), and finds the cheapest
// configuration whose latency statistics meet a set of targets.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_PLAN_SERVEPLAN_H
#define LOOM_PLAN_SERVEPLAN_H

#include "loom/Plan/Planner.h"
#include "loom/Plan/ServeCost.h"
#include "loom/Serve/Engine.h"
#include "loom/Serve/Metrics.h"
#include "loom/Serve/Prices.h"

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

namespace loom {

enum class ServeEngine {
  JetStream,
  Chunked,
  Disaggregated,
  /// Diffusion transformers: MaxDiffusion's batches, each through all its
  /// steps, or step-level batching (serve::DiffusionOptions).
  MaxDiffusion,
  StepBatching,
};

/// Whether `engine` serves diffusion transformers (images) rather than
/// LLMs (tokens).
inline bool servesImages(ServeEngine engine) {
  return engine == ServeEngine::MaxDiffusion ||
         engine == ServeEngine::StepBatching;
}

/// The engine's name on the command line and in reports ("jetstream",
/// "chunked", "disaggregated", "maxdiffusion", "step-batching"), and back.
llvm::StringRef engineName(ServeEngine engine);
std::optional<ServeEngine> parseEngine(llvm::StringRef name);

/// One way to serve.
struct ServeConfig {
  ServeEngine engine = ServeEngine::JetStream;
  /// Chips of one replica's slice (v5e-<chips>), all in its tensor-parallel
  /// group.
  int64_t chips = 1;
  /// Replicas; requests go to them in turn (round robin). Disaggregated:
  /// the prefill replicas, `decodeReplicas` more decode, each a slice of
  /// `decodeChips` (its own layout: tensor parallelism over those chips).
  int64_t replicas = 1;
  int64_t decodeReplicas = 1;
  int64_t decodeChips = 1;
  /// Disaggregated: the prefill and decode replicas carved from one slice
  /// (at most 256 chips in all), the KV cache moved over its ICI, each
  /// prompt's across the links between a prefill block and a decode block;
  /// else over the data-center network, through the prefill slice's
  /// hosts' NICs.
  bool iciTransfer = false;
  /// LLMs: the decodes keep each KV head's cache whole on every chip
  /// holding it, rather than split by batch over them (kv_batch 1; only
  /// differs with more chips than KV heads).
  bool wholeKvCache = false;
  /// A mixture of experts: its routed experts split over this many of a
  /// replica's chips (expert parallelism inside the tensor-parallel group;
  /// 1: every expert's width split over all of them). Disaggregated: the
  /// prefill replicas', and `decodeEp` the decode replicas' (each phase its
  /// own layout).
  int64_t ep = 1;
  int64_t decodeEp = 1;
  /// JetStream: decode slots per replica.
  int64_t slots = 8;
  /// Chunked: the token budget of an iteration.
  int64_t tokenBudget = 512;
  /// KV cache page size in tokens.
  int64_t pageTokens = 16;
  /// Diffusion: the images one step computes (its compiled batch).
  int64_t images = 4;

  /// The ep of the replicas that decode.
  int64_t decodingEp() const {
    return engine == ServeEngine::Disaggregated ? decodeEp : ep;
  }
  /// Chips of every replica together.
  int64_t totalChips() const {
    return chips * replicas + (engine == ServeEngine::Disaggregated
                                   ? decodeChips * decodeReplicas
                                   : 0);
  }
  /// "2 x v5e-8 jetstream, 16 slots"; a diffusion engine's batches in
  /// `unit`s ("image", or "video" for a video transformer's requests).
  std::string str(llvm::StringRef unit = "image") const;
};

/// The `wholeKvCache` of the cost a configuration's prompts are priced
/// with (ServePlanner::costFor): its own, but a disaggregated engine's
/// prefill replicas', which hand over the cache as split.
bool promptsKeepWholeCache(const ServeConfig &config);

/// A configuration's run.
struct ServeEvaluation {
  ServeConfig config;
  /// Why it cannot run (its weights do not fit, ...); empty when it ran.
  std::string failure;
  serve::SimResult result;
  serve::ServingMetrics metrics;
  /// The first target it misses.
  std::optional<serve::LatencyTarget> missed;
  double usdPerHour = 0;
  /// Dollars per million output tokens at the run's throughput.
  double usdPerMillionOutput = 0;
  bool meets() const { return failure.empty() && !missed; }
};

/// The configurations a search considers.
struct ServeSpace {
  std::vector<ServeEngine> engines = {ServeEngine::JetStream};
  /// Slice sizes of one replica (v5e slice shapes: 1 to 256 chips); a
  /// disaggregated engine's decode replicas take any of them too.
  std::vector<int64_t> chips = {1, 4, 8, 16, 32, 64, 128, 256};
  /// At most this many chips in all.
  int64_t maxTotalChips = 256;
  std::vector<int64_t> slots = {8, 16, 32, 64, 128};
  std::vector<int64_t> tokenBudgets = {256, 512, 1024, 2048};
  std::vector<int64_t> imageBatches = {1, 2, 4, 8};
  /// The KV cache's page size in tokens, of every configuration.
  int64_t pageTokens = 16;
};

/// The least time any request can see on a configuration, whatever the
/// traffic: a latency statistic below it cannot be met.
struct ServeBound {
  double ttft = 0, tpot = 0, e2e = 0;
  /// The bound of `target`'s metric.
  double of(const serve::LatencyTarget &target) const;
};

struct ServeSearchResult {
  /// The cheapest configuration that meets every target, if any does.
  std::optional<ServeEvaluation> best;
  /// Configurations simulated (not counting those refused before).
  int64_t simulated = 0;
  /// Configurations in the space.
  int64_t considered = 0;
  /// Families of configurations (alike but for their replicas) left out
  /// because their least latency (ServePlanner::bound) misses a target.
  int64_t ruledOut = 0;
  /// Why no slice of the space can serve the model at all (the largest
  /// slice's reason), when none can.
  std::string unservable;
  /// A target no configuration of the space can meet, with the least
  /// value of its metric over them all.
  std::optional<std::pair<serve::LatencyTarget, double>> impossible;
};

class ServePlanner {
public:
  /// `problem` names the model and its workload options (precisions);
  /// its topology is ignored (each configuration has its own).
  ServePlanner(PlanProblem problem, std::vector<serve::Request> requests,
               std::vector<serve::LatencyTarget> targets, serve::Price price,
               mlir::MLIRContext &context);

  /// Simulates `config`.
  ServeEvaluation evaluate(const ServeConfig &config);

  /// The cheapest configuration of `space` that meets the targets (ties:
  /// fewer chips per replica, then fewer replicas, then the space's order
  /// of engines and their settings). The configurations alike but for
  /// their replicas form a family; a family whose least latency (bound())
  /// misses a target is left out, and in each other family the fewest
  /// replicas that meet the targets are found by bisection among those
  /// cheaper than the best so far, on the rule that a configuration that
  /// misses a target with some replicas misses it with fewer (each
  /// replica then serves more of the same requests).
  ServeSearchResult search(const ServeSpace &space);
  /// The same answer by simulating every configuration of the space.
  ServeSearchResult exhaustive(const ServeSpace &space);

  /// The least latency of `config` (none when its slice cannot serve the
  /// model).
  std::optional<ServeBound> bound(const ServeConfig &config);

  /// The iteration cost of a replica of `chips` chips (its decodes with
  /// each KV head's cache whole, or split by batch beyond the KV heads; a
  /// mixture of experts' experts split over `ep` of them), built once; an
  /// error when the model cannot be served on it.
  llvm::Expected<const PlannedIterationCost *>
  costFor(int64_t chips, bool wholeKvCache = false, int64_t ep = 1);
  /// A mixture of experts' routed experts a block (0: not one).
  int64_t getExperts() const { return experts; }
  /// A diffusion transformer's steps on a replica of `chips` chips, with
  /// the batch of `images` prepared (and every smaller one, with `upTo`).
  llvm::Expected<const PlannedDenoisingCost *>
  denoisingFor(int64_t chips, int64_t images, bool upTo);
  /// Whether the model is a diffusion transformer (its requests images).
  bool servesDiffusion() const { return diffusion; }
  /// What one of its requests is: "video" for a video transformer's
  /// (frames above 1), "image" for another diffusion transformer's.
  llvm::StringRef requestUnit() const { return video ? "video" : "image"; }
  /// The workload every configuration serves.
  llvm::ArrayRef<serve::Request> getRequests() const { return requests; }

private:
  std::vector<ServeConfig> enumerate(const ServeSpace &space) const;
  /// `out`'s metrics, missed target and cost per output from its run.
  void finish(ServeEvaluation &out) const;
  /// evaluate() of a diffusion engine's configuration.
  ServeEvaluation evaluateImages(const ServeConfig &config,
                                 ServeEvaluation out);
  PlanProblem problem;
  std::vector<serve::Request> requests;
  std::vector<serve::LatencyTarget> targets;
  serve::Price price;
  mlir::MLIRContext &context;
  /// The longest request (prompt and output): the reference forward pass.
  int64_t longest = 1;
  /// By chips, whole KV cache and ep.
  using CostKey = std::tuple<int64_t, bool, int64_t>;
  std::map<CostKey, std::unique_ptr<PlannedIterationCost>> costs;
  std::map<CostKey, std::string> iterationFailures;
  std::map<int64_t, std::unique_ptr<PlannedDenoisingCost>> denoising;
  std::map<int64_t, std::string> costFailures;
  /// The model's fewest KV heads of a causal attention (0: none).
  int64_t kvHeads = 0;
  /// Its routed experts a block (0: not a mixture of experts).
  int64_t experts = 0;
  bool diffusion = false, video = false;
};

} // namespace loom

#endif // LOOM_PLAN_SERVEPLAN_H
