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
#include "loom/Analysis/TrainingSchedule.h"
#include "loom/Analysis/TrainingStep.h"
#include "loom/Hardware/DeviceMesh.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

using namespace mlir;
using namespace loom;

namespace {

/// A collective over replicas in its phases: within a slice over ICI, then
/// over the DCN, then within the slice again (docs/multislice.md; one
/// slice: `before` alone).
struct Phases {
  double before = 0, across = 0, after = 0;
};

/// The resources: the TensorCore, the replicas' links and, on several
/// slices, the hosts' NICs into the DCN.
struct Timeline {
  /// The TensorCore and the replicas' links (a gather and a reduction at
  /// once share them).
  double core = 0, links = 0, dcn = 0;
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
  /// Runs a collective's phases in turn, each once its resource is free.
  double collective(const Phases &phases, double after) {
    double end = collective(phases.before, after);
    if (phases.across > 0)
      end = dcn = std::max(dcn, end) + phases.across;
    return collective(phases.after, end);
  }
  /// When every resource is done.
  double end() const { return std::max({core, links, dcn}); }
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
/// A group spanning slices runs hierarchically, as the lowering emits it
/// (docs/multislice.md): its members in one slice over ICI (`routes`), the
/// chips at one place in each slice over the DCN.
struct ReplicaGroups {
  const CostModel &model;
  llvm::SmallVector<int64_t, 2> shape;
  std::optional<GroupRoutes> routes[3];
  double share[3] = {1, 1, 1};
  /// The slices a group spans (1: within one), and the chips of a host
  /// running their DCN phase at once.
  int64_t slices[3] = {1, 1, 1};
  int64_t sharers = 1;
  /// The members of a group in one slice.
  int64_t members[3] = {1, 1, 1};

