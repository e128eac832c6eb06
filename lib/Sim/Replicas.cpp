//===- Replicas.cpp - replicas the simulator runs once --------------------===//

#include "Replicas.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"

#include <numeric>

using namespace loom;
using namespace loom::sim;
using schedule::TaskKind;

namespace {

/// Chips joined by a message or a collective, as union-find.
class Joined {
public:
  explicit Joined(size_t n) : parent(n) {
    std::iota(parent.begin(), parent.end(), 0);
  }
  int32_t find(int32_t x) {
    while (parent[x] != x)
      x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(int32_t a, int32_t b) {
    a = find(a);
    b = find(b);
    if (a != b)
      parent[std::max(a, b)] = std::min(a, b);
  }

private:
  std::vector<int32_t> parent;
};

/// Two tasks alike but for the chips and tags they name.
bool alike(const schedule::Task &x, const schedule::Task &y) {
  return x.kind == y.kind && x.deps == y.deps && x.bytes == y.bytes &&
         x.flops == y.flops && x.bits == y.bits && x.vectorOps == y.vectorOps &&
         x.steps == y.steps && x.what == y.what && x.alloc == y.alloc &&
         x.store == y.store && x.start == y.start &&
         x.collective == y.collective && x.group.size() == y.group.size();
}

bool alike(llvm::ArrayRef<schedule::Task> a, llvm::ArrayRef<schedule::Task> b) {
  if (a.size() != b.size())
    return false;
  for (size_t t = 0; t < a.size(); ++t)
    if (!alike(a[t], b[t]))
      return false;
  return true;
}

/// Which chip of another group runs what each chip of the first runs, grown
/// from one pair through the chips their messages and collectives name.
class Correspondence {
public:
  Correspondence(const schedule::Schedule &schedule,
                 const llvm::DenseMap<int64_t, int32_t> &indexOf)
      : schedule(schedule), indexOf(indexOf), to(schedule.chips.size(), -1),
        from(schedule.chips.size(), -1) {}

  /// Chip indices: the other group's chip for each of the first's (-1 for
  /// the rest), when `first` running what `seed` runs leads to every pair
  /// alike; none otherwise.
  std::optional<std::vector<int32_t>> grow(int32_t first, int32_t seed) {
    bind(first, seed);
    while (!queue.empty()) {
      auto [x, y] = queue.back();
      queue.pop_back();
      if (!pairAlike(x, y))
        return std::nullopt;
    }
    return std::move(to);
  }

private:
  bool bind(int32_t x, int32_t y) {
    if (to[x] < 0 && from[y] < 0) {
      to[x] = y;
      from[y] = x;
      queue.push_back({x, y});
      return true;
    }
    return to[x] == y && from[y] == x;
  }
  bool bindIds(int64_t x, int64_t y) {
    return bind(indexOf.at(x), indexOf.at(y));
  }
  /// A tag of the first group and its twin's, one to one both ways.
  bool pairTags(int64_t x, int64_t y) {
    auto forward = tagTo.try_emplace(x, y).first;
    auto backward = tagFrom.try_emplace(y, x).first;
    return forward->second == y && backward->second == x;
  }
  bool pairAlike(int32_t x, int32_t y) {
    const std::vector<schedule::Task> &a = schedule.chips[x].tasks,
                                      &b = schedule.chips[y].tasks;
    if (a.size() != b.size() ||
        (!schedule.stepStarts.empty() &&
         schedule.stepStarts[x] != schedule.stepStarts[y]))
      return false;
    for (size_t t = 0; t < a.size(); ++t) {
      const schedule::Task &p = a[t], &q = b[t];
      if (!alike(p, q))
        return false;
      if (p.kind == TaskKind::Send || p.kind == TaskKind::Recv) {
        if (!bindIds(p.peer, q.peer) || !pairTags(p.tag, q.tag))
          return false;
      } else if (p.kind == TaskKind::Collective) {
        if (!pairTags(p.tag, q.tag))
          return false;
        for (size_t m = 0; m < p.group.size(); ++m)
          if (!bindIds(p.group[m], q.group[m]))
            return false;
      }
    }
    return true;
  }

  const schedule::Schedule &schedule;
  const llvm::DenseMap<int64_t, int32_t> &indexOf;
  std::vector<int32_t> to, from;
  std::vector<std::pair<int32_t, int32_t>> queue;
  llvm::DenseMap<int64_t, int64_t> tagTo, tagFrom;
};

} // namespace

std::optional<Replicas> sim::findReplicas(const schedule::Schedule &schedule) {
  const std::vector<schedule::Chip> &chips = schedule.chips;
  size_t n = chips.size();
  if (schedule.slices != 1 || n < 2)
    return std::nullopt;
  llvm::DenseMap<int64_t, int32_t> indexOf;
  for (auto [i, chip] : llvm::enumerate(chips))
    indexOf[chip.id] = i;
  Joined joined(n);
  for (auto [i, chip] : llvm::enumerate(chips))
    for (const schedule::Task &task : chip.tasks)
      switch (task.kind) {
      case TaskKind::HostStore:
      case TaskKind::HostLoad:
        return std::nullopt;
      case TaskKind::Send:
      case TaskKind::Recv:
        joined.join(i, indexOf.at(task.peer));
        break;
      case TaskKind::Collective:
        for (int64_t member : task.group)
          joined.join(i, indexOf.at(member));
        break;
      default:
        break;
      }
  // The groups, by their first chip. (A chip without tasks is in none: it
  // runs nothing either way.)
  std::vector<std::vector<int32_t>> groups;
  llvm::DenseMap<int32_t, int32_t> groupOfRoot;
  for (size_t i = 0; i < n; ++i) {
    if (chips[i].tasks.empty())
      continue;
    auto [it, fresh] = groupOfRoot.try_emplace(joined.find(i), groups.size());
    if (fresh)
      groups.emplace_back();
    groups[it->second].push_back(i);
  }
  if (groups.size() < 2)
    return std::nullopt;
  Replicas replicas;
  replicas.copies = groups.size();
  replicas.twin.resize(n);
  std::iota(replicas.twin.begin(), replicas.twin.end(), 0);
  const std::vector<int32_t> &first = groups.front();
  replicas.ids.emplace_back();
  for (int32_t c : first)
    replicas.ids[0].push_back(chips[c].id);
  for (size_t g = 1; g < groups.size(); ++g) {
    if (groups[g].size() != first.size())
      return std::nullopt;
    // The chip running the first group's first chip's program: one whose
    // program is alike, from which every other pair follows.
    std::optional<std::vector<int32_t>> to;
    for (int32_t seed : groups[g]) {
      if (!alike(chips[first.front()].tasks, chips[seed].tasks))
        continue;
      to = Correspondence(schedule, indexOf).grow(first.front(), seed);
      if (to)
        break;
    }
    if (!to)
      return std::nullopt;
    std::vector<int64_t> ids;
    for (int32_t c : first) {
      if ((*to)[c] < 0)
        return std::nullopt;
      ids.push_back(chips[(*to)[c]].id);
      replicas.twin[(*to)[c]] = c;
    }
    replicas.ids.push_back(std::move(ids));
  }
  return replicas;
}
