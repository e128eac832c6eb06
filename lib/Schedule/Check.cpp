//===- Check.cpp - what a schedule must satisfy to run --------------------===//

#include "loom/Schedule/Check.h"

#include "loom/Hardware/TopologyLimit.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <algorithm>
#include <limits>
#include <tuple>
#include <unordered_map>

using namespace loom;
using namespace loom::schedule;

std::string schedule::jsonPath(const Place &place) {
  std::string path = "$";
  if (place.chip >= 0)
    path += ".chips[" + std::to_string(place.chip) + "]";
  if (place.task >= 0)
    path += ".tasks[" + std::to_string(place.task) + "]";
  if (!place.field.empty())
    path += "." + place.field.str();
  if (place.element >= 0)
    path += "[" + std::to_string(place.element) + "]";
  return path;
}

std::string schedule::describeTask(const Schedule &schedule, int64_t chip,
                                   int64_t task) {
  const Task &t = schedule.chips[chip].tasks[task];
  std::string text = "chip " + std::to_string(schedule.chips[chip].id) +
                     " task " + std::to_string(task) + " (";
  switch (t.kind) {
  case TaskKind::Compute:
    text += "compute '" + t.name + "'";
    break;
  case TaskKind::Send:
    text += "send to " + std::to_string(t.peer) + ", tag " +
            std::to_string(t.tag);
    break;
  case TaskKind::Recv:
    text += "recv from " + std::to_string(t.peer) + ", tag " +
            std::to_string(t.tag);
    break;
  case TaskKind::Collective:
    text += name(t.collective).str() + ", tag " + std::to_string(t.tag);
    break;
  case TaskKind::CollectiveDone:
  case TaskKind::Alloc:
  case TaskKind::Free:
    text += name(t.kind).str();
    break;
  case TaskKind::HostStore:
  case TaskKind::HostLoad:
    text += name(t.kind).str();
    if (!t.name.empty())
      text += " '" + t.name + "'";
    break;
  }
  return text + ")";
}

namespace {

/// A message's (sender, receiver, tag).
using MessageKey = std::tuple<int64_t, int64_t, int64_t>;

class Checker {
public:
  Checker(const Schedule &schedule, const Machine &machine, Locator report)
      : schedule(schedule), machine(machine), report(report) {}

  bool run() {
    return checkSize() && checkSlices() && checkChips() && checkTasks() &&
           checkHostLink() &&
           matchMessages() && completeCollectives() && checkAcyclic();
  }

private:
  /// Tasks are numbered across chips, chip by chip.
  struct Ref {
    int64_t chip, task;
  };
  struct Collective {
    int64_t tag;
    llvm::SmallVector<Ref, 8> members; ///< in the order they were seen
  };

  const Task &task(Ref r) const { return schedule.chips[r.chip].tasks[r.task]; }
  size_t global(Ref r) const { return base[r.chip] + r.task; }
  bool fail(const Place &place, const llvm::Twine &message) {
    report(place, message);
    return false;
  }

  bool checkSize();
  bool checkSlices();
  bool checkChips();
  bool checkTasks();
  bool checkTask(Ref r);
  bool checkCollective(Ref r);
  bool checkHostLink();
  bool matchMessages();
  bool completeCollectives();
  bool checkAcyclic();

