//===- EngineSupport.cpp - what the serving engines share -----------------===//

#include "EngineSupport.h"

#include <cmath>

using namespace loom::serve;
using namespace loom::serve::detail;

llvm::Error detail::error(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Error KvCache::check(llvm::StringRef field) const {
  if (pageTokens < 1)
    return error(field + ".pageTokens: must be at least 1, not " +
                 llvm::Twine(pageTokens));
  if (pages < 0)
    return error(field + ".pages: must not be negative (0 for no limit), "
                         "not " + llvm::Twine(pages));
  return llvm::Error::success();
}

llvm::Error detail::checkInput(llvm::ArrayRef<Request> requests,
                               const SimOptions &sim) {
  for (auto [i, request] : llvm::enumerate(requests)) {
    std::string where = "request " + std::to_string(i);
    if (!(request.arrival >= 0) || !std::isfinite(request.arrival))
      return error(where + ": arrival must be a non-negative time");
    if (i > 0 && request.arrival < requests[i - 1].arrival)
      return error(where + ": arrival comes before the previous request's");
    if (request.inputTokens < 1)
      return error(where + ": inputTokens must be at least 1");
    if (request.outputTokens < 1)
      return error(where + ": outputTokens must be at least 1");
  }
  if (!(sim.sampleInterval >= 0) || !std::isfinite(sim.sampleInterval))
    return error("sampleInterval: must be a non-negative number of seconds");
  if (sim.maxSamples < 0)
    return error("maxSamples: must not be negative");
  return llvm::Error::success();
}

SimResult detail::startResult(llvm::ArrayRef<Request> requests) {
  SimResult result;
  result.requests.reserve(requests.size());
  for (const Request &request : requests) {
    RequestResult r;
    r.id = request.id;
    r.arrival = request.arrival;
    r.inputTokens = request.inputTokens;
    r.outputTokens = request.outputTokens;
    result.requests.push_back(r);
  }
  return result;
}

void QueueRecorder::emitBefore(double limit, bool inclusive) {
  if (sim.sampleInterval <= 0)
    return;
  while ((int64_t)out.size() < sim.maxSamples) {
    double s = nextSample * sim.sampleInterval;
    if (inclusive ? s > limit : s >= limit)
      return;
    while (arrived < arrivals.size() && arrivals[arrived] <= s)
      ++arrived;
    out.push_back({s, (int64_t)arrived - started, running});
    ++nextSample;
  }
}

void QueueRecorder::update(double now, int64_t newStarted,
                           int64_t newRunning) {
  emitBefore(now, /*inclusive=*/false);
  started = newStarted;
  running = newRunning;
}

void QueueRecorder::finish(double end) { emitBefore(end, /*inclusive=*/true); }

detail::Admitted detail::admit(llvm::ArrayRef<Request> requests,
                               const KvCache &kv,
                               llvm::function_ref<int64_t(size_t)> lengthOf,
                               SimResult &result) {
  Admitted out;
  PagePool pool(kv);
  for (size_t i = 0; i < requests.size(); ++i) {
    if (!pool.everFits(lengthOf(i))) {
      result.requests[i].refused = true;
      continue;
    }
    out.order.push_back(i);
    out.arrivals.push_back(requests[i].arrival);
  }
  return out;
}