  Phases time(CollectiveKind kind, ReplicaGroup group, double bytes) {
    int which = int(group);
    if ((!routes[which] && slices[which] == 1) || bytes <= 0)
      return {};
    // (A model's layers read the same weights' sizes again and again; a
    // group of 256 replicas is costly to price.)
    auto [it, fresh] = priced.try_emplace({kind, which, bytes}, Phases());
    if (fresh)
      it->second = slices[which] == 1
                       ? Phases{local(kind, which, bytes), 0, 0}
                       : hierarchical(kind, which, bytes);
    return it->second;
  }
  double local(CollectiveKind kind, int which, double bytes) const {
    if (!routes[which])
      return 0;
    return model.routedCollectiveTime(kind, *routes[which], bytes) *
           share[which];
  }
  /// The phases of multislicePhases, n chips a slice.
  Phases hierarchical(CollectiveKind kind, int which, double bytes) const {
    Phases phases;
    bool crossed = false;
    for (const SlicePhase &phase : multislicePhases(kind)) {
      if (phase.overDcn)
        phases.across = model.dcnCollectiveTime(
            phase.kind, slices[which], bytes / double(members[which]),
            sharers);
      else
        (crossed ? phases.after : phases.before) =
            local(phase.kind, which, bytes);
      crossed |= phase.overDcn;
    }
    return phases;
  }
  std::map<std::tuple<CollectiveKind, int, double>, Phases> priced;
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
  MeshShape shape{dp, layout.stages, tp, beside};
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
  groups.sharers = std::min(desc.chipsPerHost, topology.sliceChips());
  for (ReplicaGroup group : {ReplicaGroup::Shards, ReplicaGroup::Copies,
                             ReplicaGroup::CopiesBeside}) {
    int64_t ranks = group == ReplicaGroup::CopiesBeside ? tp : tp * beside;
    SmallVector<SmallVector<SmallVector<int64_t, 3>>> all;
    for (int64_t r = 0; r < ranks; ++r)
      all.push_back(members(group, r));
    if (all.front().size() < 2)
      continue;
    if (mesh->numSlices() > 1) {
      // Across slices: the members in the first one's slice, over ICI,
      // at their places in it (the DCN phase is priced apart).
      std::set<int64_t> spanned;
      for (const auto &coord : all.front())
        spanned.insert(mesh->sliceOf(ChipCoord{coord[0], coord[1]}));
      groups.slices[int(group)] = spanned.size();
      for (auto &list : all) {
        int64_t slice = mesh->sliceOf(ChipCoord{list[0][0], list[0][1]});
        SmallVector<SmallVector<int64_t, 3>> in;
        for (const auto &coord : list)
          if (mesh->sliceOf(ChipCoord{coord[0], coord[1]}) == slice) {
            ChipCoord at = mesh->inSlice(ChipCoord{coord[0], coord[1]});
            in.push_back({at[0], at[1]});
          }
        list = std::move(in);
      }
      groups.members[int(group)] = all.front().size();
      if (all.front().size() < 2)
        continue;
    }
    int64_t alone = busiestLink(model, groups.shape, {all.front()});
    if (alone > 0)
      groups.share[int(group)] =
          double(busiestLink(model, groups.shape, all)) / double(alone);
    groups.routes[int(group)] = model.groupRoutes(groups.shape, all.front());
  }
  return groups;
}

/// One replica's step, run through the two resources of each stage in the
/// lowering's order (and, with activation offload, each chip's host link):
/// on one stage each microbatch's forward and backward pass in turn; on
/// several, each stage's passes in its schedule's order, a pass waiting for
/// the stage before (or after) it and the transfer between them.
class StepPredictor {
public:
  StepPredictor(ModuleOp module, TrainingView &view, const TargetDesc &desc,
                const TopologyDesc &topology, const ParallelLayout &layout,
                const Placement &placement, func::FuncOp func,
                ArrayRef<int64_t> sliceLengths)
      : t(view), desc(desc), split(getZeroSplit(module)), model(desc),
        dp(layout.dataParallel), beside(layout.besideDegree()),
        stages(layout.stages),
        axes(stageGroupAxes(desc, topology, layout.tp, beside, stages,
                            /*tpX=*/1, placement, layout.hasExpertGroup())),
        groups(
            replicaGroups(model, desc, topology, layout, placement, split)) {
    PipelineAttr pipeline = getPipeline(func);
    m = pipeline ? pipeline.getMicrobatches() : 1;
    tokens = pipeline ? pipeline.getTokens() : getModel(module).getSeq();
    // TeraPipe's token slices (the lowering's units: slice u mod k of
    // microbatch u / k); one slice of the whole sequence without them.
    int64_t start = 0;
    if (sliceLengths.empty() && pipeline)
      sliceLengths = pipeline.getSlices();
    for (int64_t length : sliceLengths) {
      slices.push_back({length, start});
      start += length;
    }
    if (slices.empty())
      slices.push_back({tokens, 0});
    chunks = pipeline ? pipeline.getChunks() : 1;
    schedule = pipeline ? pipeline.getSchedule() : PipelineSchedule::GPipe;
    if (stages > 1)
      transfers = stageTransfers(topology, layout, placement);
  }

  std::optional<TrainingStepPrediction> predict() {
    if (!groups || (stages > 1 && !transfers))
      return std::nullopt;
    // One stage runs each microbatch's passes in turn (gradient
    // accumulation): 1F1B's order on one stage.
    llvm::Expected<StageOrders> orders = scheduleOrder(
        stages == 1 ? PipelineSchedule::OneFOneB : schedule, stages, m,
        chunks / stages);
    if (!orders) {
      llvm::consumeError(orders.takeError());
      return std::nullopt;
    }
    *orders = sliceOrders(*orders, k());
    for (const std::vector<PipelinePass> &order : *orders)
      for (const PipelinePass &pass : order)
        splitPasses |= pass.kind == PipelinePass::Kind::Backward;
    buildParts();
    clocks.assign(stages, Clock());
    if (split.stage >= 3)
      budget = fsdpGatherBudget(t);
    std::vector<size_t> left;
    for (const std::vector<PipelinePass> &order : *orders)
      left.push_back(order.size());
    bool complete = playSchedule(
        *orders, chunks / stages,
        [&](int64_t g, int64_t unit) {
          return transfers->empty() ? 0.0 : (*transfers)[unit % k()][g];
        },
        [&](int64_t s, const PipelinePass &pass, double ready) {
          double end = runPass(s, pass, ready);
          // A stage updates its parameters after its last pass.
          if (--left[s] == 0)
            runUpdates(s);
          return end;
        });
    if (!complete)
      return std::nullopt;
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
    /// A backward run whose schedule splits B from W: its input-gradient
    /// kernels (B) and its weight-gradient kernels (W), each run alone.
    Run input, weight;
  };
  /// Which kernels of a backward run a pass runs (the lowering's Part).
  enum class Passes { Input, Weight, Both };

