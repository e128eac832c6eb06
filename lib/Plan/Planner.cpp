//===- Planner.cpp - a model on a topology, from config to simulation -----===//

#include "loom/Plan/Planner.h"

#include "loom/Plan/SequenceSearch.h"

#include "loom/Analysis/StageCost.h"
#include "loom/Conversion/Passes.h"
#include "loom/Dialect/Loom/ModelCost.h"
#include "loom/Dialect/Loom/ModuleTarget.h"
#include "loom/Dialect/Sched/ScheduleIR.h"
#include "loom/Hardware/DeviceMesh.h"
#include "loom/Support/Quantity.h"
#include "loom/Transforms/Passes.h"
#include "loom/Transforms/PlanPipeline.h"
#include "loom/Transforms/ShardExperts.h"
#include "loom/Transforms/ShardHeads.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Pass/PassManager.h"

#include <fmt/format.h>

#include "llvm/ADT/ScopeExit.h"
#include "llvm/Support/ThreadPool.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>
#include <tuple>
#include <numeric>

using namespace mlir;
using namespace loom;

/// A search's handover simulations by what they depend on besides the
/// target and topology (one per search): the groups (tp, sp, stages, tp_x),
/// the placement, whether the last stage hands back to the first, the
/// bytes, and what is simulated.
struct loom::HandoverCache {
  using Key = std::tuple<int64_t, int64_t, int64_t, int64_t, std::string,
                         bool, int64_t, bool, bool, int64_t, bool>;
  std::mutex mutex;
  std::map<Key, std::vector<double>> simulated;
};

namespace {

/// The seconds of a stage boundary's handover on the chips the lowering
/// puts the stages on: every tensor-parallel rank sends its copy to the
/// same rank of the next stage at once. In a pipeline's steady state every
/// stage hands its unit on at about the same time, so all boundaries (with
/// virtual stages, the last stage's back to the first too) are simulated
/// together: the sends into and out of a stage share its block's links, and
/// a multi-hop handover crosses other blocks'. They are simulated on idle
/// links, and with every stage's tensor-parallel ring busy (a message each
/// way between ring neighbours), beside the rings alone; a handover takes
/// the idle time plus, times the share of the stage's time its collectives
/// hold the links (StageSliceCost::tensorLinkShare), how much the busy
/// rings slow it and how much it slows the receiving stage's ring. Once
/// per (slice length, bytes). A 2-D block (tp_x > 1) runs its collectives
/// on rows and columns, which that ring does not stand for: its boundaries
/// are simulated one at a time, alone. Into stage 0 (a patch's return) and
/// where no mesh can be built, the cost model's one-hop figure.
/// Scattered (Megatron-LM's scatter/gather, Narayanan et al., SC'21, section
/// 4.1), each rank sends 1/tp of the boundary and the receiving stage's tp
/// groups all-gather it after the receives, as the lowering emits it: the
/// handover lasts until the gather is done, and the busy rings meet the
/// gathers on their own links too (one contention, counted once).
class BoundaryTransfers {
public:
  /// With virtual stages `cost` prices chunks: the handover into chunk c
  /// goes from stage (c - 1) mod `stages` to stage c mod `stages` (into the
  /// first stage from the last, round the ring).
  BoundaryTransfers(const TargetDesc &target, const TopologyDesc &topology,
                    const StageSliceCost &cost, int64_t tp, int64_t sp,
                    int64_t stages, int64_t tpX, const Placement &placement,
                    bool scatter = false, HandoverCache *cache = nullptr)
      : target(target), topology(topology), cost(cost), tp(tp), sp(sp),
        ranks(tp * sp), stages(stages), tpX(tpX), steadyState(tpX <= 1),
        scatter(scatter && tp > 1), cache(cache) {
    if (topology.numChips() % (tp * sp * stages) != 0)
      return;
    MeshShape shape{topology.numChips() / (tp * sp * stages), stages, tp, sp};
    if (tpX > 1)
      shape.tensorRows = tpX;
    auto built = DeviceMesh::build(target, topology, shape, placement);
    if (built)
      mesh.emplace(std::move(*built));
    else
      llvm::consumeError(built.takeError());
  }

  double operator()(int64_t stage, int64_t length) {
    if (stage == 0 || !mesh)
      return cost.transferSeconds(stage, length);
    int64_t bytes = std::llround(cost.boundaryBytesInto(stage, length));
    int64_t into = stage % stages;
    // A 2-D block's collectives run on its rows and columns, not round one
    // ring: its handovers are simulated alone, each boundary by itself.
    if (!steadyState) {
      auto [alone, fresh] = aloneSeconds.try_emplace({into, length, bytes});
      if (fresh) {
        std::vector<double> done =
            boundaries(bytes, /*busyRings=*/false, /*handovers=*/true, into);
        alone->second =
            done.empty() ? cost.transferSeconds(stage, length) : done[into];
      }
      return alone->second;
    }
    auto [it, fresh] = seconds.try_emplace({length, bytes});
    if (fresh) {
      it->second = {boundaries(bytes, /*busyRings=*/false, /*handovers=*/true),
                    boundaries(bytes, /*busyRings=*/true, /*handovers=*/true),
                    boundaries(bytes, /*busyRings=*/true, /*handovers=*/false)};
    }
    const auto &[idle, busy, rings] = it->second;
    if (idle.empty() || busy.empty() || rings.empty())
      return cost.transferSeconds(stage, length);
    // The rings of the stages on either side.
    double share = std::max(cost.tensorLinkShare(stage - 1, length),
                            cost.tensorLinkShare(stage, length));
    // Both ways: the handover waits for the ring's share of the links, and
    // the receiving stage's ring, slowed by the handovers on its links,
    // delays the stage's work by as much.
    double slower = std::max(busy[into] - idle[into], 0.0);
    double ringDelay =
        std::max(busy[stages + into] - rings[stages + into], 0.0);
    // Scattered, the gather runs on the receiving ring's own links: the
    // two are one contention seen from either side, counted once (over 12
    // plans, tp 2-8, the mean error against loom-sim 0.27% -> 0.20%, the
    // largest +1.1% -> +0.7%).
    if (scatter)
      return idle[into] + share * std::max(slower, ringDelay);
    return idle[into] + share * (slower + ringDelay);
  }

private:
  /// Every boundary's handover of `bytes` a rank, sent at once (with each
  /// stage's tensor-parallel ring busy; or the rings alone): the seconds
  /// until each boundary's last receive, by the stage it goes into, then
  /// until each stage's ring's last message; empty if it cannot run. With
  /// `only`, that boundary's handover alone.
  std::vector<double> boundaries(int64_t bytes, bool busyRings,
                                 bool handovers, int64_t only = -1) {
    if (!cache)
      return simulateBoundaries(bytes, busyRings, handovers, only);
    HandoverCache::Key key{tp,     sp,        stages,    tpX,
                           mesh->getPlacement().str(),
                           cost.getStages() > stages,
                           bytes,  busyRings, handovers, only, scatter};
    {
      std::lock_guard<std::mutex> lock(cache->mutex);
      if (auto found = cache->simulated.find(key);
          found != cache->simulated.end())
        return found->second;
    }
    // (Simulated outside the lock: another thread may simulate the same
    // key meanwhile, to the same result.)
    std::vector<double> done =
        simulateBoundaries(bytes, busyRings, handovers, only);
    std::lock_guard<std::mutex> lock(cache->mutex);
    cache->simulated.try_emplace(key, done);
    return done;
  }

