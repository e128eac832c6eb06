//===- TrainingLowering.cpp - a training step to per-chip programs --------===//
//
// A training step (docs/training.md, "The step on chips"): per microbatch
// the forward pass and the backward pass, each layer's gradients reduced
// over the data-parallel replicas as the backward pass produces them, then
// the optimizer's updates. On several pipeline stages each stage runs its
// passes in the order of the plan's schedule (loom/Analysis/
// TrainingSchedule.h; docs/training.md, "Pipeline schedules"), handing
// activations and their gradients to the stages beside it. With TeraPipe's
// token slices each microbatch's passes run slice by slice (sliceOrders),
// each slice's work priced on its tokens after those before it. The replicas
// are emitted in lockstep, so that a collective over replicas gets one tag
// in all of them; each stage is emitted whole, its messages' tags shared
// with the stages beside it.
//
//===----------------------------------------------------------------------===//

#include "ChipPrograms.h"

#include "loom/Analysis/TrainingSchedule.h"
#include "loom/Analysis/TrainingStep.h"
#include "loom/Dialect/Loom/LoomAttributes.h"

#include <deque>
#include <map>
#include <tuple>

using namespace mlir;
using namespace loom;
using namespace loom::lowering;

namespace {

/// Which part of a run of backward ops a pass runs: B (everything but the
/// weight gradients: the recomputed ops, the input gradients and the ops
/// they need), W (the `loom.grad weight` ops), or both as one pass.
enum class Part { Input, Weight, Both };

/// A run of backward ops, whole and, when the schedule splits B from W,
/// in its two parts.
struct BackwardRun {
  LayerSliceCost whole;
  std::optional<LayerSliceCost> input, weight;
  const LayerSliceCost &of(Part part) const {
    return part == Part::Both ? whole : part == Part::Input ? *input : *weight;
  }
};

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
    if (interleave > 1 || decompose || scatterHandover)
      return refuse() << "is lowered with interleave 1, without decompose "
                         "and without scatter-handover";
    FailureOr<TrainingView> got =
        getTrainingView(view.func, "convert-loom-to-sched");
    if (failed(got))
      return failure();
    train.emplace(std::move(*got));
    if (failed(planSchedule()))
      return failure();
    split = getZeroSplit(module);
    if (split.stage >= 3)
      gatherBudget = fsdpGatherBudget(*train);
    SmallVector<GroupAxis> axes; // pricing is the simulator's job here
    int64_t m = microbatches();
    share = 1.0 / double(m);
    auto runOf = [&](ArrayRef<Operation *> ops) {
      return LayerSliceCost(ops, model, axes, tokens, ArrayRef<GroupAxis>(),
                            m);
    };
    auto backwardRun = [&](ArrayRef<Operation *> ops) {
      BackwardRun run{runOf(ops), std::nullopt, std::nullopt};
      if (splitPasses) {
        SmallVector<Operation *> input, weight;
        for (Operation *op : ops)
          (isWeightGradient(op) ? weight : input).push_back(op);
        run.input.emplace(runOf(input));
        run.weight.emplace(runOf(weight));
      }
      return run;
    };
    forwardPrologue.emplace(runOf(train->forwardPrologue));
    forwardEpilogue.emplace(runOf(train->forwardEpilogue));
    backwardEpilogue.emplace(backwardRun(train->backwardEpilogue));
    backwardPrologue.emplace(backwardRun(train->backwardPrologue));
    for (LayerOp layer : train->layers)
      forwardCosts.emplace_back(layer, model, axes, tokens,
                                ArrayRef<GroupAxis>(), m);
    for (ArrayRef<Operation *> ops : train->afterLayer)
      afterForward.push_back(runOf(ops));
    for (ArrayRef<Operation *> ops : train->afterLayerGrad)
      afterBackward.push_back(backwardRun(ops));
    for (LayerGradOp layer : train->layerGrads) {
      // What the backward pass runs: the recomputed forward ops and the
      // gradients; the kept ops ran in the forward pass.
      SmallVector<Operation *> ops;
      for (Operation &op : layer.getBody().front().without_terminator())
        if (!op.hasAttr(kKeptAttrName))
          ops.push_back(&op);
      backwardCosts.push_back(backwardRun(ops));
    }
    addChips();
    emitTraining();
    return std::move(out);
  }

