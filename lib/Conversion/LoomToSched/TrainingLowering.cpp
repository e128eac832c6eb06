//===- TrainingLowering.cpp - a training step to per-chip programs --------===//
//
// A training step (docs/training.md, "The step on chips"): per microbatch
// the forward pass and the backward pass, each layer's gradients reduced
// over the data-parallel replicas as the backward pass produces them, then
// the optimizer's updates. The replicas are emitted in lockstep, so that a
// collective over replicas gets one tag in all of them.
//
//===----------------------------------------------------------------------===//

#include "ChipPrograms.h"

#include "loom/Analysis/TrainingStep.h"
#include "loom/Dialect/Loom/LoomAttributes.h"

#include <map>

using namespace mlir;
using namespace loom;
using namespace loom::lowering;

namespace {

class TrainingLowering : public ChipPrograms {
public:
  TrainingLowering(ModuleOp module, TargetAttr target, ModelView view,
                   const CostModel &model, int64_t interleave, bool decompose,
                   bool scatterHandover)
      : ChipPrograms(module, target, std::move(view), model),
        interleave(interleave), decompose(decompose),
        scatterHandover(scatterHandover) {}

  FailureOr<file::Schedule> run() {
    if (failed(setUp()))
      return failure();
    auto refuse = [&]() {
      return view.func.emitError()
             << "convert-loom-to-sched: a training step ";
    };
    if (stages > 1 || chunks > stages)
      return refuse() << "is lowered on one pipeline stage (pipeline "
                         "schedules for training are not built), got "
                      << stages << " stages";
    if (pipeline && pipeline.getSlices().size() > 1)
      return refuse() << "runs each microbatch's sequence whole (token "
                         "slices of a training step are not built), got "
                      << pipeline.getSlices().size() << " slices";
    if (interleave > 1 || decompose || scatterHandover)
      return refuse() << "is lowered with interleave 1, without decompose "
                         "and without scatter-handover";
    FailureOr<TrainingView> got =
        getTrainingView(view.func, "convert-loom-to-sched");
    if (failed(got))
      return failure();
    train.emplace(std::move(*got));
    split = getZeroSplit(module);
    SmallVector<GroupAxis> axes; // pricing is the simulator's job here
    int64_t m = microbatches();
    auto runOf = [&](ArrayRef<Operation *> ops) {
      return LayerSliceCost(ops, model, axes, tokens, ArrayRef<GroupAxis>(),
                            m);
    };
    forwardPrologue.emplace(runOf(train->forwardPrologue));
    forwardEpilogue.emplace(runOf(train->forwardEpilogue));
    backwardEpilogue.emplace(runOf(train->backwardEpilogue));
    backwardPrologue.emplace(runOf(train->backwardPrologue));
    for (LayerOp layer : train->layers)
      forwardCosts.emplace_back(layer, model, axes, tokens,
                                ArrayRef<GroupAxis>(), m);
    for (ArrayRef<Operation *> ops : train->afterLayer)
      afterForward.push_back(runOf(ops));
    for (ArrayRef<Operation *> ops : train->afterLayerGrad)
      afterBackward.push_back(runOf(ops));
    for (LayerGradOp layer : train->layerGrads) {
      // What the backward pass runs: the recomputed forward ops and the
      // gradients; the kept ops ran in the forward pass.
      SmallVector<Operation *> ops;
      for (Operation &op : layer.getBody().front().without_terminator())
        if (!op.hasAttr(kKeptAttrName))
          ops.push_back(&op);
      backwardCosts.push_back(runOf(ops));
    }
    addChips();
    emitTraining();
    return std::move(out);
  }

private:
  /// Each replica's tasks of `fn(d)`: the training step is emitted for all
  /// replicas at once.
  using ReplicaTasks = SmallVector<Tasks, 4>;
  template <typename Fn>
  ReplicaTasks onReplicas(Fn fn) {
    ReplicaTasks tasks;
    for (int64_t d = 0; d < dp; ++d)
      tasks.push_back(fn(d));
    return tasks;
  }
  ReplicaTasks noTasks() const {
    return ReplicaTasks(dp, Tasks(ranks, kNoTask));
  }

