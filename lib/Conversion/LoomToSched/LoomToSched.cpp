//===- LoomToSched.cpp - planned loom model to per-chip programs ----------===//
//
// The pass description (Conversion/Passes.td) says what each chip runs. The
// FLOPs and bytes of each task come from LayerSliceCost, the same slice
// rescaling the planner passes price, so the simulator runs exactly the
// work the planner estimated. The lowering builds the programs as a
// schedule (loom/Schedule/Schedule.h), which the planner simulates as it
// is; the pass makes sched IR of it (sched::buildProgram).
//
//===----------------------------------------------------------------------===//

#include "loom/Conversion/Passes.h"

#include "ChipPrograms.h"

#include "loom/Dialect/Sched/ScheduleIR.h"
#include "loom/Analysis/TrainingStep.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <map>

namespace loom {
#define GEN_PASS_DEF_CONVERTLOOMTOSCHED
#include "loom/Conversion/Passes.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;
using namespace loom::sched;
using namespace loom::lowering;

namespace {

/// A stage's work, shared by all its tensor-parallel ranks.
struct StagePlan {
  SmallVector<LayerOp> layers;
  std::vector<LayerSliceCost> costs;
  double workingSet = 0;  ///< largest layer's intermediates at full length
  double boundary = 0;    ///< bytes of the last layer's results
};

/// The programs of a forward pass (inference, or a denoising step): the
/// pipeline's units through its stages.
class Lowering : public ChipPrograms {
public:
  Lowering(ModuleOp module, TargetAttr target, ModelView view,
           const CostModel &model, int64_t interleave, bool decompose,
           bool scatterHandover, int64_t stepLimit,
           ArrayRef<SequenceSlice> batch = {}, int64_t batchSequences = 1)
      : ChipPrograms(module, target, std::move(view), model),
        interleave(interleave), decompose(decompose),
        scatterHandover(scatterHandover), stepLimit(stepLimit),
        batch(batch.begin(), batch.end()), batchSequences(batchSequences) {}

  /// The program of the planned module, as a schedule; null after an
  /// error on the module.
  FailureOr<file::Schedule> run() {
    if (failed(setUp()))
      return failure();
    int64_t perStep = pipeline ? pipeline.getSlices().size() *
                                     pipeline.getMicrobatches()
                               : 1;
    if (interleave < 1)
      return module.emitError()
             << "convert-loom-to-sched: interleave must be at least 1, got "
             << interleave;
    if (interleave > perStep)
      return view.func.emitError()
             << "convert-loom-to-sched: interleave " << interleave
             << " needs at least " << interleave << " "
             << (patches() ? "patches" : "slices")
             << " to run zipped, but the plan has " << perStep
             << " (split the sequence with loom-split-tokens)";
    if (interleave > 1 && chunks > stages)
      return view.func.emitError()
             << "convert-loom-to-sched: interleave " << interleave
             << " zips units on a stage, which virtual stages (" << chunks / stages
             << " chunks a stage, run in Megatron's order) do not; give "
                "interleave 1";
    gathered = getParallelOrDefault(module).getWeightGathered();
    if (gathered && (interleave > 1 || chunks > stages || decompose))
      return view.func.emitError()
             << "convert-loom-to-sched: a weight-gathered plan runs each "
                "stage's units one after another (each layer's gather "
                "prefetched under the layer before); give interleave 1, no "
                "virtual stages and no decompose";
    if (scatterHandover) {
      if (failed(checkScatter()))
        return failure();
      scatter = true;
    }
    planStages();
    if (!batch.empty() && failed(checkBatch()))
      return failure();
    buildUnits();
    if (decompose && failed(checkDecomposition(target.getTopologyDesc())))
      return failure();

    addChips();
    if (patches())
      out.stepStarts.resize(out.chips.size());
    for (int64_t d = 0; d < dp; ++d)
      if (chunks > stages)
        emitVirtualReplica(d);
      else
        emitReplica(d);
    return std::move(out);
  }

private:
  void planStages() {
    SmallVector<GroupAxis> axes; // pricing is the simulator's job here
    // Per chunk (a layer's stage), which is the stage without virtual
    // stages.
    plans.resize(chunks);
    for (LayerOp layer : view.layers) {
      StagePlan &plan = plans[layer.getStage().value_or(0)];
      plan.layers.push_back(layer);
      plan.costs.emplace_back(layer, model, axes, tokens, ArrayRef<GroupAxis>(),
                              shares());
      plan.workingSet = std::max(
          plan.workingSet, layerFootprint(layer, staleKV()).workingSet);
    }
    for (StagePlan &plan : plans) {
      plan.boundary = 0;
      for (Value result : plan.layers.back().getResults())
        plan.boundary += getTensorBytes(result.getType());
    }
    SmallVector<Operation *> before, after;
    bool seenLayer = false;
    for (Operation &op : view.func.getBody().front()) {
      if (isa<LayerOp>(op)) {
        seenLayer = true;
        continue;
      }
      (seenLayer ? after : before).push_back(&op);
    }
    prologue.emplace(before, model, axes, tokens, ArrayRef<GroupAxis>(),
                     shares());
    epilogue.emplace(after, model, axes, tokens, ArrayRef<GroupAxis>(),
                     shares());
    output = 0;
    for (Type type : view.func.getResultTypes())
      output += getTensorBytes(type);
  }

