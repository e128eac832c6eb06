//===- SchedDialect.cpp - the sched dialect -------------------------------===//

#include "loom/Dialect/Sched/SchedOps.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/TypeSwitch.h"

#include <deque>
#include <map>
#include <tuple>

using namespace mlir;
using namespace loom;
using namespace loom::sched;

#include "loom/Dialect/Sched/SchedDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "loom/Dialect/Sched/SchedAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "loom/Dialect/Sched/SchedTypes.cpp.inc"

void SchedDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "loom/Dialect/Sched/SchedOps.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "loom/Dialect/Sched/SchedTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "loom/Dialect/Sched/SchedAttrs.cpp.inc"
      >();
}

LogicalResult FreeOp::verify() {
  if (!getAllocation().getDefiningOp<AllocOp>())
    return emitOpError() << "frees a token that no sched.alloc produced";
  for (Operation *user : getAllocation().getUsers())
    if (user != getOperation() && isa<FreeOp>(user) &&
        user->getBlock() == getOperation()->getBlock() &&
        user->isBeforeInBlock(getOperation()))
      return emitOpError() << "frees an allocation that an earlier sched.free "
                              "already released";
  return success();
}

namespace {

/// How a task reads in diagnostics: "chip 3 task 12 (recv from 2, tag 7)".
std::string describe(Operation *task) {
  auto chip = task->getParentOfType<ChipOp>();
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "chip " << chip.getId() << " ";
  TypeSwitch<Operation *>(task)
      .Case([&](ComputeOp op) { os << "compute '" << op.getName() << "'"; })
      .Case([&](SendOp op) {
        os << "send to " << op.getTo() << " (tag " << op.getTag() << ")";
      })
      .Case([&](RecvOp op) {
        os << "recv from " << op.getFrom() << " (tag " << op.getTag() << ")";
      })
      .Case([&](CollectiveOp op) {
        os << stringifyCollectiveKind(op.getKind()) << " (tag " << op.getTag()
           << ")";
      })
      .Default([&](Operation *op) { os << op->getName(); });
  return text;
}

} // namespace

