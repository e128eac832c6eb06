//===- ScheduleIR.cpp - sched programs to and from schedule files ---------===//

#include "loom/Dialect/Sched/ScheduleIR.h"

#include "mlir/IR/Verifier.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace loom;
using namespace loom::sched;
namespace file = loom::schedule;

file::Machine sched::getMachine(TargetAttr target) {
  TargetDesc desc = target.getDesc();
  file::Machine machine{target.getTopology().str(), target.getNumChips(),
                        desc.hostBandwidth, desc.hostBytes};
  machine.slices = target.getTopologyDesc().slices;
  if (machine.slices > 1)
    machine.dcn = file::DcnFigures::of(desc);
  return machine;
}

file::Schedule sched::emptySchedule(TargetAttr target) {
  file::Schedule out;
  out.targetName = target.getName().str();
  out.shape.assign(target.getShape().begin(), target.getShape().end());
  out.figures = target.getDesc();
  out.slices = target.getTopologyDesc().slices;
  if (out.slices > 1)
    out.dcn = file::DcnFigures::of(*out.figures);
  return out;
}

file::Schedule
sched::exportSchedule(ProgramOp program,
                      std::vector<std::vector<Operation *>> *ops) {
  file::Schedule out = emptySchedule(program.getTarget());
  // The collectives over the same chips share one list (their attributes
  // are uniqued: one array a group).
  llvm::DenseMap<const int64_t *, file::ChipGroup> groups;
  for (auto chip : program.getBody().front().getOps<ChipOp>()) {
    file::Chip c;
    c.id = chip.getId();
    if (ops)
      ops->emplace_back();
    llvm::DenseMap<Operation *, int64_t> index;
    for (Operation &op : chip.getBody().front()) {
      file::Task task;
      // A token from anything but an earlier task of the chip gets this
      // task's own index, which the checker refuses.
      auto indexOf = [&](Value token) {
        auto it = index.find(token.getDefiningOp());
        return it == index.end() ? int64_t(c.tasks.size()) : it->second;
      };
      // Every token a task uses is a dependency; a free's first one, the
      // allocation, is its `alloc`, which the format makes a dependency too
      // (and so a collective's done's start, a host load's store).
      auto free = dyn_cast<FreeOp>(op);
      auto done = dyn_cast<CollectiveDoneOp>(op);
      auto load = dyn_cast<HostLoadOp>(op);
      for (Value dep : free   ? ValueRange(free.getDeps())
                       : done ? ValueRange(done.getDeps())
                       : load ? ValueRange(load.getDeps())
                              : ValueRange(op.getOperands()))
        task.deps.push_back(indexOf(dep));
      TypeSwitch<Operation *>(&op)
          .Case([&](ComputeOp o) {
            task.kind = file::TaskKind::Compute;
            task.name = o.getName().str();
            task.op = o.getOp().str();
            task.layer = o.getLayer();
            task.slice = o.getSlice();
            task.step = o.getStep();
            task.flops = o.getFlops();
            task.bits = o.getBits();
            task.vectorOps = o.getVectorOps();
            task.steps = o.getSteps();
            task.bytes = o.getBytes();
          })
          .Case([&](SendOp o) {
            task.kind = file::TaskKind::Send;
            task.peer = o.getTo();
            task.tag = o.getTag();
            task.bytes = o.getBytes();
          })
          .Case([&](RecvOp o) {
            task.kind = file::TaskKind::Recv;
            task.peer = o.getFrom();
            task.tag = o.getTag();
            task.bytes = o.getBytes();
          })
          .Case([&](CollectiveStartOp o) {
            task.kind = file::TaskKind::Collective;
            task.collective = o.getKind();
            ArrayRef<int64_t> chips = o.getGroup();
            auto [known, fresh] = groups.try_emplace(chips.data());
            if (fresh)
              known->second = file::ChipGroup(chips);
            task.group = known->second;
            task.tag = o.getTag();
            task.bytes = o.getBytes();
          })
          .Case([&](AllocOp o) {
            task.kind = file::TaskKind::Alloc;
            task.what = o.getWhat();
            task.name = o.getName().str();
            task.bytes = o.getBytes();
          })
          .Case([&](FreeOp o) {
            task.kind = file::TaskKind::Free;
            task.alloc = indexOf(o.getAllocation());
          })
          .Case([&](CollectiveDoneOp o) {
            task.kind = file::TaskKind::CollectiveDone;
            task.start = indexOf(o.getStart());
          })
          .Case([&](HostStoreOp o) {
            task.kind = file::TaskKind::HostStore;
            task.bytes = o.getBytes();
            task.name = o.getName().str();
          })
          .Case([&](HostLoadOp o) {
            task.kind = file::TaskKind::HostLoad;
            task.store = indexOf(o.getStore());
            task.bytes = o.getBytes();
            task.name = o.getName().str();
          });
      index[&op] = c.tasks.size();
      if (ops)
        ops->back().push_back(&op);
      c.tasks.push_back(std::move(task));
    }
    out.chips.push_back(std::move(c));
  }
  return out;
}

