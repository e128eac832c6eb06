//===- ChunkedEngine.cpp - continuous batching, chunked prefill -----------===//
//
// Sarathi-Serve (Agrawal et al., "Taming Throughput-Latency Tradeoff in LLM
// Inference with Sarathi-Serve", OSDI 2024, section 4 and Algorithm 1:
// stall-free batching). Every iteration has a token budget. It takes, in
// order: one token for every running request that is decoding; the next
// chunk of every request whose prompt is partly computed; then new
// requests, oldest first, while the budget lasts, the running count allows
// and their pages fit, the last of them possibly with a partial chunk. A
// prompt's last chunk yields its first token.
//
// With `stallFree` off the engine is the prefill-first scheduler the paper
// compares against (vLLM's, section 3): while a waiting request fits, an
// iteration prefills whole prompts (up to the budget, or one longer
// prompt) and the running decodes wait; otherwise it decodes every running
// request.
//
//===----------------------------------------------------------------------===//

#include "EngineSupport.h"

#include <algorithm>

using namespace loom::serve;
using namespace loom::serve::detail;

static llvm::Error checkOptions(const ChunkedOptions &options) {
  if (options.tokenBudget < 1)
    return error("tokenBudget: must be at least 1, not " +
                 llvm::Twine(options.tokenBudget));
  if (options.maxRunning < 1)
    return error("maxRunning: must be at least 1, not " +
                 llvm::Twine(options.maxRunning));
  return options.kv.check("kv");
}

namespace {
/// An admitted request.
struct Running {
  size_t request;
  /// Prompt tokens computed so far.
  int64_t prefilled = 0;
  /// Tokens generated so far (the first comes with the prompt's end).
  int64_t generated = 0;
};

/// What one request does in an iteration.
struct Work {
  /// Index into the running list.
  size_t running;
  /// Prompt tokens of the chunk, 0 for a decode.
  int64_t chunk;
};
} // namespace

llvm::Expected<SimResult>
loom::serve::simulateChunked(llvm::ArrayRef<Request> requests,
                             const ChunkedOptions &options,
                             const IterationCost &cost, const SimOptions &sim) {
  if (llvm::Error err = checkOptions(options))
    return std::move(err);
  if (llvm::Error err = checkInput(requests, sim))
    return std::move(err);
  SimResult result = startResult(requests);
  auto lengthOf = [&](size_t i) {
    return requests[i].inputTokens + requests[i].outputTokens;
  };
  PagePool pool(options.kv);
  Admitted admitted = admit(requests, options.kv, lengthOf, result);
  std::vector<size_t> &order = admitted.order;
  QueueRecorder recorder(sim, std::move(admitted.arrivals), result.queue);

  std::vector<Running> running;
  llvm::SmallVector<Work, 64> work;
  size_t head = 0, arrived = 0;
  double now = 0;
  // Admits the oldest waiting request when it may run now.
  auto admit = [&]() -> bool {
    if (head == arrived || (int64_t)running.size() >= options.maxRunning ||
        !pool.fits(lengthOf(order[head])))
      return false;
    pool.take(lengthOf(order[head]));
    running.push_back({order[head++]});
    return true;
  };
  while (head < order.size() || !running.empty()) {
    while (arrived < order.size() && requests[order[arrived]].arrival <= now)
      ++arrived;
    work.clear();
    int64_t budget = options.tokenBudget;
    auto promptLeft = [&](size_t r) {
      return requests[running[r].request].inputTokens - running[r].prefilled;
    };
    if (options.stallFree) {
      for (size_t r = 0; r < running.size() && budget > 0; ++r)
        if (promptLeft(r) == 0) {
          work.push_back({r, 0});
          --budget;
        }
      for (size_t r = 0; r < running.size() && budget > 0; ++r)
        if (promptLeft(r) > 0) {
          int64_t chunk = std::min(promptLeft(r), budget);
          work.push_back({r, chunk});
          budget -= chunk;
        }
      while (budget > 0 && admit()) {
        int64_t chunk = std::min(promptLeft(running.size() - 1), budget);
        work.push_back({running.size() - 1, chunk});
        budget -= chunk;
      }
    } else {
      // Prefill-first: whole prompts while they fit the budget (the first
      // one whatever its length).
      int64_t tokens = 0;
      while (head < arrived &&
             (tokens == 0 ||
              tokens + requests[order[head]].inputTokens <= budget) &&
             admit()) {
        int64_t prompt = requests[running.back().request].inputTokens;
        work.push_back({running.size() - 1, prompt});
        tokens += prompt;
      }
      if (work.empty())
        for (size_t r = 0; r < running.size(); ++r)
          work.push_back({r, 0});
    }
    if (work.empty()) {
      if (head < arrived)
        return error("internal: the chunked engine stalled");
      now = std::max(now, requests[order[arrived]].arrival);
      continue;
    }
    result.peakRunning =
        std::max<int64_t>(result.peakRunning, running.size());
    recorder.update(now, head, running.size());

    Batch batch;
    for (const Work &w : work) {
      const Running &r = running[w.running];
      if (w.chunk > 0)
        batch.prefills.push_back({w.chunk, r.prefilled});
      else
        batch.decodeContexts.push_back(requests[r.request].inputTokens +
                                       r.generated - 1);
    }
    now += cost.iteration(batch);
    ++result.iterations;
    for (const Work &w : work) {
      Running &r = running[w.running];
      const Request &request = requests[r.request];
      if (w.chunk > 0) {
        r.prefilled += w.chunk;
        if (r.prefilled < request.inputTokens)
          continue;
        result.requests[r.request].firstToken = now;
      }
      if (++r.generated == request.outputTokens) {
        result.requests[r.request].finish = now;
        pool.give(lengthOf(r.request));
      }
    }
    llvm::erase_if(running, [&](const Running &r) {
      return r.generated == requests[r.request].outputTokens;
    });
    recorder.update(now, head, running.size());
  }
  recorder.finish(now);
  return result;
}
