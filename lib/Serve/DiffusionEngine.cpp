//===- DiffusionEngine.cpp - images served a denoising step at a time -----===//
//
// MaxDiffusion generates a batch of per_device_batch_size x devices images
// in one jitted call that loops over every denoising step (its generate
// scripts), so a served request waits for the batch before it to finish,
// then runs all its steps with the requests batched beside it: static
// batching. Step-level batching instead lets a request join the running
// batch at any step and leave after its last, each step a call of its own.
// Both are simulated here, each step priced by a DenoisingCost.
//
//===----------------------------------------------------------------------===//

#include "EngineSupport.h"

#include <algorithm>

using namespace loom::serve;
using namespace loom::serve::detail;

static llvm::Error checkOptions(const DiffusionOptions &options) {
  if (options.maxBatch < 1)
    return error("maxBatch: must be at least 1, not " +
                 llvm::Twine(options.maxBatch));
  if (options.steps < 1)
    return error("steps: must be at least 1, not " +
                 llvm::Twine(options.steps));
  return llvm::Error::success();
}

llvm::Expected<SimResult>
loom::serve::simulateDiffusion(llvm::ArrayRef<Request> requests,
                               const DiffusionOptions &options,
                               const DenoisingCost &cost,
                               const SimOptions &sim) {
  if (llvm::Error err = checkOptions(options))
    return std::move(err);
  if (llvm::Error err = checkInput(requests, sim))
    return std::move(err);
  SimResult result = startResult(requests);
  // A request is one image: no prompt tokens computed, one output.
  for (RequestResult &r : result.requests) {
    r.inputTokens = 0;
    r.outputTokens = 1;
  }
  // Images hold no KV cache: every request is admitted.
  Admitted admitted =
      admit(requests, KvCache{}, [](size_t) { return int64_t(1); }, result);
  std::vector<size_t> &order = admitted.order;
  QueueRecorder recorder(sim, std::move(admitted.arrivals), result.queue);
  auto stepSeconds = [&](int64_t images) {
    return cost.step(options.padded ? options.maxBatch : images);
  };

  // A running request and the steps it has left.
  struct Running {
    size_t request;
    int64_t left;
  };
  std::vector<Running> running;
  size_t head = 0, arrived = 0;
  double now = 0;
  auto finish = [&](size_t i) {
    result.requests[i].firstToken = now;
    result.requests[i].finish = now;
  };
  while (head < order.size() || !running.empty()) {
    while (arrived < order.size() && requests[order[arrived]].arrival <= now)
      ++arrived;
    // Waiting requests join: any time with step batching, only into an
    // empty engine without.
    if (options.stepBatching || running.empty())
      while (head < arrived && int64_t(running.size()) < options.maxBatch)
        running.push_back({order[head++], options.steps});
    if (running.empty()) {
      now = std::max(now, requests[order[arrived]].arrival);
      continue;
    }
    int64_t images = int64_t(running.size());
    result.peakRunning = std::max(result.peakRunning, images);
    recorder.update(now, head, images);
    if (options.stepBatching) {
      now += cost.dispatch() + stepSeconds(images);
      ++result.iterations;
      for (Running &r : running)
        if (--r.left == 0)
          finish(r.request);
      llvm::erase_if(running, [](const Running &r) { return r.left == 0; });
    } else {
      now += cost.dispatch() + double(options.steps) * stepSeconds(images);
      result.iterations += options.steps;
      for (const Running &r : running)
        finish(r.request);
      running.clear();
    }
    recorder.update(now, head, running.size());
  }
  recorder.finish(now);
  return result;
}