  bool patches() const {
    return pipeline && pipeline.getMode() == PipelineMode::patches;
  }
  /// PipeFusion keeps the previous step's K/V: more than one patch a step.
  bool staleKV() const {
    return patches() && pipeline.getSlices().size() > 1;
  }
  /// The denoising steps lowered: the plan's, or its first `stepLimit`
  /// (the last of them ending the program as the plan's last step does).
  int64_t loweredSteps() const {
    int64_t steps = patches() ? std::max<int64_t>(pipeline.getSteps(), 1) : 1;
    return stepLimit > 0 ? std::min(steps, stepLimit) : steps;
  }
  /// A unit's share of the whole batch's sequence: its activations and the
  /// results it hands on.
  double shareOf(const Unit &unit) const {
    return double(unit.length) / double(tokens) / double(shares());
  }
  /// The parts the module's batch is cut into: its microbatches, or for a
  /// serving batch the module's sequences (each of the batch's is one).
  int64_t shares() const {
    return batch.empty() ? microbatches() : batchSequences;
  }

  /// The first collective that decomposes, if any: where a refusal points.
  Operation *firstDecomposed() const {
    Operation *found = nullptr;
    auto look = [&](const LayerSliceCost &cost) {
      if (found || units.empty())
        return;
      cost.forEachWork(units.front().length, 0, [&](const SliceWork &work) {
        if (!found && work.decomposed != Decomposed::None)
          found = work.collectiveOp;
      });
    };
    look(*prologue);
    for (const StagePlan &plan : plans)
      for (const LayerSliceCost &cost : plan.costs)
        look(cost);
    look(*epilogue);
    return found;
  }

  /// Decomposed collective matmuls need each tensor-parallel group to be a
  /// ring of neighbours (one hop per step) and each unit's rows to split
  /// into equal blocks, one per chip of the ring.
  LogicalResult checkDecomposition(const TopologyDesc &topology) {
    if (interleave > 1)
      return module.emitError()
             << "convert-loom-to-sched: decompose runs with interleave 1 "
                "only (units interleaved around decomposed collective "
                "matmuls are not built), got interleave "
             << interleave;
    prologue->setDecompose(true);
    epilogue->setDecompose(true);
    for (StagePlan &plan : plans)
      for (LayerSliceCost &cost : plan.costs)
        cost.setDecompose(true);
    Operation *op = firstDecomposed();
    if (!op || tp < 2)
      return success();
    auto coords = [&](int64_t id) {
      int64_t columns = topology.shape.back();
      return SmallVector<int64_t, 2>{id / columns, id % columns};
    };
    for (int64_t s = 0; s < stages; ++s)
      for (int64_t t = 0; t < tp; ++t) {
        int64_t from = chipId(0, s, t), to = chipId(0, s, (t + 1) % tp);
        int64_t hops =
            model.hops(topology.shape, coords(from), coords(to));
        if (hops != 1)
          return op->emitError()
                 << "convert-loom-to-sched: cannot decompose this collective "
                    "over its "
                 << tp << " chips: they do not form a ring of neighbours on "
                 << topology.name << " (chips " << from << " and " << to
                 << " are " << hops << " hops apart)";
      }
    // (The expert-parallel group beside tp splits the batch, not the
    // tokens.)
    int64_t rowSplit = (view.expertGroup ? 1 : sp) * tp;
    for (const Unit &unit : units)
      if (unit.length % rowSplit != 0)
        return op->emitError()
               << "convert-loom-to-sched: cannot decompose this collective "
                  "over "
               << tp << " chips: " << (patches() ? "patch " : "slice ")
               << unit.index << " has " << unit.length
               << " tokens, not a multiple of " << rowSplit
               << " (each chip's rows split into " << tp
               << " equal blocks, one per ring step)";
    return success();
  }