  /// An allocation of `bytes` on every chip after `deps` (none of none).
  ReplicaTasks allocAll(MemoryKind what, double bytes, const std::string &name,
                        ArrayRef<ReplicaTasks> deps = {}) {
    if (toInt(bytes) <= 0)
      return noTasks();
    return onReplicas([&](int64_t d) {
      return onRanks(d, 0, [&](int64_t r) {
        SmallVector<int64_t, 2> on;
        for (const ReplicaTasks &dep : deps)
          on.push_back(dep[d][r]);
        return allocTask(what, toInt(bytes), name, on);
      });
    });
  }
  ReplicaTasks freeAll(const ReplicaTasks &allocs,
                       ArrayRef<ReplicaTasks> deps) {
    if (allocs.empty() || allocs.front().front() == kNoTask)
      return noTasks();
    return onReplicas([&](int64_t d) {
      return onRanks(d, 0, [&](int64_t r) {
        file::Task t;
        t.kind = file::TaskKind::Free;
        t.alloc = allocs[d][r];
        SmallVector<int64_t, 2> on;
        for (const ReplicaTasks &dep : deps)
          on.push_back(dep[d][r]);
        t.deps = depsOf(on);
        return t;
      });
    });
  }

  /// Which data-parallel chips a collective over replicas runs among.
  enum class ReplicaGroup {
    /// The fsdp replicas that split the model states (d / fsdp's group).
    Shards,
    /// The replicas holding the same shard in the other groups (hybrid
    /// sharding: d mod fsdp's group).
    Copies,
  };
  /// A collective of `kind` over `bytes` among `group` of every chip's
  /// replica, after `after`; returns its done tasks. The members of one
  /// group share a tag: base + (the group's index) * ranks + rank.
  ReplicaTasks replicaCollective(CollectiveKind kind, ReplicaGroup group,
                                 double bytes, const ReplicaTasks &after) {
    int64_t fsdp = split.fsdp, base = nextTag;
    nextTag += dp * ranks;
    ReplicaTasks starts = onReplicas([&](int64_t d) {
      return onRanks(d, 0, [&](int64_t r) {
        file::Task t;
        t.kind = file::TaskKind::Collective;
        t.collective = kind;
        t.deps = depsOf({after[d][r]});
        int64_t index;
        if (group == ReplicaGroup::Shards) {
          index = d / fsdp;
          for (int64_t i = 0; i < fsdp; ++i)
            t.group.push_back(chipId(index * fsdp + i, 0, r));
        } else {
          index = d % fsdp;
          for (int64_t j = 0; j < dp / fsdp; ++j)
            t.group.push_back(chipId(j * fsdp + index, 0, r));
        }
        t.bytes = toInt(bytes);
        t.tag = base + index * ranks + r;
        return t;
      });
    });
    return onReplicas([&](int64_t d) {
      return onRanks(d, 0, [&](int64_t r) {
        file::Task t;
        t.kind = file::TaskKind::CollectiveDone;
        t.start = starts[d][r];
        return t;
      });
    });
  }

  /// The work of `cost` on microbatch `unit` after `last`, on every chip;
  /// its first task waits for `first` too (a gather's done) when given.
  void emitRun(const LayerSliceCost &cost, const std::string &where,
               int64_t layer, const Unit &unit, ReplicaTasks &last,
               const ReplicaTasks *first = nullptr) {
    std::vector<Item> items;
    cost.forEachWork(unit.length, unit.context, [&](const SliceWork &work) {
      // A gradient that moves nothing (an add's, handing its cotangent on)
      // is no kernel.
      if (work.collective || work.flops > 0 || work.bytes > 0 ||
          work.vectorOps > 0)
        items.push_back({where, layer, work});
    });
    for (int64_t d = 0; d < dp; ++d) {
      // Each rank's next task is the run's first.
      Tasks start = onRanksIndex(d);
      for (const Item &item : items)
        last[d] = emitItem(d, 0, item, unit, last[d]);
      if (first && !items.empty())
        addDeps(d, 0, start, (*first)[d]);
    }
  }
  /// The index the next task of each rank of replica d will have.
  Tasks onRanksIndex(int64_t d) const {
    Tasks next;
    for (int64_t r = 0; r < ranks; ++r)
      next.push_back(
          out.chips[slot.find(chipId(d, 0, r))->second].tasks.size());
    return next;
  }

