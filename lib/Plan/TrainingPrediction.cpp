//===- TrainingPrediction.cpp - a training step's time, in closed form ----===//
//
// The cost model's time of a training step (docs/training.md, "Planning a
// training step"), for a search to rank layouts before it simulates the
// best. Two resources run in program order, as the lowering emits the
// step kernel by kernel: each chip's TensorCore (every op priced by the
// shared CostModel, the tensor-parallel collectives inside a layer's run
// as LayerSliceCost prices them) and the links between data-parallel
// replicas, one collective after another. A collective over replicas
// starts when what it waits for is done and the links are free; a kernel
// waits for its gathered weights. That is the lowering's overlap: FSDP's
// gather of the next weight read under the current kernel, each
// gradient reduced (per kernel under ZeRO-2 and 3, per layer otherwise)
// under the kernels after it, the optimizer's updates after their
// gradients. All replicas run alike, so one replica's time is the step's.
//
//===----------------------------------------------------------------------===//

#include "Evaluate.h"

#include "loom/Analysis/LayerSliceCost.h"
#include "loom/Analysis/TrainingStep.h"
#include "loom/Hardware/DeviceMesh.h"

#include <algorithm>
#include <map>
#include <tuple>

using namespace mlir;
using namespace loom;

namespace {

/// The two resources: the TensorCore and the replicas' links.
struct Timeline {
  /// The TensorCore and the replicas' links (a gather and a reduction at
  /// once share them).
  double core = 0, links = 0;
  /// Seconds the TensorCore computes.
  double busy = 0;
  /// Runs `seconds` of compute once `after` is reached; returns its end.
  double compute(double seconds, double after = 0) {
    core = std::max(core, after) + seconds;
    busy += seconds;
    return core;
  }
  /// Runs a collective of `seconds` once `after` is reached and the links
  /// are free; returns its end.
  double collective(double seconds, double after) {
    if (seconds <= 0)
      return after;
    links = std::max(links, after) + seconds;
    return links;
  }
};

/// The lowering's groups of a collective over replicas (TrainingLowering's
/// ReplicaGroup): the fsdp replicas that split the model states, those
/// holding the same shard in the other groups, and those with the ranks of
/// each beside the tensor rank (sp, or ep beside tp), which hold the same
/// parameters.
enum class ReplicaGroup { Shards, Copies, CopiesBeside };

/// The time of a collective of `kind` over a replica group (rank 0's;
/// every rank's group alike) for `bytes`.
/// Every rank of a replica runs its own collective over the replicas at
/// once (the lowering's groups are per rank), so the groups of a tp x sp
/// stage share links: each group's time is stretched by how many more
/// messages its busiest link carries with all of them than with its own.
struct ReplicaGroups {
  const CostModel &model;
  llvm::SmallVector<int64_t, 2> shape;
  std::optional<GroupRoutes> routes[3];
  double share[3] = {1, 1, 1};