OwningOpRef<ModuleOp> sched::importSchedule(const file::Schedule &schedule,
                                            MLIRContext *context,
                                            Location loc) {
  context->loadDialect<SchedDialect, LoomDialect>();
  llvm::Expected<TargetDesc> desc = file::getScheduleTarget(schedule);
  if (!desc) {
    mlir::emitError(loc) << "$.target: " << llvm::toString(desc.takeError());
    return nullptr;
  }
  const TopologyDesc *topology =
      desc->findTopology(ArrayRef<int64_t>(schedule.shape));
  if (!topology) {
    mlir::emitError(loc) << "$.target.shape: " << desc->name
                         << " has no such topology; valid: "
                         << desc->listTopologies();
    return nullptr;
  }
  // Several slices: #loom.target's dcn, with the schedule's own figures
  // when it gives them.
  TopologyDesc machine = topology->times(schedule.slices);
  if (schedule.slices > 1) {
    file::DcnFigures dcn = file::getDcnFigures(schedule, *desc);
    desc->chipsPerHost = dcn.chipsPerHost;
    desc->dcnBandwidth = dcn.bandwidth;
    desc->dcnLatency = dcn.latency;
  }
  // Located as the file's other errors are: by the JSON path.
  TargetAttr target = TargetAttr::getChecked(
      [&] { return mlir::emitError(loc) << "$.target: "; }, context, *desc,
      machine);
  if (!target)
    return nullptr;
  // Checked as data first, so that problems name their JSON path and no op
  // is built from a dangling index.
  if (!file::checkSchedule(schedule, getMachine(target),
                           [&](const file::Place &place, const Twine &message) {
                             mlir::emitError(loc)
                                 << file::jsonPath(place) << ": " << message;
                           }))
    return nullptr;
  OwningOpRef<ModuleOp> module = ModuleOp::create(loc);
  OpBuilder b = OpBuilder::atBlockEnd(module->getBody());
  buildProgram(b, loc, target, schedule);
  if (failed(mlir::verify(*module)))
    return nullptr;
  return module;
}

ProgramOp sched::buildProgram(OpBuilder &b, Location loc, TargetAttr target,
                              const file::Schedule &schedule) {
  MLIRContext *context = b.getContext();
  auto program = ProgramOp::create(b, loc, target);
  program.getBody().push_back(new Block);
  OpBuilder::InsertionGuard guard(b);
  b.setInsertionPointToEnd(&program.getBody().front());
  Type token = TokenType::get(context);
  for (const file::Chip &chip : schedule.chips) {
    auto chipOp = ChipOp::create(b, loc, chip.id);
    chipOp.getBody().push_back(new Block);
    OpBuilder cb = OpBuilder::atBlockEnd(&chipOp.getBody().front());
    SmallVector<Value> tokens;
    for (const file::Task &task : chip.tasks) {
      SmallVector<Value> deps;
      for (int64_t dep : task.deps)
        deps.push_back(tokens[dep]);
      Value done;
      switch (task.kind) {
      case file::TaskKind::Compute:
        done = ComputeOp::create(cb, loc, token, task.name, deps, task.flops,
                                 task.bytes, task.op, task.layer, task.slice,
                                 task.step, task.bits, task.vectorOps,
                                 task.steps);
        break;
      case file::TaskKind::Send:
        done = SendOp::create(cb, loc, token, task.peer, deps, task.bytes,
                              task.tag);
        break;
      case file::TaskKind::Recv:
        done = RecvOp::create(cb, loc, token, task.peer, deps, task.bytes,
                              task.tag);
        break;
      case file::TaskKind::Collective:
        done = CollectiveStartOp::create(cb, loc, token, task.collective,
                                         deps, task.group, task.bytes,
                                         task.tag);
        break;
      case file::TaskKind::CollectiveDone:
        done = CollectiveDoneOp::create(cb, loc, token, tokens[task.start],
                                        deps);
        break;
      case file::TaskKind::Alloc:
        done = AllocOp::create(cb, loc, token, task.what, task.bytes,
                               task.name, deps);
        break;
      case file::TaskKind::Free:
        done = FreeOp::create(cb, loc, token, tokens[task.alloc], deps);
        break;
      case file::TaskKind::HostStore:
        done = HostStoreOp::create(cb, loc, token, task.bytes, task.name, deps);
        break;
      case file::TaskKind::HostLoad:
        done = HostLoadOp::create(cb, loc, token, tokens[task.store],
                                  task.bytes, task.name, deps);
        break;
      }
      tokens.push_back(done);
    }
  }
  return program;
}