  /// `cost`'s kernels, counting (`count`) the tasks they lower to on one
  /// rank.
  Run items(const LayerSliceCost &cost, std::optional<int64_t> layer,
            bool count = true) {
    SmallVector<TaskTime> times;
    cost.appendTimes(slice.length, slice.context, times);
    Run run;
    size_t i = 0;
    // The tasks of one unit: every slice lowers to the same ones.
    count &= counting;
    cost.forEachWork(slice.length, slice.context, [&](const SliceWork &work) {
      ParameterUse use = getParameterUse(work.op);
      for (Operation *fused : work.fused)
        use += getParameterUse(fused);
      if (count) {
        tasks += tasksOf(work);
        reads += use.read > 0;
        gradients += use.gradient > 0;
      }
      double gradientBytes = t.bytesPerParameter(layer, false);
      run.push_back({i < times.size() ? times[i].seconds : 0.0,
                     double(use.read) * t.bytesPerParameter(layer, true),
                     double(use.gradient) * gradientBytes,
                     double(use.expertGradient) * gradientBytes});
      ++i;
    });
    return run;
  }
  /// The cost of a run of ops, built once (a run is priced on every
  /// slice): `key` names the run, `part` which of its kernels (the
  /// lowering's Part: 0 all, 1 B, 2 W).
  const LayerSliceCost &costOf(const void *key, int part,
                               llvm::function_ref<LayerSliceCost()> make) {
    std::unique_ptr<LayerSliceCost> &cost = costs[{key, part}];
    if (!cost)
      cost = std::make_unique<LayerSliceCost>(make());
    return *cost;
  }
  Run run(const void *key, int part, ArrayRef<Operation *> ops,
          std::optional<int64_t> layer, bool count = true) {
    return items(costOf(key, part,
                        [&] {
                          return LayerSliceCost(ops, model, axes.tensor, tokens,
                                                axes.sequence, m);
                        }),
                 layer, count);
  }
  Run run(ArrayRef<Operation *> ops, std::optional<int64_t> layer) {
    return run(ops.data(), 0, ops, layer);
  }
  /// A backward run of `ops` (named `key`), and its B and W apart when the
  /// schedule splits them.
  Part backwardPart(const void *key, ArrayRef<Operation *> ops,
                    std::optional<int64_t> layer) {
    Part part{run(key, 0, ops, layer), layer};
    if (splitPasses) {
      SmallVector<Operation *> input, weight;
      for (Operation *op : ops)
        (isWeightGradient(op) ? weight : input).push_back(op);
      part.input = run(key, 1, input, layer, /*count=*/false);
      part.weight = run(key, 2, weight, layer, /*count=*/false);
    }
    return part;
  }
  Part backwardPart(ArrayRef<Operation *> ops, std::optional<int64_t> layer) {
    return backwardPart(ops.data(), ops, layer);
  }