  /// Megatron's scatter/gather handover splits a boundary every tp rank
  /// holds whole; what holds it split already (the IR's layer results are
  /// each rank's own share) has nothing to scatter.
  LogicalResult checkScatter() {
    ParallelAttr parallel = getParallelOrDefault(module);
    auto refuse = [&](StringRef why) {
      return view.func.emitError()
             << "convert-loom-to-sched: scatter-handover splits a stage "
                "boundary that every tensor-parallel rank holds whole, but "
             << why;
    };
    if (stages < 2)
      return refuse("this plan has one stage: there is no boundary to hand "
                    "over");
    if (tp < 2)
      return refuse("this plan has no tensor parallelism (tp 1): each "
                    "stage's one rank sends its results once");
    if (view.tpX > 1)
      return refuse("a 2-D block's layer results are already split over its "
                    "tp_x rows (its boundaries are handed over as they are)");
    if (parallel.getSequenceParallel())
      return refuse("with Megatron sequence parallelism the layer results "
                    "are already split over tp along the sequence: each rank "
                    "sends its own share and no gather is needed");
    if (gathered)
      return refuse("a weight-gathered plan's ranks each hold their own "
                    "sequences' results");
    return success();
  }

  /// Bytes each rank sends of a stage boundary of `bytes`: with the
  /// scatter/gather handover 1/tp of it (Narayanan et al., SC'21, section
  /// 4.1), else all of it.
  int64_t handoverBytes(double bytes) const {
    return toInt(scatter ? bytes / tp : bytes);
  }

  /// The receives on (d, s) of a stage boundary of `bytes` from stage
  /// `from`'s ranks (tags `tag + r`); scattered, each tp group's all-gather
  /// of the whole boundary after them. Returns what each rank's unit waits
  /// for.
  Tasks receiveHandover(int64_t d, int64_t s, int64_t from, int64_t tag,
                        double bytes) {
    Tasks received = onRanks(d, s, [&](int64_t r) {
      return messageTask(file::TaskKind::Recv, chipId(d, from, r), kNoTask,
                         handoverBytes(bytes), tag + r);
    });
    if (!scatter)
      return received;
    return tensorParallelAllGather(d, s, received, bytes);
  }

  /// A serving batch runs on one stage, each layer's ops over all its
  /// sequences at once.
  LogicalResult checkBatch() {
    bool sliced = pipeline && (patches() || pipeline.getSlices().size() > 1);
    if (sliced || chunks > 1 || interleave > 1 || decompose ||
        scatterHandover || gathered)
      return view.func.emitError()
             << "convert-loom-to-sched: a serving batch is lowered on one "
                "stage of one slice, without decomposed collectives or "
                "gathered weights";
    auto supports = [](const LayerSliceCost &cost) {
      return cost.supportsBatches();
    };
    if (!supports(*prologue) || !supports(*epilogue) ||
        !llvm::all_of(plans.front().costs, supports))
      return view.func.emitError()
             << "convert-loom-to-sched: a serving batch is not lowered "
                "through ring attention";
    for (const SequenceSlice &sequence : batch) {
      if (sequence.length < 1 || sequence.context < 0)
        return view.func.emitError()
               << "convert-loom-to-sched: a sequence of a serving batch "
                  "needs at least one token and no negative context, got "
               << sequence.length << " after " << sequence.context;
      // (Its cache is the module's: a sequence of `tokens`.)
      if (sequence.length > tokens - sequence.context)
        return view.func.emitError()
               << "convert-loom-to-sched: a sequence of a serving batch "
                  "holds at most the module's "
               << tokens << " tokens, got " << sequence.length << " after "
               << sequence.context;
    }
    return success();
  }