  const Schedule &schedule;
  const Machine &machine;
  Locator report;
  std::vector<size_t> base;
  size_t total = 0;
  // Hashed, not ordered: only looked up (a DiT's first steps have about a
  // million messages). A message's chips are checked before it is entered,
  // so a key is never DenseMap's empty or tombstone tuple (their chip ids
  // are the largest numbers); a tag may be any number, so the collectives'
  // map reserves none.
  llvm::DenseMap<MessageKey, Ref> sends, recvs;
  /// A collective's tag -> its index into `collectives`.
  std::unordered_map<int64_t, size_t> collectiveOf;
  std::vector<Collective> collectives;
};

bool Checker::checkSize() {
  // As #loom.target's verifier bounds a topology (loom-translate
  // --json-to-sched builds one), so that every reader gives one answer.
  if (machine.chips > kMaxTopologyChips)
    return fail({-1, -1, machine.slices > 1 ? "target.slices" : "target.shape"},
                "topology " + machine.name + " has " +
                    (machine.chips == std::numeric_limits<int64_t>::max()
                         ? std::string("2^63 or more")
                         : std::to_string(machine.chips)) +
                    " chips; Loom plans at most " +
                    std::to_string(kMaxTopologyChips));
  base.reserve(schedule.chips.size());
  for (const Chip &chip : schedule.chips) {
    base.push_back(total);
    total += chip.tasks.size();
  }
  // The simulator numbers tasks (and this checker tasks and collectives)
  // in 32 bits.
  constexpr size_t limit = std::numeric_limits<int32_t>::max() / 2;
  if (total > limit)
    return fail({}, "has " + llvm::Twine(total) + " tasks; at most " +
                        llvm::Twine(limit) + " are supported");
  return true;
}

bool Checker::checkSlices() {
  if (machine.slices < 1 || machine.chips % machine.slices != 0)
    return fail({-1, -1, "target.slices"},
                "must be a whole number of at least 1 that divides the " +
                    llvm::Twine(machine.chips) + " chips, got " +
                    llvm::Twine(machine.slices));
  if (machine.slices == 1)
    return true;
  // Messages between slices cross the DCN: without its figures they have
  // no time, and none is guessed.
  const DcnFigures &dcn = machine.dcn;
  if (!dcn.given() || dcn.bandwidth <= 0 || dcn.latency <= 0)
    return fail({-1, -1, "target.dcn"},
                machine.name + " has " + llvm::Twine(machine.slices) +
                    " slices joined by the data-center network, which needs "
                    "its figures chips_per_host, bandwidth and latency "
                    "(the target's host.chips_per_host, dcn_bandwidth and "
                    "dcn_latency)");
  if (std::string problem = TopologyDesc::hostProblem(
          dcn.chipsPerHost, machine.chips / machine.slices);
      !problem.empty())
    return fail({-1, -1, "target.dcn.chips_per_host"}, problem);
  return true;
}

bool Checker::checkChips() {
  llvm::DenseMap<int64_t, size_t> seen;
  for (auto [c, chip] : llvm::enumerate(schedule.chips)) {
    Place at{int64_t(c), -1, "id"};
    if (chip.id < 0 || chip.id >= machine.chips)
      return fail(at, "chip " + llvm::Twine(chip.id) + " is outside " +
                          machine.name + ", which has " +
                          llvm::Twine(machine.chips) + " chips");
    if (!seen.try_emplace(chip.id, c).second)
      return fail(at, "chip " + llvm::Twine(chip.id) + " appears twice");
  }
  return true;
}

bool Checker::checkTasks() {
  for (auto [c, chip] : llvm::enumerate(schedule.chips)) {
    // Each allocation is released at most once: alloc -> the free; each
    // collective's start is done exactly once: start -> the done; each host
    // store is loaded back at most once: store -> the load.
    llvm::DenseMap<int64_t, int64_t> freedBy, doneBy, loadedBy;
    for (auto [t, spec] : llvm::enumerate(chip.tasks)) {
      Ref r{int64_t(c), int64_t(t)};
      if (!checkTask(r))
        return false;
      if (spec.kind == TaskKind::CollectiveDone) {
        auto [it, fresh] = doneBy.try_emplace(spec.start, t);
        if (!fresh)
          return fail({r.chip, r.task, "start"},
                      "task " + llvm::Twine(spec.start) +
                          " was already done by task " +
                          llvm::Twine(it->second));
      }
      if (spec.kind == TaskKind::HostLoad) {
        auto [it, fresh] = loadedBy.try_emplace(spec.store, t);
        if (!fresh)
          return fail({r.chip, r.task, "store"},
                      "task " + llvm::Twine(spec.store) +
                          " was already loaded back by task " +
                          llvm::Twine(it->second));
      }
      if (spec.kind != TaskKind::Free)
        continue;
      auto [it, fresh] = freedBy.try_emplace(spec.alloc, t);
      if (!fresh)
        return fail({r.chip, r.task, "alloc"},
                    "task " + llvm::Twine(spec.alloc) +
                        " was already freed by task " + llvm::Twine(it->second));
    }
    for (auto [t, spec] : llvm::enumerate(chip.tasks))
      if (spec.kind == TaskKind::Collective && !doneBy.count(t))
        return fail({int64_t(c), int64_t(t), "kind"},
                    "collective_start has no collective_done: every start "
                    "of an asynchronous collective needs one");
  }
  return true;
}

bool Checker::checkTask(Ref r) {
  const Task &t = task(r);
  const std::vector<Task> &tasks = schedule.chips[r.chip].tasks;
  int64_t id = schedule.chips[r.chip].id;
  auto at = [&](llvm::StringRef field, int64_t element = -1) {
    return Place{r.chip, r.task, field, element};
  };
  if (int64_t(t.deps.size()) > kMaxTaskDeps)
    return fail(at("deps"), "has " + llvm::Twine(t.deps.size()) +
                                " dependencies; at most " +
                                llvm::Twine(kMaxTaskDeps) + " are supported");
  for (auto [d, dep] : llvm::enumerate(t.deps))
    if (dep < 0 || dep >= r.task)
      return fail(at("deps", d),
                  "dangling dependency on task " + llvm::Twine(dep) +
                      ": a task may depend only on earlier tasks of its chip");
  auto atLeastZero = [&](llvm::StringRef field, int64_t value) {
    return value >= 0 || fail(at(field), "must be at least 0, got " +
                                             llvm::Twine(value));
  };
  if (t.kind != TaskKind::Free && t.kind != TaskKind::CollectiveDone &&
      !atLeastZero("bytes", t.bytes))
    return false;
  switch (t.kind) {
  case TaskKind::Compute:
    return atLeastZero("flops", t.flops);
  case TaskKind::Send:
  case TaskKind::Recv: {
    bool send = t.kind == TaskKind::Send;
    if (t.peer < 0 || t.peer >= machine.chips || t.peer == id)
      return fail(at(send ? "to" : "from"),
                  "peer chip " + llvm::Twine(t.peer) +
                      " must be another chip of " + machine.name);
    int64_t from = send ? id : t.peer, to = send ? t.peer : id;
    if (!(send ? sends : recvs).try_emplace({from, to, t.tag}, r).second)
      return fail(at("tag"), "chip " + llvm::Twine(id) +
                                 (send ? " sends" : " receives") + " tag " +
                                 llvm::Twine(t.tag) + (send ? " to" : " from") +
                                 " chip " + llvm::Twine(t.peer) + " twice");
    return true;
  }
  case TaskKind::Collective:
    return checkCollective(r);
  case TaskKind::Alloc:
    return true;
  case TaskKind::Free:
    if (t.alloc < 0 || t.alloc >= r.task ||
        tasks[t.alloc].kind != TaskKind::Alloc)
      return fail(at("alloc"), "frees task " + llvm::Twine(t.alloc) +
                                   ", which is not an earlier alloc task of "
                                   "its chip");
    return true;
  case TaskKind::CollectiveDone:
    if (t.start < 0 || t.start >= r.task ||
        tasks[t.start].kind != TaskKind::Collective)
      return fail(at("start"), "ends task " + llvm::Twine(t.start) +
                                   ", which is not an earlier "
                                   "collective_start task of its chip");
    return true;
  case TaskKind::HostStore:
    return true;
  case TaskKind::HostLoad:
    if (t.store < 0 || t.store >= r.task ||
        tasks[t.store].kind != TaskKind::HostStore)
      return fail(at("store"), "loads back task " + llvm::Twine(t.store) +
                                   ", which is not an earlier host_store "
                                   "task of its chip");
    if (t.bytes != tasks[t.store].bytes)
      return fail(at("bytes"), "loads " + llvm::Twine(t.bytes) +
                                   " bytes back but its host_store (task " +
                                   llvm::Twine(t.store) + ") stored " +
                                   llvm::Twine(tasks[t.store].bytes));
    return true;
  }
  return true;
}

bool Checker::checkHostLink() {
  // Without the link's bandwidth a transfer has no time, and without the
  // host's memory no bound; neither is guessed.
  if (machine.hostBandwidth > 0 && machine.hostBytes > 0)
    return true;
  for (auto [c, chip] : llvm::enumerate(schedule.chips))
    for (auto [t, spec] : llvm::enumerate(chip.tasks))
      if (spec.kind == TaskKind::HostStore || spec.kind == TaskKind::HostLoad)
        return fail({int64_t(c), int64_t(t), "kind"},
                    name(spec.kind) + " moves data over the chip's host "
                                      "link, but the target gives no host "
                                      "link figures (host_bandwidth and "
                                      "host_memory)");
  return true;
}

bool Checker::checkCollective(Ref r) {
  const Task &t = task(r);
  int64_t id = schedule.chips[r.chip].id;
  for (auto [g, member] : llvm::enumerate(t.group))
    if (member < 0 || member >= machine.chips)
      return fail({r.chip, r.task, "group", int64_t(g)},
                  "group member " + llvm::Twine(member) + " is outside " +
                      machine.name + ", which has " +
                      llvm::Twine(machine.chips) + " chips");
  if (!llvm::is_contained(t.group, id))
    return fail({r.chip, r.task, "group"},
                "chip " + llvm::Twine(id) + " runs collective tag " +
                    llvm::Twine(t.tag) + " but is not in its group");
  // A group the collective's first member has, checked there, holds no
  // chip twice (a whole slice's group is sorted once, not once a member).
  auto known = collectiveOf.find(t.tag);
  if (known == collectiveOf.end() ||
      collectives[known->second].members.empty() ||
      task(collectives[known->second].members.front()).group != t.group) {
    llvm::SmallVector<int64_t, 8> sorted(t.group.begin(), t.group.end());
    llvm::sort(sorted);
    if (auto twice = std::adjacent_find(sorted.begin(), sorted.end());
        twice != sorted.end())
      return fail({r.chip, r.task, "group"},
                  "chip " + llvm::Twine(*twice) + " is in the group twice");
    if (machine.slices > 1) {
      // Over the DCN a collective runs between slices, one chip of each;
      // within them it runs over ICI (docs/multislice.md).
      int64_t sliceChips = machine.chips / machine.slices;
      llvm::SmallVector<int64_t, 8> slices;
      for (int64_t member : sorted) // sorted, so their slices are too
        slices.push_back(member / sliceChips);
      bool spans = slices.front() != slices.back();
      if (auto twice = std::adjacent_find(slices.begin(), slices.end());
          spans && twice != slices.end())
        return fail({r.chip, r.task, "group"},
                    "spans slices with several chips of slice " +
                        llvm::Twine(*twice) +
                        "; a collective across slices takes one chip of each "
                        "(split it into collectives within the slices and "
                        "one across them)");
    }
  }
  auto [it, fresh] = collectiveOf.try_emplace(t.tag, collectives.size());
  if (fresh)
    collectives.push_back({t.tag, {}});
  Collective &collective = collectives[it->second];
  // A tag names one collective: each chip of its group runs it once.
  for (Ref member : collective.members)
    if (member.chip == r.chip)
      return fail({r.chip, r.task, "tag"},
                  "chip " + llvm::Twine(id) + " already runs collective tag " +
                      llvm::Twine(t.tag) + " (task " +
                      llvm::Twine(member.task) + ")");
  if (!collective.members.empty()) {
    Ref first = collective.members.front();
    const Task &other = task(first);
    if (other.group != t.group || other.collective != t.collective ||
        other.bytes != t.bytes)
      return fail({r.chip, r.task},
                  "disagrees with chip " +
                      llvm::Twine(schedule.chips[first.chip].id) +
                      " on the kind, group or bytes of collective tag " +
                      llvm::Twine(t.tag));
  }
  collective.members.push_back(r);
  return true;
}

bool Checker::matchMessages() {
  // In task order, so that the first problem of the file is reported.
  for (auto [c, chip] : llvm::enumerate(schedule.chips))
    for (auto [i, t] : llvm::enumerate(chip.tasks)) {
      Place at{int64_t(c), int64_t(i)};
      if (t.kind == TaskKind::Send && !recvs.count({chip.id, t.peer, t.tag}))
        return fail(at, "chip " + llvm::Twine(t.peer) + " never receives tag " +
                            llvm::Twine(t.tag) + " from chip " +
                            llvm::Twine(chip.id));
      if (t.kind != TaskKind::Recv)
        continue;
      auto send = sends.find({t.peer, chip.id, t.tag});
      if (send == sends.end())
        return fail(at, "chip " + llvm::Twine(t.peer) + " never sends tag " +
                            llvm::Twine(t.tag) + " to chip " +
                            llvm::Twine(chip.id));
      if (task(send->second).bytes != t.bytes)
        return fail({at.chip, at.task, "bytes"},
                    "receives " + llvm::Twine(t.bytes) +
                        " bytes but the send carries " +
                        llvm::Twine(task(send->second).bytes));
    }
  return true;
}

bool Checker::completeCollectives() {
  for (const Collective &collective : collectives) {
    Ref first = collective.members.front();
    for (int64_t member : task(first).group)
      if (llvm::none_of(collective.members, [&](Ref r) {
            return schedule.chips[r.chip].id == member;
          }))
        return fail({first.chip, first.task},
                    "collective tag " + llvm::Twine(collective.tag) +
                        ": chip " + llvm::Twine(member) +
                        " of its group has no task with this tag");
  }
  return true;
}

// Kahn's algorithm over the tasks and a node per collective that waits for
// all its members' dependencies, with edges in compressed rows.
bool Checker::checkAcyclic() {
  size_t nodes = total + collectives.size();
  std::vector<std::pair<uint32_t, uint32_t>> edges;
  edges.reserve(2 * total);
  for (auto [c, chip] : llvm::enumerate(schedule.chips)) {
    size_t lastCompute = SIZE_MAX;
    for (auto [i, t] : llvm::enumerate(chip.tasks)) {
      Ref r{int64_t(c), int64_t(i)};
      size_t self = global(r), waits = self;
      if (t.kind == TaskKind::Collective) {
        waits = total + collectiveOf.at(t.tag);
        edges.push_back({uint32_t(waits), uint32_t(self)});
      }
      for (int64_t dep : t.deps)
        edges.push_back({uint32_t(base[c] + dep), uint32_t(waits)});
      if (t.kind == TaskKind::Free)
        edges.push_back({uint32_t(base[c] + t.alloc), uint32_t(self)});
      if (t.kind == TaskKind::CollectiveDone)
        edges.push_back({uint32_t(base[c] + t.start), uint32_t(self)});
      if (t.kind == TaskKind::HostLoad)
        edges.push_back({uint32_t(base[c] + t.store), uint32_t(self)});
      if (t.kind == TaskKind::Compute) {
        if (lastCompute != SIZE_MAX)
          edges.push_back({uint32_t(lastCompute), uint32_t(self)});
        lastCompute = self;
      }
      if (t.kind == TaskKind::Send)
        edges.push_back(
            {uint32_t(self),
             uint32_t(global(recvs.at({chip.id, t.peer, t.tag})))});
    }
  }
  std::vector<uint32_t> start(nodes + 1, 0), indegree(nodes, 0);
  for (auto [from, to] : edges) {
    ++start[from + 1];
    ++indegree[to];
  }
  for (size_t n = 0; n < nodes; ++n)
    start[n + 1] += start[n];
  std::vector<uint32_t> next(edges.size()), fill(start.begin(), start.end() - 1);
  for (auto [from, to] : edges)
    next[fill[from]++] = to;
  std::vector<uint32_t> ready;
  for (size_t n = 0; n < nodes; ++n)
    if (indegree[n] == 0)
      ready.push_back(n);
  size_t done = 0;
  while (!ready.empty()) {
    uint32_t n = ready.back();
    ready.pop_back();
    ++done;
    for (uint32_t e = start[n]; e < start[n + 1]; ++e)
      if (--indegree[next[e]] == 0)
        ready.push_back(next[e]);
  }
  if (done == nodes)
    return true;
  std::string blocked;
  int listed = 0;
  for (auto [c, chip] : llvm::enumerate(schedule.chips))
    for (size_t i = 0; i < chip.tasks.size() && listed < 4; ++i) {
      Ref r{int64_t(c), int64_t(i)};
      if (indegree[global(r)] == 0)
        continue;
      blocked += (listed++ ? "; " : " ") + describeTask(schedule, c, i);
    }
  return fail({}, "has a dependency cycle; blocked tasks:" + blocked);
}

} // namespace

bool schedule::checkSchedule(const Schedule &schedule, const Machine &machine,
                             Locator report) {
  return Checker(schedule, machine, report).run();
}

llvm::Error schedule::checkSchedule(const Schedule &schedule,
                                    const Machine &machine) {
  std::string problem;
  if (checkSchedule(schedule, machine,
                    [&](const Place &place, const llvm::Twine &message) {
                      problem = jsonPath(place) + ": " + message.str();
                    }))
    return llvm::Error::success();
  return llvm::createStringError(llvm::inconvertibleErrorCode(), problem);
}
