//===- Engine.h - request-level simulators of serving engines ---*- C++ -*-===//
//
// Three ways to serve a stream of LLM requests, each simulated iteration by
// iteration with every iteration priced by an IterationCost (and, for
// diffusion transformers, simulateDiffusion: images batched through their
// denoising steps, each step priced by a DenoisingCost):
//
//  - simulateJetStream: a fixed number of decode slots; prompts are
//    prefilled one at a time, padded to a bucket length, and inserted into
//    a free slot; a generate step advances every slot by one token
//    (JetStream's orchestrator in interleaved mode, one engine: its
//    threads, their queues, and the programs they dispatch to the device).
//  - simulateChunked: continuous batching with chunked prefill and
//    stall-free batches (Sarathi-Serve, Agrawal et al., OSDI 2024): each
//    iteration has a token budget; running decodes go first, prompt chunks
//    fill the rest. Its `stallFree = false` mode is the prefill-first
//    policy Sarathi-Serve compares against (vLLM's and Orca's: whole
//    prompts run as soon as they fit, decodes wait).
//  - simulateDisaggregated: separate prefill and decode instances, the KV
//    cache moved between them over a link (DistServe, Zhong et al., OSDI
//    2024).
//
// Every engine keeps its KV cache in pages (KvCache). A request is admitted
// only when the pages for its whole length, prompt and output, are free:
// the reservation is made up front and held until the request finishes, so
// no request is ever preempted. (Engines that do not know the output length
// reserve the request's maximum instead; a trace gives the real length.) A
// request longer than the whole cache is refused at arrival.
//
// docs/serving.md describes what each engine models and leaves out.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_SERVE_ENGINE_H
#define LOOM_SERVE_ENGINE_H

#include "loom/Serve/Cost.h"
#include "loom/Serve/Workload.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"

#include <vector>

namespace loom::serve {

/// A paged KV cache's size.
struct KvCache {
  /// Tokens per page.
  int64_t pageTokens = 16;
  /// Pages in all; 0 for a cache that never runs out.
  int64_t pages = 0;