  void buildUnits() {
    if (!batch.empty()) {
      // One unit: the batch's tokens.
      int64_t length = 0;
      for (const SequenceSlice &sequence : batch)
        length += sequence.length;
      units.push_back({0, 0, length, 0});
      return;
    }
    SmallVector<std::pair<int64_t, int64_t>> step =
        pipeline ? pipelineUnits(pipeline)
                 : SmallVector<std::pair<int64_t, int64_t>>{{tokens, 0}};
    int64_t steps = loweredSteps();
    for (int64_t t = 0; t < steps; ++t)
      for (auto [i, unit] : llvm::enumerate(step))
        units.push_back({int64_t(i), t, unit.first, unit.second});
  }

  void emitAllocations(int64_t d, int64_t s) {
    auto alloc = [&](MemoryKind what, double bytes, const std::string &name) {
      if (bytes <= 0)
        return;
      onRanks(d, s, [&](int64_t) {
        return allocTask(what, toInt(bytes), name, {});
      });
    };
    if (s == 0)
      alloc(MemoryKind::Weights, view.prologueWeights, "prologue.weights");
    // The stage holds every chunk of its own: s, s + K, ...
    for (int64_t c = s; c < chunks; c += stages)
      for (LayerOp layer : plans[c].layers) {
        LayerFootprint f = layerFootprint(layer, staleKV());
        std::string prefix = "layer" + std::to_string(layer.getIndex());
        alloc(MemoryKind::Weights, f.weights, prefix + ".weights");
        alloc(MemoryKind::KVCache, f.kvCache, prefix + ".kv");
      }
    if (s == stages - 1)
      alloc(MemoryKind::Weights, view.epilogueWeights, "epilogue.weights");
  }

  /// The work of stage (chunk) `s` on `unit`, in program order.
  std::vector<Item> stageWork(int64_t s, const Unit &unit) const {
    std::vector<Item> items;
    auto add = [&](const LayerSliceCost &cost, std::string where,
                   int64_t layer) {
      auto push = [&](const SliceWork &work) {
        items.push_back({where, layer, work});
      };
      if (batch.empty())
        cost.forEachWork(unit.length, unit.context, push);
      else
        cost.forEachBatchWork(batch, push);
    };
    if (s == 0)
      add(*prologue, "prologue", -1);
    for (auto [i, cost] : llvm::enumerate(plans[s].costs)) {
      int64_t index = LayerOp(plans[s].layers[i]).getIndex();
      add(cost, "layer" + std::to_string(index), index);
    }
    if (s == chunks - 1)
      add(*epilogue, "epilogue", -1);
    return items;
  }

  /// Room for the rest of a chip's program once its first denoising step
  /// is there (`starts`: where its steps 0 and 1 begin): each later step
  /// about as long, and one more. A program's vector that grows by
  /// doubling moves every task it holds each time (a task is about 230
  /// bytes) and touches fresh pages for it; what the estimate leaves over
  /// is never touched. Only the capacity changes, never a task.
  void reserveSteps(std::vector<file::Task> &tasks,
                    ArrayRef<int64_t> starts) const {
    size_t length = starts[1] - starts[0];
    size_t left = loweredSteps() - 1;
    // (A later replica's chip has its room already.)
    if (tasks.capacity() < tasks.size() + length * left)
      tasks.reserve(tasks.size() + length * (left + 1));
  }

  /// A later replica's chips run the first replica's programs: each is
  /// given room for the program of the first replica's chip in its place.
  void reserveLikeFirstReplica(int64_t d) {
    for (int64_t s = 0; s < stages; ++s)
      for (int64_t r = 0; r < ranks; ++r)
        programOf(d, s, r).reserve(programOf(0, s, r).size());
  }

