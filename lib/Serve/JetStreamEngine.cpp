//===- JetStreamEngine.cpp - JetStream's slots, prefill then generate -----===//
//
// JetStream's orchestrator in interleaved mode (prefill and generate on one
// slice; AI-Hypercomputer/JetStream at acd4f5ad, jetstream/core/
// orchestrator.py), its threads and queues as the code has them, each
// thread's host work taking no time, on one device that runs the programs
// the threads dispatch one at a time in the order they were dispatched
// (JAX dispatches asynchronously; a thread waits only where it blocks):
//   - the prefill thread takes the oldest waiting request, dispatches its
//     prefill (padded to its bucket, token_utils.take_nearest_length), puts
//     its first token on the detokenize backlog and the request on the
//     transfer backlog, blocking while either is full;
//   - the transfer thread moves each request on to the generate backlog
//     (interleaved mode: no transfer, no wait for the prefill to finish);
//     both backlogs hold 1 in interleaved mode;
//   - the generate thread (_generate_thread, _insert_if_possible) fills
//     each free slot from the generate backlog, dispatching an insert of
//     the request's cache and putting the slot's new request on the
//     detokenize backlog; it waits for a request while every slot is free,
//     or while the prefill or transfer backlog holds one; then it
//     dispatches a generate step over all the slots (a fixed-shape batch)
//     and puts the step's tokens on the detokenize backlog, blocking while
//     it is full (8 entries), so it runs up to 8 steps ahead of the device;
//   - the detokenize thread takes the backlog's entries in order, each
//     when its program is done (it converts the tokens to numpy): a first
//     token is the request's time to first token; a step gives each live
//     slot its next token, and a slot whose request has all its tokens
//     goes back to the free slots (and its pages to the cache).
// So a finished request's slot stays taken while the steps already
// dispatched run (the orchestrator's docstring: "a single generation step
// may run after detokenizing indicates that row is no longer valid"), and a
// prompt's prefill waits for the steps dispatched before it.
// Left out: tokenization and detokenization's own time, several engines.
//
//===----------------------------------------------------------------------===//

#include "EngineSupport.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <optional>

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
  if (options.detokenizeBacklog < 1)
    return error("detokenizeBacklog: must be at least 1, not " +
                 llvm::Twine(options.detokenizeBacklog));
  if (options.backlog < 1)
    return error("backlog: must be at least 1, not " +
                 llvm::Twine(options.backlog));
  if (options.prefillBuckets.empty())
    return error("prefillBuckets: must not be empty");
  for (auto [i, bucket] : llvm::enumerate(options.prefillBuckets))
    if (bucket < 1 || (i > 0 && bucket <= options.prefillBuckets[i - 1]))
      return error("prefillBuckets: must be positive and increasing (entry " +
                   llvm::Twine(i) + ")");
  return options.kv.check("kv");
}

namespace {
/// A decode slot as the generate thread sees it: taken from the insert
/// until the detokenize thread frees it.
struct Slot {
  std::optional<size_t> request;
  /// Prompt tokens in its cache (the prompt, cut to the largest bucket).
  int64_t prompt = 0;
  /// Generate steps dispatched since the insert.
  int64_t steps = 0;
};

/// An entry of the detokenize backlog.
struct Entry {
  enum class Kind { FirstToken, SlotLive, Step } kind;
  /// When the detokenize thread can take it: when its program is done
  /// (a slot's new request: when it was put).
  double ready = 0;
  size_t request = 0; ///< FirstToken, SlotLive
  size_t slot = 0;    ///< SlotLive
};

/// A thread blocked putting an entry on the full detokenize backlog; the
/// one blocked first puts first.
struct BlockedPut {
  Entry entry;
  int64_t since = 0;
};

/// One run: the threads' state, each thread a method that makes one move
/// if it can (see the file comment).
class JetStreamRun {
public:
  JetStreamRun(llvm::ArrayRef<Request> requests,
               const JetStreamOptions &options, const IterationCost &cost,
               const SimOptions &sim)
      : requests(requests), options(options), cost(cost),
        result(startResult(requests)), pool(options.kv),
        admitted(admit(requests, options.kv,
                       [this](size_t i) { return lengthOf(i); }, result)),
        order(admitted.order),
        recorder(sim, std::move(admitted.arrivals), result.queue),
        slots(options.slots), tokens(requests.size(), 0),
        live(options.slots) {}