  double time(CollectiveKind kind, ReplicaGroup group, double bytes) {
    int which = int(group);
    if (!routes[which] || bytes <= 0)
      return 0;
    // (A model's layers read the same weights' sizes again and again; a
    // group of 256 replicas is costly to price.)
    auto [it, fresh] = priced.try_emplace({kind, which, bytes}, 0.0);
    if (fresh)
      it->second =
          model.routedCollectiveTime(kind, *routes[which], bytes) * share[which];
    return it->second;
  }
  std::map<std::tuple<CollectiveKind, int, double>, double> priced;
};

/// The most messages one step of the groups' rings puts on a link, over
/// `groups` (each a list of chips in ring order) together.
int64_t busiestLink(const CostModel &model, ArrayRef<int64_t> shape,
                    ArrayRef<SmallVector<SmallVector<int64_t, 3>>> groups) {
  std::map<std::tuple<SmallVector<int64_t, 3>, unsigned, int>, int64_t> load;
  int64_t most = 0;
  for (const auto &group : groups) {
    size_t n = group.size();
    if (n < 2)
      continue;
    for (size_t i = 0; i < n; ++i)
      for (size_t j : {(i + 1) % n, (i + n - 1) % n}) {
        if (n == 2 && j < i)
          continue;
        model.route(shape, group[i], group[j],
                    [&](ArrayRef<int64_t> at, unsigned axis, int dir) {
                      int64_t &l = load[{SmallVector<int64_t, 3>(at.begin(),
                                                                  at.end()),
                                         axis, dir}];
                      most = std::max(most, ++l);
                    });
      }
  }
  return most;
}

/// The replicas' groups of a stage's rank 0 (ReplicaGroup); none when the
/// mesh cannot be laid out.
std::optional<ReplicaGroups>
replicaGroups(const CostModel &model, const TargetDesc &desc,
              const TopologyDesc &topology, const ParallelLayout &layout,
              const Placement &placement, const ZeroSplit &split) {
  int64_t dp = layout.dataParallel, tp = layout.tp,
          beside = layout.besideDegree();
  ReplicaGroups groups{model, {}};
  groups.shape.assign(topology.shape.begin(), topology.shape.end());
  if (dp * beside == 1)
    return groups;
  MeshShape shape{dp, 1, tp, beside};
  shape.expertGroup = layout.hasExpertGroup();
  auto mesh = DeviceMesh::build(desc, topology, shape, placement);
  if (!mesh) {
    llvm::consumeError(mesh.takeError());
    return std::nullopt;
  }
  // Each group of `group`'s kind as the lowering makes it, of one rank
  // (the tensor rank for CopiesBeside): (replica, rank) pairs in order.
  int64_t fsdp = split.fsdp;
  auto members = [&](ReplicaGroup group, int64_t rank) {
    SmallVector<SmallVector<int64_t, 3>> coords;
    auto add = [&](int64_t d, int64_t r) {
      ChipCoord c = mesh->chip(d, 0, r);
      coords.push_back({c[0], c[1]});
    };
    if (group == ReplicaGroup::Shards)
      for (int64_t i = 0; i < fsdp; ++i)
        add(i, rank);
    else
      for (int64_t j = 0; j < dp / fsdp; ++j)
        for (int64_t u = 0; u < (group == ReplicaGroup::Copies ? 1 : beside);
             ++u)
          add(j * fsdp, group == ReplicaGroup::Copies ? rank : u * tp + rank);
    return coords;
  };
  for (ReplicaGroup group : {ReplicaGroup::Shards, ReplicaGroup::Copies,
                             ReplicaGroup::CopiesBeside}) {
    int64_t ranks = group == ReplicaGroup::CopiesBeside ? tp : tp * beside;
    SmallVector<SmallVector<SmallVector<int64_t, 3>>> all;
    for (int64_t r = 0; r < ranks; ++r)
      all.push_back(members(group, r));
    if (all.front().size() < 2)
      continue;
    int64_t alone = busiestLink(model, groups.shape, {all.front()});
    if (alone > 0)
      groups.share[int(group)] =
          double(busiestLink(model, groups.shape, all)) / double(alone);
    groups.routes[int(group)] = model.groupRoutes(groups.shape, all.front());
  }
  return groups;
}

/// One replica's step, run through the two resources in the lowering's
/// order (and, with activation offload, each chip's host link).
class StepPredictor {
public:
  StepPredictor(ModuleOp module, TrainingView &view, const TargetDesc &desc,
                const TopologyDesc &topology, const ParallelLayout &layout,
                const Placement &placement, func::FuncOp func)
      : t(view), desc(desc), split(getZeroSplit(module)), model(desc),
        dp(layout.dataParallel), beside(layout.besideDegree()),
        axes(stageGroupAxes(desc, topology, layout.tp, beside,
                            /*stages=*/1, /*tpX=*/1, placement,
                            layout.hasExpertGroup())),
        groups(
            replicaGroups(model, desc, topology, layout, placement, split)) {
    PipelineAttr pipeline = getPipeline(func);
    m = pipeline ? pipeline.getMicrobatches() : 1;
    tokens = pipeline ? pipeline.getTokens() : getModel(module).getSeq();
  }