  /// Pages that `tokens` tokens occupy.
  int64_t pagesFor(int64_t tokens) const {
    return (tokens + pageTokens - 1) / pageTokens;
  }
  /// Checks the sizes; the error names `field`.
  llvm::Error check(llvm::StringRef field) const;
};

/// What happened to one request.
struct RequestResult {
  int64_t id = 0;
  double arrival = 0;
  int64_t inputTokens = 0;
  int64_t outputTokens = 0;
  /// When its first output token was produced (the end of its prefill).
  double firstToken = 0;
  /// When its last output token was produced.
  double finish = 0;
  /// True when the request could never fit the KV cache and was turned
  /// away at arrival; its times are then meaningless.
  bool refused = false;
};

/// The engine's queue at one instant.
struct QueueSample {
  double time = 0;
  /// Requests that have arrived and not yet started their prefill.
  int64_t waiting = 0;
  /// Requests admitted and not yet finished.
  int64_t running = 0;
};

/// The outcome of a simulation.
struct SimResult {
  /// One per request, in the order given.
  std::vector<RequestResult> requests;
  /// The queue every `SimOptions::sampleInterval` seconds from time 0.
  std::vector<QueueSample> queue;
  /// Iterations run (forward passes of every instance).
  int64_t iterations = 0;
  /// Largest number of requests running at once.
  int64_t peakRunning = 0;
};

/// Options every engine shares.
struct SimOptions {
  /// Seconds between queue samples; 0 records none.
  double sampleInterval = 1;
  /// At most this many samples are kept (later ones are dropped).
  int64_t maxSamples = 100000;
};

/// JetStream's prefill buckets (jetstream/engine/token_utils.py,
/// DEFAULT_PREFILL_BUCKETS: 16, 32, ..., 32768).
llvm::SmallVector<int64_t> jetStreamPrefillBuckets();

/// The bucket a prompt of `tokens` is padded to: the least bucket at least
/// as long, or the largest (JetStream's take_nearest_length; a longer
/// prompt is cut to its last tokens, so it costs the largest bucket).
int64_t bucketFor(llvm::ArrayRef<int64_t> buckets, int64_t tokens);

/// A JetStream engine (one slice, prefill and generate interleaved).
struct JetStreamOptions {
  /// Decode slots (max_concurrent_decodes).
  int64_t slots = 8;
  /// Prefill buckets in increasing order.
  llvm::SmallVector<int64_t> prefillBuckets = jetStreamPrefillBuckets();
  /// Entries the detokenize backlog holds (orchestrator.py: queue.Queue(8),
  /// "We don't let detokenization accumulate more than 8 steps"): the
  /// generate thread blocks on it, so it runs at most this many steps
  /// ahead of the device.
  int64_t detokenizeBacklog = 8;
  /// Requests the transfer and the generate backlogs each hold (1 in
  /// interleaved mode).
  int64_t backlog = 1;
  KvCache kv;
};

/// A continuous-batching engine with chunked prefill (Sarathi-Serve).
struct ChunkedOptions {
  /// Tokens an iteration computes at most (Sarathi-Serve's token budget).
  int64_t tokenBudget = 512;
  /// Requests running at once at most.
  int64_t maxRunning = 256;
  /// True: stall-free batches (decodes first, chunks fill the budget).
  /// False: prefill-first (whole prompts while any is waiting and fits,
  /// decodes only when none does); the budget then caps the prompt tokens
  /// of a prefill batch, a prompt longer than it running alone.
  bool stallFree = true;
  KvCache kv;
};

/// A disaggregated engine (DistServe): prefill instances and decode
/// instances, each with its own KV cache.
struct DisaggregatedOptions {
  int64_t prefillInstances = 1;
  int64_t decodeInstances = 1;
  /// Prompt tokens a prefill batch takes at most (a longer prompt runs
  /// alone).
  int64_t prefillTokenBudget = 2048;
  /// Requests a decode instance runs at once at most.
  int64_t maxDecodeBatch = 256;
  /// Each decode instance's cache; a request reserves its whole length
  /// there before its KV cache moves.
  KvCache decodeKv;
  /// The link from a prefill to a decode instance: bytes/s and seconds per
  /// transfer (transfers do not share the link's bandwidth).
  double transferBandwidth = 12.5e9;
  double transferLatency = 1e-4;
};

/// A diffusion engine. Requests are images (or videos) of one size; their
/// lengths are ignored; each takes `steps` denoising steps.
struct DiffusionOptions {
  /// Images one step computes at most: the batch the step is compiled for.
  int64_t maxBatch = 4;
  /// Denoising steps a request takes.
  int64_t steps = 28;
  /// false: MaxDiffusion's generation, a batch of the waiting requests (up
  /// to maxBatch) runs all its steps in one jitted loop, then the next
  /// batch starts. true: step-level batching, each step one call over the
  /// requests running, which join at any step and leave after their last.
  bool stepBatching = false;
  /// Every step computes maxBatch images, empty places included (a
  /// compiled shape), rather than the requests it holds.
  bool padded = true;
};

/// Simulates `requests` (in arrival order) on a diffusion engine: each
/// request's first token and finish are the time its image is done.
llvm::Expected<SimResult> simulateDiffusion(llvm::ArrayRef<Request> requests,
                                            const DiffusionOptions &options,
                                            const DenoisingCost &cost,
                                            const SimOptions &sim = {});

/// Simulates `requests` (in arrival order) on a JetStream engine.
llvm::Expected<SimResult> simulateJetStream(llvm::ArrayRef<Request> requests,
                                            const JetStreamOptions &options,
                                            const IterationCost &cost,
                                            const SimOptions &sim = {});

/// Simulates `requests` on a continuous-batching engine.
llvm::Expected<SimResult> simulateChunked(llvm::ArrayRef<Request> requests,
                                          const ChunkedOptions &options,
                                          const IterationCost &cost,
                                          const SimOptions &sim = {});

/// Simulates `requests` on a disaggregated engine; both kinds of instance
/// are priced by `cost`.
llvm::Expected<SimResult>
simulateDisaggregated(llvm::ArrayRef<Request> requests,
                      const DisaggregatedOptions &options,
                      const IterationCost &cost, const SimOptions &sim = {});
/// The same with a layout of each phase's own: the prefill instances'
/// iterations priced by `prefillCost` (whose KV bytes per token are what
/// moves), the decode instances' by `decodeCost`.
llvm::Expected<SimResult>
simulateDisaggregated(llvm::ArrayRef<Request> requests,
                      const DisaggregatedOptions &options,
                      const IterationCost &prefillCost,
                      const IterationCost &decodeCost,
                      const SimOptions &sim = {});

} // namespace loom::serve

#endif // LOOM_SERVE_ENGINE_H