  /// The gradients of one group of parameters (a layer's, or those outside
  /// the layers) reduced after the backward pass of microbatch `mb` made
  /// them (`after`): under ZeRO-2 and 3 reduce-scattered every microbatch,
  /// otherwise accumulated and reduced after the last; then, with groups
  /// of fsdp replicas, all-reduced between the groups.
  struct Reduction {
    /// When the microbatch's whole gradients are no longer needed (its
    /// reduce-scatter's done, or `after`).
    ReplicaTasks scattered;
    /// What the update waits for (the last microbatch's).
    ReplicaTasks ready;
  };
  Reduction reduceGradients(double bytes, int64_t mb,
                            const ReplicaTasks &after) {
    bool last = mb + 1 == microbatches();
    if (dp == 1 || bytes <= 0 || (split.stage < 2 && !last))
      return {after, after};
    if (split.stage == 0) {
      // Every replica holds the same states: one group of all of them.
      ReplicaTasks done = replicaCollective(
          CollectiveKind::AllReduce, ReplicaGroup::Copies, bytes, after);
      return {done, done};
    }
    ReplicaTasks scattered = replicaCollective(
        CollectiveKind::ReduceScatter, ReplicaGroup::Shards, bytes, after);
    ReplicaTasks ready = scattered;
    if (last && dp > split.fsdp)
      ready = replicaCollective(CollectiveKind::AllReduce, ReplicaGroup::Copies,
                                bytes / split.fsdp, scattered);
    return {scattered, ready};
  }