  void emitReplica(int64_t d) {
    if (d > 0)
      reserveLikeFirstReplica(d);
    for (int64_t s = 0; s < stages; ++s)
      emitAllocations(d, s);
    // Tags of messages in flight: into stage s for the current unit, and
    // patches returning to stage 0 for the next step.
    std::map<std::pair<int64_t, int64_t>, int64_t> forward;
    std::map<int64_t, int64_t> back; // patch -> tag (per rank: tag + r)
    int64_t warmup = patches() ? pipeline.getWarmup() : 0;
    int64_t patchCount = pipeline ? pipeline.getSlices().size() : 1;
    // Per stage, slot of a group and rank, the free of the previous group's
    // activations: a stage holds one group's units at a time.
    SmallVector<SmallVector<Tasks>> released(
        stages, SmallVector<Tasks>(interleave, Tasks(ranks, kNoTask)));
    for (size_t first = 0; first < units.size();) {
      // Up to `interleave` consecutive units of one step run zipped.
      size_t end = first;
      while (end < units.size() && int64_t(end - first) < interleave &&
             units[end].step == units[first].step)
        ++end;
      ArrayRef<Unit> group(units.begin() + first, units.begin() + end);
      first = end;
      for (int64_t s = 0; s < stages; ++s) {
        const StagePlan &plan = plans[s];
        // Where each chip's share of a denoising step begins.
        if (patches() && group.front().index == 0)
          for (int64_t r = 0; r < ranks; ++r) {
            size_t c = slot.find(chipId(d, s, r))->second;
            std::vector<file::Task> &tasks = out.chips[c].tasks;
            out.stepStarts[c].push_back(tasks.size());
            if (group.front().step == 1)
              reserveSteps(tasks, out.stepStarts[c]);
          }
        SmallVector<Tasks> acts, lasts;
        std::vector<std::vector<Item>> work;
        for (auto [k, unit] : llvm::enumerate(group)) {
          double fraction = shareOf(unit);
          // What each rank's unit waits for before it starts.
          SmallVector<SmallVector<int64_t, 2>> ready(ranks);
          auto waitFor = [&](ArrayRef<int64_t> received) {
            for (auto [r, value] : llvm::enumerate(received))
              ready[r].push_back(value);
          };
          if (s > 0) {
            waitFor(receiveHandover(d, s, s - 1, forward[{s, unit.index}],
                                    plans[s - 1].boundary * fraction));
          } else if (unit.step > 0 && stages > 1) {
            // The patch's previous-step output comes back from the last
            // stage; during warm-up the whole previous step must be back.
            // (Later patches of a warm-up step follow the first in program
            // order, so only the first waits.)
            bool barrier = unit.step - 1 < warmup;
            SmallVector<int64_t> patchesBack;
            if (!barrier)
              patchesBack.push_back(unit.index);
            else if (unit.index == 0)
              for (int64_t p = 0; p < patchCount; ++p)
                patchesBack.push_back(p);
            int64_t bytes = toInt(output * fraction);
            for (int64_t p : patchesBack) {
              int64_t tag = back[p];
              waitFor(onRanks(d, 0, [&](int64_t r) {
                return messageTask(file::TaskKind::Recv,
                                   chipId(d, stages - 1, r), kNoTask, bytes,
                                   tag + r);
              }));
            }
          }
          int64_t actBytes = toInt(plan.workingSet * fraction);
          acts.push_back(onRanks(d, s, [&](int64_t r) {
            SmallVector<int64_t, 2> deps = ready[r];
            deps.push_back(released[s][k][r]);
            return allocTask(MemoryKind::Activations, actBytes,
                             "slice" + std::to_string(unit.index) +
                                 ".activations",
                             deps);
          }));
          lasts.push_back(acts.back());
          work.push_back(stageWork(s, unit));
        }
        // The units' ops zipped: while one unit's collective runs, the
        // TensorCore computes the same op of the others (docs/overlap.md).
        if (gathered)
          lasts[0] = emitGathered(d, s, work[0], group[0], lasts[0]);
        else
          for (size_t i = 0; i < work.front().size(); ++i)
            for (auto [k, unit] : llvm::enumerate(group))
              lasts[k] = emitItem(d, s, work[k][i], unit, lasts[k]);
        for (auto [k, unit] : llvm::enumerate(group)) {
          double fraction = shareOf(unit);
          // The activations are released when the unit's work is done; its
          // result leaves by a send that needs no more than that.
          Tasks computed = lasts[k], last = lasts[k];
          bool lastStep = !patches() || unit.step == loweredSteps() - 1;
          if (s + 1 < stages || (!lastStep && stages > 1)) {
            bool wrap = s + 1 == stages;
            int64_t tag = nextTag;
            nextTag += ranks;
            int64_t to = wrap ? 0 : s + 1;
            // A patch's return to the first stage goes whole.
            int64_t bytes = wrap ? toInt(output * fraction)
                                 : handoverBytes(plan.boundary * fraction);
            last = onRanks(d, s, [&](int64_t r) {
              return messageTask(file::TaskKind::Send, chipId(d, to, r),
                                 last[r], bytes, tag + r);
            });
            if (wrap)
              back[unit.index] = tag;
            else
              forward[{s + 1, unit.index}] = tag;
          }
          released[s][k] = onRanks(d, s, [&](int64_t r) {
            file::Task t;
            t.kind = file::TaskKind::Free;
            t.alloc = acts[k][r];
            t.deps = depsOf({computed[r]});
            return t;
          });
        }
      }
    }
  }