  /// Each slice's runs of each virtual stage in program order (on one
  /// stage, all of them): the ops before the layers on the first, the ops
  /// after them through the loss on the last, each layer on its chunk (its
  /// `stage`); the tasks of one unit counted on the first slice.
  void buildParts() {
    forwardOf.assign(k(), std::vector<std::vector<Part>>(chunks));
    backwardOf.assign(k(), std::vector<std::vector<Part>>(chunks));
    for (int64_t i = 0; i < k(); ++i) {
      slice = slices[i];
      counting = i == 0;
      buildSlice(forwardOf[i], backwardOf[i]);
    }
    counting = false;
  }
  /// The runs of `slice`, into `forward` and `backward` (per virtual stage).
  void buildSlice(std::vector<std::vector<Part>> &forward,
                  std::vector<std::vector<Part>> &backward) {
    auto chunkOf = [](LayerOp layer) {
      return int64_t(layer.getStage().value_or(0));
    };
    std::map<int64_t, double> offloadedOf;
    std::map<int64_t, int64_t> chunkOfIndex;
    double sliceShare = double(slice.length) / double(tokens);
    for (LayerGradOp grad : t.layerGrads)
      offloadedOf[grad.getIndex()] =
          double(grad.getOffloadedBytes()) / m * sliceShare;
    forward.front().push_back(
        {run(t.forwardPrologue, std::nullopt), std::nullopt});
    for (auto [i, layer] : llvm::enumerate(t.layers)) {
      int64_t c = std::min(chunkOf(layer), chunks - 1);
      chunkOfIndex[layer.getIndex()] = c;
      const LayerSliceCost &cost = costOf(layer, 0, [&] {
        return LayerSliceCost(layer, model, axes.tensor, tokens, axes.sequence,
                              m);
      });
      forward[c].push_back({items(cost, layer.getIndex()), layer.getIndex(),
                              false, offloadedOf[layer.getIndex()]});
      forward[c].push_back({run(t.afterLayer[i], std::nullopt), std::nullopt});
    }
    forward.back().push_back(
        {run(t.forwardEpilogue, std::nullopt), std::nullopt});
    backward.back().push_back(
        backwardPart(t.backwardEpilogue, std::nullopt));
    for (auto [i, grad] : llvm::enumerate(t.layerGrads)) {
      SmallVector<Operation *> ops;
      for (Operation &op : grad.getBody().front().without_terminator())
        if (!op.hasAttr(kKeptAttrName))
          ops.push_back(&op);
      int64_t index = grad.getIndex(), c = chunkOfIndex[index];
      stageOf[index] = c % stages;
      Part part = backwardPart(grad.getOperation(), ops, index);
      part.layerGradients = true;
      part.offloaded = offloadedOf[index];
      backward[c].push_back(std::move(part));
      backward[c].push_back(
          backwardPart(t.afterLayerGrad[i], std::nullopt));
    }
    backward.front().push_back(
        backwardPart(t.backwardPrologue, std::nullopt));
    // An offloaded layer's staging allocation, copy and free each way.
    if (counting)
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
    Timeline &time = c->time;
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
    std::vector<Read> &gatheredReads = c->gatheredReads;
    if (gatheredReads.empty())
      return now;
    size_t last = gatheredReads.size() - 1, from = last;
    double held = bytes + gatheredReads[last].bytes;
    while (from > 0 && held + gatheredReads[from - 1].bytes <= budget) {
      --from;
      held += gatheredReads[from].bytes;
    }
    double start = std::max(gatheredReads[from].start, c->lastGathered);
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
    c->host.toHost =
        std::max(c->host.toHost, after) + hostSeconds(part.offloaded);
    c->host.stored[*part.layer] = c->host.toHost;
  }
  void loadBack(const Part *part) {
    if (!part || part->offloaded <= 0)
      return;
    c->host.fromHost = std::max({c->host.fromHost, c->time.core,
                                 c->host.stored[*part->layer]}) +
                       hostSeconds(part->offloaded);
    c->host.loaded[*part->layer] = c->host.fromHost;
  }

  /// Runs `part`'s kernels of `passes`; returns when the last ends.
  double runPart(const Part &part, Passes passes, bool last) {
    Timeline &time = c->time;
    double end = time.core;
    bool input = passes != Passes::Weight, weights = passes != Passes::Input;
    if (part.layerGradients && part.offloaded > 0 && input)
      time.core = std::max(time.core, c->host.loaded[*part.layer]);
    const Run &kernels = passes == Passes::Both ? part.run
                         : passes == Passes::Input ? part.input
                                                   : part.weight;
    for (const Item &item : kernels) {
      double start = time.core;
      bool gathers = split.stage >= 3 && item.read > 0;
      if (gathers) {
        c->lastGathered = time.collective(
            groups->time(CollectiveKind::AllGather, ReplicaGroup::Shards,
                         item.read),
            gatherStart(item.read, start));
        start = std::max(start, c->lastGathered);
      }
      end = time.compute(item.seconds, start);
      if (gathers)
        c->gatheredReads.push_back({item.read, start, end});
      if (split.stage >= 2 && item.gradient > 0)
        c->ready[part.layer] =
            std::max(c->ready[part.layer],
                     reduce(item.gradient, item.expertGradient, last, end));
    }
    if (part.layerGradients && split.stage < 2 && weights) {
      auto [whole, experts] = wholeGradients(part.layer);
      c->ready[part.layer] = reduce(whole, experts, last, end);
    }
    return end;
  }