  std::optional<TrainingStepPrediction> predict() {
    if (!groups)
      return std::nullopt;
    buildParts();
    if (split.stage >= 3)
      budget = fsdpGatherBudget(t);
    for (int64_t mb = 0; mb < m; ++mb)
      runMicrobatch(mb + 1 == m);
    runUpdates();
    return result();
  }

private:
  /// A kernel as the lowering emits it: its seconds, the weights it reads
  /// and the gradients it makes (bytes, whole), of them experts'.
  struct Item {
    double seconds, read, gradient, expertGradient;
  };
  using Run = SmallVector<Item>;
  /// A run of ops of the step, with its parameters' group.
  struct Part {
    Run run;
    std::optional<int64_t> layer;
    /// A layer_grad: its layer's gradients are reduced after it (without
    /// ZeRO-2 and 3, which reduce each op's).
    bool layerGradients = false;
    /// A layer's or layer_grad's values kept in host memory (bytes).
    double offloaded = 0;
  };

  /// `cost`'s kernels, counting the tasks they lower to on one rank.
  Run items(const LayerSliceCost &cost, std::optional<int64_t> layer) {
    SmallVector<TaskTime> times;
    cost.appendTimes(tokens, 0, times);
    Run run;
    size_t i = 0;
    cost.forEachWork(tokens, 0, [&](const SliceWork &work) {
      tasks += tasksOf(work);
      ParameterUse use = getParameterUse(work.op);
      for (Operation *fused : work.fused)
        use += getParameterUse(fused);
      reads += use.read > 0;
      gradients += use.gradient > 0;
      double gradientBytes = t.bytesPerParameter(layer, false);
      run.push_back({i < times.size() ? times[i].seconds : 0.0,
                     double(use.read) * t.bytesPerParameter(layer, true),
                     double(use.gradient) * gradientBytes,
                     double(use.expertGradient) * gradientBytes});
      ++i;
    });
    return run;
  }
  Run run(ArrayRef<Operation *> ops, std::optional<int64_t> layer) {
    return items(
        LayerSliceCost(ops, model, axes.tensor, tokens, axes.sequence, m),
        layer);
  }

  /// The step's runs in program order.
  void buildParts() {
    std::map<int64_t, double> offloadedOf;
    for (LayerGradOp grad : t.layerGrads)
      offloadedOf[grad.getIndex()] = double(grad.getOffloadedBytes()) / m;
    forwardParts.push_back(
        {run(t.forwardPrologue, std::nullopt), std::nullopt});
    for (auto [i, layer] : llvm::enumerate(t.layers)) {
      forwardParts.push_back(
          {items(LayerSliceCost(layer, model, axes.tensor, tokens,
                                axes.sequence, m),
                 layer.getIndex()),
           layer.getIndex(), false, offloadedOf[layer.getIndex()]});
      forwardParts.push_back(
          {run(t.afterLayer[i], std::nullopt), std::nullopt});
    }
    forwardParts.push_back(
        {run(t.forwardEpilogue, std::nullopt), std::nullopt});
    backwardParts.push_back(
        {run(t.backwardEpilogue, std::nullopt), std::nullopt});
    for (auto [i, grad] : llvm::enumerate(t.layerGrads)) {
      SmallVector<Operation *> ops;
      for (Operation &op : grad.getBody().front().without_terminator())
        if (!op.hasAttr(kKeptAttrName))
          ops.push_back(&op);
      int64_t index = grad.getIndex();
      backwardParts.push_back(
          {run(ops, index), index, true, offloadedOf[index]});
      backwardParts.push_back(
          {run(t.afterLayerGrad[i], std::nullopt), std::nullopt});
    }
    backwardParts.push_back(
        {run(t.backwardPrologue, std::nullopt), std::nullopt});
    // An offloaded layer's staging allocation, copy and free each way.
    for (auto [index, bytes] : offloadedOf)
      tasks += bytes > 0 ? 6 : 0;
  }

