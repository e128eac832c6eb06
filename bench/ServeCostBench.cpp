//===- ServeCostBench.cpp - serving iterations against loom-sim -----------===//
//
// bench/serve_cost.sh: each iteration time PlannedIterationCost gives (the
// cost model for the replica's layout) beside loom-sim's simulation of the
// same step planned on its own by loom-plan, for pure prefill and decode
// batches, prompt chunks after context and chunks beside decodes; then the time to simulate 10,000 requests with those costs.
//
//===----------------------------------------------------------------------===//

#include "loom/InitAll.h"
#include "loom/Plan/ServeCost.h"
#include "loom/Serve/Engine.h"
#include "loom/Serve/Workload.h"

#include "mlir/IR/MLIRContext.h"

#include <fmt/format.h>

#include <chrono>
#include <cstdio>

using namespace loom;

/// `model` served on one replica of v5e-`chips`, as loom-serve lays it out:
/// tensor parallelism over the chips, each KV head's cache split by batch
/// beyond the KV heads (decode steps are planned with it too).
static std::pair<PlanProblem, ParallelLayout>
servingReplica(const char *model, int64_t chips, mlir::MLIRContext &context) {
  PlanProblem problem;
  problem.model = model;
  problem.topology = "v5e-" + std::to_string(chips);
  ParallelLayout layout;
  layout.tp = chips;
  layout.kvBatch = servingKvBatch(problem, chips, context);
  return {problem, layout};
}

