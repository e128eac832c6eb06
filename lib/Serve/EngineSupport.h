//===- EngineSupport.h - what the serving engines share ---------*- C++ -*-===//
//
// Private to lib/Serve: checks of an engine's input, the page pool of a KV
// cache, and the recorder of queue samples.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_LIB_SERVE_ENGINESUPPORT_H
#define LOOM_LIB_SERVE_ENGINESUPPORT_H

#include "loom/Serve/Engine.h"

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/Twine.h"

namespace loom::serve::detail {

/// An llvm::Error carrying `message`.
llvm::Error error(const llvm::Twine &message);

/// Checks requests are in arrival order with finite, non-negative arrivals
/// and lengths >= 1, and that `sim` is usable.
llvm::Error checkInput(llvm::ArrayRef<Request> requests, const SimOptions &sim);

/// A result per request with its fields copied, times still 0.
SimResult startResult(llvm::ArrayRef<Request> requests);

/// The free pages of one KV cache; a cache of 0 pages never runs out.
class PagePool {
public:
  explicit PagePool(const KvCache &cache)
      : cache(cache), free(cache.pages) {}

  /// Whether `tokens` tokens could ever fit (in an empty cache).
  bool everFits(int64_t tokens) const {
    return cache.pages == 0 || cache.pagesFor(tokens) <= cache.pages;
  }
  /// Whether `tokens` tokens fit now.
  bool fits(int64_t tokens) const {
    return cache.pages == 0 || cache.pagesFor(tokens) <= free;
  }
  /// Pages free now (the whole cache's when it is unlimited).
  int64_t freePages() const { return cache.pages == 0 ? INT64_MAX : free; }
  void take(int64_t tokens) { free -= cache.pagesFor(tokens); }
  void give(int64_t tokens) { free += cache.pagesFor(tokens); }

private:
  KvCache cache;
  int64_t free;
};

/// The requests a cache of `kv` can ever hold, `lengthOf(i)` tokens for
/// request i: the others are marked refused in `result`.
struct Admitted {
  /// Their indices in arrival order, and their arrival times.
  std::vector<size_t> order;
  std::vector<double> arrivals;
};
Admitted admit(llvm::ArrayRef<Request> requests, const KvCache &kv,
               llvm::function_ref<int64_t(size_t)> lengthOf,
               SimResult &result);

/// Samples the queue every `SimOptions::sampleInterval` seconds. The engine
/// calls update() after every change of state; a sample at time s shows the
/// state after every change at or before s. Requests waiting are those
/// arrived (from `arrivals`, the admitted requests' arrival times in order)
/// and not yet started.
class QueueRecorder {
public:
  QueueRecorder(const SimOptions &sim, std::vector<double> arrivals,
                std::vector<QueueSample> &out)
      : sim(sim), arrivals(std::move(arrivals)), out(out) {}

  /// The state changed at `now`: `started` requests have begun their
  /// prefill and `running` are admitted and not finished.
  void update(double now, int64_t started, int64_t running);
  /// Samples up to and including `end`.
  void finish(double end);

private:
  void emitBefore(double limit, bool inclusive);

  SimOptions sim;
  std::vector<double> arrivals;
  std::vector<QueueSample> &out;
  size_t arrived = 0;
  int64_t started = 0, running = 0;
  int64_t nextSample = 0;
};

} // namespace loom::serve::detail

#endif // LOOM_LIB_SERVE_ENGINESUPPORT_H
