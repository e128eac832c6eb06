//===- TrainingSchedule.cpp - pipeline schedules of a training step -------===//
//
// The stages' orders of each schedule (TrainingSchedule.h gives the
// sources) and a run of an order with given pass times.
//
//===----------------------------------------------------------------------===//

#include "loom/Analysis/TrainingSchedule.h"

#include "llvm/Support/ErrorHandling.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <limits>

using namespace loom;

using Kind = PipelinePass::Kind;

llvm::StringRef loom::scheduleName(PipelineSchedule schedule) {
  return stringifyPipelineSchedule(schedule);
}

namespace {

llvm::Error refuse(PipelineSchedule schedule, const std::string &why) {
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv("the {0} schedule {1}", scheduleName(schedule), why)
          .str());
}

/// 1F1B on stage `stage` of `stages`: the warm-up's forwards, then a
/// forward and a backward in turn, then the cool-down's backwards. With
/// `splitWeights` (ZB-H1) each backward is B alone and stage s holds s W
/// passes back: W of microbatch i - s runs after B of microbatch i, the
/// last s after the last B (the zero-bubble authors' ZeroBubbleH1Pipeline
/// for Megatron-DeepSpeed: an F-B section of s steps before the F-B-W
/// steps).
std::vector<PipelinePass> oneFOneB(int64_t stage, int64_t stages,
                                   int64_t microbatches, bool splitWeights) {
  int64_t warmup = std::min(stages - stage - 1, microbatches);
  std::vector<PipelinePass> order;
  int64_t nextW = 0;
  auto backward = [&](int64_t mb) {
    if (!splitWeights) {
      order.push_back({Kind::BackwardWeight, mb, 0});
      return;
    }
    order.push_back({Kind::Backward, mb, 0});
    if (mb - nextW >= stage)
      order.push_back({Kind::Weight, nextW++, 0});
  };
  for (int64_t mb = 0; mb < warmup; ++mb)
    order.push_back({Kind::Forward, mb, 0});
  for (int64_t i = 0; i + warmup < microbatches; ++i) {
    order.push_back({Kind::Forward, warmup + i, 0});
    backward(i);
  }
  for (int64_t mb = microbatches - warmup; mb < microbatches; ++mb)
    backward(mb);
  while (splitWeights && nextW < microbatches)
    order.push_back({Kind::Weight, nextW++, 0});
  return order;
}

/// Megatron-LM's interleaved order on `stage`: the k-th forward is chunk
/// (k mod p v) / p of microbatch (k / p v) p + k mod p; the k-th backward
/// the same microbatch of chunk v - 1 - that.
std::vector<PipelinePass> interleaved(int64_t stage, int64_t stages,
                                      int64_t microbatches, int64_t chunks) {
  int64_t total = microbatches * chunks;
  int64_t warmup =
      std::min((stages - stage - 1) * 2 + (chunks - 1) * stages, total);
  auto pass = [&](Kind kind, int64_t k) {
    int64_t group = stages * chunks, chunk = (k % group) / stages;
    int64_t mb = (k / group) * stages + k % stages;
    return PipelinePass{kind, mb,
                        kind == Kind::Forward ? chunk : chunks - 1 - chunk};
  };
  std::vector<PipelinePass> order;
  for (int64_t k = 0; k < warmup; ++k)
    order.push_back(pass(Kind::Forward, k));
  for (int64_t i = 0; i + warmup < total; ++i) {
    order.push_back(pass(Kind::Forward, warmup + i));
    order.push_back(pass(Kind::BackwardWeight, i));
  }
  for (int64_t k = total - warmup; k < total; ++k)
    order.push_back(pass(Kind::BackwardWeight, k));
  return order;
}