  /// A weight-gathered stage's unit (Pope et al. 2023, section 3.2.3):
  /// layer i's weights are all-gathered over the stage's tp chips into a
  /// buffer of their own, prefetched: the gather of layer i + 1 starts as
  /// layer i does (once layer i - 1 is done and its buffer released, and
  /// layer i's gather is done), so at most two layers' buffers are live.
  /// The first gather starts with the unit, beside the ops before the
  /// layers. weightGatheredSeconds prices this closed form.
  Tasks emitGathered(int64_t d, int64_t s, ArrayRef<Item> items,
                     const Unit &unit, Tasks last) {
    const StagePlan &plan = plans[s];
    int64_t n = plan.layers.size();
    SmallVector<Tasks> allocs(n, Tasks(ranks, kNoTask)),
        done(n, Tasks(ranks, kNoTask)), freed(n, Tasks(ranks, kNoTask));
    // Layer i's gather after `deps` (its buffer first).
    auto gather = [&](int64_t i, ArrayRef<ArrayRef<int64_t>> deps) {
      double bytes = plan.costs[i].getGatherBytes();
      if (bytes <= 0)
        return;
      std::string name = "layer" +
                         std::to_string(LayerOp(plan.layers[i]).getIndex()) +
                         ".gathered_weights";
      allocs[i] = onRanks(d, s, [&](int64_t r) {
        SmallVector<int64_t, 3> on;
        for (ArrayRef<int64_t> dep : deps)
          on.push_back(dep[r]);
        return allocTask(MemoryKind::Weights, toInt(bytes), name, on);
      });
      done[i] = tensorParallelAllGather(d, s, allocs[i], bytes);
    };
    std::map<int64_t, int64_t> position;
    for (auto [i, layer] : llvm::enumerate(plan.layers))
      position[LayerOp(layer).getIndex()] = i;
    gather(0, {last});
    // The end of the layer before (of the ops before the layers for the
    // first).
    Tasks before = last;
    int64_t current = -1;
    for (const Item &item : items) {
      int64_t i = item.layer >= 0 ? position[item.layer] : -1;
      if (i != current && current >= 0) {
        // Layer `current` is done: release its buffer.
        if (allocs[current].front() != kNoTask)
          freed[current] = onRanks(d, s, [&](int64_t r) {
            file::Task t;
            t.kind = file::TaskKind::Free;
            t.alloc = allocs[current][r];
            t.deps = depsOf({last[r]});
            return t;
          });
      }
      if (i >= 0 && i != current) {
        // Layer i starts: prefetch layer i + 1 into the other buffer.
        before = last;
        if (i + 1 < n)
          gather(i + 1, {done[i], before,
                         i > 0 ? ArrayRef<int64_t>(freed[i - 1]) : before});
        Tasks first = emitItem(d, s, item, unit, last);
        addDeps(d, s, first, done[i]);
        last = first;
        current = i;
        continue;
      }
      if (i < 0 && item.layer < 0 && current >= 0)
        current = -1;
      last = emitItem(d, s, item, unit, last);
    }
    if (current >= 0 && allocs[current].front() != kNoTask)
      onRanks(d, s, [&](int64_t r) {
        file::Task t;
        t.kind = file::TaskKind::Free;
        t.alloc = allocs[current][r];
        t.deps = depsOf({last[r]});
        return t;
      });
    return last;
  }