  llvm::Expected<SimResult> run();

private:
  int64_t promptOf(size_t i) const {
    return std::min(requests[i].inputTokens, options.prefillBuckets.back());
  }
  int64_t lengthOf(size_t i) const {
    return promptOf(i) + requests[i].outputTokens;
  }
  int64_t bucketOf(size_t i) const {
    return bucketFor(options.prefillBuckets, promptOf(i));
  }
  /// Dispatches a program of `seconds` to the device: when it is done.
  double dispatch(double seconds) {
    deviceEnd = std::max(now, deviceEnd) + seconds;
    return deviceEnd;
  }
  void put(std::optional<BlockedPut> &blocked, Entry entry);
  void finish(size_t i);
  /// The prefill thread may take the oldest waiting request (its pages
  /// must fit: a cache of pages is Loom's, JetStream reserves per slot).
  bool prefillCanTake() const {
    return head < arrived && pool.fits(lengthOf(order[head]));
  }
  bool detokenizeStep();
  bool unblockStep();
  bool transferStep();
  bool prefillStep();
  bool generateStep();

  llvm::ArrayRef<Request> requests;
  const JetStreamOptions &options;
  const IterationCost &cost;
  SimResult result;
  PagePool pool;
  // Requests that can never fit are refused; the rest are served in order.
  Admitted admitted;
  const std::vector<size_t> &order;
  QueueRecorder recorder;

  double now = 0;
  /// The end of the last program dispatched to the device.
  double deviceEnd = 0;
  std::vector<Slot> slots;
  int64_t taken = 0; ///< slots taken
  std::deque<Entry> detokenize;
  std::optional<BlockedPut> prefillPut, generatePut;
  int64_t blocks = 0;
  std::deque<size_t> transfer, generate;
  /// A request the prefill thread blocks to put on the transfer backlog,
  /// and one the transfer thread blocks to put on the generate backlog.
  std::optional<size_t> prefillHolds, transferHolds;
  /// Tokens each request has had detokenized, and each slot's request as
  /// the detokenize thread sees it.
  std::vector<int64_t> tokens;
  std::vector<std::optional<size_t>> live;
  /// order[head..arrived) have arrived and wait for the prefill thread.
  size_t head = 0, arrived = 0, finished = 0;
  int64_t running = 0;
};
} // namespace

void JetStreamRun::put(std::optional<BlockedPut> &blocked, Entry entry) {
  if (int64_t(detokenize.size()) < options.detokenizeBacklog)
    detokenize.push_back(entry);
  else
    blocked = BlockedPut{entry, blocks++};
}

void JetStreamRun::finish(size_t i) {
  result.requests[i].finish = now;
  ++finished;
  --running;
}

// The detokenize thread takes the backlog's first entry.
bool JetStreamRun::detokenizeStep() {
  if (detokenize.empty() || detokenize.front().ready > now)
    return false;
  Entry entry = detokenize.front();
  detokenize.pop_front();
  switch (entry.kind) {
  case Entry::Kind::FirstToken:
    result.requests[entry.request].firstToken = now;
    if (++tokens[entry.request] == requests[entry.request].outputTokens)
      finish(entry.request);
    break;
  case Entry::Kind::SlotLive:
    live[entry.slot] = entry.request;
    break;
  case Entry::Kind::Step:
    for (size_t s = 0; s < live.size(); ++s) {
      if (!live[s])
        continue;
      size_t i = *live[s];
      // A request already complete (one token, from its prefill) gets
      // none; either way a complete request's slot goes back.
      if (tokens[i] < requests[i].outputTokens &&
          ++tokens[i] == requests[i].outputTokens)
        finish(i);
      if (tokens[i] == requests[i].outputTokens) {
        live[s].reset();
        slots[s].request.reset();
        --taken;
        pool.give(lengthOf(i));
      }
    }
    break;
  }
  return true;
}