  /// Gradients once made, `expertBytes` of them experts': all-reduced
  /// over all replicas without ZeRO, reduce-scattered in the shard group
  /// (every microbatch at ZeRO-2 and 3, after the last at ZeRO-1), the
  /// shard then all-reduced between groups; those of parameters the beside
  /// ranks hold alike over those ranks too. Returns when they are ready
  /// for the update.
  double reduce(double bytes, double expertBytes, bool last, double after) {
    double ready = after;
    for (auto [part, withBeside] :
         {std::pair(bytes - expertBytes, beside > 1),
          std::pair(expertBytes, false)}) {
      int64_t width = withBeside ? beside : 1;
      ReplicaGroup copies =
          withBeside ? ReplicaGroup::CopiesBeside : ReplicaGroup::Copies;
      if (dp * width == 1 || part <= 0 || (split.stage < 2 && !last))
        continue;
      if (split.stage == 0) {
        ready = time.collective(
            groups->time(CollectiveKind::AllReduce, copies, part), after);
        continue;
      }
      double done = time.collective(
          groups->time(CollectiveKind::ReduceScatter, ReplicaGroup::Shards,
                       part),
          after);
      if (last && dp / split.fsdp * width > 1)
        done = time.collective(groups->time(CollectiveKind::AllReduce, copies,
                                            part / split.fsdp),
                               done);
      ready = done;
    }
    return ready;
  }
  /// Whole (unsplit) gradients of `layer`'s group, and of them experts'.
  std::pair<double, double> wholeGradients(std::optional<int64_t> layer) {
    OptimizerUpdateOp update = t.updateOf(layer);
    double experts = 0;
    for (LayerGradOp grad : t.layerGrads)
      if (layer && grad.getIndex() == *layer)
        experts = t.expertGradientBytes(grad);
    return {update ? modelStateBytes(update, {}).gradients : 0, experts};
  }

  /// When FSDP's gather of a read of `bytes` at `now` starts (the
  /// lowering's gatherAfter): with the earliest read from which the
  /// buffers up to it fit the budget (the step's two largest weight reads;
  /// one read ahead at least), once the read before that one has ended
  /// and the gather before is done.
  double gatherStart(double bytes, double now) {
    if (gatheredReads.empty())
      return now;
    size_t last = gatheredReads.size() - 1, from = last;
    double held = bytes + gatheredReads[last].bytes;
    while (from > 0 && held + gatheredReads[from - 1].bytes <= budget) {
      --from;
      held += gatheredReads[from].bytes;
    }
    double start = std::max(gatheredReads[from].start, lastGathered);
    if (from > 0)
      start = std::max(start, gatheredReads[from - 1].end);
    return start;
  }

  /// Activation offload: each chip's host link, one queue each way; a
  /// layer's values go to the host after its forward part and come back
  /// one layer_grad ahead of their own, which waits for them.
  double hostSeconds(double bytes) const {
    return desc.hostBandwidth > 0 ? bytes / desc.hostBandwidth : 0.0;
  }
  void store(const Part &part, double after) {
    host.toHost = std::max(host.toHost, after) + hostSeconds(part.offloaded);
    host.stored[*part.layer] = host.toHost;
  }
  void loadBack(const Part *part) {
    if (!part || part->offloaded <= 0)
      return;
    host.fromHost =
        std::max({host.fromHost, time.core, host.stored[*part->layer]}) +
        hostSeconds(part->offloaded);
    host.loaded[*part->layer] = host.fromHost;
  }

  /// Runs `part`'s kernels; returns when the last ends.
  double runPart(const Part &part, bool last) {
    double end = time.core;
    if (part.layerGradients && part.offloaded > 0)
      time.core = std::max(time.core, host.loaded[*part.layer]);
    for (const Item &item : part.run) {
      double start = time.core;
      bool gathers = split.stage >= 3 && item.read > 0;
      if (gathers) {
        lastGathered = time.collective(
            groups->time(CollectiveKind::AllGather, ReplicaGroup::Shards,
                         item.read),
            gatherStart(item.read, start));
        start = std::max(start, lastGathered);
      }
      end = time.compute(item.seconds, start);
      if (gathers)
        gatheredReads.push_back({item.read, start, end});
      if (split.stage >= 2 && item.gradient > 0)
        ready[part.layer] =
            std::max(ready[part.layer],
                     reduce(item.gradient, item.expertGradient, last, end));
    }
    if (part.layerGradients && split.stage < 2) {
      auto [whole, experts] = wholeGradients(part.layer);
      ready[part.layer] = reduce(whole, experts, last, end);
    }
    return end;
  }