  std::vector<double> simulateBoundaries(int64_t bytes, bool busyRings,
                                         bool handovers, int64_t only) {
    schedule::Schedule handover;
    handover.targetName = target.name;
    handover.shape.assign(topology.shape.begin(), topology.shape.end());
    for (int64_t id = 0; id < topology.numChips(); ++id)
      handover.chips.push_back({id, {}});
    int64_t tag = 0;
    auto message = [&](ChipCoord fromAt, ChipCoord toAt, int64_t size) {
      int64_t from = mesh->chipId(fromAt), to = mesh->chipId(toAt);
      schedule::Task send;
      send.kind = schedule::TaskKind::Send;
      send.peer = to;
      send.bytes = size;
      send.tag = tag++;
      handover.chips[from].tasks.push_back(send);
      schedule::Task recv = send;
      recv.kind = schedule::TaskKind::Recv;
      recv.peer = from;
      handover.chips[to].tasks.push_back(recv);
      return std::pair{to, int64_t(handover.chips[to].tasks.size()) - 1};
    };
    bool wraps = cost.getStages() > stages;
    std::map<std::pair<int64_t, int64_t>, int64_t> receiveOf;
    // Scattered: 1/tp a rank, then each receiving tp group's all-gather of
    // the whole boundary once its members have their shares.
    int64_t collectiveTag = 0;
    for (int64_t s = wraps ? 0 : 1; s < stages && handovers; ++s) {
      if (only >= 0 && s != only)
        continue;
      SmallVector<std::pair<int64_t, int64_t>> received;
      for (int64_t r = 0; r < ranks; ++r)
        received.push_back(
            message(mesh->chip(0, (s + stages - 1) % stages, r),
                    mesh->chip(0, s, r), scatter ? bytes / tp : bytes));
      if (!scatter) {
        for (auto at : received)
          receiveOf[at] = s;
        continue;
      }
      for (int64_t r = 0; r < ranks; ++r) {
        auto [chip, recv] = received[r];
        schedule::Task gather;
        gather.kind = schedule::TaskKind::Collective;
        gather.collective = CollectiveKind::AllGather;
        gather.deps = {recv};
        for (int64_t m = 0; m < tp; ++m)
          gather.group.push_back(mesh->chipId(mesh->chip(0, s, r / tp * tp + m)));
        gather.bytes = bytes;
        gather.tag = collectiveTag + r / tp;
        std::vector<schedule::Task> &tasks = handover.chips[chip].tasks;
        tasks.push_back(gather);
        receiveOf[{chip, int64_t(tasks.size()) - 1}] = s;
        schedule::Task done;
        done.kind = schedule::TaskKind::CollectiveDone;
        done.start = tasks.size() - 1;
        tasks.push_back(done);
      }
      collectiveTag += ranks / tp;
    }
    // A ring busy past the handovers: both ways round, as the simulator
    // runs a ring collective's steps.
    if (busyRings && tp > 1)
      for (int64_t s = 0; s < stages; ++s)
        for (int64_t r = 0; r < ranks; ++r) {
          int64_t t = r % tp, base = r - t;
          for (int64_t step : {int64_t(1), tp - 1})
            receiveOf[message(mesh->chip(0, s, r),
                              mesh->chip(0, s, base + (t + step) % tp),
                              4 * bytes * stages)] = stages + s;
        }
    auto run = sim::simulate(target, handover, /*recordTrace=*/true);
    if (!run) {
      llvm::consumeError(run.takeError());
      return {};
    }
    std::vector<double> done(2 * stages, 0.0);
    for (const sim::TraceEvent &event : run->trace)
      if (auto found = receiveOf.find({event.chip, event.task});
          found != receiveOf.end())
        // The handover is part of a program already launched.
        done[found->second] =
            std::max(done[found->second], event.end - run->dispatch);
    return done;
  }