// A blocked put goes in when the backlog has room, the earlier first.
bool JetStreamRun::unblockStep() {
  if (int64_t(detokenize.size()) >= options.detokenizeBacklog)
    return false;
  std::optional<BlockedPut> *first = nullptr;
  for (std::optional<BlockedPut> *blocked : {&prefillPut, &generatePut})
    if (*blocked && (!first || (*blocked)->since < (*first)->since))
      first = blocked;
  if (!first)
    return false;
  detokenize.push_back((*first)->entry);
  first->reset();
  return true;
}

bool JetStreamRun::transferStep() {
  bool moved = false;
  if (!transferHolds && !transfer.empty()) {
    transferHolds = transfer.front();
    transfer.pop_front();
    moved = true;
  }
  if (transferHolds && int64_t(generate.size()) < options.backlog) {
    generate.push_back(*transferHolds);
    transferHolds.reset();
    moved = true;
  }
  return moved;
}

bool JetStreamRun::prefillStep() {
  if (prefillPut)
    return false;
  if (prefillHolds) {
    if (int64_t(transfer.size()) >= options.backlog)
      return false;
    transfer.push_back(*prefillHolds);
    prefillHolds.reset();
    return true;
  }
  if (!prefillCanTake())
    return false;
  size_t i = order[head++];
  pool.take(lengthOf(i));
  ++running;
  result.peakRunning = std::max(result.peakRunning, running);
  double done = dispatch(cost.prefill(bucketOf(i)));
  ++result.iterations;
  put(prefillPut, {Entry::Kind::FirstToken, done, i, 0});
  prefillHolds = i;
  return true;
}

bool JetStreamRun::generateStep() {
  if (generatePut)
    return false;
  // Its insert loop, then a step.
  if (taken < options.slots) {
    if (!generate.empty()) {
      size_t i = generate.front();
      generate.pop_front();
      size_t s = 0;
      while (slots[s].request)
        ++s;
      slots[s] = {i, promptOf(i), 0};
      ++taken;
      dispatch(cost.insert(bucketOf(i)));
      put(generatePut, {Entry::Kind::SlotLive, now, i, s});
      return true;
    }
    // It waits for a request while every slot is free, or while one is
    // in the prefill or the transfer backlog (interleaved mode: prompts
    // go first); one the prefill thread has taken is in neither until
    // its first token is on the detokenize backlog.
    if (taken == 0 || prefillCanTake() || (prefillHolds && !prefillPut) ||
        !transfer.empty() || transferHolds)
      return false;
  }
  // A fixed-shape step over every slot, the free ones included.
  Batch batch;
  batch.paddedDecodes = options.slots;
  for (Slot &slot : slots)
    if (slot.request)
      batch.decodeContexts.push_back(slot.prompt + slot.steps++);
  double done = dispatch(cost.iteration(batch));
  ++result.iterations;
  put(generatePut, {Entry::Kind::Step, done, 0, 0});
  return true;
}

llvm::Expected<SimResult> JetStreamRun::run() {
  while (finished < order.size()) {
    while (arrived < order.size() && requests[order[arrived]].arrival <= now)
      ++arrived;
    // Every thread moves in turn, one move each a round, until none can at
    // this instant (the threads share the host; none goes first).
    for (bool moved = true; moved;) {
      moved = detokenizeStep();
      moved |= unblockStep();
      moved |= transferStep();
      moved |= prefillStep();
      moved |= generateStep();
      if (moved)
        recorder.update(now, head, running);
    }
    if (finished == order.size())
      break;
    double next = std::numeric_limits<double>::infinity();
    if (arrived < order.size())
      next = requests[order[arrived]].arrival;
    if (!detokenize.empty())
      next = std::min(next, detokenize.front().ready);
    if (!(next > now) || std::isinf(next))
      return error("internal: the JetStream engine stalled");
    now = next;
  }
  recorder.finish(now);
  return std::move(result);
}

llvm::Expected<SimResult>
loom::serve::simulateJetStream(llvm::ArrayRef<Request> requests,
                               const JetStreamOptions &options,
                               const IterationCost &cost,
                               const SimOptions &sim) {
  if (llvm::Error err = checkOptions(options))
    return std::move(err);
  if (llvm::Error err = checkInput(requests, sim))
    return std::move(err);
  return JetStreamRun(requests, options, cost, sim).run();
}
