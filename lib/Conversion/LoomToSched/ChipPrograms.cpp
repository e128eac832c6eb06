//===- ChipPrograms.cpp - the per-chip programs being built ---------------===//
//
// The tasks of one op's work on a stage's ranks (ChipPrograms.h): a
// compute task, an asynchronous collective, a collective matmul's ring
// steps, ring attention's blocks.
//
//===----------------------------------------------------------------------===//

#include "ChipPrograms.h"

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Dialect/Sched/ScheduleIR.h"

#include <map>

using namespace mlir;
using namespace loom;
using namespace loom::lowering;

std::string loom::lowering::taskName(StringRef where, Operation *op) {
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

SmallVector<int64_t, 2> loom::lowering::depsOf(ArrayRef<int64_t> tasks) {
  SmallVector<int64_t, 2> deps;
  for (int64_t t : tasks)
    if (t != kNoTask)
      deps.push_back(t);
  return deps;
}

file::Task loom::lowering::allocTask(MemoryKind what, int64_t bytes,
                                     std::string name,
                                     ArrayRef<int64_t> deps) {
  file::Task t;
  t.kind = file::TaskKind::Alloc;
  t.what = what;
  t.bytes = bytes;
  t.name = std::move(name);
  t.deps = depsOf(deps);
  return t;
}

file::Task loom::lowering::messageTask(file::TaskKind kind, int64_t peer,
                                       int64_t dep, int64_t bytes,
                                       int64_t tag) {
  file::Task t;
  t.kind = kind;
  t.peer = peer;
  t.deps = depsOf({dep});
  t.bytes = bytes;
  t.tag = tag;
  return t;
}

LogicalResult ChipPrograms::setUp() {
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

  sliceChips = topology.sliceChips();
  tokens = getPipelineTokens(view.func);
  return success();
}

void ChipPrograms::addChips() {
  out = sched::emptySchedule(target);
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

void ChipPrograms::addDeps(int64_t d, int64_t s, ArrayRef<int64_t> tasks,
                           ArrayRef<int64_t> extra) {
  for (int64_t r = 0; r < ranks; ++r)
    if (tasks[r] != kNoTask && extra[r] != kNoTask)
      programOf(d, s, r)[tasks[r]].deps.push_back(extra[r]);
}

Tasks ChipPrograms::emitItem(int64_t d, int64_t s, const Item &item,
                             const Unit &unit, ArrayRef<int64_t> last) {
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
    if (work.blockRanks > 0) {
      // The "kv" group: consecutive tensor ranks.
      int64_t first = r / work.blockRanks * work.blockRanks;
      for (int64_t t = 0; t < work.blockRanks; ++t)
        chips.push_back(chipId(d, s, first + t));
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
    nextTag += subGroup || work.blockRanks ? ranks
               : work.sequenceGroup        ? tp
                                           : sp;
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
      t.group = sharedGroup(members(r));
      t.bytes = toInt(work.bytes);
      t.tag = tag + (subGroup ? mesh->tensorParallelSubGroup(
                                    r, work.subAxis).front()
                     : work.blockRanks    ? r / work.blockRanks
                     : work.sequenceGroup ? r % tp
                                          : r / tp);
      return t;
    });
    return collectiveDone(d, s, starts);
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
Tasks ChipPrograms::emitDecomposed(int64_t d, int64_t s, const Item &item,
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

file::ChipGroup ChipPrograms::sharedGroup(ArrayRef<int64_t> chips) {
  auto [known, fresh] = groups.try_emplace({chips.begin(), chips.end()});
  if (fresh)
    known->second = file::ChipGroup(chips);
  return known->second;
}

Tasks ChipPrograms::tensorParallelAllGather(int64_t d, int64_t s,
                                            ArrayRef<int64_t> after,
                                            double bytes) {
  int64_t tag = nextTag;
  nextTag += sp;
  Tasks starts = onRanks(d, s, [&](int64_t r) {
    file::Task t;
    t.kind = file::TaskKind::Collective;
    t.collective = CollectiveKind::AllGather;
    t.deps = depsOf({after[r]});
    SmallVector<int64_t> chips;
    for (int64_t m = 0; m < tp; ++m)
      chips.push_back(chipId(d, s, r / tp * tp + m));
    t.group = sharedGroup(chips);
    t.bytes = toInt(bytes);
    t.tag = tag + r / tp;
    return t;
  });
  return collectiveDone(d, s, starts);
}

/// Ring attention (Liu et al. 2023): `ringSteps` compute blocks, each an
/// equal share of the work; before block j each rank sends the K/V block
/// it holds to the next rank of its sp group (once its previous send is
/// done) and receives the previous rank's (messages, beside the
/// TensorCore), and block j + 1 waits for that block.
/// LayerSliceCost::computeSeconds prices this closed form.
Tasks ChipPrograms::emitRing(int64_t d, int64_t s, const Item &item,
                             const Unit &unit, const std::string &name,
                             ArrayRef<int64_t> last) {
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