  /// Pass `pass` on stage s once `ready`; returns its end.
  double runPass(int64_t s, const PipelinePass &pass, double ready) {
    c = &clocks[s];
    if (ready > c->time.core) {
      c->waited += ready - c->time.core;
      c->time.core = ready;
    }
    int64_t g = pass.chunk * stages + s;
    // A microbatch's slices run their backward passes in reverse: its
    // first slice's is its last.
    int64_t i = pass.microbatch % k();
    bool last = pass.microbatch / k() + 1 == m && i == 0;
    switch (pass.kind) {
    case PipelinePass::Kind::Forward:
      runForward(forwardOf[i][g], last);
      break;
    case PipelinePass::Kind::Backward:
      runBackward(backwardOf[i][g], g, s, Passes::Input, last);
      break;
    case PipelinePass::Kind::Weight:
      runBackward(backwardOf[i][g], g, s, Passes::Weight, last);
      break;
    case PipelinePass::Kind::BackwardWeight:
      runBackward(backwardOf[i][g], g, s, Passes::Both, last);
      break;
    }
    return c->time.core;
  }

  void runForward(ArrayRef<Part> parts, bool last) {
    // A layer's values are staged in HBM once the staging two offloaded
    // layers before is copied out (the lowering's bound of two).
    double storedBefore = 0, storedLast = 0;
    for (const Part &part : parts) {
      bool offloads = part.offloaded > 0 && !part.layerGradients;
      if (offloads)
        c->time.core = std::max(c->time.core, storedBefore);
      double end = runPart(part, Passes::Both, last);
      if (!offloads)
        continue;
      store(part, end);
      storedBefore = storedLast;
      storedLast = c->host.toHost;
    }
  }

  void runBackward(ArrayRef<Part> parts, int64_t g, int64_t s, Passes passes,
                   bool last) {
    bool input = passes != Passes::Weight, weights = passes != Passes::Input;
    // The layer_grads in order, each loading back the next one's values
    // as it starts (the first's as the backward pass starts).
    std::vector<const Part *> grads;
    if (input) {
      for (const Part &part : parts)
        if (part.layerGradients)
          grads.push_back(&part);
      grads.push_back(nullptr);
      loadBack(grads.front());
    }
    size_t next = 1;
    double end = c->time.core;
    for (const Part &part : parts) {
      if (part.layerGradients && input)
        loadBack(grads[next++]);
      end = runPart(part, passes, last);
    }
    if (!weights)
      return;
    double outside = loom::outsideShare(t, s, stages);
    if (split.stage < 2) {
      if ((g == 0 || g + 1 == chunks) && outside > 0)
        c->ready[std::nullopt] = std::max(
            c->ready[std::nullopt],
            reduce(wholeGradients(std::nullopt).first * outside, 0, last, end));
    } else {
      // A microbatch's reduce-scatters end before the next one runs.
      c->time.core = std::max(c->time.core, c->time.links);
    }
  }

  /// Stage s's updates, in the order the gradients were made: HBM-bound
  /// vector work on each chip's share of the parameters; under ZeRO-1 and
  /// 2 the updated weights gathered after.
  void runUpdates(int64_t s) {
    c = &clocks[s];
    double outside = loom::outsideShare(t, s, stages);
    for (OptimizerUpdateOp update : t.updates) {
      std::optional<int64_t> layer = update.getLayer();
      double stageShare = layer ? (stageOf[*layer] == s ? 1.0 : 0.0) : outside;
      if (stageShare <= 0)
        continue;
      double part = split.statesShare() * stageShare;
      double seconds = model.taskTime(
          0, double(update.getBytesRead() + update.getBytesWritten()) * part,
          16, double(update.getFlops()) * part);
      double end = c->time.compute(seconds, c->ready[layer]);
      c->optimizer += seconds;
      if (split.stage == 1 || split.stage == 2)
        c->time.collective(
            groups->time(CollectiveKind::AllGather, ReplicaGroup::Shards,
                         modelStateBytes(update, {}).weights * stageShare),
            end);
    }
  }