  /// Interleaved stages (Narayanan et al., SC'21, section 2.2.2): chunk c
  /// runs on stage c mod K. Each stage takes the units in groups of K and,
  /// per group, its first chunk for every unit of the group, then its
  /// second, and so on (Megatron's order); a unit's result goes to the
  /// stage of its next chunk, from the last stage round to the first.
  void emitVirtualReplica(int64_t d) {
    if (d > 0)
      reserveLikeFirstReplica(d);
    for (int64_t s = 0; s < stages; ++s)
      emitAllocations(d, s);
    std::map<std::pair<int64_t, int64_t>, int64_t> forward;
    // Per stage, the free of the previous unit's activations.
    SmallVector<Tasks> released(stages, Tasks(ranks, kNoTask));
    int64_t rounds = chunks / stages;
    for (size_t first = 0; first < units.size(); first += stages) {
      ArrayRef<Unit> group(units.begin() + first,
                           units.begin() +
                               std::min(units.size(), first + stages));
      for (int64_t j = 0; j < rounds; ++j)
        for (int64_t s = 0; s < stages; ++s)
          for (const Unit &unit : group)
            emitChunk(d, s, j * stages + s, unit, forward, released[s]);
    }
  }

  /// Chunk `c` of `unit` on stage `s` of replica `d`: its input from the
  /// stage of chunk c - 1, its work, its result on to the stage of c + 1.
  void emitChunk(int64_t d, int64_t s, int64_t c, const Unit &unit,
                 std::map<std::pair<int64_t, int64_t>, int64_t> &forward,
                 Tasks &released) {
    double fraction = shareOf(unit);
    Tasks received(ranks, kNoTask);
    if (c > 0)
      received = receiveHandover(d, s, (c - 1) % stages,
                                 forward[{c, unit.index}],
                                 plans[c - 1].boundary * fraction);
    int64_t actBytes = toInt(plans[c].workingSet * fraction);
    Tasks acts = onRanks(d, s, [&](int64_t r) {
      return allocTask(MemoryKind::Activations, actBytes,
                       "slice" + std::to_string(unit.index) + ".chunk" +
                           std::to_string(c) + ".activations",
                       {received[r], released[r]});
    });
    Tasks last = acts;
    for (const Item &item : stageWork(c, unit))
      last = emitItem(d, s, item, unit, last);
    Tasks computed = last;
    if (c + 1 < chunks) {
      int64_t tag = nextTag;
      nextTag += ranks;
      int64_t to = (c + 1) % stages;
      int64_t bytes = handoverBytes(plans[c].boundary * fraction);
      onRanks(d, s, [&](int64_t r) {
        return messageTask(file::TaskKind::Send, chipId(d, to, r), last[r],
                           bytes, tag + r);
      });
      forward[{c + 1, unit.index}] = tag;
    }
    released = onRanks(d, s, [&](int64_t r) {
      file::Task t;
      t.kind = file::TaskKind::Free;
      t.alloc = acts[r];
      t.deps = depsOf({computed[r]});
      return t;
    });
  }