LogicalResult ProgramOp::verifyRegions() {
  TargetAttr target = getTarget();
  const TopologyDesc *topology = target.getTopology();
  int64_t chips = topology ? topology->numChips() : 0;

  // Tasks in a stable order, with their chip.
  std::vector<Operation *> tasks;
  llvm::DenseMap<Operation *, size_t> index;
  std::map<int64_t, ChipOp> seen;
  // Messages keyed by (from, to, tag); collectives by tag.
  std::map<std::tuple<int64_t, int64_t, int64_t>, SendOp> sends;
  std::map<std::tuple<int64_t, int64_t, int64_t>, RecvOp> recvs;
  llvm::MapVector<int64_t, SmallVector<CollectiveOp>> collectives;
  for (Operation &op : getBody().front()) {
    auto chip = dyn_cast<ChipOp>(op);
    if (!chip)
      return op.emitOpError() << "is not a sched.chip; a program holds chips";
    int64_t id = chip.getId();
    if (id >= chips)
      return chip.emitOpError() << "chip " << id << " is outside "
                                << (topology ? topology->name : "the target")
                                << ", which has " << chips << " chips";
    if (!seen.emplace(id, chip).second)
      return chip.emitOpError() << "chip " << id << " appears twice";
    for (Operation &task : chip.getBody().front()) {
      index[&task] = tasks.size();
      tasks.push_back(&task);
      auto checkPeer = [&](int64_t peer) -> LogicalResult {
        if (peer >= chips || peer == id)
          return task.emitOpError() << "peer chip " << peer
                                    << " must be another chip of the "
                                    << chips << "-chip topology";
        return success();
      };
      if (auto send = dyn_cast<SendOp>(task)) {
        if (failed(checkPeer(send.getTo())))
          return failure();
        if (!sends.emplace(std::make_tuple(id, int64_t(send.getTo()),
                                           int64_t(send.getTag())),
                           send).second)
          return send.emitOpError() << "repeats tag " << send.getTag()
                                    << " to chip " << send.getTo();
      } else if (auto recv = dyn_cast<RecvOp>(task)) {
        if (failed(checkPeer(recv.getFrom())))
          return failure();
        if (!recvs.emplace(std::make_tuple(int64_t(recv.getFrom()), id,
                                           int64_t(recv.getTag())),
                           recv).second)
          return recv.emitOpError() << "repeats tag " << recv.getTag()
                                    << " from chip " << recv.getFrom();
      } else if (auto coll = dyn_cast<CollectiveOp>(task)) {
        for (int64_t member : coll.getGroup())
          if (member < 0 || member >= chips)
            return coll.emitOpError() << "group member " << member
                                      << " is outside the " << chips
                                      << "-chip topology";
        if (!llvm::is_contained(coll.getGroup(), id))
          return coll.emitOpError() << "runs on chip " << id
                                    << ", which is not in its group";
        // A tag names one collective, which each member runs once.
        SmallVector<CollectiveOp> &members = collectives[coll.getTag()];
        for (CollectiveOp earlier : members)
          if (earlier->getParentOp() == coll->getParentOp())
            return coll.emitOpError() << "repeats collective tag "
                                      << coll.getTag() << " on chip " << id;
        members.push_back(coll);
      }
    }
  }

  for (auto &[key, send] : sends) {
    auto it = recvs.find(key);
    if (it == recvs.end())
      return send.emitOpError() << "has no matching sched.recv on chip "
                                << send.getTo() << " (tag " << send.getTag()
                                << ")";
    if (it->second.getBytes() != send.getBytes())
      return it->second.emitOpError()
             << "expects " << it->second.getBytes() << " bytes but the send "
             << "carries " << send.getBytes();
  }
  for (auto &[key, recv] : recvs)
    if (!sends.count(key))
      return recv.emitOpError() << "has no matching sched.send on chip "
                                << recv.getFrom() << " (tag " << recv.getTag()
                                << ")";
  for (auto &[tag, members] : collectives) {
    CollectiveOp first = members.front();
    if (members.size() != first.getGroup().size())
      return first.emitOpError()
             << "tag " << tag << " runs on " << members.size()
             << " chips but its group has " << first.getGroup().size();
    for (CollectiveOp other : members)
      if (other.getGroup() != first.getGroup() ||
          other.getBytes() != first.getBytes() ||
          other.getKind() != first.getKind())
        return other.emitOpError() << "disagrees with chip "
                                   << first->getParentOfType<ChipOp>().getId()
                                   << " on the kind, group or bytes of tag "
                                   << tag;
  }

  // Cycles: edges from dependencies, from a send to its receive, between a
  // chip's consecutive compute tasks (one TensorCore, in order), and through
  // a node per collective that waits for all its members' dependencies.
  size_t n = tasks.size() + collectives.size();
  std::vector<SmallVector<size_t, 4>> succ(n);
  std::vector<size_t> indegree(n, 0);
  auto edge = [&](size_t from, size_t to) {
    succ[from].push_back(to);
    ++indegree[to];
  };
  llvm::DenseMap<int64_t, size_t> collectiveNode;
  for (auto [i, entry] : llvm::enumerate(collectives))
    collectiveNode[entry.first] = tasks.size() + i;
  for (auto &[id, chip] : seen) {
    Operation *lastCompute = nullptr;
    for (Operation &task : chip.getBody().front()) {
      size_t self = index[&task];
      size_t target = self;
      if (auto coll = dyn_cast<CollectiveOp>(task)) {
        target = collectiveNode[coll.getTag()];
        edge(target, self);
      }
      for (Value dep : task.getOperands())
        if (Operation *def = dep.getDefiningOp())
          edge(index[def], target);
      if (isa<ComputeOp>(task)) {
        if (lastCompute)
          edge(index[lastCompute], self);
        lastCompute = &task;
      }
    }
  }
  for (auto &[key, send] : sends)
    edge(index[send], index[recvs[key]]);
  std::deque<size_t> ready;
  for (size_t i = 0; i < n; ++i)
    if (indegree[i] == 0)
      ready.push_back(i);
  size_t done = 0;
  while (!ready.empty()) {
    size_t node = ready.front();
    ready.pop_front();
    ++done;
    for (size_t next : succ[node])
      if (--indegree[next] == 0)
        ready.push_back(next);
  }
  if (done != n) {
    InFlightDiagnostic diag = emitOpError()
                              << "has a dependency cycle; blocked tasks:";
    int listed = 0;
    for (size_t i = 0; i < tasks.size() && listed < 4; ++i)
      if (indegree[i] > 0) {
        diag << (listed ? "; " : " ") << describe(tasks[i]);
        ++listed;
      }
    return diag;
  }
  return success();
}

#define GET_OP_CLASSES
#include "loom/Dialect/Sched/SchedOps.cpp.inc"
