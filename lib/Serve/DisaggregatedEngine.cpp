//===- DisaggregatedEngine.cpp - prefill and decode instances apart -------===//
//
// DistServe (Zhong et al., "DistServe: Disaggregating Prefill and Decoding
// for Goodput-optimized Large Language Model Serving", OSDI 2024, sections
// 3 and 4.3): prefill instances compute prompts and emit the first token;
// the request's KV cache then moves to a decode instance, which batches
// decodes continuously. Modelled as discrete events:
//   - an idle prefill instance takes the oldest waiting prompts, as many
//     as fit its token budget (at least one), and prefills them as one
//     batch; each yields its first token when the batch ends;
//   - a prefilled request then reserves pages for its whole length on the
//     decode instance with the most free pages (the oldest first; it waits
//     on the prefill side while none has room, as DistServe's decode
//     instances pull caches only when they have memory, section 4.3), and
//     its cache moves in latency + bytes / bandwidth;
//   - an idle decode instance with moved requests runs one step over them
//     (up to its batch size, oldest first); a request that has all its
//     tokens releases its pages.
// Left out: the prefill instances' own memory, and transfers sharing a
// link's bandwidth.
//
//===----------------------------------------------------------------------===//

#include "EngineSupport.h"

#include <algorithm>
#include <deque>
#include <queue>

using namespace loom::serve;
using namespace loom::serve::detail;

static llvm::Error checkOptions(const DisaggregatedOptions &options) {
  if (options.prefillInstances < 1)
    return error("prefillInstances: must be at least 1");
  if (options.decodeInstances < 1)
    return error("decodeInstances: must be at least 1");
  if (options.prefillTokenBudget < 1)
    return error("prefillTokenBudget: must be at least 1");
  if (options.maxDecodeBatch < 1)
    return error("maxDecodeBatch: must be at least 1");
  if (!(options.transferBandwidth > 0))
    return error("transferBandwidth: must be positive");
  if (!(options.transferLatency >= 0))
    return error("transferLatency: must not be negative");
  return options.decodeKv.check("decodeKv");
}

namespace {
enum class EventKind { Arrival, PrefillDone, TransferDone, DecodeDone };

struct Event {
  double time;
  /// Breaks ties in the order events were scheduled.
  int64_t sequence;
  EventKind kind;
  /// The instance (PrefillDone, DecodeDone) or the request (TransferDone).
  size_t index;
  /// TransferDone: the decode instance.
  size_t target = 0;

  bool operator>(const Event &other) const {
    return time != other.time ? time > other.time : sequence > other.sequence;
  }
};

struct PrefillInstance {
  bool busy = false;
  llvm::SmallVector<size_t, 8> batch;
};

/// A request on a decode instance.
struct Decoding {
  size_t request;
  int64_t generated;
};

struct DecodeInstance {
  explicit DecodeInstance(const KvCache &cache) : pool(cache) {}
  PagePool pool;
  bool busy = false;
  /// Moved requests, oldest first; the first `stepping` are in the step
  /// that is running.
  std::vector<Decoding> members;
  size_t stepping = 0;
};

/// The simulation's state and its event handlers.
class Disaggregated {
public:
  Disaggregated(llvm::ArrayRef<Request> requests,
                const DisaggregatedOptions &options,
                const IterationCost &prefillCost,
                const IterationCost &decodeCost, SimResult &result)
      : requests(requests), options(options), prefillCost(prefillCost),
        decodeCost(decodeCost), result(result),
        prefill(options.prefillInstances) {
    for (int64_t i = 0; i < options.decodeInstances; ++i)
      decode.emplace_back(options.decodeKv);
  }

  llvm::Error run(const SimOptions &sim);

private:
  int64_t lengthOf(size_t i) const {
    return requests[i].inputTokens + requests[i].outputTokens;
  }
  void schedule(double time, EventKind kind, size_t index, size_t target = 0) {
    events.push({time, sequence++, kind, index, target});
  }
  void handle(const Event &event);
  void dispatch();

  llvm::ArrayRef<Request> requests;
  const DisaggregatedOptions &options;
  /// The prefill instances' and the decode instances' iterations.
  const IterationCost &prefillCost, &decodeCost;
  SimResult &result;
  std::vector<PrefillInstance> prefill;
  std::vector<DecodeInstance> decode;
  std::priority_queue<Event, std::vector<Event>, std::greater<Event>> events;
  int64_t sequence = 0;
  double now = 0;
  /// Admitted requests in order; order[head..arrived) wait for a prefill.
  std::vector<size_t> order;
  size_t head = 0, arrived = 0;
  /// Prefilled requests waiting for decode pages, oldest first.
  std::deque<size_t> waitingForPages;
  int64_t running = 0;
};
} // namespace

