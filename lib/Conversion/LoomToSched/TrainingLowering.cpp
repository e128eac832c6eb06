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

#include <deque>
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
    if (split.stage >= 3)
      gatherBudget = fsdpGatherBudget(*train);
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

  /// Every chip's copy of its allocation `staged` to its host's memory,
  /// after `after`, and the allocation's free once it is there (`*freed`).
  ReplicaTasks hostStoreAll(const ReplicaTasks &staged,
                            const std::string &name,
                            const ReplicaTasks &after, ReplicaTasks &freed) {
    if (staged.front().front() == kNoTask) {
      freed = noTasks();
      return noTasks();
    }
    ReplicaTasks stored = onReplicas([&](int64_t d) {
      return onRanks(d, 0, [&](int64_t r) {
        file::Task t;
        t.kind = file::TaskKind::HostStore;
        t.name = name;
        t.bytes = programOf(d, 0, r)[staged[d][r]].bytes;
        t.deps = depsOf({staged[d][r], after[d][r]});
        return t;
      });
    });
    freed = freeAll(staged, {stored});
    return stored;
  }
  /// Every chip's copy back of what `stored` copied to the host, into an
  /// allocation made after `after` (and the free of the values' staging,
  /// which it takes the place of); returns the copies (the allocation is
  /// `*into`).
  ReplicaTasks hostLoadAll(const ReplicaTasks &stored, const std::string &name,
                           ArrayRef<ReplicaTasks> after, ReplicaTasks &into) {
    if (stored.front().front() == kNoTask) {
      into = noTasks();
      return noTasks();
    }
    auto bytesOf = [&](int64_t d, int64_t r) {
      return programOf(d, 0, r)[stored[d][r]].bytes;
    };
    into = allocAll(MemoryKind::Activations, double(bytesOf(0, 0)), name,
                    after);
    return onReplicas([&](int64_t d) {
      return onRanks(d, 0, [&](int64_t r) {
        file::Task t;
        t.kind = file::TaskKind::HostLoad;
        t.name = name;
        t.store = stored[d][r];
        t.bytes = bytesOf(d, r);
        t.deps = depsOf({into[d][r]});
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
    /// Copies, and in each of them the ranks of the stage's sequence-
    /// parallel group (or expert group of its own) sharing the chip's
    /// tensor rank: they hold the same parameters and make their
    /// gradients from other tokens.
    CopiesBeside,
  };
  /// The ranks of a stage sharing a tensor rank (sp, or ep beside tp).
  int64_t beside() const { return ranks / tp; }
  /// A collective of `kind` over `bytes` among `group` of every chip's
  /// replica, after `after`; returns its done tasks. The members of one
  /// group share a tag: base + (the group's index) * ranks + the rank (the
  /// tensor rank for CopiesBeside).
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
        bool shards = group == ReplicaGroup::Shards,
             withBeside = group == ReplicaGroup::CopiesBeside;
        int64_t index = shards ? d / fsdp : d % fsdp,
                member = withBeside ? r % tp : r;
        SmallVector<int64_t> chips;
        if (shards)
          for (int64_t i = 0; i < fsdp; ++i)
            chips.push_back(chipId(index * fsdp + i, 0, r));
        else
          for (int64_t j = 0; j < dp / fsdp; ++j)
            for (int64_t u = 0; u < (withBeside ? beside() : 1); ++u)
              chips.push_back(chipId(j * fsdp + index, 0,
                                     withBeside ? u * tp + member : r));
        t.group = sharedGroup(chips);
        t.bytes = toInt(bytes);
        t.tag = base + index * ranks + member;
        return t;
      });
    });
    return onReplicas(
        [&](int64_t d) { return collectiveDone(d, 0, starts[d]); });
  }

  /// The parameters the ops of `item` read and make gradients of.
  static ParameterUse parameterUse(const Item &item) {
    ParameterUse use = getParameterUse(item.work.op);
    for (Operation *fused : item.work.fused)
      use += getParameterUse(fused);
    return use;
  }
  double bytesPerParameter(int64_t layer, bool weights) const {
    return train->bytesPerParameter(groupOf(layer), weights);
  }

  /// The work of `cost` on microbatch `mb` after `last`, on every chip.
  /// Under FSDP an op that reads weights waits for their all-gather into a
  /// buffer of their own (freed after it), prefetched (gatherAfter). Under
  /// ZeRO-2 and 3 an op that makes gradients fills a bucket of their size,
  /// reduce-scattered after it and freed when that is done; the bucket
  /// waits for the free of the one two before it (two at most).
  void emitRun(const LayerSliceCost &cost, const std::string &where,
               int64_t layer, int64_t mb, ReplicaTasks &last) {
    Unit unit{mb, 0, tokens, 0};
    std::vector<Item> items;
    cost.forEachWork(unit.length, unit.context, [&](const SliceWork &work) {
      Item item{where, layer, work};
      ParameterUse use = parameterUse(item);
      // A gradient that moves nothing (an add's, handing its cotangent on)
      // is no kernel.
      if (work.collective || work.flops > 0 || work.bytes > 0 ||
          work.vectorOps > 0 || use.read > 0 || use.gradient > 0)
        items.push_back(std::move(item));
    });
    for (const Item &item : items) {
      ParameterUse use = parameterUse(item);
      std::string name = taskName(item.where, item.work.op);
      ReplicaTasks before = last;
      // What the op's first task waits for besides `last`.
      SmallVector<ReplicaTasks, 2> waits;
      ReplicaTasks gathered, bucket;
      // The first op of a microbatch waits for the last one's buckets.
      waits.append(microbatchWaits.begin(), microbatchWaits.end());
      microbatchWaits.clear();
      if (split.stage >= 3 && use.read > 0) {
        double bytes = double(use.read) * bytesPerParameter(layer, true);
        gathered = allocAll(MemoryKind::Buffers, bytes,
                            name + ".gathered_weights",
                            gatherAfter(bytes, before));
        ReplicaTasks done = replicaCollective(
            CollectiveKind::AllGather, ReplicaGroup::Shards, bytes, gathered);
        waits.push_back(done);
        gatheredReads.push_back({bytes, before, done, noTasks()});
      }
      double gradientBytes = 0, expertBytes = 0;
      if (split.stage >= 2 && use.gradient > 0) {
        gradientBytes = double(use.gradient) * bytesPerParameter(layer, false);
        expertBytes =
            double(use.expertGradient) * bytesPerParameter(layer, false);
        bucket = allocAll(MemoryKind::Buffers, gradientBytes,
                          name + ".gradient_bucket",
                          {before, buckets.freedBefore});
        waits.push_back(bucket);
      }
      for (int64_t d = 0; d < dp; ++d) {
        Tasks start = onRanksIndex(d);
        last[d] = emitItem(d, 0, item, unit, last[d]);
        for (const ReplicaTasks &wait : waits)
          addDeps(d, 0, start, wait[d]);
      }
      if (!gathered.empty())
        gatheredReads.back().freed = freeAll(gathered, {last});
      if (!bucket.empty()) {
        Reduction reduction =
            reduceGradients(gradientBytes, expertBytes, mb, last);
        buckets.freedBefore = buckets.freed;
        buckets.freed = freeAll(bucket, reduction.scattered);
        llvm::append_range(reduced[groupOf(layer)], reduction.ready);
      }
    }
  }
  /// What an allocation at the start of a run waits for: `last`, and at
  /// a microbatch's start the previous one's buckets.
  SmallVector<ReplicaTasks, 3> afterLast(const ReplicaTasks &last) const {
    SmallVector<ReplicaTasks, 3> deps{last};
    deps.append(microbatchWaits.begin(), microbatchWaits.end());
    return deps;
  }
  /// What the gather of the next read (`bytes`, its op after `before`)
  /// waits for: the start of the earliest read from which the buffers up
  /// to this one fit the budget (one read ahead at least: the two largest
  /// weights fit it), the free of the buffer before that read, and the
  /// gather before (gathers run in order). So the buffers live at once
  /// never hold more than the budget, and a large weight after a small one
  /// (a projection after a norm's scale) is gathered under the op before.
  SmallVector<ReplicaTasks, 3> gatherAfter(double bytes,
                                           const ReplicaTasks &before) {
    if (gatheredReads.empty())
      return {before};
    size_t last = gatheredReads.size() - 1, from = last;
    size_t lowest = firstReadKept ? 0 : 1;
    double held = bytes + gatheredReads[last].bytes;
    while (from > lowest &&
           held + gatheredReads[from - 1].bytes <= gatherBudget) {
      --from;
      held += gatheredReads[from].bytes;
    }
    SmallVector<ReplicaTasks, 3> deps{gatheredReads[from].start,
                                      gatheredReads[last].done};
    if (from > 0)
      deps.push_back(gatheredReads[from - 1].freed);
    // Later gathers start no earlier: keep the reads from the one before
    // `from`.
    for (size_t i = 0; i + 1 < from; ++i) {
      gatheredReads.pop_front();
      firstReadKept = false;
    }
    return deps;
  }

  static std::optional<int64_t> groupOf(int64_t layer) {
    return layer >= 0 ? std::optional<int64_t>(layer) : std::nullopt;
  }
  /// The index the next task of each rank of replica d will have.
  Tasks onRanksIndex(int64_t d) {
    Tasks next;
    for (int64_t r = 0; r < ranks; ++r)
      next.push_back(programOf(d, 0, r).size());
    return next;
  }

  /// `bytes` of gradients (one weight's under ZeRO-2 and 3; otherwise a
  /// layer's, or those of the parameters outside the layers), of which
  /// `expertBytes` experts' (ParameterUse), reduced after the backward
  /// pass of microbatch `mb` made them (`after`): under ZeRO-2 and 3
  /// reduce-scattered every microbatch, otherwise accumulated and reduced
  /// after the last; then, with groups of fsdp replicas, all-reduced
  /// between the groups. Gradients of parameters a stage's beside ranks
  /// (sp, or ep beside tp) hold alike are all-reduced over those ranks as
  /// well, in the same collective as over the groups.
  struct Reduction {
    /// When the microbatch's whole gradients (a bucket) are no longer
    /// needed: its reduce-scatters' done, or `after`.
    SmallVector<ReplicaTasks, 2> scattered;
    /// What the update waits for (the last microbatch's).
    SmallVector<ReplicaTasks, 2> ready;
  };
  Reduction reduceGradients(double bytes, double expertBytes, int64_t mb,
                            const ReplicaTasks &after) {
    Reduction out;
    auto reduce = [&](double part, bool withBeside) {
      if (part <= 0)
        return;
      auto [scattered, ready] = reduceOver(part, withBeside, mb, after);
      out.scattered.push_back(std::move(scattered));
      out.ready.push_back(std::move(ready));
    };
    reduce(bytes - expertBytes, beside() > 1);
    reduce(expertBytes, false);
    if (out.scattered.empty())
      out = {{after}, {after}};
    return out;
  }
  /// One part of reduceGradients: what its reduce-scatter leaves (the
  /// bucket's free waits for it) and what the update waits for.
  std::pair<ReplicaTasks, ReplicaTasks>
  reduceOver(double bytes, bool withBeside, int64_t mb,
             const ReplicaTasks &after) {
    bool last = mb + 1 == microbatches();
    int64_t width = withBeside ? beside() : 1;
    ReplicaGroup copies =
        withBeside ? ReplicaGroup::CopiesBeside : ReplicaGroup::Copies;
    if (dp * width == 1 || (split.stage < 2 && !last))
      return {after, after};
    if (split.stage == 0) {
      // Every replica holds the same states: one group of all of them.
      ReplicaTasks done =
          replicaCollective(CollectiveKind::AllReduce, copies, bytes, after);
      return {done, done};
    }
    ReplicaTasks scattered = replicaCollective(
        CollectiveKind::ReduceScatter, ReplicaGroup::Shards, bytes, after);
    ReplicaTasks ready = scattered;
    if (last && dp / split.fsdp * width > 1)
      ready = replicaCollective(CollectiveKind::AllReduce, copies,
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
    buckets.freed = buckets.freedBefore = noTasks();
    for (int64_t mb = 0; mb < microbatches(); ++mb) {
      std::string mbName = ".mb" + std::to_string(mb);
      ReplicaTasks outsideKeptAlloc =
          allocAll(MemoryKind::Activations, outsideKept,
                   "outside.kept" + mbName, afterLast(last));
      emitRun(*forwardPrologue, "prologue", -1, mb, last);

      // The forward pass; each layer keeps what its backward pass reads,
      // in HBM, or made in HBM and copied to the host's memory after the
      // layer (activation offload): a layer's staging waits for the free
      // of the one two layers before, so that HBM holds two at most when
      // the host link falls behind.
      std::map<int64_t, ReplicaTasks> kept, stored, stagingFreed;
      ReplicaTasks freedBefore = noTasks(), freedLast = noTasks();
      for (size_t i = 0; i < t.layers.size(); ++i) {
        int64_t index = LayerOp(t.layers[i]).getIndex();
        std::string prefix = "layer" + std::to_string(index);
        LayerGradOp grad = gradOf[index];
        double offloaded = double(grad.getOffloadedBytes()) * share;
        kept[index] = allocAll(
            MemoryKind::Activations,
            double(grad.getKeptBytes()) * share - offloaded,
            prefix + ".kept" + mbName, afterLast(last));
        SmallVector<ReplicaTasks, 3> stagingAfter = afterLast(last);
        stagingAfter.push_back(freedBefore);
        ReplicaTasks staged =
            allocAll(MemoryKind::Activations, offloaded,
                     prefix + ".offloaded" + mbName, stagingAfter);
        emitRun(forwardCosts[i], prefix, index, mb, last);
        stored[index] = hostStoreAll(staged, prefix + ".to_host" + mbName,
                                     last, stagingFreed[index]);
        if (stagingFreed[index].front().front() != kNoTask) {
          freedBefore = freedLast;
          freedLast = stagingFreed[index];
        }
        emitRun(afterForward[i], prefix + ".after", -1, mb, last);
      }
      emitRun(*forwardEpilogue, "epilogue", -1, mb, last);

      // The backward pass; the gradients reduced as they are made: each
      // op's under ZeRO-2 and 3 (emitRun), each layer's otherwise.
      // Offloaded values come back one layer ahead of their backward
      // pass.
      std::map<int64_t, ReplicaTasks> loaded, reloaded;
      auto loadBack = [&](size_t i) {
        if (i >= t.layerGrads.size())
          return;
        int64_t index = LayerGradOp(t.layerGrads[i]).getIndex();
        loaded[index] = hostLoadAll(
            stored[index],
            "layer" + std::to_string(index) + ".from_host" + mbName,
            {last, stagingFreed[index]}, reloaded[index]);
      };
      loadBack(0);
      emitRun(*backwardEpilogue, "epilogue.backward", -1, mb, last);
      for (size_t i = 0; i < t.layerGrads.size(); ++i) {
        LayerGradOp grad = t.layerGrads[i];
        int64_t index = grad.getIndex();
        std::string prefix = "layer" + std::to_string(index);
        loadBack(i + 1);
        ReplicaTasks recomputed =
            allocAll(MemoryKind::Activations, recomputedBytes(grad) * share,
                     prefix + ".recomputed" + mbName, {last});
        if (loaded[index].front().front() != kNoTask)
          microbatchWaits.push_back(loaded[index]);
        emitRun(backwardCosts[i], prefix + ".backward", index, mb, last);
        emitRun(afterBackward[i], prefix + ".backward.after", -1, mb, last);
        freeAll(recomputed, {last});
        freeAll(kept[index], {last});
        freeAll(reloaded[index], {last});
        if (split.stage < 2)
          llvm::append_range(reduced[index],
                             reduceGradients(whole(index).gradients,
                                             train->expertGradientBytes(grad), mb, last)
                                 .ready);
      }
      emitRun(*backwardPrologue, "prologue.backward", -1, mb, last);
      freeAll(outsideKeptAlloc, {last});
      // A microbatch is one iteration of the accumulation loop: its
      // reduce-scatters end before the next one runs.
      microbatchWaits = {buckets.freed, buckets.freedBefore};
      if (split.stage < 2)
        llvm::append_range(
            reduced[std::nullopt],
            reduceGradients(outside.gradients, 0, mb, last).ready);
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
      const std::vector<ReplicaTasks> &waits = reduced[layer];
      last = onReplicas([&](int64_t d) {
        return onRanks(d, 0, [&](int64_t r) {
          file::Task task;
          task.kind = file::TaskKind::Compute;
          task.name = groupName(layer) + ".optimizer_update";
          task.op = update->getName().getStringRef().str();
          task.layer = layer.value_or(-1);
          SmallVector<int64_t> on{last[d][r]};
          for (const ReplicaTasks &wait : waits)
            on.push_back(wait[d][r]);
          task.deps = depsOf(on);
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
  /// FSDP's gathers, read by read across the whole step (those a later
  /// gather may still wait for): the buffer's bytes, what the read's first
  /// task waited for besides its gather (`start`), the gather's done and
  /// the buffer's free; and the budget of the buffers (fsdpGatherBudget).
  struct GatheredRead {
    double bytes;
    ReplicaTasks start, done, freed;
  };
  std::deque<GatheredRead> gatheredReads;
  /// Whether gatheredReads starts at the step's first read.
  bool firstReadKept = true;
  double gatherBudget = 0;
  /// The frees of the last two gradient buckets (ZeRO-2 and 3).
  struct {
    ReplicaTasks freed, freedBefore;
  } buckets;
  /// What the next op emitted waits for besides the op before it.
  SmallVector<ReplicaTasks, 2> microbatchWaits;
  /// Per group of parameters (a layer's, or those outside the layers),
  /// the reductions its update waits for.
  std::map<std::optional<int64_t>, std::vector<ReplicaTasks>> reduced;
};

} // namespace

FailureOr<file::Schedule> loom::lowering::lowerTrainingStep(
    ModuleOp module, TargetAttr target, ModelView view, const CostModel &model,
    int64_t interleave, bool decompose, bool scatterHandover) {
  return TrainingLowering(module, target, std::move(view), model, interleave,
                          decompose, scatterHandover)
      .run();
}