/// ZB-H2's orders (Qi et al., ICLR 2024, section 2.2 and Figure 3): what
/// each stage runs when every pass takes one unit and, at each unit, it
/// runs of the passes whose inputs have come a B, else an F while fewer
/// than 2p - 1 microbatches are in flight on it, else a W. Stage s's first
/// 2 (p - s - 1) + 1 forwards fill its wait for its first B, W passes fill
/// every wait after it, and with 2p - 1 microbatches or more no stage
/// idles between its first pass and its last (the paper's parallelogram).
StageOrders zeroBubbleH2(int64_t stages, int64_t microbatches) {
  int64_t limit = 2 * stages - 1;
  constexpr int64_t kNever = std::numeric_limits<int64_t>::max();
  // The unit at whose end each microbatch's F and B on each stage ended.
  std::vector<int64_t> forwardEnd(stages * microbatches, kNever),
      backwardEnd(stages * microbatches, kNever);
  auto at = [&](int64_t mb, int64_t s) { return mb * stages + s; };
  // Per stage, the F, B and W passes run so far (each in microbatch order).
  std::vector<int64_t> forwards(stages, 0), backwards(stages, 0),
      weights(stages, 0);
  StageOrders orders(stages);
  // Each unit some stage runs a pass, so the loop ends: a W, else the B
  // pending furthest down (the stage after it either ran that B or may run
  // the microbatch's F), else the first stage's F with no B pending.
  for (int64_t unit = 0; llvm::any_of(weights, [&](int64_t w) {
         return w < microbatches;
       });
       ++unit)
    for (int64_t s = 0; s < stages; ++s) {
      int64_t f = forwards[s], b = backwards[s], w = weights[s];
      if (b < f && (s + 1 == stages || backwardEnd[at(b, s + 1)] <= unit)) {
        orders[s].push_back({Kind::Backward, b, 0});
        backwardEnd[at(b, s)] = unit + 1;
        ++backwards[s];
      } else if (f < microbatches && f - w < limit &&
                 (s == 0 || forwardEnd[at(f, s - 1)] <= unit)) {
        orders[s].push_back({Kind::Forward, f, 0});
        forwardEnd[at(f, s)] = unit + 1;
        ++forwards[s];
      } else if (w < b) {
        orders[s].push_back({Kind::Weight, w, 0});
        ++weights[s];
      }
    }
  return orders;
}

} // namespace

llvm::Expected<StageOrders> loom::scheduleOrder(PipelineSchedule schedule,
                                                int64_t stages,
                                                int64_t microbatches,
                                                int64_t chunks) {
  if (stages < 1 || microbatches < 1 || chunks < 1)
    return refuse(schedule, "needs at least one stage, microbatch and chunk");
  bool chunked = runsChunks(schedule);
  if (!chunked && chunks > 1)
    return refuse(schedule,
                  llvm::formatv("runs one model chunk a stage, got {0}", chunks));
  if (chunked && microbatches % stages != 0)
    return refuse(schedule,
                  llvm::formatv("runs microbatches in groups of the {0} "
                                "stages: {1} microbatches is no multiple of it",
                                stages, microbatches));
  if (schedule == PipelineSchedule::ZeroBubbleH2)
    return zeroBubbleH2(stages, microbatches);
  StageOrders orders(stages);
  for (int64_t s = 0; s < stages; ++s) {
    std::vector<PipelinePass> &order = orders[s];
    switch (schedule) {
    case PipelineSchedule::GPipe:
    case PipelineSchedule::Circular:
      // Forward round the ring chunk by chunk, then backward in reverse.
      for (int64_t c = 0; c < chunks; ++c)
        for (int64_t mb = 0; mb < microbatches; ++mb)
          order.push_back({Kind::Forward, mb, c});
      for (int64_t c = chunks - 1; c >= 0; --c)
        for (int64_t mb = 0; mb < microbatches; ++mb)
          order.push_back({Kind::BackwardWeight, mb, c});
      break;
    case PipelineSchedule::OneFOneB:
    case PipelineSchedule::ZeroBubbleH1:
      order = oneFOneB(s, stages, microbatches,
                       schedule == PipelineSchedule::ZeroBubbleH1);
      break;
    case PipelineSchedule::Interleaved:
      order = chunks == 1 ? oneFOneB(s, stages, microbatches, false)
                          : interleaved(s, stages, microbatches, chunks);
      break;
    case PipelineSchedule::ZeroBubbleH2:
      llvm_unreachable("ZB-H2's orders are built for all stages at once");
    }
  }
  return orders;
}