  void emitTraining() {
    const TrainingView &t = *train;
    // The model states, held all step.
    for (OptimizerUpdateOp update : t.updates) {
      ModelStateBytes bytes = modelStateBytes(update, split);
      std::string prefix = groupName(update.getLayer());
      allocAll(MemoryKind::Weights, bytes.weights, prefix + ".weights");
      allocAll(MemoryKind::Gradients, bytes.gradients, prefix + ".gradients");
      allocAll(MemoryKind::OptimizerState, bytes.optimizerState,
               prefix + ".optimizer_state");
    }
    // Whole (unsplit) states of a group of parameters.
    auto whole = [&](std::optional<int64_t> layer) {
      OptimizerUpdateOp update = t.updateOf(layer);
      return update ? modelStateBytes(update, {}) : ModelStateBytes();
    };
    ModelStateBytes outside = whole(std::nullopt);
    double share = 1.0 / double(microbatches());
    double outsideKept = keptOutsideLayers(t) * share;
    std::map<int64_t, LayerGradOp> gradOf;
    for (LayerGradOp grad : t.layerGrads)
      gradOf[grad.getIndex()] = grad;
    ReplicaTasks last = noTasks();
    // Per group of parameters, what its update waits for.
    std::map<std::optional<int64_t>, ReplicaTasks> reduced;
    for (int64_t mb = 0; mb < microbatches(); ++mb) {
      Unit unit{mb, 0, tokens, 0};
      std::string mbName = ".mb" + std::to_string(mb);
      // The parameters outside the layers, gathered for the whole
      // microbatch under FSDP.
      ReplicaTasks outsideBuffer;
      bool gatherOutside = split.stage >= 3 && outside.weights > 0;
      if (gatherOutside) {
        outsideBuffer = allocAll(MemoryKind::Buffers, outside.weights,
                                 "outside.gathered_weights", {last});
        last = replicaCollective(CollectiveKind::AllGather,
                                 ReplicaGroup::Shards, outside.weights,
                                 outsideBuffer);
      }
      ReplicaTasks outsideKeptAlloc = allocAll(
          MemoryKind::Activations, outsideKept, "outside.kept" + mbName,
          {last});
      emitRun(*forwardPrologue, "prologue", -1, unit, last);

      // The forward pass; each layer keeps what its backward pass reads.
      std::map<int64_t, ReplicaTasks> kept;
      runLayers(t.layers, last, [&](int64_t i, const ReplicaTasks *gathered) {
        LayerOp layer = t.layers[i];
        int64_t index = layer.getIndex();
        std::string prefix = "layer" + std::to_string(index);
        kept[index] = allocAll(
            MemoryKind::Activations,
            double(gradOf[index].getKeptBytes()) * share,
            prefix + ".kept" + mbName, {last});
        emitRun(forwardCosts[i], prefix, index, unit, last, gathered);
        emitRun(afterForward[i], prefix + ".after", -1, unit, last);
      });
      emitRun(*forwardEpilogue, "epilogue", -1, unit, last);

      // The backward pass; each layer's gradients reduced as they are made.
      emitRun(*backwardEpilogue, "epilogue.backward", -1, unit, last);
      SmallVector<LayerOp> backwardOrder;
      for (LayerGradOp grad : t.layerGrads)
        backwardOrder.push_back(layerAt(grad.getIndex()));
      runLayers(backwardOrder, last, [&](int64_t i,
                                         const ReplicaTasks *gathered) {
        LayerGradOp grad = t.layerGrads[i];
        int64_t index = grad.getIndex();
        std::string prefix = "layer" + std::to_string(index);
        double gradients = whole(index).gradients;
        // Under ZeRO-2 and 3 the layer's whole gradients wait in a bucket
        // until they are reduce-scattered.
        ReplicaTasks bucket;
        if (split.stage >= 2)
          bucket = allocAll(MemoryKind::Buffers, gradients,
                            prefix + ".gradient_bucket", {last});
        ReplicaTasks recomputed =
            allocAll(MemoryKind::Activations, recomputedBytes(grad) * share,
                     prefix + ".recomputed" + mbName, {last});
        emitRun(backwardCosts[i], prefix + ".backward", index, unit, last,
                gathered);
        emitRun(afterBackward[i], prefix + ".backward.after", -1, unit, last);
        freeAll(recomputed, {last});
        freeAll(kept[index], {last});
        Reduction reduction = reduceGradients(gradients, mb, last);
        if (split.stage >= 2)
          freeAll(bucket, {reduction.scattered});
        reduced[index] = reduction.ready;
      });
      emitRun(*backwardPrologue, "prologue.backward", -1, unit, last);
      freeAll(outsideKeptAlloc, {last});
      reduced[std::nullopt] =
          reduceGradients(outside.gradients, mb, last).ready;
      if (gatherOutside)
        freeAll(outsideBuffer, {last});
    }

    // The optimizer's updates, each once its gradients are reduced (in the
    // order the backward pass made them); under ZeRO each chip updates its
    // 1/fsdp of the parameters, and under ZeRO-1 and 2 the updated weights
    // are all-gathered for the next step.
    SmallVector<OptimizerUpdateOp> updates;
    for (LayerGradOp grad : t.layerGrads)
      if (OptimizerUpdateOp update = t.updateOf(grad.getIndex()))
        updates.push_back(update);
    if (OptimizerUpdateOp update = t.updateOf(std::nullopt))
      updates.push_back(update);
    for (OptimizerUpdateOp update : updates) {
      std::optional<int64_t> layer = update.getLayer();
      double part = split.statesShare();
      const ReplicaTasks &waits = reduced[layer];
      last = onReplicas([&](int64_t d) {
        return onRanks(d, 0, [&](int64_t r) {
          file::Task task;
          task.kind = file::TaskKind::Compute;
          task.name = groupName(layer) + ".optimizer_update";
          task.op = update->getName().getStringRef().str();
          task.layer = layer.value_or(-1);
          task.deps = depsOf({last[d][r], waits[d][r]});
          task.vectorOps = toInt(double(update.getFlops()) * part);
          task.bytes =
              toInt(double(update.getBytesRead() + update.getBytesWritten()) *
                    part);
          return task;
        });
      });
      if (split.stage == 1 || split.stage == 2)
        replicaCollective(CollectiveKind::AllGather, ReplicaGroup::Shards,
                          whole(layer).weights, last);
    }
  }