  void runMicrobatch(bool last) {
    // A layer's values are staged in HBM once the staging two offloaded
    // layers before is copied out (the lowering's bound of two).
    double storedBefore = 0, storedLast = 0;
    for (const Part &part : forwardParts) {
      bool offloads = part.offloaded > 0 && !part.layerGradients;
      if (offloads)
        time.core = std::max(time.core, storedBefore);
      double end = runPart(part, last);
      if (!offloads)
        continue;
      store(part, end);
      storedBefore = storedLast;
      storedLast = host.toHost;
    }
    // The layer_grads in order, each loading back the next one's values
    // as it starts (the first's as the backward pass starts).
    std::vector<const Part *> grads;
    for (const Part &part : backwardParts)
      if (part.layerGradients)
        grads.push_back(&part);
    grads.push_back(nullptr);
    loadBack(grads.front());
    size_t next = 1;
    double end = 0;
    for (const Part &part : backwardParts) {
      if (part.layerGradients)
        loadBack(grads[next++]);
      end = runPart(part, last);
    }
    if (split.stage < 2)
      ready[std::nullopt] =
          reduce(wholeGradients(std::nullopt).first, 0, last, end);
    else
      // A microbatch's reduce-scatters end before the next one runs.
      time.core = std::max(time.core, time.links);
  }

  /// The updates, in the order the gradients were made: HBM-bound vector
  /// work on each chip's share of the parameters; under ZeRO-1 and 2 the
  /// updated weights gathered after.
  void runUpdates() {
    for (OptimizerUpdateOp update : t.updates) {
      std::optional<int64_t> layer = update.getLayer();
      double part = split.statesShare();
      double seconds = model.taskTime(
          0, double(update.getBytesRead() + update.getBytesWritten()) * part,
          16, double(update.getFlops()) * part);
      double end = time.compute(seconds, ready[layer]);
      optimizer += seconds;
      if (split.stage == 1 || split.stage == 2)
        time.collective(groups->time(CollectiveKind::AllGather,
                                     ReplicaGroup::Shards,
                                     modelStateBytes(update, {}).weights),
                        end);
    }
  }

  TrainingStepPrediction result() const {
    TrainingStepPrediction out;
    out.optimizer = optimizer;
    out.seconds = std::max({time.core, time.links, host.toHost}) +
                  model.programDispatch();
    out.compute = time.busy - out.optimizer;
    out.exposed =
        std::max(0.0, out.seconds - model.programDispatch() - time.busy);
    // Per microbatch each layer's kept and recomputed values allocated and
    // freed and its gradients' collectives; FSDP's gathers and ZeRO-2 and
    // 3's buckets, four tasks a weight read or gradient made (an
    // allocation, a start, a done and a free); then the updates and their
    // gathers.
    double perLayer = 4 + (dp * beside > 1 ? 2 : 0);
    out.tasksPerRank = m * (tasks + perLayer * double(t.layers.size()) +
                            4 * ((split.stage >= 3 ? reads : 0) +
                                 (split.stage >= 2 ? gradients : 0))) +
                       3 * double(t.updates.size());
    return out;
  }

  TrainingView &t;
  const TargetDesc &desc;
  ZeroSplit split;
  CostModel model;
  int64_t dp, beside, m = 1, tokens = 0;
  StageGroupAxes axes;
  std::optional<ReplicaGroups> groups;
  std::vector<Part> forwardParts, backwardParts;
  /// The tasks of one rank's kernels, and the kernels that read weights
  /// and make gradients.
  double tasks = 0, reads = 0, gradients = 0;
  Timeline time;
  /// When each group's gradients are ready for its update.
  std::map<std::optional<int64_t>, double> ready;
  /// FSDP's gathered reads so far (bytes, start, end), the buffers'
  /// budget, and the end of the last gather.
  struct Read {
    double bytes, start, end;
  };
  std::vector<Read> gatheredReads;
  double budget = 0, lastGathered = 0;
  struct {
    double toHost = 0, fromHost = 0;
    std::map<int64_t, double> stored, loaded;
  } host;
  double optimizer = 0;
};

} // namespace

std::optional<TrainingStepPrediction>
loom::predictTrainingStep(ModuleOp module, const TargetDesc &desc,
                          const TopologyDesc &topology,
                          const ParallelLayout &layout,
                          const Placement &placement) {
  func::FuncOp func;
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isExternal() && isTrainingStep(f))
      func = f;
  if (!func)
    return std::nullopt;
  FailureOr<TrainingView> view = getTrainingView(func, "loom-plan");
  if (failed(view))
    return std::nullopt;
  return StepPredictor(module, *view, desc, topology, layout, placement, func)
      .predict();
}
