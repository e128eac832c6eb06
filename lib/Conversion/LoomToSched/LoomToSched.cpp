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

#include "loom/Dialect/Loom/ModuleTarget.h"
#include "loom/Dialect/Sched/ScheduleIR.h"
#include "loom/Hardware/DeviceMesh.h"
#include "loom/Analysis/StageCost.h"
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
namespace file = loom::schedule;

namespace {

int64_t toInt(double value) { return static_cast<int64_t>(std::llround(value)); }

/// "layer3.linear.q": where a compute task came from.
std::string taskName(StringRef where, Operation *op) {
  std::string name = (where + "." + op->getName().stripDialect()).str();
  // A gradient part is named by its part and the op it differentiates:
  // "layer3.grad.weight.linear.q".
  if (auto grad = dyn_cast<GradOp>(op)) {
    name += "." + stringifyGradientPart(grad.getPart()).str();
    if (Operation *forward = grad.getForward().getDefiningOp())
      return taskName(name, forward);
  }
  if (auto linear = dyn_cast<LinearOp>(op))
    name += "." + stringifyLinearRole(linear.getRole()).str();
  return name;
}

/// One work unit flowing through the pipeline: a token slice, or a patch of
/// a denoising step.
struct Unit {
  /// The slice or patch; a slice of a later microbatch counts on from the
  /// slices of the ones before it (the n-th slice the pipeline runs).
  int64_t index;
  int64_t step;    ///< diffusion step (0 for tokens)
  int64_t length;  ///< tokens
  int64_t context; ///< tokens before it that it attends to causally
};

/// A stage's work, shared by all its tensor-parallel ranks.
struct StagePlan {
  SmallVector<LayerOp> layers;
  std::vector<LayerSliceCost> costs;
  double workingSet = 0;  ///< largest layer's intermediates at full length
  double boundary = 0;    ///< bytes of the last layer's results
};

/// Each rank's task, by its index in its chip's program.
using Tasks = SmallVector<int64_t, 8>;
/// No task: a dependency that is not there.
constexpr int64_t kNoTask = -1;

/// The dependencies among `tasks` that are there, in order.
SmallVector<int64_t, 2> depsOf(ArrayRef<int64_t> tasks) {
  SmallVector<int64_t, 2> deps;
  for (int64_t t : tasks)
    if (t != kNoTask)
      deps.push_back(t);
  return deps;
}

file::Task allocTask(MemoryKind what, int64_t bytes, std::string name,
                     ArrayRef<int64_t> deps) {
  file::Task t;
  t.kind = file::TaskKind::Alloc;
  t.what = what;
  t.bytes = bytes;
  t.name = std::move(name);
  t.deps = depsOf(deps);
  return t;
}

/// A send (to `peer`, after `dep`) or a receive (from `peer`).
file::Task messageTask(file::TaskKind kind, int64_t peer, int64_t dep,
                       int64_t bytes, int64_t tag) {
  file::Task t;
  t.kind = kind;
  t.peer = peer;
  t.deps = depsOf({dep});
  t.bytes = bytes;
  t.tag = tag;
  return t;
}

class Lowering {
public:
  Lowering(ModuleOp module, TargetAttr target, ModelView view,
           const CostModel &model, int64_t interleave, bool decompose,
           bool scatterHandover, int64_t stepLimit)
      : module(module), target(target), view(std::move(view)), model(model),
        interleave(interleave), decompose(decompose),
        scatterHandover(scatterHandover), stepLimit(stepLimit) {}