ScheduleRun loom::runSchedule(const StageOrders &orders, int64_t chunks,
                              const PassTimes &times) {
  std::vector<PassTimes> each(orders.size() * chunks, times);
  return runSchedule(orders, chunks, each);
}

bool loom::playSchedule(
    const StageOrders &orders, int64_t chunks,
    llvm::function_ref<double(int64_t, int64_t)> transfer,
    llvm::function_ref<double(int64_t, const PipelinePass &, double)> run) {
  int64_t stages = orders.size(), virtualStages = stages * chunks;
  int64_t microbatches = 0;
  for (const std::vector<PipelinePass> &order : orders)
    for (const PipelinePass &pass : order)
      microbatches = std::max(microbatches, pass.microbatch + 1);
  // When each pass of each microbatch on each virtual stage ended; -1: not
  // yet. B's entry is when its input gradients are sent (a fused pass's
  // end).
  constexpr double kNotYet = -1;
  auto table = [&] {
    return std::vector<double>(microbatches * virtualStages, kNotYet);
  };
  std::vector<double> forwardEnd = table(), backwardEnd = table();
  auto at = [&](int64_t mb, int64_t g) { return mb * virtualStages + g; };
  // When `pass` on stage s may start: its dependencies' ends (kNotYet if
  // one has not run).
  auto ready = [&](int64_t s, const PipelinePass &pass) {
    int64_t g = pass.chunk * stages + s;
    auto after = [&](double end, int64_t into) {
      return end == kNotYet
                 ? kNotYet
                 : end + (stages > 1 ? transfer(into, pass.microbatch) : 0.0);
    };
    switch (pass.kind) {
    case Kind::Forward:
      return g == 0 ? 0.0 : after(forwardEnd[at(pass.microbatch, g - 1)], g);
    case Kind::Backward:
    case Kind::BackwardWeight: {
      double own = forwardEnd[at(pass.microbatch, g)];
      if (own == kNotYet || g + 1 == virtualStages)
        return own;
      double next = after(backwardEnd[at(pass.microbatch, g + 1)], g);
      return next == kNotYet ? kNotYet : std::max(own, next);
    }
    case Kind::Weight:
      return backwardEnd[at(pass.microbatch, g)];
    }
    return kNotYet;
  };
  // Each sweep runs every stage's passes as far as their dependencies
  // allow; an order that waits for a pass no stage runs stops progressing.
  std::vector<size_t> next(stages, 0);
  for (bool progressed = true; progressed;) {
    progressed = false;
    for (int64_t s = 0; s < stages; ++s)
      for (; next[s] < orders[s].size(); ++next[s]) {
        const PipelinePass &pass = orders[s][next[s]];
        double start = ready(s, pass);
        if (start == kNotYet)
          break;
        int64_t g = pass.chunk * stages + s;
        double end = run(s, pass, start);
        if (pass.kind == Kind::Forward)
          forwardEnd[at(pass.microbatch, g)] = end;
        else if (pass.kind != Kind::Weight)
          backwardEnd[at(pass.microbatch, g)] = end;
        progressed = true;
      }
  }
  for (int64_t s = 0; s < stages; ++s)
    if (next[s] < orders[s].size())
      return false;
  return true;
}

StageOrders loom::sliceOrders(const StageOrders &orders, int64_t slices) {
  StageOrders sliced;
  for (const std::vector<PipelinePass> &order : orders) {
    std::vector<PipelinePass> &into = sliced.emplace_back();
    for (const PipelinePass &pass : order)
      for (int64_t i = 0; i < slices; ++i) {
        int64_t slice = pass.kind == Kind::Forward ? i : slices - 1 - i;
        into.push_back({pass.kind, pass.microbatch * slices + slice,
                        pass.chunk});
      }
  }
  return sliced;
}