private:
  /// Each layer's chunk (its `stage`; the stage without virtual stages),
  /// what each chunk runs, what it keeps and hands on, and each stage's
  /// order of passes: the schedule's on several stages; on one, each
  /// microbatch's forward pass and then its backward pass (gradient
  /// accumulation, whatever the schedule).
  LogicalResult planSchedule() {
    const TrainingView &t = *train;
    auto refuse = [&](Operation *at) {
      return at->emitError() << "convert-loom-to-sched: ";
    };
    layersOf.assign(chunks, {});
    gradsOf.assign(chunks, {});
    for (size_t i = 0; i < t.layers.size(); ++i) {
      LayerOp layer = t.layers[i];
      int64_t c = int64_t(layer.getStage().value_or(0));
      if (c >= chunks)
        return refuse(layer) << "the layer's stage " << c
                             << " is not among the pipeline's " << chunks
                             << " chunks";
      layersOf[c].push_back(i);
      chunkOf[layer.getIndex()] = c;
    }
    for (size_t i = 0; i < t.layerGrads.size(); ++i) {
      LayerGradOp grad = t.layerGrads[i];
      auto it = chunkOf.find(grad.getIndex());
      if (it == chunkOf.end())
        return refuse(grad) << "no loom.layer has this layer_grad's index "
                            << grad.getIndex();
      gradsOf[it->second].push_back(i);
      gradOf[grad.getIndex()] = grad;
    }
    for (int64_t c = 0; c < chunks; ++c)
      if (layersOf[c].empty())
        return refuse(view.func)
               << "a training step on " << stages << " stages x "
               << chunks / stages
               << " chunks runs at least one layer in each chunk, but chunk "
               << c << " has none (loom-partition-layers sets each layer's "
               << "stage)";
    PipelineSchedule schedule =
        stages == 1 ? PipelineSchedule::OneFOneB : pipeline.getSchedule();
    llvm::Expected<StageOrders> built =
        scheduleOrder(schedule, stages, microbatches(), chunks / stages);
    if (!built)
      return refuse(view.func) << "a training step cannot run its pipeline: "
                               << llvm::toString(built.takeError());
    // TeraPipe's token slices: each microbatch's passes one per slice
    // (sliceOrders), unit u being slice u mod k of microbatch u / k.
    int64_t start = 0;
    for (int64_t length :
         pipeline ? pipeline.getSlices() : ArrayRef<int64_t>()) {
      sliceStarts.push_back(start);
      sliceLengths.push_back(length);
      start += length;
    }
    if (sliceLengths.empty()) {
      sliceLengths.push_back(tokens);
      sliceStarts.push_back(0);
    }
    orders = sliceOrders(*built, slices());
    for (const std::vector<PipelinePass> &order : orders)
      for (const PipelinePass &pass : order)
        splitPasses |= pass.kind == PipelinePass::Kind::Backward;
    if (splitPasses && failed(checkWeightParts(schedule)))
      return failure();
    // Each chunk's result, per microbatch: what it hands on and what
    // comes back.
    for (int64_t c = 0; c < chunks; ++c) {
      LayerOp last = t.layers[layersOf[c].back()];
      boundary.push_back(double(getTensorBytes(last->getResultTypes())) /
                         double(microbatches()));
    }
    // What the ops outside the layers keep, on the chunk that runs them.
    outsideKept.assign(chunks, 0);
    if (chunks == 1) {
      outsideKept[0] = keptOutsideLayers(t);
    } else {
      outsideKept.front() += keptOutsideLayers(t.backwardPrologue);
      outsideKept.back() += keptOutsideLayers(t.backwardEpilogue);
      for (auto [i, between] : llvm::enumerate(t.afterLayerGrad))
        outsideKept[chunkOf[LayerGradOp(t.layerGrads[i]).getIndex()]] +=
            keptOutsideLayers(between);
    }
    return success();
  }

  /// A schedule that runs B and W apart needs each chunk's backward pass to
  /// make weight gradients (a backward pass with none has no W to hold
  /// back).
  LogicalResult checkWeightParts(PipelineSchedule schedule) {
    const TrainingView &t = *train;
    for (int64_t c = 0; c < chunks; ++c) {
      bool weights = false;
      auto look = [&](ArrayRef<Operation *> ops) {
        for (Operation *op : ops)
          weights |= isWeightGradient(op);
      };
      if (c == 0)
        look(t.backwardPrologue);
      if (c + 1 == chunks)
        look(t.backwardEpilogue);
      Operation *first = view.func;
      for (size_t i : gradsOf[c]) {
        LayerGradOp grad = t.layerGrads[i];
        if (first == view.func)
          first = grad;
        grad.walk([&](GradOp part) { weights |= isWeightGradient(part); });
        look(t.afterLayerGrad[i]);
      }
      if (!weights)
        return first->emitError()
               << "convert-loom-to-sched: the " << scheduleName(schedule)
               << " schedule runs each backward pass as its input gradients "
                  "(B) and its weight gradients (W), but the backward pass of "
                  "chunk "
               << c << " (stage " << c % stages
               << ") makes no weight gradient (loom.grad weight)";
    }
    return success();
  }

  int64_t stageOfLayer(int64_t index) const {
    auto it = chunkOf.find(index);
    return it == chunkOf.end() ? -1 : it->second % stages;
  }
  /// The share of the parameters outside the layers that stage s holds
  /// and updates: the first stage the ones before the layers, the last the
  /// ones after them.
  double outsideShare(int64_t s) const {
    return loom::outsideShare(*train, s, stages);
  }

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

  /// An allocation of `bytes` on every chip of stage s after `deps` (none
  /// of none).
  ReplicaTasks allocAll(int64_t s, MemoryKind what, double bytes,
                        const std::string &name,
                        ArrayRef<ReplicaTasks> deps = {}) {
    if (toInt(bytes) <= 0)
      return noTasks();
    return onReplicas([&](int64_t d) {
      return onRanks(d, s, [&](int64_t r) {
        SmallVector<int64_t, 2> on;
        for (const ReplicaTasks &dep : deps)
          on.push_back(dep[d][r]);
        return allocTask(what, toInt(bytes), name, on);
      });
    });
  }
  ReplicaTasks freeAll(int64_t s, const ReplicaTasks &allocs,
                       ArrayRef<ReplicaTasks> deps) {
    if (allocs.empty() || allocs.front().front() == kNoTask)
      return noTasks();
    return onReplicas([&](int64_t d) {
      return onRanks(d, s, [&](int64_t r) {
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
  ReplicaTasks hostStoreAll(int64_t s, const ReplicaTasks &staged,
                            const std::string &name,
                            const ReplicaTasks &after, ReplicaTasks &freed) {
    if (staged.front().front() == kNoTask) {
      freed = noTasks();
      return noTasks();
    }
    ReplicaTasks stored = onReplicas([&](int64_t d) {
      return onRanks(d, s, [&](int64_t r) {
        file::Task t;
        t.kind = file::TaskKind::HostStore;
        t.name = name;
        t.bytes = programOf(d, s, r)[staged[d][r]].bytes;
        t.deps = depsOf({staged[d][r], after[d][r]});
        return t;
      });
    });
    freed = freeAll(s, staged, {stored});
    return stored;
  }
  /// Every chip's copy back of what `stored` copied to the host, into an
  /// allocation made after `after` (and the free of the values' staging,
  /// which it takes the place of); returns the copies (the allocation is
  /// `*into`).
  ReplicaTasks hostLoadAll(int64_t s, const ReplicaTasks &stored,
                           const std::string &name,
                           ArrayRef<ReplicaTasks> after, ReplicaTasks &into) {
    if (stored.empty() || stored.front().front() == kNoTask) {
      into = noTasks();
      return noTasks();
    }
    auto bytesOf = [&](int64_t d, int64_t r) {
      return programOf(d, s, r)[stored[d][r]].bytes;
    };
    into = allocAll(s, MemoryKind::Activations, double(bytesOf(0, 0)), name,
                    after);
    return onReplicas([&](int64_t d) {
      return onRanks(d, s, [&](int64_t r) {
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

  /// The message tag (rank r's: tag + r) of unit `mb`'s activations into
  /// virtual stage g (`forward`) or of their gradients into it. A unit is a
  /// microbatch, or with token slices one slice of one (sliceOrders).
  int64_t messageTag(bool forward, int64_t mb, int64_t g) {
    auto [it, fresh] = tags.try_emplace({forward, mb, g}, nextTag);
    if (fresh)
      nextTag += ranks;
    return it->second;
  }
  /// Every rank of stage s sends `bytes` to its rank of stage `to`, after
  /// the stage's last task.
  void sendAll(int64_t s, int64_t to, int64_t tag, double bytes) {
    const ReplicaTasks &last = stageStates[s].last;
    onReplicas([&](int64_t d) {
      return onRanks(d, s, [&](int64_t r) {
        return messageTask(file::TaskKind::Send, chipId(d, to, r), last[d][r],
                           toInt(bytes), tag + r);
      });
    });
  }
  ReplicaTasks receiveAll(int64_t s, int64_t from, int64_t tag,
                          double bytes) {
    return onReplicas([&](int64_t d) {
      return onRanks(d, s, [&](int64_t r) {
        return messageTask(file::TaskKind::Recv, chipId(d, from, r), kNoTask,
                           toInt(bytes), tag + r);
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
  /// replicas of stage s, after `after`; returns its done tasks. The
  /// members of one group share a tag: base + (the group's index) * ranks
  /// + the rank (the tensor rank for CopiesBeside). A group that spans
  /// slices runs hierarchically (spanningCollective).
  ReplicaTasks replicaCollective(int64_t s, CollectiveKind kind,
                                 ReplicaGroup group, double bytes,
                                 const ReplicaTasks &after) {
    int64_t fsdp = split.fsdp, base = nextTag;
    bool shards = group == ReplicaGroup::Shards,
         withBeside = group == ReplicaGroup::CopiesBeside;
    auto indexOf = [&](int64_t d) { return shards ? d / fsdp : d % fsdp; };
    auto memberOf = [&](int64_t r) { return withBeside ? r % tp : r; };
    auto membersOf = [&](int64_t d, int64_t r) {
      int64_t index = indexOf(d), member = memberOf(r);
      SmallVector<int64_t> chips;
      if (shards)
        for (int64_t i = 0; i < fsdp; ++i)
          chips.push_back(chipId(index * fsdp + i, s, r));
      else
        for (int64_t j = 0; j < dp / fsdp; ++j)
          for (int64_t u = 0; u < (withBeside ? beside() : 1); ++u)
            chips.push_back(chipId(j * fsdp + index, s,
                                   withBeside ? u * tp + member : r));
      return chips;
    };
    if (mesh->numSlices() > 1 && spansSlices(membersOf(0, 0)))
      return spanningCollective(s, kind, bytes, after, membersOf);
    nextTag += dp * ranks;
    ReplicaTasks starts = onReplicas([&](int64_t d) {
      return onRanks(d, s, [&](int64_t r) {
        file::Task t;
        t.kind = file::TaskKind::Collective;
        t.collective = kind;
        t.deps = depsOf({after[d][r]});
        t.group = sharedGroup(membersOf(d, r));
        t.bytes = toInt(bytes);
        t.tag = base + indexOf(d) * ranks + memberOf(r);
        return t;
      });
    });
    return onReplicas(
        [&](int64_t d) { return collectiveDone(d, s, starts[d]); });
  }

  int64_t sliceOfChip(int64_t chip) const { return chip / sliceChips; }
  bool spansSlices(ArrayRef<int64_t> chips) const {
    return llvm::any_of(chips, [&](int64_t c) {
      return sliceOfChip(c) != sliceOfChip(chips.front());
    });
  }

  /// A collective over a group spanning slices in the phases XLA runs it
  /// in (multislicePhases; docs/multislice.md): over the chip's n fellow
  /// members in its slice, or over the chips at its place among them in
  /// every slice (bytes / n, through the DCN). A phase over one chip is
  /// left out. Each phase's groups get tags of their own.
  template <typename MembersFn>
  ReplicaTasks spanningCollective(int64_t s, CollectiveKind kind, double bytes,
                                  const ReplicaTasks &after,
                                  MembersFn membersOf) {
    // The group's members by slice, in order.
    auto bySlice = [&](ArrayRef<int64_t> all) {
      std::map<int64_t, SmallVector<int64_t>> slices;
      for (int64_t c : all)
        slices[sliceOfChip(c)].push_back(c);
      return slices;
    };
    int64_t n = bySlice(membersOf(0, 0)).begin()->second.size();
    ReplicaTasks done = after;
    for (const SlicePhase &phase : multislicePhases(kind)) {
      if (!phase.overDcn && n == 1)
        continue;
      std::map<SmallVector<int64_t>, int64_t> tagOf;
      ReplicaTasks starts = onReplicas([&](int64_t d) {
        return onRanks(d, s, [&](int64_t r) {
          int64_t chip = chipId(d, s, r);
          auto slices = bySlice(membersOf(d, r));
          SmallVector<int64_t> chips = slices[sliceOfChip(chip)];
          if (phase.overDcn) {
            int64_t place = llvm::find(chips, chip) - chips.begin();
            chips.clear();
            for (auto &[slice, members] : slices)
              chips.push_back(members[place]);
          }
          file::Task t;
          t.kind = file::TaskKind::Collective;
          t.collective = phase.kind;
          t.deps = depsOf({done[d][r]});
          t.group = sharedGroup(chips);
          t.bytes = toInt(phase.overDcn ? bytes / double(n) : bytes);
          auto [it, fresh] = tagOf.try_emplace(chips, nextTag);
          if (fresh)
            ++nextTag;
          t.tag = it->second;
          return t;
        });
      });
      done = onReplicas(
          [&](int64_t d) { return collectiveDone(d, s, starts[d]); });
    }
    return done;
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

  /// The work of `cost` on unit `mb` on every chip of stage s, after the
  /// stage's last task. Under FSDP an op that reads weights waits for
  /// their all-gather into a buffer of their own (freed after it),
  /// prefetched (gatherAfter). Under ZeRO-2 and 3 an op that makes
  /// gradients fills a bucket of their size, reduce-scattered after it and
  /// freed when that is done; the bucket waits for the free of the one two
  /// before it (two at most).
  void emitRun(int64_t s, const LayerSliceCost &cost, const std::string &where,
               int64_t layer, int64_t mb) {
    StageState &st = stageStates[s];
    ReplicaTasks &last = st.last;
    int64_t slice = mb % slices();
    Unit unit{mb, 0, sliceLengths[slice], sliceStarts[slice]};
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
      // The first op of a microbatch waits for the last one's buckets (and
      // of a pass, for what it receives).
      waits.append(st.microbatchWaits.begin(), st.microbatchWaits.end());
      st.microbatchWaits.clear();
      if (split.stage >= 3 && use.read > 0) {
        double bytes = double(use.read) * bytesPerParameter(layer, true);
        gathered = allocAll(s, MemoryKind::Buffers, bytes,
                            name + ".gathered_weights",
                            gatherAfter(s, bytes, before));
        ReplicaTasks done =
            replicaCollective(s, CollectiveKind::AllGather,
                              ReplicaGroup::Shards, bytes, gathered);
        waits.push_back(done);
        st.gatheredReads.push_back({bytes, before, done, noTasks()});
      }
      double gradientBytes = 0, expertBytes = 0;
      if (split.stage >= 2 && use.gradient > 0) {
        gradientBytes = double(use.gradient) * bytesPerParameter(layer, false);
        expertBytes =
            double(use.expertGradient) * bytesPerParameter(layer, false);
        bucket = allocAll(s, MemoryKind::Buffers, gradientBytes,
                          name + ".gradient_bucket",
                          {before, st.buckets.freedBefore});
        waits.push_back(bucket);
      }
      for (int64_t d = 0; d < dp; ++d) {
        Tasks start = onRanksIndex(d, s);
        last[d] = emitItem(d, s, item, unit, last[d]);
        for (const ReplicaTasks &wait : waits)
          addDeps(d, s, start, wait[d]);
      }
      if (!gathered.empty())
        st.gatheredReads.back().freed = freeAll(s, gathered, {last});
      if (!bucket.empty()) {
        Reduction reduction =
            reduceGradients(s, gradientBytes, expertBytes, mb, last);
        st.buckets.freedBefore = st.buckets.freed;
        st.buckets.freed = freeAll(s, bucket, reduction.scattered);
        llvm::append_range(st.reduced[groupOf(layer)], reduction.ready);
      }
    }
  }
  /// What an allocation at the start of a run on stage s waits for: the
  /// stage's last task, and at a microbatch's start the previous one's
  /// buckets (at a pass's, what it receives).
  SmallVector<ReplicaTasks, 3> afterLast(int64_t s) const {
    const StageState &st = stageStates[s];
    SmallVector<ReplicaTasks, 3> deps{st.last};
    deps.append(st.microbatchWaits.begin(), st.microbatchWaits.end());
    return deps;
  }
  /// What the gather of stage s's next read (`bytes`, its op after
  /// `before`) waits for: the start of the earliest read from which the
  /// buffers up to this one fit the budget (one read ahead at least: the
  /// two largest weights fit it), the free of the buffer before that read,
  /// and the gather before (gathers run in order). So the buffers live at
  /// once never hold more than the budget, and a large weight after a small
  /// one (a projection after a norm's scale) is gathered under the op
  /// before.
  SmallVector<ReplicaTasks, 3> gatherAfter(int64_t s, double bytes,
                                           const ReplicaTasks &before) {
    StageState &st = stageStates[s];
    std::deque<GatheredRead> &reads = st.gatheredReads;
    if (reads.empty())
      return {before};
    size_t last = reads.size() - 1, from = last;
    size_t lowest = st.firstReadKept ? 0 : 1;
    double held = bytes + reads[last].bytes;
    while (from > lowest && held + reads[from - 1].bytes <= gatherBudget) {
      --from;
      held += reads[from].bytes;
    }
    SmallVector<ReplicaTasks, 3> deps{reads[from].start, reads[last].done};
    if (from > 0)
      deps.push_back(reads[from - 1].freed);
    // Later gathers start no earlier: keep the reads from the one before
    // `from`.
    for (size_t i = 0; i + 1 < from; ++i) {
      reads.pop_front();
      st.firstReadKept = false;
    }
    return deps;
  }

  static std::optional<int64_t> groupOf(int64_t layer) {
    return layer >= 0 ? std::optional<int64_t>(layer) : std::nullopt;
  }
  /// The index the next task of each rank of replica d's stage s will
  /// have.
  Tasks onRanksIndex(int64_t d, int64_t s) {
    Tasks next;
    for (int64_t r = 0; r < ranks; ++r)
      next.push_back(programOf(d, s, r).size());
    return next;
  }

  /// `bytes` of gradients (one weight's under ZeRO-2 and 3; otherwise a
  /// layer's, or those of the parameters outside the layers), of which
  /// `expertBytes` experts' (ParameterUse), reduced over stage s's
  /// replicas after the backward pass of microbatch `mb` made them
  /// (`after`): under ZeRO-2 and 3 reduce-scattered every microbatch,
  /// otherwise accumulated and reduced after the last; then, with groups
  /// of fsdp replicas, all-reduced between the groups. Gradients of
  /// parameters a stage's beside ranks (sp, or ep beside tp) hold alike are
  /// all-reduced over those ranks as well, in the same collective as over
  /// the groups.
  struct Reduction {
    /// When the microbatch's whole gradients (a bucket) are no longer
    /// needed: its reduce-scatters' done, or `after`.
    SmallVector<ReplicaTasks, 2> scattered;
    /// What the update waits for (the last microbatch's).
    SmallVector<ReplicaTasks, 2> ready;
  };
  Reduction reduceGradients(int64_t s, double bytes, double expertBytes,
                            int64_t mb,
                            const ReplicaTasks &after) {
    Reduction out;
    auto reduce = [&](double part, bool withBeside) {
      if (part <= 0)
        return;
      auto [scattered, ready] = reduceOver(s, part, withBeside, mb, after);
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
  reduceOver(int64_t s, double bytes, bool withBeside, int64_t mb,
             const ReplicaTasks &after) {
    // A microbatch's slices run their backward passes in reverse: its
    // first slice's is its last.
    bool last = mb / slices() + 1 == microbatches() && mb % slices() == 0;
    int64_t width = withBeside ? beside() : 1;
    ReplicaGroup copies =
        withBeside ? ReplicaGroup::CopiesBeside : ReplicaGroup::Copies;
    if (dp * width == 1 || (split.stage < 2 && !last))
      return {after, after};
    if (split.stage == 0) {
      // Every replica holds the same states: one group of all of them.
      ReplicaTasks done =
          replicaCollective(s, CollectiveKind::AllReduce, copies, bytes, after);
      return {done, done};
    }
    ReplicaTasks scattered = replicaCollective(
        s, CollectiveKind::ReduceScatter, ReplicaGroup::Shards, bytes, after);
    ReplicaTasks ready = scattered;
    if (last && dp / split.fsdp * width > 1)
      ready = replicaCollective(s, CollectiveKind::AllReduce, copies,
                                bytes / split.fsdp, scattered);
    return {scattered, ready};
  }

  /// Whole (unsplit) states of a group of parameters.
  ModelStateBytes whole(std::optional<int64_t> layer) const {
    OptimizerUpdateOp update = train->updateOf(layer);
    return update ? modelStateBytes(update, {}) : ModelStateBytes();
  }

  void emitTraining() {
    stageStates.assign(stages, StageState());
    for (int64_t s = 0; s < stages; ++s) {
      emitModelStates(s);
      StageState &st = stageStates[s];
      st.last = noTasks();
      st.buckets.freed = st.buckets.freedBefore = noTasks();
      for (const PipelinePass &pass : orders[s]) {
        int64_t g = pass.chunk * stages + s, mb = pass.microbatch;
        switch (pass.kind) {
        case PipelinePass::Kind::Forward:
          emitForward(s, g, mb);
          break;
        case PipelinePass::Kind::Backward:
          emitBackward(s, g, mb, Part::Input);
          break;
        case PipelinePass::Kind::Weight:
          emitBackward(s, g, mb, Part::Weight);
          break;
        case PipelinePass::Kind::BackwardWeight:
          emitBackward(s, g, mb, Part::Both);
          break;
        }
      }
      emitUpdates(s);
    }
  }

  /// The model states of stage s's parameters, held all step.
  void emitModelStates(int64_t s) {
    for (OptimizerUpdateOp update : train->updates) {
      std::optional<int64_t> layer = update.getLayer();
      double part = layer ? (stageOfLayer(*layer) == s ? 1.0 : 0.0)
                          : outsideShare(s);
      if (part <= 0)
        continue;
      ModelStateBytes bytes = modelStateBytes(update, split);
      std::string prefix = groupName(layer);
      allocAll(s, MemoryKind::Weights, bytes.weights * part,
               prefix + ".weights");
      allocAll(s, MemoryKind::Gradients, bytes.gradients * part,
               prefix + ".gradients");
      allocAll(s, MemoryKind::OptimizerState, bytes.optimizerState * part,
               prefix + ".optimizer_state");
    }
  }

  /// The forward pass (F) of unit `mb` through virtual stage g, on stage
  /// s: its input from the stage before, the ops before the layers
  /// on the first, each layer keeping what its backward pass reads (in
  /// HBM, or made in HBM and copied to the host's memory after the layer:
  /// activation offload, a layer's staging waiting for the free of the one
  /// two layers before, so that HBM holds two at most when the host link
  /// falls behind), the ops after the layers through the loss on the last,
  /// its result on to the next.
  void emitForward(int64_t s, int64_t g, int64_t mb) {
    const TrainingView &t = *train;
    StageState &st = stageStates[s];
    Held &h = held[{mb, g}];
    std::string mbName = unitName(mb);
    double unitShare = shareOf(mb);
    if (g > 0)
      st.microbatchWaits.push_back(
          receiveAll(s, (g - 1) % stages, messageTag(true, mb, g),
                     boundary[g - 1] * sliceShare(mb)));
    h.outsideKept = allocAll(s, MemoryKind::Activations, outsideKept[g] * unitShare,
                             "outside.kept" + mbName, afterLast(s));
    if (g == 0)
      emitRun(s, *forwardPrologue, "prologue", -1, mb);
    ReplicaTasks freedBefore = noTasks(), freedLast = noTasks();
    for (size_t i : layersOf[g]) {
      int64_t index = LayerOp(t.layers[i]).getIndex();
      std::string prefix = "layer" + std::to_string(index);
      LayerGradOp grad = gradOf[index];
      double offloaded = double(grad.getOffloadedBytes()) * unitShare;
      h.kept[index] = allocAll(
          s, MemoryKind::Activations,
          double(grad.getKeptBytes()) * unitShare - offloaded,
          prefix + ".kept" + mbName, afterLast(s));
      SmallVector<ReplicaTasks, 3> stagingAfter = afterLast(s);
      stagingAfter.push_back(freedBefore);
      ReplicaTasks staged =
          allocAll(s, MemoryKind::Activations, offloaded,
                   prefix + ".offloaded" + mbName, stagingAfter);
      emitRun(s, forwardCosts[i], prefix, index, mb);
      h.stored[index] =
          hostStoreAll(s, staged, prefix + ".to_host" + mbName, st.last,
                       h.stagingFreed[index]);
      if (h.stagingFreed[index].front().front() != kNoTask) {
        freedBefore = freedLast;
        freedLast = h.stagingFreed[index];
      }
      emitRun(s, afterForward[i], prefix + ".after", -1, mb);
    }
    if (g + 1 == chunks)
      emitRun(s, *forwardEpilogue, "epilogue", -1, mb);
    else
      sendAll(s, (g + 1) % stages, messageTag(true, mb, g + 1),
              boundary[g] * sliceShare(mb));
  }

  /// The backward pass of unit `mb` through virtual stage g, on
  /// stage s, or its part (B or W): the gradient from the stage after
  /// (B), the gradients of the ops after the layers on the last, each
  /// layer's backward pass (offloaded values coming back one layer ahead
  /// of it, in B), the gradients of the ops before the layers on the first,
  /// the input gradient on to the stage before (B). After the weight
  /// gradients (W) the microbatch's activations are freed and, each
  /// layer's once made, its gradients reduced: each op's under ZeRO-2 and
  /// 3 (emitRun), each layer's otherwise.
  void emitBackward(int64_t s, int64_t g, int64_t mb, Part part) {
    const TrainingView &t = *train;
    StageState &st = stageStates[s];
    Held &h = held[{mb, g}];
    std::string mbName = unitName(mb);
    double unitShare = shareOf(mb);
    bool input = part != Part::Weight, weight = part != Part::Input;
    if (input && g + 1 < chunks)
      st.microbatchWaits.push_back(
          receiveAll(s, (g + 1) % stages, messageTag(false, mb, g),
                     boundary[g] * sliceShare(mb)));
    ArrayRef<size_t> grads = gradsOf[g];
    auto loadBack = [&](size_t k) {
      if (!input || k >= grads.size())
        return;
      int64_t index = LayerGradOp(t.layerGrads[grads[k]]).getIndex();
      h.loaded[index] = hostLoadAll(
          s, h.stored[index],
          "layer" + std::to_string(index) + ".from_host" + mbName,
          {st.last, h.stagingFreed[index]}, h.reloaded[index]);
    };
    loadBack(0);
    if (g + 1 == chunks)
      emitRun(s, backwardEpilogue->of(part), "epilogue.backward", -1, mb);
    for (size_t k = 0; k < grads.size(); ++k) {
      size_t i = grads[k];
      LayerGradOp grad = t.layerGrads[i];
      int64_t index = grad.getIndex();
      std::string prefix = "layer" + std::to_string(index);
      loadBack(k + 1);
      if (input) {
        h.recomputed[index] =
            allocAll(s, MemoryKind::Activations, recomputedBytes(grad) * unitShare,
                     prefix + ".recomputed" + mbName, {st.last});
        if (!h.loaded[index].empty() &&
            h.loaded[index].front().front() != kNoTask)
          st.microbatchWaits.push_back(h.loaded[index]);
      }
      emitRun(s, backwardCosts[i].of(part), prefix + ".backward", index, mb);
      emitRun(s, afterBackward[i].of(part), prefix + ".backward.after", -1,
              mb);
      if (weight) {
        freeAll(s, h.recomputed[index], {st.last});
        freeAll(s, h.kept[index], {st.last});
        freeAll(s, h.reloaded[index], {st.last});
        if (split.stage < 2)
          llvm::append_range(
              st.reduced[index],
              reduceGradients(s, whole(index).gradients,
                              train->expertGradientBytes(grad), mb, st.last)
                  .ready);
      }
    }
    if (g == 0)
      emitRun(s, backwardPrologue->of(part), "prologue.backward", -1, mb);
    if (input && g > 0)
      sendAll(s, (g - 1) % stages, messageTag(false, mb, g - 1),
              boundary[g - 1] * sliceShare(mb));
    if (!weight)
      return;
    freeAll(s, h.outsideKept, {st.last});
    // A microbatch is one iteration of the accumulation loop: its
    // reduce-scatters end before the next one runs.
    st.microbatchWaits = {st.buckets.freed, st.buckets.freedBefore};
    if (split.stage < 2 && (g == 0 || g + 1 == chunks) &&
        outsideShare(s) > 0)
      llvm::append_range(
          st.reduced[std::nullopt],
          reduceGradients(s, whole(std::nullopt).gradients * outsideShare(s),
                          0, mb, st.last)
              .ready);
    held.erase({mb, g});
  }

  /// The optimizer's updates of stage s's parameters, each once its
  /// gradients are reduced (in the order the backward pass made them);
  /// under ZeRO each chip updates its 1/fsdp of the parameters, and under
  /// ZeRO-1 and 2 the updated weights are all-gathered for the next step.
  void emitUpdates(int64_t s) {
    const TrainingView &t = *train;
    StageState &st = stageStates[s];
    SmallVector<OptimizerUpdateOp> updates;
    for (LayerGradOp grad : t.layerGrads)
      if (OptimizerUpdateOp update = t.updateOf(grad.getIndex());
          update && stageOfLayer(grad.getIndex()) == s)
        updates.push_back(update);
    if (OptimizerUpdateOp update = t.updateOf(std::nullopt);
        update && outsideShare(s) > 0)
      updates.push_back(update);
    for (OptimizerUpdateOp update : updates) {
      std::optional<int64_t> layer = update.getLayer();
      double stageShare = layer ? 1.0 : outsideShare(s);
      double part = split.statesShare() * stageShare;
      const std::vector<ReplicaTasks> &waits = st.reduced[layer];
      st.last = onReplicas([&](int64_t d) {
        return onRanks(d, s, [&](int64_t r) {
          file::Task task;
          task.kind = file::TaskKind::Compute;
          task.name = groupName(layer) + ".optimizer_update";
          task.op = update->getName().getStringRef().str();
          task.layer = layer.value_or(-1);
          SmallVector<int64_t> on{st.last[d][r]};
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
        replicaCollective(s, CollectiveKind::AllGather, ReplicaGroup::Shards,
                          whole(layer).weights * stageShare, st.last);
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
  std::optional<LayerSliceCost> forwardPrologue, forwardEpilogue;
  std::optional<BackwardRun> backwardEpilogue, backwardPrologue;
  std::vector<LayerSliceCost> forwardCosts;
  std::vector<BackwardRun> backwardCosts;
  /// The ops between one layer (layer_grad) and the next.
  std::vector<LayerSliceCost> afterForward;
  std::vector<BackwardRun> afterBackward;
  /// A microbatch's share of the batch.
  double share = 1;
  /// The token slices' lengths and first tokens (one slice of the whole
  /// sequence without TeraPipe).
  SmallVector<int64_t> sliceLengths, sliceStarts;
  int64_t slices() const { return sliceLengths.size(); }
  /// Unit u's share of its microbatch's tokens, and of the batch.
  double sliceShare(int64_t u) const {
    return double(sliceLengths[u % slices()]) / double(tokens);
  }
  double shareOf(int64_t u) const { return share * sliceShare(u); }
  /// ".mb<m>", with token slices ".mb<m>.s<i>".
  std::string unitName(int64_t u) const {
    if (slices() == 1)
      return ".mb" + std::to_string(u);
    return ".mb" + std::to_string(u / slices()) + ".s" +
           std::to_string(u % slices());
  }

  /// Per chunk, its layers (positions in train->layers) and their backward
  /// passes (positions in train->layerGrads); each layer's chunk and
  /// layer_grad by its index.
  std::vector<SmallVector<size_t>> layersOf, gradsOf;
  std::map<int64_t, int64_t> chunkOf;
  std::map<int64_t, LayerGradOp> gradOf;
  /// Per stage, its passes in order; whether B and W run apart.
  StageOrders orders;
  bool splitPasses = false;
  /// Per chunk, the bytes of its result for one microbatch, and what the
  /// ops outside the layers it runs keep for their gradients (all
  /// microbatches).
  std::vector<double> boundary, outsideKept;
  /// The messages' tags by (forward, microbatch, virtual stage into).
  std::map<std::tuple<bool, int64_t, int64_t>, int64_t> tags;

  /// FSDP's gathers, read by read across the stage's step (those a later
  /// gather may still wait for): the buffer's bytes, what the read's first
  /// task waited for besides its gather (`start`), the gather's done and
  /// the buffer's free; and the budget of the buffers (fsdpGatherBudget).
  struct GatheredRead {
    double bytes;
    ReplicaTasks start, done, freed;
  };
  double gatherBudget = 0;
  /// What is being emitted on one stage.
  struct StageState {
    /// Each chip's last task of the stage's work.
    ReplicaTasks last;
    /// What the next op emitted waits for besides the op before it.
    SmallVector<ReplicaTasks, 2> microbatchWaits;
    std::deque<GatheredRead> gatheredReads;
    /// Whether gatheredReads starts at the stage's first read.
    bool firstReadKept = true;
    /// The frees of the last two gradient buckets (ZeRO-2 and 3).
    struct {
      ReplicaTasks freed, freedBefore;
    } buckets;
    /// Per group of parameters (a layer's, or those outside the layers),
    /// the reductions its update waits for.
    std::map<std::optional<int64_t>, std::vector<ReplicaTasks>> reduced;
  };
  std::vector<StageState> stageStates;
  /// What a microbatch's pass through a virtual stage holds from its F to
  /// its W (B to W for the recomputed and reloaded values), by layer.
  struct Held {
    ReplicaTasks outsideKept;
    std::map<int64_t, ReplicaTasks> kept, stored, stagingFreed, loaded,
        reloaded, recomputed;
  };
  std::map<std::pair<int64_t, int64_t>, Held> held;
};

} // namespace

FailureOr<file::Schedule> loom::lowering::lowerTrainingStep(
    ModuleOp module, TargetAttr target, ModelView view, const CostModel &model,
    int64_t interleave, bool decompose, bool scatterHandover) {
  return TrainingLowering(module, target, std::move(view), model, interleave,
                          decompose, scatterHandover)
      .run();
}