  const TargetDesc &target;
  const TopologyDesc &topology;
  const StageSliceCost &cost;
  int64_t tp, sp, ranks, stages, tpX;
  bool steadyState, scatter;
  HandoverCache *cache;
  std::optional<DeviceMesh> mesh;
  std::map<std::tuple<int64_t, int64_t, int64_t>, double> aloneSeconds;
  std::map<std::pair<int64_t, int64_t>,
           std::tuple<std::vector<double>, std::vector<double>,
                      std::vector<double>>>
      seconds;
};

/// Collects diagnostics as text instead of printing them. The text is the
/// message alone, so the op a diagnostic is emitted at is not printed into
/// a note (a rejected plan's whole function, a twentieth of a search).
struct Captured {
  explicit Captured(MLIRContext &context)
      : context(context), printedOp(context.shouldPrintOpOnDiagnostic()),
        handler(&context, [this](Diagnostic &diag) {
          std::string text;
          llvm::raw_string_ostream os(text);
          os << diag;
          if (diag.getSeverity() == DiagnosticSeverity::Error) {
            errors.push_back(text);
            // A config file's error names its place in the file, as
            // loom-import's does; one about the file as a whole or the
            // workload options (at 1:1) needs none.
            auto where = dyn_cast<FileLineColLoc>(diag.getLocation());
            if (where && where.getLine() == 1 && where.getColumn() == 1)
              where = {};
            located.push_back(where ? (where.getFilename().str() + ":" +
                                       std::to_string(where.getLine()) + ":" +
                                       std::to_string(where.getColumn()) +
                                       ": " + text)
                                    : text);
          }
          else if (diag.getSeverity() == DiagnosticSeverity::Remark)
            remarks.push_back(text);
          return success();
        }) {
    context.printOpOnDiagnostic(false);
  }
  ~Captured() { context.printOpOnDiagnostic(printedOp); }
  std::string errorText(bool withPlaces = false) const {
    std::string all;
    for (const std::string &e : withPlaces ? located : errors)
      all += (all.empty() ? "" : "; ") + e;
    return all;
  }
  MLIRContext &context;
  bool printedOp;
  std::vector<std::string> errors, located, remarks;
  ScopedDiagnosticHandler handler;
};

/// The first layout degree of `request` below 1 (its option's name and
/// value), or a null name. (ep is checked by loom-shard-experts, which
/// names the valid degrees.)
std::pair<const char *, int64_t> degreeBelowOne(const PlanRequest &request) {
  for (auto [name, value] : {std::pair{"tp", request.tp},
                             {"sp", request.sp},
                             {"stages", request.stages},
                             {"data-parallel", request.dataParallel},
                             {"interleave", request.interleave},
                             {"microbatches", request.microbatches},
                             {"virtual-stages", request.virtualStages}})
    if (value < 1)
      return {name, value};
  return {nullptr, 0};
}

/// Why the tensor-parallel groups of a plan cannot run decomposed
/// collective matmuls (the lowering's own check, on the chips it uses):
/// consecutive ranks must be neighbours, the last beside the first. Empty
/// when they can.
std::string whyNotRing(const TargetDesc &desc, const TopologyDesc &topology,
                       int64_t tp, int64_t sp, int64_t stages,
                       const Placement &placement) {
  int64_t perReplica = tp * sp * stages;
  if (tp < 2 || topology.numChips() % perReplica != 0)
    return "";
  auto built = DeviceMesh::build(desc, topology,
                                 {topology.numChips() / perReplica, stages, tp,
                                  sp},
                                 placement);
  if (!built) {
    llvm::consumeError(built.takeError());
    return "";
  }
  CostModel model(desc);
  for (int64_t s = 0; s < stages; ++s)
    for (int64_t t = 0; t < tp; ++t) {
      ChipCoord from = built->chip(0, s, t), to = built->chip(0, s, (t + 1) % tp);
      if (model.hops(topology.shape, from, to) != 1)
        return fmt::format("its tensor-parallel group of {} chips is not a "
                           "ring of neighbours on {}",
                           tp, topology.name);
    }
  return "";
}

/// A plan and, while it may still be lowered, its planned module.
struct Planned {
  PlanOutcome outcome;
  OwningOpRef<ModuleOp> module;
};

/// Imports the model of `request`, runs the planning pipeline on it once
/// (loom-check-memory's remarks, captured in that run, are the report's
/// memory lines) and predicts. The module comes back unless the plan
/// failed.
Planned planModule(const PlanRequest &request, MLIRContext &context,
                   const PlanOptions &options) {
  Planned planned;
  PlanOutcome &out = planned.outcome;
  out.request = request;
  // The degrees are user input; check them before any arithmetic uses them.
  if (auto [name, value] = degreeBelowOne(request); name) {
    out.failure = std::string(name) + " must be at least 1, got " +
                  std::to_string(value);
    return planned;
  }
  Captured diagnostics(context);
  llvm::Expected<TargetAttr> targetAttr =
      materializeTarget(&context, request.topology, request.targetFile);
  if (!targetAttr) {
    out.failure = llvm::toString(targetAttr.takeError());
    return planned;
  }
  const TargetDesc targetDesc = targetAttr->getDesc();
  const TargetDesc *desc = &targetDesc;
  const TopologyDesc *topology = &targetDesc.topologies.front();
  out.targetName = desc->name;
  out.calibration = desc->calibration;
  out.chips = topology->numChips();
  // The lowering lays meshes out on 2-D topologies only (DeviceMesh::build).
  if (topology->shape.size() != 2) {
    out.failure = "Loom plans 2-D topologies only; " + topology->name +
                  " has " + std::to_string(topology->shape.size()) + " axes";
    return planned;
  }

  // --tp-layout=2d without --tp-x: the block's rows nearest Pope et al.'s
  // optimum sqrt(tp) / 2 (section 3.2.2, d_ff = 4 d_model) that tile it.
  if (out.request.tpX == 0) {
    int64_t tp = request.tp, best = 0;
    double target = std::sqrt(double(tp)) / 2;
    for (int64_t x = 2; x <= tp / 2; ++x)
      if (tp % x == 0 && topology->shape[0] % x == 0 &&
          topology->shape[1] % (tp / x) == 0 &&
          (!best || std::abs(std::log(double(x) / target)) <
                        std::abs(std::log(double(best) / target))))
        best = x;
    if (!best) {
      out.failure = fmt::format(
          "2-D tensor parallelism needs a block of at least 2 x 2 chips; tp "
          "= {} does not factor into one that tiles {} ({}x{})",
          tp, topology->name, topology->shape[0], topology->shape[1]);
      return planned;
    }
    out.request.tpX = best;
  }
  if (request.weightGathered) {
    const char *why =
        request.tpX != 1 ? "it gathers over the whole tp group, not a 2-D block"
        : request.tp < 2 ? "it needs a group of at least 2 chips (give --tp)"
        : request.sp > 1 || request.ep > 1
            ? "its tp chips split the batch alone (no sp, no ep)"
        : request.sequenceParallel ? "it does not split the sequence"
        : request.decompose ? "it has no collective matmul to decompose"
        : request.interleave > 1 || request.microbatches > 1 ||
                request.virtualStages > 1
            ? "each stage runs its units one after another, each layer's "
              "gather prefetched under the layer before (give interleave, "
              "microbatches and virtual stages 1)"
            : nullptr;
    if (why) {
      out.failure = std::string("the weight-gathered layout cannot run: ") + why;
      return planned;
    }
  }
  if (request.epData && (request.ep < 2 || request.sp > 1 ||
                         out.request.tpX > 1 || request.weightGathered)) {
    out.failure = fmt::format(
        "--ep-layout=data gives the ep chips a group of their own beside a "
        "1-D tp group: it needs --ep 2 or more{}",
        request.ep < 2 ? fmt::format(" (got {})", request.ep)
                       : ", and no --sp, 2-D or weight-gathered layout");
    return planned;
  }
  if (out.request.tpX > 1 && request.decompose) {
    out.failure = "decompose runs on a 1-D tensor-parallel ring; a 2-D "
                  "block's sub-groups are not decomposed";
    return planned;
  }
  if (request.scatterHandover) {
    // The lowering's own refusals (LoomToSched, checkScatter), said before
    // the pipeline runs.
    const char *why =
        request.stages < 2 ? "the plan has one stage: there is no boundary "
                             "to hand over"
        : request.tp < 2 ? "it needs tensor parallelism (tp >= 2): each "
                           "stage's one rank sends its results once"
        : out.request.tpX > 1
            ? "a 2-D block's layer results are already split over its tp_x "
              "rows"
        : request.sequenceParallel
            ? "with Megatron sequence parallelism the layer results are "
              "already split over tp: each rank sends its own share, no "
              "gather needed"
        : request.weightGathered
            ? "a weight-gathered plan's ranks each hold their own sequences' "
              "results"
            : nullptr;
    if (why) {
      out.failure =
          std::string("the scatter/gather handover cannot run: ") + why;
      return planned;
    }
  }

  OwningOpRef<ModuleOp> module =
      importModel(request.model, request.import, &context);
  if (!module) {
    out.failure = diagnostics.errorText(/*withPlaces=*/true);
    return planned;
  }
  {
    ModelAttr imported = getModel(*module);
    out.modelName = imported.getName().str();
    out.family = imported.getFamily().str();
    ImportOptions &given = out.imported;
    // What #loom.model does not record: the precision, the routing and
    // how attention runs.
    given.weights = request.import.weights;
    given.kvCache = request.import.kvCache;
    given.activations = request.import.activations;
    given.expertImbalance = request.import.expertImbalance;
    given.attention = request.import.attention;
    given.mode = imported.isDiffusion() ? ImportOptions::Mode::Diffusion
                 : imported.getMode() == ModelMode::decode
                     ? ImportOptions::Mode::Decode
                     : ImportOptions::Mode::Prefill;
    given.batch = imported.getBatch();
    if (imported.isDiffusion()) {
      // A square image keeps --resolution; other images and videos have
      // their height and width, and videos their frames.
      if (imported.getResolution()) {
        given.resolution = imported.getResolution();
      } else {
        given.height = imported.getHeight();
        given.width = imported.getWidth();
        if (imported.getFrames())
          given.frames = imported.getFrames();
      }
      given.steps = imported.getSteps();
      if (imported.getTextTokens())
        given.textLen = imported.getTextTokens();
    } else {
      given.seqLen = imported.getSeq();
    }
  }
  // The ideal time, from the whole batch before any replica takes its share.
  {
    CostModel model(*desc);
    ModelAttr modelInfo = getModel(*module);
    double oneChip = 0;
    for (auto func : module->getOps<func::FuncOp>())
      for (Operation &op : func.getBody().front())
        if (auto cost = dyn_cast<CostOpInterface>(op))
          oneChip += estimateTime(model, cost);
    out.ideal = oneChip * (modelInfo.isDiffusion() ? modelInfo.getSteps() : 1) /
                out.chips;
  }
  // Each data-parallel replica runs its share of the batch.
  if (request.dataParallel > 1) {
    int64_t batch = getModel(*module).getBatch();
    if (batch % request.dataParallel != 0) {
      out.failure = "data-parallel " + std::to_string(request.dataParallel) +
                    " does not divide the batch of " + std::to_string(batch) +
                    " (each replica runs an equal share)";
      return planned;
    }
    ImportOptions share = request.import;
    share.batch = batch / request.dataParallel;
    module = importModel(request.model, share, &context);
    if (!module) {
      out.failure = diagnostics.errorText();
      return planned;
    }
  }
  (*module)->setAttr(kTargetAttrName, *targetAttr);
  ModelAttr modelInfo = getModel(*module);
  if (modelInfo.isDiffusion())
    out.steps = modelInfo.getSteps();
  // The workload, before any split: FLOPs and weights of one forward pass
  // (every step of a diffusion model).
  CostModel model(*desc);
  double weights = 0;
  for (auto func : module->getOps<func::FuncOp>()) {
    CostTotals total = sumPartCosts(collectPartCosts(func.getBody().front()));
    out.modelFlops += total.flops;
    weights += total.parameterBytes;
  }
  // All replicas' work: each data-parallel replica runs its share of the
  // batch and reads its own copy of the weights.
  double runs = double(out.steps) * request.dataParallel;
  out.modelFlops *= runs;
  double computeBound = out.modelFlops / (out.chips * desc->peakFlopsBf16);
  double memoryBound = runs * weights / (out.chips * desc->hbmBandwidth);
  out.roofline = std::max(computeBound, memoryBound);
  out.rooflineIsMemory = memoryBound > computeBound;
  out.weightBytes = weights;
  out.sliceHbmBytes = out.chips * desc->hbmBytes;

  PassManager pm(&context);
  PlanPipelineOptions pipelineOptions;
  pipelineOptions.tp = request.tp;
  pipelineOptions.tpX = out.request.tpX;
  pipelineOptions.weightGathered = request.weightGathered;
  pipelineOptions.ep = request.ep;
  pipelineOptions.epData = request.epData;
  pipelineOptions.sp = request.sp;
  pipelineOptions.spMode = request.spMode;
  pipelineOptions.sequenceParallel = request.sequenceParallel;
  pipelineOptions.stages = request.stages;
  pipelineOptions.dataParallel = request.dataParallel;
  pipelineOptions.slices = request.slices;
  pipelineOptions.microbatches = request.microbatches;
  pipelineOptions.virtualStages = request.virtualStages;
  if (request.virtualStages > 1 && request.interleave > 1) {
    out.failure = "virtual stages run each stage's units in Megatron's "
                  "order, not zipped: give interleave 1";
    return planned;
  }
  pipelineOptions.placement = request.placement;
  if (request.decompose) {
    if (request.interleave > 1) {
      out.failure = "decompose runs with interleave 1 only (units "
                    "interleaved around decomposed collective matmuls are "
                    "not built)";
      return planned;
    }
    if (request.tp < 2) {
      out.failure = "decompose needs tensor parallelism (tp >= 2): there "
                    "is no collective matmul to decompose";
      return planned;
    }
    // Each slice's rows split into tp equal blocks on each of the sp
    // chips: slices in multiples of lcm(8, tp x sp), as few units as the
    // slicer takes (SplitTokens' default rule, with the ring's multiple).
    if (modelInfo.getMode() == ModelMode::decode) {
      out.failure = "decompose splits a slice's rows over the ring, and a "
                    "decode step has one token";
      return planned;
    }
    if (!modelInfo.isDiffusion()) {
      int64_t tokens = modelInfo.getSeq();
      int64_t multiple = std::lcm<int64_t>(8, request.tp * request.sp);
      int64_t unit = 0;
      for (int64_t m = multiple; !unit && m <= tokens; m += multiple)
        if (tokens % m == 0 && tokens / m <= 128)
          unit = m;
      if (!unit) {
        out.failure = fmt::format(
            "decompose splits each slice's rows into {} equal blocks, but "
            "the {}-token sequence does not cut into multiples of {}",
            request.tp, tokens, multiple);
        return planned;
      }
      pipelineOptions.granularity = unit;
    }
  }
  // The only remarks the pipeline emits, then, are the memory check's.
  pipelineOptions.memoryRemarks = true;
  buildPlanPipeline(pm, pipelineOptions);
  if (options.instrument)
    options.instrument(pm);
  if (failed(pm.run(*module))) {
    out.failure = diagnostics.errorText();
    return planned;
  }
  out.memory = diagnostics.remarks;

  FailureOr<ModelView> view = getModelView(*module, model, "loom-plan");
  if (failed(view)) {
    out.failure = diagnostics.errorText();
    return planned;
  }
  out.layers = view->layers.size();
  for (LayerOp layer : view->layers) {
    size_t stage = layer.getStage().value_or(0);
    if (stage >= out.stageLayers.size())
      out.stageLayers.resize(stage + 1, {layer.getIndex(), layer.getIndex()});
    out.stageLayers[stage].second = layer.getIndex();
  }
  // The routed experts a chip holds (the layers of the first stage with
  // any: DeepSeek-V3's first three layers are dense).
  auto stageOf = [](MoEExpertsOp experts) {
    auto layer = experts->getParentOfType<LayerOp>();
    return layer ? int64_t(layer.getStage().value_or(0)) : int64_t(0);
  };
  std::optional<int64_t> expertStage;
  view->func.walk([&](MoEExpertsOp experts) {
    expertStage = std::min(expertStage.value_or(stageOf(experts)),
                           stageOf(experts));
  });
  out.expertStage = expertStage.value_or(0);
  view->func.walk([&](MoEExpertsOp experts) {
    if (stageOf(experts) != out.expertStage)
      return;
    out.experts = experts.getExperts();
    out.expertsPerChip = experts.getLocalExperts();
    // (Beside tp, each expert is split over its ep rank's tp chips.)
    out.expertReplicas = request.epData ? request.tp : request.tp / request.ep;
    out.expertBytesPerChip += CostOpInterface(experts).getParameterBytes();
  });
  PipelineAttr pipeline = getPipeline(view->func);
  out.tokens = pipeline.getTokens();
  out.sliceLengths.assign(pipeline.getSlices().begin(),
                          pipeline.getSlices().end());
  out.patches = pipeline.getMode() == PipelineMode::patches;
  out.warmup = pipeline.getWarmup();
  Placement placement = getPlacementOrDefault(*module);
  StageGroupAxes axes =
      stageGroupAxes(*desc, *topology, view->tp, view->sp, pipeline.getStages(),
                     view->tpX, placement, view->expertGroup);
  // The placement the plan runs with, resolved as the lowering will.
  if (int64_t perReplica = view->chipsPerStage() * pipeline.getStages();
      out.chips % perReplica == 0) {
    MeshShape meshShape{out.chips / perReplica, pipeline.getStages(),
                        view->tp, view->sp};
    meshShape.expertGroup = view->expertGroup;
    if (view->tpX > 1)
      meshShape.tensorRows = view->tpX;
    auto mesh = DeviceMesh::build(
        *desc, *topology,
        meshShape, placement);
    auto byRule = DeviceMesh::build(
        *desc, *topology,
        meshShape);
    if (mesh && byRule) {
      out.placement = mesh->getPlacement().str();
      // (A forced or saved placement the rule would pick is the rule's.)
      out.defaultPlacement = mesh->getPlacement() == byRule->getPlacement();
    }
    if (!mesh)
      llvm::consumeError(mesh.takeError());
    if (!byRule)
      llvm::consumeError(byRule.takeError());
  }
  // Per chunk with virtual stages (a layer's stage is its chunk).
  StageSliceCost cost(view->layers, model, axes.tensor, out.tokens,
                      pipeline.getChunks(), axes.sequence,
                      pipeline.getMicrobatches());
  BoundaryTransfers transfers(*desc, *topology, cost, view->tp, view->sp,
                              pipeline.getStages(), view->tpX, placement,
                              request.scatterHandover,
                              options.handoverCache.get());
  int64_t unitsPerStep =
      int64_t(out.sliceLengths.size()) * pipeline.getMicrobatches();
  if (request.interleave > unitsPerStep) {
    out.failure = fmt::format(
        "interleave {} needs at least {} {}, but the plan has {}; give "
        "--slices", request.interleave, request.interleave,
        out.patches ? "patches" : "slices", unitsPerStep);
    return planned;
  }
  if (request.decompose) {
    std::string why = whyNotRing(*desc, *topology, view->tp, view->sp,
                                 pipeline.getStages(), placement);
    if (why.empty() && !cost.hasDecomposable())
      why = "it has no tensor-parallel matmul beside a collective";
    for (int64_t length : out.sliceLengths)
      if (int64_t rows = view->tp * (view->expertGroup ? 1 : view->sp);
          why.empty() && length % rows != 0)
        why = fmt::format("its {} of {} tokens do not split into {} equal "
                          "blocks",
                          out.patches ? "patches" : "slices", length, rows);
    if (!why.empty()) {
      out.failure = "cannot decompose the collective matmuls: " + why;
      return planned;
    }
    cost.setDecompose(true);
  }
  PipelinePrediction prediction =
      predictPipeline(cost, pipeline, transfers, request.interleave);
  // The search's choice of handover: scattered where every tp rank holds
  // the boundary whole and the cost model says it is faster. It is not
  // always (README, "Scattered handovers"): the gather's synchronisation
  // and tp - 1 hops outweigh the bytes saved on a decode step's tiny
  // boundary.
  if (request.chooseHandover && !request.scatterHandover && view->tp > 1 &&
      view->tpX <= 1 && pipeline.getStages() > 1 &&
      !out.request.sequenceParallel && !request.weightGathered) {
    BoundaryTransfers scattered(*desc, *topology, cost, view->tp, view->sp,
                                pipeline.getStages(), view->tpX, placement,
                                /*scatter=*/true,
                                options.handoverCache.get());
    PipelinePrediction other =
        predictPipeline(cost, pipeline, scattered, request.interleave);
    if (other.seconds < prediction.seconds) {
      prediction = other;
      out.request.scatterHandover = true;
    }
  }
  // Tasks: every rank of every replica runs, per unit (slice or patch,
  // microbatch, step), its stage's ops (tasksOf) and, per stage, an
  // activation allocation and release and the messages in and out (and a
  // scattered handover's gather start and done, within the estimate's
  // rounding).
  double units = double(unitsPerStep) * (out.patches ? out.steps : 1);
  out.estimatedTasks =
      double(view->chipsPerStage()) * request.dataParallel * units *
      double(cost.tasksPerRank(out.sliceLengths.front()) +
             4 * pipeline.getChunks());
  // The host launches the whole plan once (calibration).
  out.predicted = prediction.seconds + model.programDispatch();
  out.bubble = prediction.bubble;
  // No success with a wrong answer: a figure out of range shows as a time
  // that is not a number, which no ranking or report may use.
  if (!std::isfinite(out.predicted) || !std::isfinite(out.roofline) ||
      !std::isfinite(out.bubble) || !std::isfinite(out.ideal)) {
    out.failure = "the cost model's prediction is not a finite time; the "
                  "target's figures are out of range";
    return planned;
  }
  planned.module = std::move(module);
  return planned;
}

bool shouldSimulate(const PlanOutcome &outcome, Simulation policy) {
  return policy == Simulation::Always ||
         (policy == Simulation::WithinBudget &&
          outcome.estimatedTasks <= kSimulationBudget);
}

/// Lowers the planned module (consuming it) into `planned.outcome`'s
/// schedule and returns the target to simulate it on, or sets `failure`.
std::optional<TargetDesc> lower(Planned &planned) {
  PlanOutcome &out = planned.outcome;
  OwningOpRef<ModuleOp> module = std::move(planned.module);
  Captured diagnostics(*module->getContext());
  TargetDesc desc = getTarget(*module).getDesc();
  // The program straight into a schedule: the simulation needs no IR.
  FailureOr<schedule::Schedule> program =
      lowerToScheduleFile(*module, out.request.interleave,
                          out.request.decompose, out.request.scatterHandover);
  if (failed(program)) {
    out.failure = diagnostics.errorText();
    return std::nullopt;
  }
  out.schedule = std::move(*program);
  return desc;
}

/// Simulates a lowered plan's schedule, into `out`. Plain data, no IR: a
/// search runs several at once.
void simulateSchedule(PlanOutcome &out, const TargetDesc &desc, bool trace) {
  llvm::Expected<sim::SimResult> result =
      sim::simulate(desc, out.schedule, trace);
  if (!result) {
    out.failure = llvm::toString(result.takeError());
    return;
  }
  out.simulated = std::move(*result);
  if (!out.simulated->failure.empty())
    out.failure = out.simulated->failure;
}

/// Lowers the planned module (consuming it) and simulates its program,
/// into `planned.outcome`; `failure` says why either refused.
void lowerAndSimulate(Planned &planned, bool trace) {
  if (std::optional<TargetDesc> desc = lower(planned))
    simulateSchedule(planned.outcome, *desc, trace);
}

/// The cost model's order, made total by the degrees.
bool byPrediction(const PlanOutcome &a, const PlanOutcome &b) {
  return std::make_tuple(a.predicted, a.request.tp, a.request.tpX,
                         a.request.weightGathered, a.request.ep,
                         a.request.epData, a.request.sp,
                         a.request.spMode, a.request.stages,
                         a.request.dataParallel, a.request.interleave,
                         a.request.microbatches, a.request.decompose,
                         a.request.scatterHandover,
                         a.request.sequenceParallel,
                         a.request.virtualStages, a.request.placement) <
         std::make_tuple(b.predicted, b.request.tp, b.request.tpX,
                         b.request.weightGathered, b.request.ep,
                         b.request.epData, b.request.sp,
                         b.request.spMode, b.request.stages,
                         b.request.dataParallel, b.request.interleave,
                         b.request.microbatches, b.request.decompose,
                         b.request.scatterHandover,
                         b.request.sequenceParallel,
                         b.request.virtualStages, b.request.placement);
}

} // namespace