  /// Per token slice, the seconds of a message into each virtual stage
  /// (either way): every rank of a stage sends the chunk's result for the
  /// slice of one microbatch to its rank of the next stage at once, the
  /// messages sharing the links they cross.
  std::optional<std::vector<std::vector<double>>>
  stageTransfers(const TopologyDesc &topology, const ParallelLayout &layout,
                 const Placement &placement) {
    MeshShape shape{dp, stages, layout.tp, beside};
    shape.expertGroup = layout.hasExpertGroup();
    auto mesh = DeviceMesh::build(desc, topology, shape, placement);
    if (!mesh) {
      llvm::consumeError(mesh.takeError());
      return std::nullopt;
    }
    SmallVector<int64_t, 2> dims(topology.shape.begin(), topology.shape.end());
    auto coords = [&](int64_t stage, int64_t rank) {
      ChipCoord chip = mesh->chip(0, stage, rank);
      return SmallVector<int64_t, 3>{chip[0], chip[1]};
    };
    // Each chunk's result (the last layer's) for one microbatch.
    std::vector<double> bytesOut(chunks, 0);
    for (LayerOp layer : t.layers) {
      int64_t chunk = std::min<int64_t>(layer.getStage().value_or(0),
                                        chunks - 1);
      bytesOut[chunk] =
          double(getTensorBytes(layer->getResultTypes())) / double(m);
    }
    std::vector<std::vector<double>> seconds(slices.size(),
                                             std::vector<double>(chunks, 0));
    int64_t ranks = layout.tp * beside;
    for (int64_t g = 1; g < chunks; ++g) {
      int64_t from = (g - 1) % stages, into = g % stages;
      bool dcn = mesh->sliceOf(0, from) != mesh->sliceOf(0, into);
      SmallVector<SmallVector<SmallVector<int64_t, 3>>> pairs;
      for (int64_t r = 0; r < ranks; ++r)
        pairs.push_back({coords(from, r), coords(into, r)});
      int64_t alone = busiestLink(model, dims, {pairs.front()});
      double share =
          alone > 0 ? double(busiestLink(model, dims, pairs)) / alone : 1.0;
      for (auto [i, slice] : llvm::enumerate(slices)) {
        double bytes =
            bytesOut[g - 1] * double(slice.length) / double(tokens);
        seconds[i][g] =
            dcn ? dcnTransfer(*mesh, from, into, ranks, bytes)
                : model.pointToPointTime(dims, pairs.front()[0],
                                         pairs.front()[1], bytes) *
                      share;
      }
    }
    return seconds;
  }

  /// A handover between stages on different slices, over the DCN (docs/
  /// multislice.md): every rank's message leaves through its host's NIC
  /// and enters through the receiver's, the ranks of one host sharing it,
  /// L + c B / W with c the most ranks of either stage on one host.
  double dcnTransfer(const DeviceMesh &mesh, int64_t from, int64_t into,
                     int64_t ranks, double bytes) const {
    int64_t sharers = 1;
    for (int64_t stage : {from, into}) {
      std::map<int64_t, int64_t> onHost;
      for (int64_t r = 0; r < ranks; ++r)
        sharers = std::max(
            sharers, ++onHost[mesh.chipId(mesh.chip(0, stage, r)) /
                              std::max<int64_t>(desc.chipsPerHost, 1)]);
    }
    return desc.dcnLatency + double(sharers) * bytes / desc.dcnBandwidth;
  }