  int64_t interleave;
  bool decompose;
  /// Megatron's scatter/gather handover asked for, and in force (a
  /// pipeline's boundaries to hand over).
  bool scatterHandover, scatter = false;
  /// Lower only the first this many denoising steps (0: all).
  int64_t stepLimit = 0;
  /// A serving iteration's sequences (none: the plan's units), each one of
  /// the module's `batchSequences`.
  SmallVector<SequenceSlice> batch;
  int64_t batchSequences = 1;
  /// Weight-gathered (#loom.parallel's weight_gathered).
  bool gathered = false;
  double output = 0;
  SmallVector<StagePlan> plans;
  std::optional<LayerSliceCost> prologue, epilogue;
  SmallVector<Unit> units;
};

} // namespace

FailureOr<file::Schedule> loom::lowerToScheduleFile(ModuleOp module,
                                                    ModelAnalysis &analysis,
                                                    int64_t interleave,
                                                    bool decompose,
                                                    bool scatterHandover,
                                                    int64_t stepLimit) {
  if (failed(analysis.requireModel("convert-loom-to-sched")))
    return failure();
  if (isTrainingStep(analysis.getView().func))
    return lowerTrainingStep(module, analysis.getTarget(), analysis.getView(),
                             analysis.getCostModel(), interleave, decompose,
                             scatterHandover);
  return Lowering(module, analysis.getTarget(), analysis.getView(),
                  analysis.getCostModel(), interleave, decompose,
                  scatterHandover, stepLimit)
      .run();
}

FailureOr<file::Schedule> loom::lowerToScheduleFile(ModuleOp module,
                                                    int64_t interleave,
                                                    bool decompose,
                                                    bool scatterHandover,
                                                    int64_t stepLimit) {
  ModelAnalysis analysis(module);
  return lowerToScheduleFile(module, analysis, interleave, decompose,
                             scatterHandover, stepLimit);
}

FailureOr<file::Schedule>
loom::lowerBatchToScheduleFile(ModuleOp module, ModelAnalysis &analysis,
                               ArrayRef<SequenceSlice> sequences) {
  if (failed(analysis.requireModel("convert-loom-to-sched")))
    return failure();
  const ModelView &view = analysis.getView();
  func::FuncOp func = view.func;
  if (isTrainingStep(func))
    return func.emitError() << "convert-loom-to-sched: a serving batch is a "
                               "forward pass, not a training step";
  if (sequences.empty())
    return func.emitError()
           << "convert-loom-to-sched: a serving batch needs a sequence";
  // Each of the batch's sequences is one of the module's.
  return Lowering(module, analysis.getTarget(), view, analysis.getCostModel(),
                  /*interleave=*/1, /*decompose=*/false,
                  /*scatterHandover=*/false, /*stepLimit=*/0, sequences,
                  getPipelineBatch(func))
      .run();
}

FailureOr<file::Schedule>
loom::lowerBatchToScheduleFile(ModuleOp module,
                               ArrayRef<SequenceSlice> sequences) {
  ModelAnalysis analysis(module);
  return lowerBatchToScheduleFile(module, analysis, sequences);
}

/// Replaces the model function of `module` with `schedule` as sched IR.
static LogicalResult buildFrom(ModuleOp module, ModelAnalysis &analysis,
                               FailureOr<file::Schedule> schedule) {
  if (failed(schedule))
    return failure();
  func::FuncOp func = analysis.getView().func;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  buildProgram(b, func.getLoc(), analysis.getTarget(), *schedule);
  func.erase();
  return success();
}

LogicalResult loom::lowerToSchedule(ModuleOp module, ModelAnalysis &analysis,
                                    int64_t interleave, bool decompose,
                                    bool scatterHandover) {
  return buildFrom(module, analysis,
                   lowerToScheduleFile(module, analysis, interleave, decompose,
                                       scatterHandover));
}

LogicalResult loom::lowerToSchedule(ModuleOp module, int64_t interleave,
                                    bool decompose, bool scatterHandover) {
  // Called outside a pass manager, nothing has loaded the dialect the
  // lowering builds (the pass declares it as a dependent dialect).
  module.getContext()->getOrLoadDialect<sched::SchedDialect>();
  ModelAnalysis analysis(module);
  return lowerToSchedule(module, analysis, interleave, decompose,
                         scatterHandover);
}

namespace {
struct ConvertLoomToSchedPass
    : public loom::impl::ConvertLoomToSchedBase<ConvertLoomToSchedPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    ModelAnalysis &analysis = getAnalysis<ModelAnalysis>();
    LogicalResult lowered =
        servingBatch.empty()
            ? lowerToSchedule(module, analysis, interleave, decompose,
                              scatterHandover)
            : lowerBatch(module, analysis);
    if (failed(lowered))
      signalPassFailure();
  }

  /// serving-batch: its sequences, `length@context` each (`length` alone
  /// after no context).
  LogicalResult lowerBatch(ModuleOp module, ModelAnalysis &analysis) {
    if (interleave != 1 || decompose || scatterHandover)
      return module.emitError()
             << "convert-loom-to-sched: serving-batch lowers one step of "
                "its sequences; give no interleave, decompose or "
                "scatter-handover";
    SmallVector<SequenceSlice> sequences;
    for (StringRef item : servingBatch) {
      auto [length, context] = item.split('@');
      SequenceSlice sequence;
      if (length.trim().getAsInteger(10, sequence.length) ||
          (!context.empty() &&
           context.trim().getAsInteger(10, sequence.context)) ||
          (item.contains('@') && context.trim().empty()))
        return module.emitError()
               << "convert-loom-to-sched: serving-batch expects sequences "
                  "as length@context (tokens after cached tokens), got '"
               << item << "'";
      sequences.push_back(sequence);
    }
    return buildFrom(module, analysis,
                     lowerBatchToScheduleFile(module, analysis, sequences));
  }
};
} // namespace