PlanOutcome loom::planAndSimulate(const PlanRequest &request,
                                  MLIRContext &context,
                                  const PlanOptions &options) {
  Planned planned = planModule(request, context, options);
  if (planned.outcome.failure.empty() &&
      shouldSimulate(planned.outcome, options.simulate))
    lowerAndSimulate(planned, options.trace);
  return std::move(planned.outcome);
}

SearchResult loom::searchPlans(const PlanRequest &request, MLIRContext &context,
                               const PlanOptions &options) {
  SearchResult result;
  // The candidates' handover simulations, shared (one target and topology).
  PlanOptions shared = options;
  shared.handoverCache = std::make_shared<HandoverCache>();
  llvm::Expected<TargetAttr> target =
      materializeTarget(&context, request.topology, request.targetFile);
  if (!target) {
    llvm::consumeError(target.takeError());
    return result;
  }
  int64_t chips = target->getNumChips();
  // The model's valid tensor-parallel degrees and its layer count.
  SmallVector<int64_t> degrees;
  // Per tp, the expert-parallel degrees (just 1 for a dense model).
  // Per tp, the expert-parallel layouts: (ep, over a group of its own
  // beside tp); just (1, no) for a dense model.
  struct ExpertLayout {
    int64_t ep;
    bool data;
  };
  std::map<int64_t, SmallVector<ExpertLayout>> expertLayoutsOf;
  int64_t layers = 0, batch = 1;
  bool diffusion = false;
  bool decode = false;
  SequenceDegrees sequenceDegrees;
  // The layouts searched: (tp, tp_x), tp_x 1 the 1-D layout; `gathered`:
  // weight-gathered over the tp chips (Pope et al. 2023, section 3.2.3).
  struct Layout {
    int64_t tp, tpX;
    bool gathered;
    // A 2-D block with Megatron's sequence parallelism over its rows: the
    // search's choice whenever the sequence splits over them (the same
    // link traffic; the residual, its norms and adds and the stages'
    // handovers Y times smaller: 10-15% faster on GPT-3 and LLaMA-65B on
    // v5e-256, README "2-D tensor parallelism").
    bool rowsSequenceParallel = false;
  };
  SmallVector<Layout> layouts;
  {
    Captured quiet(context);
    OwningOpRef<ModuleOp> module =
        importModel(request.model, request.import, &context);
    if (!module)
      return result;
    degrees =
        validTensorParallelDegrees(*module, chips, request.sequenceParallel);
    module->walk([&](LayerOp) { ++layers; });
    batch = getModel(*module).getBatch();
    diffusion = getModel(*module).isDiffusion();
    // A decode step has one token, which no ring splits: no decomposed
    // variants to plan.
    decode = getModel(*module).getMode() == ModelMode::decode;
    // Expert parallelism over the tp group's chips, and (as the request
    // allows) over a group of its own beside it, which splits the batch.
    for (int64_t tp : degrees) {
      SmallVector<ExpertLayout> &layouts = expertLayoutsOf[tp];
      if (!request.fixEpLayout || !request.epData)
        for (int64_t ep : validExpertParallelDegrees(*module, tp))
          layouts.push_back({ep, false});
      if (!request.fixEpLayout || request.epData)
        for (int64_t ep : validExpertDataDegrees(*module, tp, chips))
          layouts.push_back({ep, true});
    }
    sequenceDegrees =
        searchedSequenceDegrees(*module, chips, target->getDesc().hbmBytes);
    // 1-D layouts, then 2-D weight-stationary blocks (Pope et al. 2023)
    // of every tp that tiles the slice, as --tp-layout allows.
    bool oneD = !request.fixTpLayout ||
                (request.tpX == 1 && !request.weightGathered);
    bool twoD = (!request.fixTpLayout || request.tpX != 1) && !decode;
    // Weight-gathered: a batched prefill of a causal model (it moves
    // weights instead of activations, which pays only when batch x tokens
    // is large; Pope et al. 2023, section 3.2.3), over each group that
    // divides the batch and tiles the slice. MoE layers are not gathered.
    bool moe = false;
    module->walk([&](MoEExpertsOp) { moe = true; });
    bool gathered = (!request.fixTpLayout || request.weightGathered) &&
                    !request.sequenceParallel && !decode && !diffusion &&
                    !moe && batch > 1;
    if (oneD)
      for (int64_t tp : degrees)
        layouts.push_back({tp, 1, false});
    if (twoD)
      for (int64_t tp = 4; tp <= chips; ++tp)
        if (chips % tp == 0)
          for (int64_t x : validTensorRows(*module, target->getTopologyDesc(),
                                           tp, request.sequenceParallel))
            if (request.tpX <= 1 || x == request.tpX)
              layouts.push_back(
                  {tp, x, false,
                   !request.sequenceParallel &&
                       llvm::is_contained(
                           validTensorRows(*module, target->getTopologyDesc(),
                                           tp, /*sequenceParallel=*/true),
                           x)});
    if (gathered)
      for (int64_t tp = 2; tp <= chips && tp <= batch; ++tp)
        if (chips % tp == 0 && batch % tp == 0)
          layouts.push_back({tp, 1, true});
  }
  // Microbatches of a batched prefill's sequences (#loom.pipeline): on a
  // pipeline only (one stage has no bubble for them to fill), of causal
  // models' token slices (a DiT's batch runs in its patches), each count
  // that divides the replica's batch up to twice the stages (past that a
  // unit's weight reads outgrow the bubble it saves: the bubble of K
  // stages and M microbatches is (K - 1) / (M n + K - 1) of the run, n the
  // slices).
  auto microbatchCounts = [&](int64_t stages, int64_t share) {
    if (request.fixMicrobatches)
      return SmallVector<int64_t>{request.microbatches};
    SmallVector<int64_t> counts{1};
    if (diffusion || stages == 1)
      return counts;
    for (int64_t m = 2; m <= share && m <= 2 * stages; ++m)
      if (share % m == 0)
        counts.push_back(m);
    return counts;
  };
  // Interleaved stages (token slices of a prefill on a pipeline): v = 1, 2,
  // 4, ... while the stages' chunks divide the layers. Each cuts the bubble
  // to 1/v at v times the handovers; a decode step (one token a sequence)
  // and a DiT's patches (which stream across steps) are not interleaved.
  auto virtualStageCounts = [&](int64_t stages, int64_t interleave) {
    if (request.fixVirtualStages)
      return request.virtualStages > 1 && interleave > 1
                 ? SmallVector<int64_t>{}
                 : SmallVector<int64_t>{request.virtualStages};
    SmallVector<int64_t> counts{1};
    if (diffusion || decode || stages == 1 || interleave > 1)
      return counts;
    for (int64_t v = 2; stages * v <= layers; v *= 2)
      if (layers % (stages * v) == 0)
        counts.push_back(v);
    return counts;
  };
  int64_t simulateTop = std::max<int64_t>(options.simulateTop, 0);
  // The planned modules of the best plans by prediction (within the
  // simulation budget) are kept, so the ones simulated are not planned
  // again: the top ones, room for simulations that fail, and the winner's.
  // Planned modules are small before lowering (the 8 kept for gpt3-175b on
  // v5e-64 add about 1 MB); past 16, a simulation plans again.
  size_t keep = 2 * std::min<int64_t>(simulateTop, 7) + 2;
  if (options.rankOnly && simulateTop == 0)
    keep = 0;
  std::vector<Planned> plans;
  std::vector<size_t> kept;
  auto keepModule = [&](size_t index) {
    if (keep == 0 || plans[index].outcome.estimatedTasks > kSimulationBudget) {
      plans[index].module = nullptr;
      return;
    }
    kept.push_back(index);
    if (kept.size() <= keep)
      return;
    auto worst =
        std::max_element(kept.begin(), kept.end(), [&](size_t a, size_t b) {
          return byPrediction(plans[a].outcome, plans[b].outcome);
        });
    plans[*worst].module = nullptr;
    kept.erase(worst);
  };
  // The placements of a stage of tp x sp chips the search tries: the
  // default rule's (as ""), then each other one whose groups sit on axes
  // the cost model prices differently (the same sorted axes, stride and
  // wrap of both groups and the same block up to a square topology's
  // transpose price the same: pruned). Stages stay inside replicas: a
  // replica's blocks never talk to another's, so a stage's replicas side
  // by side only lengthen the stage-to-stage hop.
  std::map<std::tuple<int64_t, int64_t, int64_t, bool>,
           std::vector<std::string>>
      placementCache;
  const TargetDesc targetDesc = target->getDesc();
  const TopologyDesc topologyDesc = target->getTopologyDesc();
  auto placementsOf =
      [&](int64_t tp, int64_t sp, int64_t stages,
          bool expertGroup) -> const std::vector<std::string> & {
    auto [it, fresh] =
        placementCache.try_emplace({tp, sp, stages, expertGroup});
    if (!fresh)
      return it->second;
    std::vector<std::string> &found = it->second;
    found.push_back("");
    if (topologyDesc.shape.size() != 2)
      return found;
    MeshShape shape{chips / (tp * sp * stages), stages, tp, sp};
    shape.expertGroup = expertGroup;
    auto signature = [&](const DeviceMesh &mesh) {
      auto sorted = [](ArrayRef<GroupAxis> axes) {
        SmallVector<GroupAxis> list(axes);
        llvm::sort(list);
        return list;
      };
      ChipCoord block = mesh.getPlacement().block;
      if (topologyDesc.shape[0] == topologyDesc.shape[1] &&
          block[0] > block[1])
        std::swap(block[0], block[1]);
      return std::make_tuple(block, sorted(mesh.tensorParallelAxes()),
                             sorted(mesh.sequenceParallelAxes()));
    };
    auto byRule = DeviceMesh::build(targetDesc, topologyDesc, shape);
    if (!byRule) {
      llvm::consumeError(byRule.takeError());
      return found;
    }
    std::set<decltype(signature(*byRule))> seen{signature(*byRule)};
    for (const Placement &p : DeviceMesh::placements(topologyDesc, shape)) {
      auto mesh = DeviceMesh::build(targetDesc, topologyDesc, shape, p);
      if (!mesh) {
        llvm::consumeError(mesh.takeError());
        continue;
      }
      if (seen.insert(signature(*mesh)).second)
        found.push_back(p.str());
    }
    return found;
  };
  // With virtual stages every unit goes from the last stage back to the
  // first, so a placement whose stage blocks close a ring (`stages in
  // ring`) is tried beside each one whose snake of blocks does not: when
  // its handovers round the cycle cross fewer hops than the snake's.
  std::map<std::tuple<int64_t, int64_t, int64_t, int64_t, bool, std::string>,
           std::string>
      ringCache;
  auto ringOf = [&](const std::string &text, int64_t tp, int64_t sp,
                    int64_t stages, int64_t tpX,
                    bool expertGroup) -> const std::string & {
    auto [it, fresh] =
        ringCache.try_emplace({tp, sp, stages, tpX, expertGroup, text});
    if (!fresh || topologyDesc.shape.size() != 2)
      return it->second;
    MeshShape shape{chips / (tp * sp * stages), stages, tp, sp};
    shape.expertGroup = expertGroup;
    if (tpX > 1 && sp == 1)
      shape.tensorRows = tpX;
    Placement placement;
    if (!text.empty()) {
      llvm::Expected<Placement> parsed = parsePlacement(text);
      if (!parsed) {
        llvm::consumeError(parsed.takeError());
        return it->second;
      }
      placement = *parsed;
    }
    auto snake = DeviceMesh::build(targetDesc, topologyDesc, shape, placement);
    if (!snake) {
      llvm::consumeError(snake.takeError());
      return it->second;
    }
    Placement ring = snake->getPlacement();
    ring.stagesRing = true;
    auto closed = DeviceMesh::build(targetDesc, topologyDesc, shape, ring);
    if (!closed) {
      llvm::consumeError(closed.takeError());
      return it->second;
    }
    int64_t snakeHops = 0, ringHops = 0;
    for (int64_t s = 0; s < stages; ++s) {
      snakeHops += snake->stageHops(s);
      ringHops += closed->stageHops(s);
    }
    if (ringHops < snakeHops)
      it->second = ring.str();
    return it->second;
  };
  // Every candidate layout first, so that progress can say of how many.
  std::vector<PlanRequest> candidates;
  // Candidates with an expert-parallel group of its own, by index, and
  // their placements after the first: a second round plans them for the
  // kExpertPlacementRefinements best only.
  std::vector<std::pair<size_t, std::vector<std::string>>> refinements;
  constexpr size_t kExpertPlacementRefinements = 4;
  for (auto [tp, tpX, gathered, rowsSp] : layouts)
    for (int64_t stages = 1; stages <= layers; ++stages) {
      // (The lowering lays replicas out only when tp x stages divides the
      // topology.)
      if (chips % (tp * stages) != 0 || (request.fixTp && tp != request.tp) ||
          (request.fixStages && stages != request.stages))
        continue;
      // Data parallelism splits the batch.
      for (int64_t dp = 1; dp <= batch && dp <= chips / (tp * stages); ++dp) {
        // A 2-D block runs alone in its stage: no ep, no sp; so does a
        // weight-gathered group, whose tp chips split the replica's batch.
        if (gathered && (batch / dp) % tp != 0)
          continue;
        SmallVector<ExpertLayout> oneEp{{1, false}};
        for (auto [ep, epData] : tpX > 1 || gathered
                                     ? ArrayRef<ExpertLayout>(oneEp)
                                     : ArrayRef(expertLayoutsOf[tp]))
        for (auto [sp, ring] : sequenceDegrees.withModes(tp, request)) {
          if ((tpX > 1 || gathered) && sp > 1)
            continue;
          // An expert-parallel group of its own takes the place beside tp
          // that sp would, and splits each replica's batch.
          if (epData && (sp > 1 || (batch / dp) % ep != 0))
            continue;
          int64_t beside = epData ? ep : sp;
          if (batch % dp != 0 ||
              (request.fixDataParallel && dp != request.dataParallel) ||
              (request.fixEp && ep != request.ep) ||
              chips % (tp * beside * stages) != 0 ||
              dp > chips / (tp * beside * stages))
            continue;
          // Without overlap, and with two units interleaved
          // (docs/overlap.md): TeraPipe's or PipeFusion's units paired on a
          // pipeline, two micro-batches of the sequence on one stage.
          // And with the collective matmuls decomposed (interleave 1, tp
          // >= 2; docs/overlap.md): in the all-reduce form (its
          // reduce-scatter half under the matmul, the partials splitting
          // the output columns) and in Megatron's sequence-parallel form
          // (all-gather and reduce-scatter under matmuls, the partials
          // splitting the rows). Variants the plan cannot run are dropped,
          // not counted as rejected layouts.
          struct Overlap {
            int64_t interleave;
            bool decompose, sequenceParallel;
          };
          for (auto [interleave, decompose, megatronSp] :
               {Overlap{1, false, false}, Overlap{2, false, false},
                Overlap{1, true, false}, Overlap{1, true, true}}) {
            // (With --sequence-parallel every variant has it.)
            if (megatronSp && request.sequenceParallel)
              continue;
          for (int64_t microbatches : microbatchCounts(stages, batch / dp))
          for (int64_t virtualStages : virtualStageCounts(stages, interleave)) {
            if (request.fixInterleave && interleave != request.interleave)
              continue;
            if ((request.fixDecompose && decompose != request.decompose) ||
                (decompose && (tp < 2 || decode)))
              continue;
            // (2-D sub-groups are not decomposed; their residual is split
            // over d_model, not the sequence.)
            if (tpX > 1 && (decompose || megatronSp))
              continue;
            // (A weight-gathered stage runs its units one after another,
            // each layer's gather prefetched: one microbatch, no zipped
            // units, no virtual stages, no decomposed collectives.)
            if (gathered && (interleave > 1 || decompose || megatronSp ||
                             microbatches > 1 || virtualStages > 1))
              continue;
            // (A scatter/gather handover asked for runs only where every
            // tp rank holds the boundary whole; unasked, each candidate
            // that can takes it where the cost model prefers it.)
            bool splitBoundary = request.sequenceParallel || megatronSp ||
                                 rowsSp || tpX > 1 || gathered;
            if (request.fixScatterHandover && request.scatterHandover &&
                (tp < 2 || stages < 2 || splitBoundary))
              continue;
            PlanRequest candidate = request;
            candidate.scatterHandover =
                request.fixScatterHandover && request.scatterHandover;
            candidate.chooseHandover = !request.fixScatterHandover;
            candidate.tpX = tpX;
            candidate.weightGathered = gathered;
            candidate.microbatches = microbatches;
            candidate.decompose = decompose;
            candidate.sequenceParallel |=
                megatronSp || rowsSp;
            candidate.tp = tp;
            candidate.sp = sp;
            candidate.spMode = ring ? "ring" : "ulysses";
            candidate.ep = ep;
            candidate.epData = epData;
            candidate.stages = stages;
            candidate.dataParallel = dp;
            candidate.interleave = interleave;
            candidate.virtualStages = virtualStages;
            candidate.slices =
                interleave > 1 && stages == 1 ? std::to_string(interleave)
                                              : "auto";
            candidate.import.batch = batch;
            // With tp and sp both above 1, each placement that prices
            // differently (README, "Placement").
            std::vector<std::string> placements =
                request.fixPlacement || tp == 1 || beside == 1
                    ? std::vector<std::string>{request.placement}
                    : placementsOf(tp, beside, stages, epData);
            if (virtualStages > 1 && !request.fixPlacement)
              for (size_t i = 0, n = placements.size(); i < n; ++i)
                if (const std::string &ring = ringOf(
                        placements[i], tp, beside, stages, tpX, epData);
                    !ring.empty())
                  placements.push_back(ring);
            // An expert group of its own is planned first with the
            // first placement alone; the others refine the best of them
            // (below).
            if (epData && placements.size() > 1) {
              refinements.emplace_back(
                  candidates.size(),
                  std::vector<std::string>(placements.begin() + 1,
                                           placements.end()));
              placements.resize(1);
            }
            for (const std::string &placement : placements) {
              PlanRequest placed = candidate;
              placed.placement = placement;
              candidates.push_back(std::move(placed));
            }
          }
          }
        }
      }
    }
  int64_t steps = candidates.size() +
                  std::min<int64_t>(simulateTop, candidates.size()),
          done = 0;
  auto progress = [&] {
    if (options.progress)
      options.progress(++done, steps);
  };
  // Candidates are planned on `threads` workers, each in a context of its
  // own (diagnostics are captured per context; the kept modules live in
  // them until the search returns), and taken in candidate order, so the
  // result is the one planning them one by one gives. An instrumented
  // search plans on this thread alone: its instrumentation need not be
  // thread-safe.
  unsigned threads =
      options.instrument
          ? 1
          : llvm::hardware_concurrency(options.threads).compute_thread_count();
  threads = std::max<unsigned>(
      1, std::min<size_t>(threads, std::max<size_t>(candidates.size(), 1)));
  std::vector<std::unique_ptr<MLIRContext>> workerContexts;
  std::optional<llvm::StdThreadPool> pool;
  if (threads > 1) {
    pool.emplace(llvm::hardware_concurrency(threads));
    for (unsigned t = 0; t < threads; ++t) {
      workerContexts.push_back(std::make_unique<MLIRContext>(
          context.getDialectRegistry(), MLIRContext::Threading::DISABLED));
      workerContexts.back()->loadAllAvailableDialects();
    }
  }
  // The modules must go before their contexts.
  llvm::scope_exit dropPlans([&] { plans.clear(); });
  // Plans `round` into `plans`, in its order; returns the index in `plans`
  // of each (none for a refused one).
  auto planRound = [&](const std::vector<PlanRequest> &round) {
    std::vector<std::optional<size_t>> where(round.size());
    std::vector<std::optional<Planned>> planned(round.size());
    std::mutex mutex;
    std::condition_variable ready;
    std::atomic<size_t> next = 0;
    for (unsigned t = 0; t < workerContexts.size(); ++t)
      pool->async([&, t] {
        for (size_t i; (i = next++) < round.size();) {
          Planned one = planModule(round[i], *workerContexts[t], shared);
          std::lock_guard<std::mutex> lock(mutex);
          planned[i] = std::move(one);
          ready.notify_all();
        }
      });
    for (size_t i = 0; i < round.size(); ++i) {
      Planned one;
      if (pool) {
        std::unique_lock<std::mutex> lock(mutex);
        ready.wait(lock, [&] { return planned[i].has_value(); });
        one = std::move(*planned[i]);
        planned[i].reset();
      } else {
        one = planModule(round[i], context, shared);
      }
      progress();
      if (!one.outcome.failure.empty()) {
        result.rejected += !round[i].decompose;
        continue;
      }
      where[i] = plans.size();
      plans.push_back(std::move(one));
      keepModule(plans.size() - 1);
    }
    if (pool)
      pool->wait();
    return where;
  };
  std::vector<std::optional<size_t>> planIndex = planRound(candidates);
  // The other placements of the expert-group layouts that predicted best
  // (each group placement moves only its all-to-alls and the tp group's
  // collectives; trying them all on every layout took a batched
  // DeepSeek-V3 search on v5e-256 from 25 to 104 s).
  if (!refinements.empty()) {
    llvm::stable_sort(refinements, [&](const auto &a, const auto &b) {
      const std::optional<size_t> &x = planIndex[a.first],
                                  &y = planIndex[b.first];
      if (!x || !y)
        return bool(x) && !y;
      return byPrediction(plans[*x].outcome, plans[*y].outcome);
    });
    std::vector<PlanRequest> round;
    for (size_t k = 0;
         k < refinements.size() && k < kExpertPlacementRefinements &&
         planIndex[refinements[k].first];
         ++k)
      for (const std::string &placement : refinements[k].second) {
        PlanRequest placed = candidates[refinements[k].first];
        placed.placement = placement;
        round.push_back(std::move(placed));
      }
    steps += round.size();
    planRound(round);
  }
  auto byPlannedPrediction = [](const Planned &a, const Planned &b) {
    return byPrediction(a.outcome, b.outcome);
  };
  std::stable_sort(plans.begin(), plans.end(), byPlannedPrediction);
  // Lowers a plan from its kept module, or planned again when it has none
  // (the kept ones ran out); the target to simulate it on, or none with
  // `failure` set.
  auto lowerPlan = [&](Planned &planned) -> std::optional<TargetDesc> {
    if (!planned.module) {
      Planned again = planModule(planned.outcome.request, context, shared);
      if (!again.module) {
        planned.outcome.failure = again.outcome.failure;
        return std::nullopt;
      }
      planned.module = std::move(again.module);
    }
    return lower(planned);
  };
  auto simulate = [&](Planned &planned, bool trace) {
    if (std::optional<TargetDesc> desc = lowerPlan(planned))
      simulateSchedule(planned.outcome, *desc, trace);
  };
  int64_t simulated = 0;
  // Only the best simulated plan so far keeps its schedule (the winner's
  // report, trace and timeline need it; a ranked plan does not): a large
  // program's schedule takes hundreds of MB.
  std::optional<size_t> bestSimulated;
  // The search's simulations share one budget of tasks, so a search takes
  // about the seconds and memory of one plan's simulation at most (the
  // best plans of a large DiT each come near the budget).
  double budgetLeft = options.searchSimulationBudget;
  // In prediction order, the plans within kSimulationBudget are simulated
  // while the budget lasts, until simulateTop of them ran; one the
  // simulator refuses (an HBM overflow, say) does not fit and does not
  // count. The plans the next steps would simulate, were none refused, run
  // at once (lowered here, simulated on the workers); their outcomes are
  // then taken in order, so the result is that of one at a time.
  std::vector<bool> refused(plans.size(), false);
  size_t i = 0;
  while (i < plans.size() && simulated < simulateTop) {
    SmallVector<size_t> batch;
    double left = budgetLeft;
    for (size_t k = i; k < plans.size() &&
                       simulated + int64_t(batch.size()) < simulateTop;
         ++k) {
      double tasks = plans[k].outcome.estimatedTasks;
      if (tasks > kSimulationBudget)
        continue;
      if (tasks > left)
        break;
      left -= tasks;
      batch.push_back(k);
    }
    if (batch.empty())
      break;
    // Each is simulated as soon as it is lowered, while the next lowers.
    std::vector<std::optional<TargetDesc>> targets(batch.size());
    auto run = [&](size_t b) {
      if (targets[b])
        simulateSchedule(plans[batch[b]].outcome, *targets[b],
                         /*trace=*/false);
    };
    for (size_t b = 0; b < batch.size(); ++b) {
      targets[b] = lowerPlan(plans[batch[b]]);
      if (pool && batch.size() > 1)
        pool->async(run, b);
      else
        run(b);
    }
    if (pool && batch.size() > 1)
      pool->wait();
    for (size_t k : batch) {
      budgetLeft -= plans[k].outcome.estimatedTasks;
      progress();
      if (!plans[k].outcome.failure.empty()) {
        refused[k] = true;
        plans[k].outcome.schedule = {};
        ++result.rejected;
        continue;
      }
      auto makespan = [&](size_t j) {
        return plans[j].outcome.simulated->makespan;
      };
      if (!bestSimulated || makespan(k) < makespan(*bestSimulated)) {
        if (bestSimulated)
          plans[*bestSimulated].outcome.schedule = {};
        bestSimulated = k;
      } else {
        plans[k].outcome.schedule = {};
      }
      ++simulated;
    }
    i = batch.back() + 1;
  }
  // The refused plans do not fit.
  {
    size_t fit = 0;
    for (size_t k = 0; k < plans.size(); ++k)
      if (!refused[k]) {
        if (fit != k)
          plans[fit] = std::move(plans[k]);
        ++fit;
      }
    plans.resize(fit);
  }
  // By the best estimate of each: the simulator's time where it ran, the
  // cost model's otherwise.
  std::stable_sort(plans.begin(), plans.end(),
                   [](const Planned &a, const Planned &b) {
                     auto time = [](const PlanOutcome &p) {
                       return p.simulated ? p.simulated->makespan : p.predicted;
                     };
                     return time(a.outcome) < time(b.outcome);
                   });
  if (!options.rankOnly && !plans.empty()) {
    // The winner as planAndSimulate reports it: simulated when the policy
    // says so, even if the ranking did not simulate it; a trace needs a
    // run that records one.
    Planned &best = plans.front();
    schedule::Schedule program = std::move(best.outcome.schedule);
    Planned winner{best.outcome, std::move(best.module)};
    winner.outcome.schedule = std::move(program);
    if (!winner.outcome.simulated &&
        shouldSimulate(winner.outcome, options.simulate)) {
      simulate(winner, options.trace);
    } else if (winner.outcome.simulated && options.trace) {
      llvm::Expected<sim::SimResult> traced = sim::simulate(
          target->getDesc(), winner.outcome.schedule, /*recordTrace=*/true);
      if (traced)
        winner.outcome.simulated = std::move(*traced);
      else
        winner.outcome.failure = llvm::toString(traced.takeError());
    }
    result.winner = std::move(winner.outcome);
  }
  // (Reserved: PlanOutcome's move may throw, so a growing vector would
  // copy every outcome.)
  result.ranked.reserve(plans.size());
  for (Planned &planned : plans)
    result.ranked.push_back(std::move(planned.outcome));
  return result;
}