  /// The program of the planned module, as a schedule; null after an
  /// error on the module.
  FailureOr<file::Schedule> run() {
    const TargetDesc &desc = model.getTarget();
    const TopologyDesc topology = target.getTopologyDesc();
    tp = view.tp;
    sp = view.sp;
    // A stage's ranks: r = u * tp + t (sequence rank u, tensor rank t).
    ranks = view.chipsPerStage();
    dp = getParallelOrDefault(module).getDp();
    pipeline = getPipeline(view.func);
    stages = pipeline ? pipeline.getStages() : 1;
    chunks = pipeline ? pipeline.getChunks() : 1;
    int64_t perReplica = (Count(ranks) * stages).get();
    if (topology.numChips() % perReplica != 0 ||
        (Count(dp) * perReplica).get() > topology.numChips())
      return module.emitError()
             << "tensor-parallel " << ranks << " x stages " << stages
             << " x data-parallel " << dp << " does not lay out on "
             << topology.name << " (" << topology.numChips()
             << " chips): replicas of tp x stages chips must tile it";
    MeshShape meshShape{topology.numChips() / perReplica, stages, tp, sp};
    meshShape.expertGroup = view.expertGroup;
    // A 2-D group's block has its tp_x rows.
    if (view.tpX > 1)
      meshShape.tensorRows = view.tpX;
    // The chips of each group: the module's loom.placement, or the default
    // rule (the cost model prices the same one).
    auto built = DeviceMesh::build(desc, topology, meshShape,
                                   getPlacementOrDefault(module));
    if (!built)
      return module.emitError() << llvm::toString(built.takeError());
    mesh.emplace(std::move(*built));

    tokens = getPipelineTokens(view.func);
    if (isTrainingStep(view.func))
      return runTraining();
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
    buildUnits();
    if (decompose && failed(checkDecomposition(topology)))
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
  int64_t chipId(int64_t d, int64_t s, int64_t r) const {
    return mesh->chipId(mesh->chip(d, s, r));
  }

  /// Starts the schedule with every chip of the plan, in id order, so the
  /// program reads and serialises stably.
  void addChips() {
    out = emptySchedule(target);
    std::map<int64_t, size_t> chips;
    for (int64_t d = 0; d < dp; ++d)
      for (int64_t s = 0; s < stages; ++s)
        for (int64_t r = 0; r < ranks; ++r)
          chips[chipId(d, s, r)];
    for (auto &[id, slot] : chips) {
      slot = out.chips.size();
      out.chips.emplace_back().id = id;
      this->slot[id] = slot;
    }
  }

  void planStages() {
    SmallVector<GroupAxis> axes; // pricing is the simulator's job here
    // Per chunk (a layer's stage), which is the stage without virtual
    // stages.
    plans.resize(chunks);
    for (LayerOp layer : view.layers) {
      StagePlan &plan = plans[layer.getStage().value_or(0)];
      plan.layers.push_back(layer);
      plan.costs.emplace_back(layer, model, axes, tokens, ArrayRef<GroupAxis>(),
                              microbatches());
      plan.workingSet = std::max(
          plan.workingSet, layerFootprint(layer, patches()).workingSet);
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
                     microbatches());
    epilogue.emplace(after, model, axes, tokens, ArrayRef<GroupAxis>(),
                     microbatches());
    output = 0;
    for (Type type : view.func.getResultTypes())
      output += getTensorBytes(type);
  }

  bool patches() const {
    return pipeline && pipeline.getMode() == PipelineMode::patches;
  }
  /// The denoising steps lowered: the plan's, or its first `stepLimit`
  /// (the last of them ending the program as the plan's last step does).
  int64_t loweredSteps() const {
    int64_t steps = patches() ? std::max<int64_t>(pipeline.getSteps(), 1) : 1;
    return stepLimit > 0 ? std::min(steps, stepLimit) : steps;
  }
  int64_t microbatches() const {
    return pipeline ? pipeline.getMicrobatches() : 1;
  }
  /// A unit's share of the whole batch's sequence: its activations and the
  /// results it hands on.
  double shareOf(const Unit &unit) const {
    return double(unit.length) / double(tokens) / double(microbatches());
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

  void buildUnits() {
    SmallVector<std::pair<int64_t, int64_t>> step =
        pipeline ? pipelineUnits(pipeline)
                 : SmallVector<std::pair<int64_t, int64_t>>{{tokens, 0}};
    int64_t steps = loweredSteps();
    for (int64_t t = 0; t < steps; ++t)
      for (auto [i, unit] : llvm::enumerate(step))
        units.push_back({int64_t(i), t, unit.first, unit.second});
  }

  /// Appends the task `fn(rank)` to every rank of (d, s); returns their
  /// indices.
  template <typename Fn>
  Tasks onRanks(int64_t d, int64_t s, Fn fn) {
    Tasks done;
    for (int64_t r = 0; r < ranks; ++r) {
      std::vector<file::Task> &tasks =
          out.chips[slot.find(chipId(d, s, r))->second].tasks;
      tasks.push_back(fn(r));
      done.push_back(tasks.size() - 1);
    }
    return done;
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
        LayerFootprint f = layerFootprint(layer, patches());
        std::string prefix = "layer" + std::to_string(layer.getIndex());
        alloc(MemoryKind::Weights, f.weights, prefix + ".weights");
        alloc(MemoryKind::KVCache, f.kvCache, prefix + ".kv");
      }
    if (s == stages - 1)
      alloc(MemoryKind::Weights, view.epilogueWeights, "epilogue.weights");
  }

  /// One op's work on one unit, and where it came from.
  struct Item {
    std::string where;
    int64_t layer;
    SliceWork work;
  };

  /// The work of stage (chunk) `s` on `unit`, in program order.
  std::vector<Item> stageWork(int64_t s, const Unit &unit) const {
    std::vector<Item> items;
    auto add = [&](const LayerSliceCost &cost, std::string where,
                   int64_t layer) {
      cost.forEachWork(unit.length, unit.context, [&](const SliceWork &work) {
        items.push_back({where, layer, work});
      });
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

  /// The task of `item` on `unit` on every rank of (d, s), after `last`;
  /// returns the new last tokens.
  Tasks emitItem(int64_t d, int64_t s, const Item &item, const Unit &unit,
                 ArrayRef<int64_t> last) {
    const SliceWork &work = item.work;
    // A collective runs in each of the stage's tensor-parallel groups (the
    // tp ranks of one sequence rank) or sequence-parallel groups (the sp
    // ranks of one tensor rank), one tag per group.
    auto members = [&](int64_t r) {
      SmallVector<int64_t> chips;
      if (work.subAxis >= 0 && view.tpX > 1) {
        // One column (tp_x) or row (tp_y) of the 2-D block, in order.
        for (int64_t m : mesh->tensorParallelSubGroup(r, work.subAxis))
          chips.push_back(chipId(d, s, m));
        return chips;
      }
      if (work.sequenceGroup)
        for (int64_t u = 0; u < sp; ++u)
          chips.push_back(chipId(d, s, u * tp + r % tp));
      else
        for (int64_t t = 0; t < tp; ++t)
          chips.push_back(chipId(d, s, r / tp * tp + t));
      return chips;
    };
    int64_t tag = 0;
    // A 2-D group's sub-groups are told apart by their first member.
    bool subGroup = work.subAxis >= 0 && view.tpX > 1;
    if (work.collective) {
      tag = nextTag;
      nextTag += subGroup ? ranks : work.sequenceGroup ? tp : sp;
    }
    std::string name = taskName(item.where, work.op);
    for (Operation *fused : work.fused)
      name += "+" + fused->getName().stripDialect().str();
    StringRef opName = work.op->getName().getStringRef();
    auto compute = [&](const SliceWork &w, std::string taskName, StringRef op,
                       ArrayRef<int64_t> deps) {
      file::Task t;
      t.kind = file::TaskKind::Compute;
      t.name = std::move(taskName);
      t.deps = depsOf(deps);
      t.flops = toInt(w.flops);
      t.bytes = toInt(w.bytes);
      t.op = op.str();
      t.layer = item.layer;
      t.slice = unit.index;
      t.step = unit.step;
      t.bits = w.elementBits;
      t.vectorOps = toInt(w.vectorOps);
      t.steps = w.steps;
      return t;
    };
    if (work.decomposed != Decomposed::None)
      return emitDecomposed(d, s, item, unit, last, compute);
    if (work.collective) {
      // A collective is asynchronous: its start, then its done, which the
      // unit's next task waits for; the TensorCore goes on meanwhile with
      // the compute tasks emitted after it (another unit's, interleaved).
      Tasks starts = onRanks(d, s, [&](int64_t r) {
        file::Task t;
        t.kind = file::TaskKind::Collective;
        t.collective = work.kind;
        t.deps = depsOf({last[r]});
        SmallVector<int64_t> chips = members(r);
        t.group.assign(chips.begin(), chips.end());
        t.bytes = toInt(work.bytes);
        t.tag = tag + (subGroup ? mesh->tensorParallelSubGroup(
                                      r, work.subAxis).front()
                       : work.sequenceGroup ? r % tp
                                            : r / tp);
        return t;
      });
      return onRanks(d, s, [&](int64_t r) {
        file::Task t;
        t.kind = file::TaskKind::CollectiveDone;
        t.start = starts[r];
        return t;
      });
    }
    if (work.ringSteps > 1)
      return emitRing(d, s, item, unit, name, last);
    return onRanks(d, s, [&](int64_t r) {
      return compute(work, name, opName, {last[r]});
    });
  }

  /// A matmul and its collective as ring steps (docs/overlap.md): n
  /// partial matmuls of 1/n of the rows and, per step, half a block to
  /// each ring neighbour (send / recv). Reduce-scatter: partial k's sum,
  /// plus the one received at step k - 1, goes on at step k; all-gather:
  /// each block received is forwarded and multiplied. An all-reduce's
  /// all-gather half follows as a collective.
  template <typename ComputeFn>
  Tasks emitDecomposed(int64_t d, int64_t s, const Item &item,
                       const Unit &unit, ArrayRef<int64_t> last,
                       ComputeFn compute) {
    const SliceWork &work = item.work;
    DecomposedParts parts = decomposeParts(work);
    int64_t n = tp;
    auto neighbour = [&](int64_t r, int64_t by) {
      return chipId(d, s, r / tp * tp + (r % tp + by + n) % n);
    };
    int64_t tagBase = nextTag;
    nextTag += 2 * (n - 1);
    int64_t bytes = toInt(parts.messageBytes);
    // Step k's message to the next rank (dir 0) or the previous (dir 1).
    auto sends = [&](int64_t k, ArrayRef<int64_t> after0,
                     ArrayRef<int64_t> after1) {
      onRanks(d, s, [&](int64_t r) {
        return messageTask(file::TaskKind::Send, neighbour(r, 1), after0[r],
                           bytes, tagBase + 2 * k);
      });
      if (parts.bothWays)
        onRanks(d, s, [&](int64_t r) {
          return messageTask(file::TaskKind::Send, neighbour(r, -1),
                             after1[r], bytes, tagBase + 2 * k + 1);
        });
    };
    // What arrives at step k from the previous rank and, both ways, the
    // next.
    auto receives = [&](int64_t k, Tasks &from0, Tasks &from1) {
      from0 = onRanks(d, s, [&](int64_t r) {
        return messageTask(file::TaskKind::Recv, neighbour(r, -1), kNoTask,
                           bytes, tagBase + 2 * k);
      });
      from1 = parts.bothWays
                  ? onRanks(d, s, [&](int64_t r) {
                      return messageTask(file::TaskKind::Recv,
                                         neighbour(r, 1), kNoTask, bytes,
                                         tagBase + 2 * k + 1);
                    })
                  : Tasks(ranks, kNoTask);
    };
    // Step k's partial matmuls, the first after `deps`, each after the
    // one before.
    auto partial = [&](int64_t k, auto deps) {
      Tasks done;
      for (auto [j, part] : llvm::enumerate(parts.partials)) {
        std::string partName = taskName(item.where, part.op);
        for (Operation *fused : part.fused)
          partName += "+" + fused->getName().stripDialect().str();
        partName += ".part" + std::to_string(k);
        StringRef opName = part.op->getName().getStringRef();
        Tasks before = done;
        done = onRanks(d, s, [&](int64_t r) {
          return compute(part, partName, opName,
                         j == 0 ? deps(r) : SmallVector<int64_t, 3>{before[r]});
        });
      }
      return done;
    };
    if (work.decomposed == Decomposed::AllGather) {
      sends(0, last, last);
      Tasks p = partial(0, [&](int64_t r) {
        return SmallVector<int64_t, 3>{last[r]};
      });
      for (int64_t k = 1; k < n; ++k) {
        Tasks from0, from1;
        receives(k - 1, from0, from1);
        if (k + 1 < n)
          sends(k, from0, from1);
        p = partial(k, [&](int64_t r) {
          return SmallVector<int64_t, 3>{p[r], from0[r], from1[r]};
        });
      }
      return p;
    }
    Tasks p = partial(0, [&](int64_t r) {
      return SmallVector<int64_t, 3>{last[r]};
    });
    sends(0, p, p);
    Tasks acc = p;
    std::string collectiveName =
        taskName(item.where, work.collectiveOp) + ".accumulate";
    StringRef collectiveOpName = work.collectiveOp->getName().getStringRef();
    for (int64_t k = 1; k < n; ++k) {
      p = partial(k, [&](int64_t r) {
        return SmallVector<int64_t, 3>{p[r]};
      });
      Tasks from0, from1;
      receives(k - 1, from0, from1);
      acc = onRanks(d, s, [&](int64_t r) {
        return compute(parts.accumulate, collectiveName + std::to_string(k),
                       collectiveOpName, {p[r], from0[r], from1[r]});
      });
      if (k + 1 < n)
        sends(k, acc, acc);
    }
    if (work.decomposed == Decomposed::ReduceScatter)
      return acc;
    // The all-reduce's all-gather half: the next op (a residual add, a
    // norm) is no matmul to hide it under.
    return tensorParallelAllGather(d, s, acc, work.collectiveBytes);
  }

  /// An all-gather of `bytes` over each tp group of stage `s`, each rank's
  /// start after `after`; returns the ranks' done tasks.
  Tasks tensorParallelAllGather(int64_t d, int64_t s, ArrayRef<int64_t> after,
                                double bytes) {
    int64_t tag = nextTag;
    nextTag += sp;
    Tasks starts = onRanks(d, s, [&](int64_t r) {
      file::Task t;
      t.kind = file::TaskKind::Collective;
      t.collective = CollectiveKind::AllGather;
      t.deps = depsOf({after[r]});
      for (int64_t m = 0; m < tp; ++m)
        t.group.push_back(chipId(d, s, r / tp * tp + m));
      t.bytes = toInt(bytes);
      t.tag = tag + r / tp;
      return t;
    });
    return onRanks(d, s, [&](int64_t r) {
      file::Task t;
      t.kind = file::TaskKind::CollectiveDone;
      t.start = starts[r];
      return t;
    });
  }

  /// Ring attention (Liu et al. 2023): `ringSteps` compute blocks, each an
  /// equal share of the work; before block j each rank sends the K/V block
  /// it holds to the next rank of its sp group (once its previous send is
  /// done) and receives the previous rank's (messages, beside the
  /// TensorCore), and block j + 1 waits for that block.
  /// LayerSliceCost::computeSeconds prices this closed form.
  Tasks emitRing(int64_t d, int64_t s, const Item &item, const Unit &unit,
                 const std::string &name, ArrayRef<int64_t> last) {
    const SliceWork &work = item.work;
    int64_t n = work.ringSteps;
    auto peer = [&](int64_t r, int64_t shift) {
      int64_t u = r / tp, t = r % tp;
      return chipId(d, s, (u + shift + sp) % sp * tp + t);
    };
    Tasks prev(last.begin(), last.end()), received(ranks, kNoTask),
        sent(ranks, kNoTask);
    int64_t blockSteps =
        std::max<int64_t>(std::llround(double(work.steps) / n), 1);
    for (int64_t j = 0; j < n; ++j) {
      Tasks arrived = received;
      if (j + 1 < n) {
        // Pass the block in hand on (the own block first, then each one
        // received), and receive the next.
        int64_t tag = nextTag;
        nextTag += ranks;
        int64_t bytes = toInt(work.ringBytes);
        // A chip's sends go one after another, as a ring's steps do (one
        // ppermute a step): a chip that starts its ring late, with the
        // next block already in, does not split its link between two.
        sent = onRanks(d, s, [&](int64_t r) {
          file::Task t = messageTask(file::TaskKind::Send, peer(r, 1),
                                     j == 0 ? last[r] : arrived[r], bytes,
                                     tag + r);
          t.deps = depsOf({j == 0 ? last[r] : arrived[r], sent[r]});
          return t;
        });
        received = onRanks(d, s, [&](int64_t r) {
          return messageTask(file::TaskKind::Recv, peer(r, -1),
                             j == 0 ? last[r] : arrived[r], bytes,
                             tag + (r / tp + sp - 1) % sp * tp + r % tp);
        });
      }
      prev = onRanks(d, s, [&](int64_t r) {
        file::Task t;
        t.kind = file::TaskKind::Compute;
        t.name = name + ".ring" + std::to_string(j);
        t.deps = depsOf({prev[r], arrived[r]});
        t.flops = toInt(work.flops / n);
        t.bytes = toInt(work.bytes / n);
        t.op = work.op->getName().getStringRef().str();
        t.layer = item.layer;
        t.slice = unit.index;
        t.step = unit.step;
        t.bits = work.elementBits;
        t.vectorOps = toInt(work.vectorOps / n);
        t.steps = blockSteps;
        return t;
      });
    }
    return prev;
  }

  void emitReplica(int64_t d) {
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
            out.stepStarts[c].push_back(out.chips[c].tasks.size());
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

  /// Adds `extra[r]` to the dependencies of task `tasks[r]` on each rank.
  void addDeps(int64_t d, int64_t s, ArrayRef<int64_t> tasks,
               ArrayRef<int64_t> extra) {
    for (int64_t r = 0; r < ranks; ++r)
      if (tasks[r] != kNoTask && extra[r] != kNoTask)
        out.chips[slot.find(chipId(d, s, r))->second]
            .tasks[tasks[r]]
            .deps.push_back(extra[r]);
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

  //===--------------------------------------------------------------------===//
  // A training step (docs/training.md, "Lowering"): per microbatch the
  // forward pass and the backward pass, each layer's gradients reduced over
  // the data-parallel replicas as the backward pass produces them, then the
  // optimizer's updates. The replicas are emitted in lockstep, so that a
  // collective over replicas gets one tag in all of them.
  //===--------------------------------------------------------------------===//

  FailureOr<file::Schedule> runTraining() {
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
      if (layer.getIndex() == index)
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

  ModuleOp module;
  TargetAttr target;
  ModelView view;
  const CostModel &model;
  int64_t interleave;
  bool decompose;
  /// Megatron's scatter/gather handover asked for, and in force (a
  /// pipeline's boundaries to hand over).
  bool scatterHandover, scatter = false;
  /// Lower only the first this many denoising steps (0: all).
  int64_t stepLimit = 0;
  /// Weight-gathered (#loom.parallel's weight_gathered).
  bool gathered = false;
  // A stage's ranks: tp x sp chips (r = u * tp + t).
  int64_t tp = 1, sp = 1, ranks = 1, dp = 1, stages = 1, tokens = 0,
          nextTag = 0;
  /// The pipeline's chunks: stages x virtual stages.
  int64_t chunks = 1;
  double output = 0;
  PipelineAttr pipeline;
  std::optional<DeviceMesh> mesh;
  SmallVector<StagePlan> plans;
  std::optional<LayerSliceCost> prologue, epilogue;
  SmallVector<Unit> units;
  /// A training step's parts, how its model states are split, and the
  /// costs of its runs of ops (forward and backward per layer, in the
  /// order of train->layers and train->layerGrads).
  std::optional<TrainingView> train;
  ZeroSplit split;
  std::optional<LayerSliceCost> forwardPrologue, forwardEpilogue,
      backwardEpilogue, backwardPrologue;
  std::vector<LayerSliceCost> forwardCosts, backwardCosts;
  /// The ops between one layer (layer_grad) and the next.
  std::vector<LayerSliceCost> afterForward, afterBackward;
  /// The schedule being built, and each chip's place in it by chip id.
  file::Schedule out;
  llvm::DenseMap<int64_t, size_t> slot;
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

LogicalResult loom::lowerToSchedule(ModuleOp module, ModelAnalysis &analysis,
                                    int64_t interleave, bool decompose,
                                    bool scatterHandover) {
  FailureOr<file::Schedule> schedule = lowerToScheduleFile(
      module, analysis, interleave, decompose, scatterHandover);
  if (failed(schedule))
    return failure();
  func::FuncOp func = analysis.getView().func;
  OpBuilder b = OpBuilder::atBlockEnd(module.getBody());
  buildProgram(b, func.getLoc(), analysis.getTarget(), *schedule);
  func.erase();
  return success();
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
    if (failed(lowerToSchedule(getOperation(), getAnalysis<ModelAnalysis>(),
                               interleave, decompose, scatterHandover)))
      signalPassFailure();
  }
};
} // namespace