void Disaggregated::handle(const Event &event) {
  switch (event.kind) {
  case EventKind::Arrival:
    ++arrived;
    return;
  case EventKind::PrefillDone: {
    PrefillInstance &instance = prefill[event.index];
    for (size_t i : instance.batch) {
      result.requests[i].firstToken = now;
      if (requests[i].outputTokens == 1) {
        result.requests[i].finish = now;
        --running;
      } else {
        waitingForPages.push_back(i);
      }
    }
    instance.batch.clear();
    instance.busy = false;
    return;
  }
  case EventKind::TransferDone:
    decode[event.target].members.push_back({event.index, 1});
    return;
  case EventKind::DecodeDone: {
    DecodeInstance &instance = decode[event.index];
    for (size_t k = 0; k < instance.stepping; ++k) {
      Decoding &d = instance.members[k];
      if (++d.generated == requests[d.request].outputTokens) {
        result.requests[d.request].finish = now;
        instance.pool.give(lengthOf(d.request));
        --running;
      }
    }
    llvm::erase_if(instance.members, [&](const Decoding &d) {
      return d.generated == requests[d.request].outputTokens;
    });
    instance.stepping = 0;
    instance.busy = false;
    return;
  }
  }
}

void Disaggregated::dispatch() {
  // Caches move to the decode instance with the most free pages, oldest
  // request first.
  while (!waitingForPages.empty()) {
    size_t i = waitingForPages.front();
    DecodeInstance *best = nullptr;
    for (DecodeInstance &instance : decode)
      if (instance.pool.fits(lengthOf(i)) &&
          (!best || instance.pool.freePages() > best->pool.freePages()))
        best = &instance;
    if (!best)
      break;
    best->pool.take(lengthOf(i));
    waitingForPages.pop_front();
    double bytes = prefillCost.kvBytesPerToken() * requests[i].inputTokens;
    schedule(now + options.transferLatency + bytes / options.transferBandwidth,
             EventKind::TransferDone, i, best - decode.data());
  }
  for (auto [p, instance] : llvm::enumerate(prefill)) {
    if (instance.busy || head == arrived)
      continue;
    Batch batch;
    int64_t tokens = 0;
    while (head < arrived &&
           (tokens == 0 || tokens + requests[order[head]].inputTokens <=
                               options.prefillTokenBudget)) {
      size_t i = order[head++];
      tokens += requests[i].inputTokens;
      batch.prefills.push_back({requests[i].inputTokens, 0});
      instance.batch.push_back(i);
      ++running;
    }
    instance.busy = true;
    ++result.iterations;
    schedule(now + prefillCost.iteration(batch), EventKind::PrefillDone, p);
  }
  for (auto [d, instance] : llvm::enumerate(decode)) {
    if (instance.busy || instance.members.empty())
      continue;
    instance.stepping = std::min<size_t>(instance.members.size(),
                                         options.maxDecodeBatch);
    Batch batch;
    for (size_t k = 0; k < instance.stepping; ++k) {
      const Decoding &m = instance.members[k];
      batch.decodeContexts.push_back(requests[m.request].inputTokens +
                                     m.generated - 1);
    }
    instance.busy = true;
    ++result.iterations;
    schedule(now + decodeCost.iteration(batch), EventKind::DecodeDone, d);
  }
  result.peakRunning = std::max(result.peakRunning, running);
}

llvm::Error Disaggregated::run(const SimOptions &sim) {
  // A request must fit one decode instance's cache.
  Admitted admitted = admit(
      requests, options.decodeKv, [&](size_t i) { return lengthOf(i); },
      result);
  order = std::move(admitted.order);
  for (size_t i : order)
    schedule(requests[i].arrival, EventKind::Arrival, i);
  QueueRecorder recorder(sim, std::move(admitted.arrivals), result.queue);
  while (!events.empty()) {
    Event event = events.top();
    events.pop();
    now = event.time;
    handle(event);
    // Handle every event of this instant before deciding what runs next.
    if (!events.empty() && events.top().time == now)
      continue;
    dispatch();
    recorder.update(now, head, running);
  }
  recorder.finish(now);
  if (head != order.size() || running != 0)
    return error("internal: the disaggregated engine stalled");
  return llvm::Error::success();
}

llvm::Expected<SimResult> loom::serve::simulateDisaggregated(
    llvm::ArrayRef<Request> requests, const DisaggregatedOptions &options,
    const IterationCost &cost, const SimOptions &sim) {
  return simulateDisaggregated(requests, options, cost, cost, sim);
}

llvm::Expected<SimResult> loom::serve::simulateDisaggregated(
    llvm::ArrayRef<Request> requests, const DisaggregatedOptions &options,
    const IterationCost &prefillCost, const IterationCost &decodeCost,
    const SimOptions &sim) {
  if (llvm::Error err = checkOptions(options))
    return std::move(err);
  if (llvm::Error err = checkInput(requests, sim))
    return std::move(err);
  SimResult result = startResult(requests);
  Disaggregated engine(requests, options, prefillCost, decodeCost, result);
  if (llvm::Error err = engine.run(sim))
    return std::move(err);
  return result;
}