ScheduleRun loom::runSchedule(const StageOrders &orders, int64_t chunks,
                              llvm::ArrayRef<PassTimes> timesOf) {
  // (An internal misuse, never a user's input.)
  if (int64_t(timesOf.size()) != int64_t(orders.size()) * chunks)
    llvm::report_fatal_error("runSchedule: one PassTimes per virtual stage");
  return runSchedule(orders, chunks,
                     [&](int64_t g, int64_t) { return timesOf[g]; });
}

ScheduleRun
loom::runSchedule(const StageOrders &orders, int64_t chunks,
                  llvm::function_ref<PassTimes(int64_t, int64_t)> timesOf) {
  ScheduleRun run;
  int64_t stages = orders.size();
  int64_t microbatches = 0;
  for (const std::vector<PipelinePass> &order : orders)
    for (const PipelinePass &pass : order)
      microbatches = std::max(microbatches, pass.microbatch + 1);
  auto seconds = [&](Kind kind, int64_t g, int64_t microbatch) {
    const PassTimes times = timesOf(g, microbatch);
    switch (kind) {
    case Kind::Forward:
      return times.forward;
    case Kind::Backward:
      return times.backward;
    case Kind::Weight:
      return times.weight;
    case Kind::BackwardWeight:
      return times.backward + times.weight;
    }
    return 0.0;
  };
  // Each stage's first pass's start (-1 until it runs one) and its clock.
  std::vector<double> first(stages, -1), free(stages, 0);
  bool complete = playSchedule(
      orders, chunks,
      [&](int64_t g, int64_t unit) { return timesOf(g, unit).transfer; },
      [&](int64_t s, const PipelinePass &pass, double ready) {
        double start = std::max(ready, free[s]);
        if (first[s] < 0)
          first[s] = start;
        double end = start + seconds(pass.kind, pass.chunk * stages + s,
                                     pass.microbatch);
        free[s] = end;
        run.makespan = std::max(run.makespan, end);
        return end;
      });
  for (int64_t s = 0; s < stages; ++s)
    if (first[s] >= 0)
      run.period = std::max(run.period, free[s] - first[s]);
  if (!complete)
    run.makespan = run.period = std::numeric_limits<double>::infinity();
  // One stage's passes back to back: the busiest stage's.
  for (int64_t s = 0; s < stages; ++s) {
    double work = 0;
    for (int64_t c = 0; c < chunks; ++c)
      for (int64_t mb = 0; mb < microbatches; ++mb) {
        PassTimes times = timesOf(c * stages + s, mb);
        work += times.forward + times.backward + times.weight;
      }
    run.work = std::max(run.work, work);
  }
  // Activations live from a chunk's F to its W (or fused backward); a
  // split B's values until its W.
  for (const std::vector<PipelinePass> &order : orders) {
    int64_t live = 0, peak = 0, awaiting = 0, peakAwaiting = 0;
    for (const PipelinePass &pass : order) {
      live += pass.kind == Kind::Forward ? 1
              : pass.kind == Kind::Backward ? 0
                                            : -1;
      awaiting += pass.kind == Kind::Backward ? 1
                  : pass.kind == Kind::Weight ? -1
                                              : 0;
      peak = std::max(peak, live);
      peakAwaiting = std::max(peakAwaiting, awaiting);
    }
    run.peakInFlight.push_back(peak);
    run.peakAwaitingWeights.push_back(peakAwaiting);
  }
  return run;
}

std::vector<LiveShares>
loom::liveShares(const StageOrders &orders,
                 llvm::function_ref<double(int64_t)> share) {
  std::vector<LiveShares> out;
  for (const std::vector<PipelinePass> &order : orders) {
    double live = 0, awaiting = 0;
    LiveShares &peak = out.emplace_back();
    for (const PipelinePass &pass : order) {
      double part = share(pass.microbatch);
      switch (pass.kind) {
      case Kind::Forward:
        live += part;
        break;
      case Kind::Backward:
        awaiting += part;
        break;
      case Kind::Weight:
        awaiting -= part;
        live -= part;
        break;
      case Kind::BackwardWeight:
        live -= part;
        break;
      }
      peak.inFlight = std::max(peak.inFlight, live);
      peak.awaitingWeights = std::max(peak.awaitingWeights, awaiting);
    }
  }
  return out;
}