  static std::string groupName(std::optional<int64_t> layer) {
    return layer ? "layer" + std::to_string(*layer) : std::string("outside");
  }
  LayerOp layerAt(int64_t index) const {
    for (LayerOp layer : train->layers)
      if (int64_t(layer.getIndex()) == index)
        return layer;
    return {};
  }

  /// Runs `body(i, gathered)` for each layer of `order` (a pass over the
  /// layers). Under FSDP (ZeRO-3) each layer's weights are all-gathered
  /// into a buffer first (`gathered`: the gather's done, which the layer's
  /// first task waits for), prefetched: layer i + 1's gather starts as
  /// layer i does, once layer i's gather is done and layer i - 1's buffer
  /// is freed, so two buffers at most are live (as emitGathered does for
  /// weight-gathered inference).
  template <typename Body>
  void runLayers(ArrayRef<LayerOp> order, ReplicaTasks &last, Body body) {
    int64_t n = order.size();
    if (split.stage < 3) {
      for (int64_t i = 0; i < n; ++i)
        body(i, nullptr);
      return;
    }
    std::vector<ReplicaTasks> allocs(n), done(n), freed(n);
    auto gather = [&](int64_t i) {
      if (i >= n)
        return;
      double bytes = layerWeightBytes(order[i]);
      if (bytes <= 0) {
        allocs[i] = done[i] = noTasks();
        return;
      }
      std::vector<ReplicaTasks> deps{last};
      if (i > 0)
        deps.push_back(done[i - 1]);
      if (i > 1)
        deps.push_back(freed[i - 2]);
      allocs[i] = allocAll(MemoryKind::Buffers, bytes,
                           "layer" +
                               std::to_string(LayerOp(order[i]).getIndex()) +
                               ".gathered_weights",
                           deps);
      done[i] = replicaCollective(CollectiveKind::AllGather,
                                  ReplicaGroup::Shards, bytes, allocs[i]);
    };
    gather(0);
    for (int64_t i = 0; i < n; ++i) {
      gather(i + 1);
      body(i, &done[i]);
      freed[i] = freeAll(allocs[i], {last});
    }
  }

  /// The whole weights of a layer (its update's parameters), which FSDP
  /// gathers.
  double layerWeightBytes(LayerOp layer) const {
    OptimizerUpdateOp update = train->updateOf(layer.getIndex());
    return update ? modelStateBytes(update, {}).weights : 0;
  }

  int64_t interleave;
  bool decompose, scatterHandover;
  /// The step's parts, how its model states are split, and the costs of
  /// its runs of ops (forward and backward per layer, in the order of
  /// train->layers and train->layerGrads).
  std::optional<TrainingView> train;
  ZeroSplit split;
  std::optional<LayerSliceCost> forwardPrologue, forwardEpilogue,
      backwardEpilogue, backwardPrologue;
  std::vector<LayerSliceCost> forwardCosts, backwardCosts;
  /// The ops between one layer (layer_grad) and the next.
  std::vector<LayerSliceCost> afterForward, afterBackward;
};

} // namespace

FailureOr<file::Schedule> loom::lowering::lowerTrainingStep(
    ModuleOp module, TargetAttr target, ModelView view, const CostModel &model,
    int64_t interleave, bool decompose, bool scatterHandover) {
  return TrainingLowering(module, target, std::move(view), model, interleave,
                          decompose, scatterHandover)
      .run();
}