  TrainingStepPrediction result() const {
    TrainingStepPrediction out;
    // The stage that ends last sets the step.
    const Clock *critical = &clocks.front();
    auto end = [](const Clock &clock) {
      return std::max(clock.time.end(), clock.host.toHost);
    };
    for (const Clock &clock : clocks)
      if (end(clock) > end(*critical))
        critical = &clock;
    double span = end(*critical);
    out.seconds = span + model.programDispatch();
    out.optimizer = critical->optimizer;
    out.compute = critical->time.busy - out.optimizer;
    out.pipelineWait = critical->waited;
    out.exposed = std::max(0.0, span - critical->time.busy - critical->waited);
    // Per microbatch each layer's kept and recomputed values allocated and
    // freed and its gradients' collectives; FSDP's gathers and ZeRO-2 and
    // 3's buckets, four tasks a weight read or gradient made (an
    // allocation, a start, a done and a free); on several stages a send
    // and a receive each way a chunk; then the updates and their gathers.
    double perLayer = 4 + (dp * beside > 1 ? 2 : 0);
    double messages = stages > 1 ? 4.0 * double(chunks) / double(stages) : 0;
    out.tasksPerRank = m * k() * (tasks + perLayer * double(t.layers.size()) +
                            4 * ((split.stage >= 3 ? reads : 0) +
                                 (split.stage >= 2 ? gradients : 0)) +
                            messages) +
                       3 * double(t.updates.size());
    return out;
  }

  TrainingView &t;
  const TargetDesc &desc;
  ZeroSplit split;
  CostModel model;
  int64_t dp, beside, stages, m = 1, tokens = 0, chunks = 1;
  /// The token slices (length, first token), and the one being built.
  struct Slice {
    int64_t length, context;
  };
  SmallVector<Slice> slices;
  Slice slice{0, 0};
  int64_t k() const { return slices.size(); }
  /// Whether buildParts counts the tasks of the runs it builds.
  bool counting = false;
  /// Each run's cost (costOf).
  std::map<std::pair<const void *, int>, std::unique_ptr<LayerSliceCost>>
      costs;
  PipelineSchedule schedule = PipelineSchedule::GPipe;
  bool splitPasses = false;
  StageGroupAxes axes;
  std::optional<ReplicaGroups> groups;
  /// Per token slice, the seconds of a message into each virtual stage
  /// (stageTransfers; none on one stage).
  std::optional<std::vector<std::vector<double>>> transfers =
      std::vector<std::vector<double>>();
  /// Per token slice and virtual stage, its forward and backward runs;
  /// each layer's stage.
  std::vector<std::vector<std::vector<Part>>> forwardOf, backwardOf;
  std::map<int64_t, int64_t> stageOf;
  /// The tasks of one rank's kernels, and the kernels that read weights
  /// and make gradients.
  double tasks = 0, reads = 0, gradients = 0;
  /// FSDP's gathered reads so far (bytes, start, end).
  struct Read {
    double bytes, start, end;
  };
  /// One stage's resources and what it has run.
  struct Clock {
    Timeline time;
    /// When each group's gradients are ready for its update.
    std::map<std::optional<int64_t>, double> ready;
    /// FSDP's gathered reads and the end of the last gather.
    std::vector<Read> gatheredReads;
    double lastGathered = 0;
    struct {
      double toHost = 0, fromHost = 0;
      std::map<int64_t, double> stored, loaded;
    } host;
    /// Seconds of the optimizer's updates, and of waiting for the stages
    /// beside it.
    double optimizer = 0, waited = 0;
  };
  std::vector<Clock> clocks;
  /// The stage being run.
  Clock *c = nullptr;
  /// FSDP's buffers' budget (fsdpGatherBudget).
  double budget = 0;
};

} // namespace

std::optional<TrainingStepPrediction>
loom::predictTrainingStep(ModuleOp module, const TargetDesc &desc,
                          const TopologyDesc &topology,
                          const ParallelLayout &layout,
                          const Placement &placement,
                          ArrayRef<int64_t> slices) {
  func::FuncOp func;
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isExternal() && isTrainingStep(f))
      func = f;
  if (!func)
    return std::nullopt;
  FailureOr<TrainingView> view = getTrainingView(func, "loom-plan");
  if (failed(view))
    return std::nullopt;
  return StepPredictor(module, *view, desc, topology, layout, placement, func,
                       slices)
      .predict();
}