int main() {
  mlir::DialectRegistry registry;
  registerAllDialects(registry);
  mlir::MLIRContext context(registry);
  context.loadAllAvailableDialects();

  struct Step {
    const char *model;
    int64_t chips;
    bool decode;
    int64_t batch, tokens;
    /// A prompt chunk of `tokens` after this many cached (0: none).
    int64_t context = 0;
  } steps[] = {
      {"llama-7b", 1, false, 1, 512},      {"llama-7b", 1, false, 1, 2048},
      {"llama-7b", 1, true, 4, 1024},      {"llama-7b", 4, false, 1, 128},
      {"llama-7b", 4, false, 1, 2048},     {"llama-7b", 4, true, 8, 512},
      {"llama-7b", 4, true, 32, 2000},     {"llama3.1-8b", 8, false, 1, 1024},
      {"llama3.1-8b", 8, true, 32, 1024},  {"llama3.1-70b", 16, false, 1, 2048},
      {"llama3.1-70b", 16, true, 32, 2000},
      {"llama-7b", 4, false, 1, 512, 1536},
      {"llama-7b", 1, false, 1, 256, 1024},
      {"mixtral-8x7b", 8, true, 8, 1024},  {"deepseek-v3", 128, false, 1, 2048},
      {"deepseek-v3", 128, true, 32, 576}, {"deepseek-v3", 128, false, 1, 512, 1536},
  };
  std::printf("%-13s %-8s %-40s %12s %12s %8s\n", "model", "slice", "step",
              "cost ms", "loom-sim ms", "ratio");
  for (const Step &s : steps) {
    auto [problem, layout] = servingReplica(s.model, s.chips, context);
    auto cost = PlannedIterationCost::create(problem, layout, 2048, context);
    if (!cost) {
      std::printf("%s: %s\n", s.model, llvm::toString(cost.takeError()).c_str());
      return 1;
    }
    if (!s.decode)
      layout.kvBatch = 1;
    serve::Batch batch;
    problem.import.batch = s.batch;
    problem.import.seqLen = s.tokens + s.context;
    if (s.decode) {
      problem.import.mode = ImportOptions::Mode::Decode;
      batch.decodeContexts.assign(s.batch, s.tokens);
    } else {
      batch.prefills.push_back({s.tokens, s.context});
    }
    PlanOptions options;
    options.simulate = Simulation::Always;
    // A chunk after cached context: the prompt as two TeraPipe slices on
    // one stage, less the context alone (the host's dispatch cancels, and
    // is left out of the price).
    if (s.context > 0)
      layout.slices = SliceSpec::lengths({s.context, s.tokens});
    PlanOutcome planned = planAndSimulate(problem, layout, context, options);
    if (!planned.simulated) {
      std::printf("%s: not simulated: %s\n", s.model, planned.failure.c_str());
      return 1;
    }
    double priced = (*cost)->iteration(batch);
    double simulated = planned.simulated->makespan;
    if (s.context > 0) {
      problem.import.seqLen = s.context;
      layout.slices = SliceSpec::count(1);
      PlanOutcome alone = planAndSimulate(problem, layout, context, options);
      if (!alone.simulated) {
        std::printf("%s: not simulated: %s\n", s.model, alone.failure.c_str());
        return 1;
      }
      simulated -= alone.simulated->makespan;
      priced -= (*cost)->getDispatch();
    }
    std::string step =
        s.decode ? fmt::format("decode {} at {} tokens{}", s.batch, s.tokens,
                               layout.kvBatch > 1
                                   ? fmt::format(", kv {}", layout.kvBatch)
                                   : "")
        : s.context > 0
            ? fmt::format("chunk {} after {}", s.tokens, s.context)
            : fmt::format("prefill {} tokens", s.tokens);
    std::printf("%-13s %-8s %-40s %12.3f %12.3f %8.3f\n", s.model,
                problem.topology.c_str(), step.c_str(), priced * 1e3,
                simulated * 1e3, priced / simulated);
  }

  // Denoising steps of a batch of images (two rows an image: guidance).
  struct Images {
    const char *model;
    int64_t chips, images;
  } dits[] = {{"dit-xl-2", 1, 1}, {"dit-xl-2", 1, 8}, {"sd3-medium", 4, 1},
              {"sd3-medium", 4, 4}, {"flux-dev", 8, 2}};
  for (const Images &d : dits) {
    PlanProblem problem;
    problem.model = d.model;
    problem.topology = "v5e-" + std::to_string(d.chips);
    ParallelLayout layout;
    layout.tp = d.chips;
    auto cost = PlannedDenoisingCost::create(problem, layout, context);
    if (!cost || (*cost)->prepare(d.images, false)) {
      std::printf("%s: cannot plan its steps\n", d.model);
      return 1;
    }
    // Flux is distilled guidance: one row an image.
    problem.import.batch = (std::string(d.model) == "flux-dev" ? 1 : 2) * d.images;
    problem.import.steps = 1;
    PlanOptions options;
    options.simulate = Simulation::Always;
    PlanOutcome planned = planAndSimulate(problem, layout, context, options);
    if (!planned.simulated) {
      std::printf("%s: not simulated: %s\n", d.model, planned.failure.c_str());
      return 1;
    }
    double priced = (*cost)->step(d.images) + (*cost)->dispatch();
    std::string step = fmt::format("denoising step, {} image{}", d.images,
                                   d.images == 1 ? "" : "s");
    std::printf("%-13s %-8s %-40s %12.3f %12.3f %8.3f\n", d.model,
                problem.topology.c_str(), step.c_str(), priced * 1e3,
                planned.simulated->makespan * 1e3,
                priced / planned.simulated->makespan);
  }

  // A chunked engine's iterations: a prompt chunk beside decodes, lowered
  // on the reference module as one step of all its sequences and run by
  // loom-sim (PlannedIterationCost::simulate).
  struct Mixed {
    const char *model;
    int64_t chips, chunk, context, decodes, decodeContext;
  } mixed[] = {{"llama-7b", 4, 256, 1024, 8, 700},
               {"llama3.1-70b", 16, 512, 512, 16, 1500},
               {"mixtral-8x7b", 8, 256, 256, 8, 1024},
               {"deepseek-v3", 128, 256, 768, 16, 1200}};
  for (const Mixed &m : mixed) {
    auto [problem, layout] = servingReplica(m.model, m.chips, context);
    auto cost = PlannedIterationCost::create(problem, layout, 2048, context);
    serve::Batch batch;
    batch.prefills.push_back({m.chunk, m.context});
    batch.decodeContexts.assign(m.decodes, m.decodeContext);
    llvm::Expected<double> simulated =
        cost ? (*cost)->simulate(batch) : cost.takeError();
    if (!simulated) {
      std::printf("%s: %s\n", m.model,
                  llvm::toString(simulated.takeError()).c_str());
      return 1;
    }
    double priced = (*cost)->iteration(batch);
    std::string step = fmt::format("chunk {} after {} + {} at {}{}",
                                   m.chunk, m.context, m.decodes,
                                   m.decodeContext,
                                   layout.kvBatch > 1
                                       ? fmt::format(", kv {}", layout.kvBatch)
                                       : "");
    std::printf("%-13s %-8s %-40s %12.3f %12.3f %8.3f\n", m.model,
                problem.topology.c_str(), step.c_str(), priced * 1e3,
                *simulated * 1e3, priced / *simulated);
  }

  // 10,000 requests on JetStream, LLaMA-7B on v5e-4, priced as above.
  PlanProblem problem;
  problem.model = "llama-7b";
  problem.topology = "v5e-4";
  ParallelLayout layout;
  layout.tp = 4;
  auto cost = PlannedIterationCost::create(problem, layout, 2048, context);
  if (!cost)
    return 1;
  serve::WorkloadSpec spec;
  spec.arrivals.rate = 8;
  spec.count = 10000;
  spec.input = serve::LengthDistribution::uniform(64, 2048);
  spec.output = serve::LengthDistribution::uniform(16, 512);
  auto requests = serve::generateWorkload(spec);
  if (!requests)
    return 1;
  for (int64_t slots : {16, 64}) {
    serve::JetStreamOptions options;
    options.slots = slots;
    auto start = std::chrono::steady_clock::now();
    auto run = serve::simulateJetStream(*requests, options, **cost);
    double seconds = std::chrono::duration<double>(
                         std::chrono::steady_clock::now() - start)
                         .count();
    if (!run)
      return 1;
    std::printf("10000 requests, JetStream %lld slots, Loom's cost model: "
                "%lld iterations simulated in %.3f s\n",
                (long long)slots, (long long)run->iterations, seconds);
  }
  return 0;
}