std::string loom::checkRequest(const PlanRequest &request, bool search,
                               bool slicesGiven, const PlanOptions &options,
                               bool topGiven) {
  if (auto [flag, degree] = degreeBelowOne(request); flag)
    return "--" + std::string(flag) + " must be at least 1, got " +
           std::to_string(degree);
  if (search && slicesGiven)
    return "--search chooses the slices of each plan; drop --slices or "
           "--search";
  if (request.fixPlacement) {
    llvm::Expected<Placement> placement = parsePlacement(request.placement);
    if (!placement)
      return "--placement: " + llvm::toString(placement.takeError());
  }
  if (topGiven && !search)
    return "--simulate-top applies only to a search (--search, or no --tp, "
           "--stages, --data-parallel or --slices)";
  if (options.simulateTop < 0)
    return "--simulate-top must be 0 or more, got " +
           std::to_string(options.simulateTop);
  return "";
}

PlanResult loom::planOrSearch(const PlanRequest &request, MLIRContext &context,
                              bool search, const PlanOptions &options) {
  PlanResult result;
  result.searched = search;
  if (!search) {
    result.chosen = planAndSimulate(request, context, options);
  } else {
    result.search = searchPlans(request, context, options);
    if (result.search.ranked.empty()) {
      result.noneFits = true;
      // The request as given says why (lowered too: the lowering refuses
      // layouts the cost model can still price).
      PlanOptions why = options;
      why.simulate = Simulation::Always;
      why.trace = false;
      PlanOutcome &chosen = result.chosen =
          planAndSimulate(request, context, why);
      // No layout at all can hold weights larger than the topology's HBM.
      if (chosen.weightBytes > chosen.sliceHbmBytes && chosen.sliceHbmBytes > 0)
        chosen.failure = fmt::format(
            "its weights alone, {}, exceed the {} of HBM on all {} chips; "
            "use a larger topology",
            formatQuantity(chosen.weightBytes, "B"),
            formatQuantity(chosen.sliceHbmBytes, "B"), chosen.chips);
      return result;
    }
    if (!result.search.winner)
      return result;
    result.chosen = std::move(*result.search.winner);
    result.search.winner.reset();
  }
  if (result.chosen.failure.empty())
    return result;
  // Say what would fit, with every degree free.
  PlanOptions rank = options;
  rank.simulateTop = 0;
  rank.rankOnly = true;
  rank.trace = false;
  rank.progress = nullptr;
  PlanRequest free = result.chosen.request;
  free.fixTp = free.fixStages = free.fixDataParallel = free.fixInterleave =
      free.fixSp = free.fixMicrobatches = free.fixDecompose =
          free.fixScatterHandover =
          free.fixPlacement = false;
  free.placement.clear();
  SearchResult fits = searchPlans(free, context, rank);
  result.fitting = fits.ranked.size();
  if (!fits.ranked.empty())
    result.suggestion = std::move(fits.ranked.front());
  return result;
}
