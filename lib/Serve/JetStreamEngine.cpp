//===- JetStreamEngine.cpp - JetStream's slots, prefill then generate -----===//
//
// JetStream's orchestrator (jetstream/core/orchestrator.py) runs a prefill
// thread and a generate thread per engine. The generate thread's loop
// (_generate_thread, _insert_if_possible) first inserts prefilled requests
// into free decode slots, then runs one generate step over the whole
// decode state, whatever the slots hold. In interleaved mode (prefill and
// generate on one slice) it waits to insert while the prefill backlog is
// not empty, so pending prompts go first. Modelled here on one device, one
// thing at a time:
//   - requests already prefilled take the free slots, oldest first;
//   - while a slot is free and the oldest waiting request's pages fit, its
//     prompt is prefilled alone, padded to its bucket
//     (token_utils.take_nearest_length); the prefill yields the first
//     token, and the request takes a slot;
//   - with every slot busy, the prefill thread still runs ahead of them
//     (its result waits in the transfer and generate backlogs) up to
//     `prefillAhead` requests, one prefill between generate steps (the two
//     threads' programs share the device);
//   - otherwise, if any slot is busy, one generate step runs over all the
//     slots (a fixed-shape batch of `slots` rows), giving each busy slot
//     its next token; a request that has all its tokens frees its slot.
// Left out: tokenization, detokenization running behind the step (which
// can keep a slot a step longer), the insert of a prefilled cache into its
// slot, and transfers between slices.
//
//===----------------------------------------------------------------------===//

#include "EngineSupport.h"

#include <algorithm>
#include <deque>

using namespace loom::serve;
using namespace loom::serve::detail;

llvm::SmallVector<int64_t> loom::serve::jetStreamPrefillBuckets() {
  // jetstream/engine/token_utils.py, DEFAULT_PREFILL_BUCKETS.
  return {16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192, 16384, 32768};
}

int64_t loom::serve::bucketFor(llvm::ArrayRef<int64_t> buckets,
                               int64_t tokens) {
  auto it = std::lower_bound(buckets.begin(), buckets.end(), tokens);
  return it == buckets.end() ? buckets.back() : *it;
}

static llvm::Error checkOptions(const JetStreamOptions &options) {
  if (options.slots < 1)
    return error("slots: must be at least 1, not " +
                 llvm::Twine(options.slots));
  if (options.prefillAhead < 0)
    return error("prefillAhead: must be at least 0, not " +
                 llvm::Twine(options.prefillAhead));
  if (options.prefillBuckets.empty())
    return error("prefillBuckets: must not be empty");
  for (auto [i, bucket] : llvm::enumerate(options.prefillBuckets))
    if (bucket < 1 || (i > 0 && bucket <= options.prefillBuckets[i - 1]))
      return error("prefillBuckets: must be positive and increasing (entry " +
                   llvm::Twine(i) + ")");
  return options.kv.check("kv");
}

namespace {
/// A busy decode slot.
struct Slot {
  size_t request;
  /// Prompt tokens in the cache (the prompt, cut to the largest bucket).
  int64_t prompt;
  /// Tokens generated so far.
  int64_t generated;
};
} // namespace

llvm::Expected<SimResult>
loom::serve::simulateJetStream(llvm::ArrayRef<Request> requests,
                               const JetStreamOptions &options,
                               const IterationCost &cost,
                               const SimOptions &sim) {
  if (llvm::Error err = checkOptions(options))
    return std::move(err);
  if (llvm::Error err = checkInput(requests, sim))
    return std::move(err);
  SimResult result = startResult(requests);
  int64_t largest = options.prefillBuckets.back();
  auto promptOf = [&](size_t i) {
    return std::min(requests[i].inputTokens, largest);
  };
  auto lengthOf = [&](size_t i) {
    return promptOf(i) + requests[i].outputTokens;
  };

  // Requests that can never fit are refused; the rest are served in order.
  PagePool pool(options.kv);
  Admitted admitted = admit(requests, options.kv, lengthOf, result);
  std::vector<size_t> &order = admitted.order;
  QueueRecorder recorder(sim, std::move(admitted.arrivals), result.queue);

  llvm::SmallVector<Slot, 16> busy;
  // Prefilled while every slot was busy, oldest first: their first token
  // out, their cache held, waiting for a slot.
  std::deque<size_t> ready;
  bool ranAhead = false;
  // order[head..arrived) have arrived and wait for their prefill.
  size_t head = 0, arrived = 0;
  double now = 0;
  auto finish = [&](size_t i) {
    result.requests[i].finish = now;
    pool.give(lengthOf(i));
  };
  auto running = [&] { return int64_t(busy.size() + ready.size()); };
  while (head < order.size() || !busy.empty() || !ready.empty()) {
    while (arrived < order.size() && requests[order[arrived]].arrival <= now)
      ++arrived;
    while (!ready.empty() && int64_t(busy.size()) < options.slots) {
      busy.push_back({ready.front(), promptOf(ready.front()), 1});
      ready.pop_front();
    }
    bool slotFree = int64_t(busy.size()) < options.slots;
    bool ahead = !slotFree && !ranAhead &&
                 int64_t(ready.size()) < options.prefillAhead;
    if (head < arrived && (slotFree || ahead) &&
        pool.fits(lengthOf(order[head]))) {
      size_t i = order[head++];
      pool.take(lengthOf(i));
      result.peakRunning = std::max<int64_t>(result.peakRunning, running() + 1);
      recorder.update(now, head, running() + 1);
      now += cost.prefill(bucketFor(options.prefillBuckets, promptOf(i)));
      ++result.iterations;
      result.requests[i].firstToken = now;
      ranAhead = !slotFree;
      if (requests[i].outputTokens == 1)
        finish(i);
      else if (slotFree)
        busy.push_back({i, promptOf(i), 1});
      else
        ready.push_back(i);
      recorder.update(now, head, running());
      continue;
    }
    if (!busy.empty()) {
      Batch batch;
      batch.paddedDecodes = options.slots;
      for (const Slot &slot : busy)
        batch.decodeContexts.push_back(slot.prompt + slot.generated - 1);
      now += cost.iteration(batch);
      ++result.iterations;
      ranAhead = false;
      for (Slot &slot : busy)
        if (++slot.generated == requests[slot.request].outputTokens)
          finish(slot.request);
      llvm::erase_if(busy, [&](const Slot &slot) {
        return slot.generated == requests[slot.request].outputTokens;
      });
      recorder.update(now, head, running());
      continue;
    }
    // Idle: nothing runs, and an empty cache fits every admitted request,
    // so nothing waits either. Jump to the next arrival.
    if (head < arrived)
      return error("internal: the JetStream engine stalled");
    now = std::max(now, requests[order[arrived]].arrival);
  }
  recorder.finish(now);
  return result;
}
