//===- Timeline.cpp - traces and timeline pictures of a simulation --------===//

#include "loom/Sim/Timeline.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>

using namespace loom;
using namespace loom::sim;

namespace {

const char *engineName(uint8_t engine) {
  switch (engine) {
  case 0:
    return "TensorCore";
  case 1:
    return "ICI send / collective";
  case 2:
    return "ICI receive";
  default:
    return "host DMA";
  }
}

/// The engines a trace shows: the host DMA's only when a task ran on it,
/// so that traces of schedules without host transfers stay as they were.
uint8_t tracedEngines(const SimResult &result) {
  return llvm::any_of(result.trace,
                      [](const TraceEvent &event) { return event.engine == 3; })
             ? 4
             : 3;
}

/// "chips 0-3", "chips 0, 4, 8" or "chips 0, 4, ..., 60 (16)".
std::string chipList(const std::vector<int64_t> &ids) {
  if (ids.size() == 1)
    return fmt::format("chip {}", ids.front());
  bool contiguous = true;
  for (size_t i = 1; i < ids.size(); ++i)
    contiguous &= ids[i] == ids[i - 1] + 1;
  if (contiguous)
    return fmt::format("chips {}-{}", ids.front(), ids.back());
  if (ids.size() <= 4)
    return "chips " + llvm::join(llvm::map_range(ids, [](int64_t id) {
                                   return std::to_string(id);
                                 }),
                                 ", ");
  return fmt::format("chips {}, {}, ..., {} ({})", ids[0], ids[1], ids.back(),
                     ids.size());
}

std::string roleName(const ChipRole &role) {
  if (role.stage < 0)
    return fmt::format("no layers, replica {}", role.replica);
  return fmt::format("stage {} (layers {}-{}), replica {}", role.stage,
                     role.firstLayer, role.lastLayer, role.replica);
}

} // namespace

std::vector<ChipRole> sim::inferRoles(const schedule::Schedule &schedule) {
  std::vector<ChipRole> roles(schedule.chips.size());
  std::map<int64_t, size_t> index;
  for (auto [i, chip] : llvm::enumerate(schedule.chips))
    index[chip.id] = i;
  for (auto [i, chip] : llvm::enumerate(schedule.chips)) {
    ChipRole &role = roles[i];
    for (const schedule::Task &task : chip.tasks) {
      if (task.kind == schedule::TaskKind::Compute && task.layer >= 0) {
        role.firstLayer = role.firstLayer < 0
                              ? task.layer
                              : std::min(role.firstLayer, task.layer);
        role.lastLayer = std::max(role.lastLayer, task.layer);
      }
      if (task.kind == schedule::TaskKind::Collective && role.group.empty())
        role.group.assign(task.group.begin(), task.group.end());
    }
    if (role.group.empty())
      role.group = {chip.id};
    llvm::sort(role.group);
  }
  // Stages in the order of their first layers.
  std::vector<int64_t> firsts;
  for (const ChipRole &role : roles)
    if (role.firstLayer >= 0)
      firsts.push_back(role.firstLayer);
  llvm::sort(firsts);
  firsts.erase(std::unique(firsts.begin(), firsts.end()), firsts.end());
  // Replicas: a stage's groups by their lowest chip.
  std::map<int64_t, std::vector<int64_t>> groupsOfStage;
  for (ChipRole &role : roles) {
    if (role.firstLayer >= 0)
      role.stage = llvm::lower_bound(firsts, role.firstLayer) - firsts.begin();
    groupsOfStage[role.stage].push_back(role.group.front());
  }
  for (auto &[stage, leaders] : groupsOfStage) {
    llvm::sort(leaders);
    leaders.erase(std::unique(leaders.begin(), leaders.end()), leaders.end());
  }
  for (ChipRole &role : roles)
    role.replica = llvm::lower_bound(groupsOfStage[role.stage],
                                     role.group.front()) -
                   groupsOfStage[role.stage].begin();
  return roles;
}

bool TraceFilter::keeps(const ChipRole &role) const {
  if (replica && role.replica != *replica)
    return false;
  if (stages && (role.stage < stages->first || role.stage > stages->second))
    return false;
  return true;
}

std::string TraceFilter::describe() const {
  std::vector<std::string> parts;
  if (replica)
    parts.push_back(fmt::format("replica {}", *replica));
  if (stages)
    parts.push_back(stages->first == stages->second
                        ? fmt::format("stage {}", stages->first)
                        : fmt::format("stages {}-{}", stages->first,
                                      stages->second));
  return llvm::join(parts, ", ");
}

std::string TraceFilter::check(const std::vector<ChipRole> &roles,
                               llvm::StringRef what) const {
  int64_t replicas = 0, stageCount = 0;
  for (const ChipRole &role : roles) {
    replicas = std::max(replicas, role.replica + 1);
    stageCount = std::max(stageCount, role.stage + 1);
  }
  auto range = [](int64_t count) {
    return count == 1 ? std::string("only 0")
                      : fmt::format("0 to {}", count - 1);
  };
  if (replica && *replica >= replicas)
    return fmt::format("--trace-replica {}: the {} has no such replica (it "
                       "has {})",
                       *replica, what, range(replicas));
  if (stages && stages->second >= stageCount)
    return fmt::format("--trace-stages {}: the {} has no stage {} ({})",
                       stages->first == stages->second
                           ? std::to_string(stages->first)
                           : fmt::format("{}-{}", stages->first,
                                         stages->second),
                       what, stages->second,
                       stageCount ? "it has " + range(stageCount)
                                  : std::string("its chips run no layers"));
  return "";
}

std::string sim::parseStageRange(llvm::StringRef text,
                                 std::pair<int64_t, int64_t> &range) {
  auto [a, b] = text.split('-');
  int64_t first = 0, last = 0;
  if (a.getAsInteger(10, first) || first < 0 ||
      (text.contains('-') ? b.getAsInteger(10, last) : (last = first, false)) ||
      last < first)
    return "must be a stage or a range of stages, like 2 or 0-3 (numbered "
           "from 0), got '" +
           text.str() + "'";
  range = {first, last};
  return "";
}

void sim::writeTrace(const SimResult &result,
                     const schedule::Schedule &schedule, llvm::raw_ostream &os,
                     const TraceFilter &filter) {
  std::vector<ChipRole> roles = inferRoles(schedule);
  std::map<int64_t, size_t> index;
  for (auto [i, chip] : llvm::enumerate(schedule.chips))
    index[chip.id] = i;
  size_t kept = 0;
  for (const ChipRole &role : roles)
    kept += filter.keeps(role);
  uint8_t engines = tracedEngines(result);
  llvm::json::OStream j(os);
  j.object([&] {
    j.attribute("displayTimeUnit", "ms");
    j.attributeObject("otherData", [&] {
      j.attribute("loom_chips", fmt::format("{} of {}", kept, roles.size()));
      if (!filter.empty())
        j.attribute("loom_filter",
                    "only " + filter.describe() +
                        " (--trace-replica / --trace-stages); the other "
                        "chips' tasks are left out");
    });
    j.attributeArray("traceEvents", [&] {
      for (auto &[id, i] : index) {
        if (!filter.keeps(roles[i]))
          continue;
        j.object([&] {
          j.attribute("ph", "M");
          j.attribute("name", "process_name");
          j.attribute("pid", id);
          j.attributeObject("args", [&, id = id, i = i] {
            j.attribute("name", fmt::format("chip {}: {}", id,
                                            roleName(roles[i])));
          });
        });
        for (uint8_t engine = 0; engine < engines; ++engine)
          j.object([&, id = id] {
            j.attribute("ph", "M");
            j.attribute("name", "thread_name");
            j.attribute("pid", id);
            j.attribute("tid", engine);
            j.attributeObject(
                "args", [&] { j.attribute("name", engineName(engine)); });
          });
      }
      for (const TraceEvent &event : result.trace) {
        size_t i = index[event.chip];
        if (!filter.keeps(roles[i]))
          continue;
        const schedule::Task &task = schedule.chips[i].tasks[event.task];
        bool host = task.kind == schedule::TaskKind::HostStore ||
                    task.kind == schedule::TaskKind::HostLoad;
        std::string name =
            task.kind == schedule::TaskKind::Compute ? task.name
            : task.kind == schedule::TaskKind::Collective
                ? schedule::name(task.collective).str()
            : host ? schedule::name(task.kind).str() +
                         (task.name.empty() ? "" : " " + task.name)
                   : schedule::name(task.kind).str() + " " +
                         std::to_string(task.peer);
        j.object([&] {
          j.attribute("ph", "X");
          j.attribute("name", name);
          // A collective's span runs from its start to its done.
          j.attribute("cat", task.kind == schedule::TaskKind::Collective
                                 ? llvm::StringRef("collective")
                                 : schedule::name(task.kind));
          j.attribute("pid", event.chip);
          j.attribute("tid", event.engine);
          j.attribute("ts", event.start * 1e6);
          j.attribute("dur", (event.end - event.start) * 1e6);
          j.attributeObject("args", [&] {
            j.attribute("task", event.task);
            j.attribute("bytes", task.bytes);
            if (task.kind == schedule::TaskKind::Compute) {
              j.attribute("flops", task.flops);
              j.attribute("layer", task.layer);
              j.attribute("slice", task.slice);
            }
          });
        });
      }
    });
  });
  os << "\n";
}

void sim::writeSVG(const SimResult &result, const schedule::Schedule &schedule,
                   llvm::raw_ostream &os) {
  std::vector<ChipRole> roles = inferRoles(schedule);
  // One lane per tensor-parallel group, shown by its lowest chip (its
  // chips run the same program), ordered by replica, then stage.
  struct Lane {
    const ChipRole *role;
    int64_t chip;
  };
  std::vector<Lane> lanes;
  std::map<int64_t, size_t> laneOfChip;
  for (auto [i, chip] : llvm::enumerate(schedule.chips))
    if (roles[i].group.front() == chip.id)
      lanes.push_back({&roles[i], chip.id});
  llvm::stable_sort(lanes, [](const Lane &a, const Lane &b) {
    return std::tie(a.role->replica, a.role->stage) <
           std::tie(b.role->replica, b.role->stage);
  });
  for (auto [i, lane] : llvm::enumerate(lanes))
    laneOfChip[lane.chip] = i;

  // Busy seconds per lane, engine and pixel column: tasks shorter than a
  // pixel add up in their column instead of each drawing a rectangle.
  constexpr int width = 1200;
  const double left = 250, laneHeight = 20, top = 64;
  double perPixel = result.makespan > 0 ? result.makespan / width : 1;
  std::vector<std::array<std::vector<double>, 4>> busy(lanes.size());
  for (auto &engines : busy)
    for (auto &columns : engines)
      columns.assign(width, 0);
  for (const TraceEvent &event : result.trace) {
    auto lane = laneOfChip.find(event.chip);
    if (lane == laneOfChip.end())
      continue;
    std::vector<double> &columns = busy[lane->second][event.engine];
    double start = event.start / perPixel, end = event.end / perPixel;
    for (int c = std::max(0, int(start)); c < width && c < end; ++c)
      columns[c] += std::min<double>(end, c + 1) - std::max<double>(start, c);
  }

  // The run as a whole, over every chip: the efficiency report's parts.
  double compute = 0, exposed = 0;
  for (const ChipStats &chip : result.chips) {
    compute += chip.computeBusy;
    exposed += chip.exposedComm;
  }
  double all = std::max(result.makespan * result.chips.size(), 1e-30);
  double dispatch = result.dispatch * result.chips.size();
  double height = top + laneHeight * lanes.size() + 30;
  os << fmt::format("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" "
                    "height=\"{}\" font-family=\"sans-serif\" "
                    "font-size=\"11\">\n",
                    left + width + 20, height);
  os << fmt::format(
      "<text x=\"4\" y=\"16\">makespan {:.3f} ms on {} chips in {} lanes "
      "(one per tensor-parallel group, shown by its first chip). Of the "
      "chips' time: compute {:.1f}%, exposed communication {:.1f}%, idle "
      "(pipeline bubble) {:.1f}%, host dispatch {:.1f}%.</text>\n",
      result.makespan * 1e3, result.chips.size(), lanes.size(),
      100 * compute / all, 100 * exposed / all,
      100 * std::max(0.0, 1 - (compute + exposed + dispatch) / all),
      100 * dispatch / all);
  static const char *colours[] = {"#3b6fb6", "#e08a2c", "#b0b0b0", "#3a9a5b"};
  static const char *legend[] = {"compute (TensorCore)",
                                 "send / collective (ICI)",
                                 "waiting for a receive", "host DMA"};
  // The host DMA's row, under the ICI's, only when a task ran on it.
  int engines = tracedEngines(result);
  for (int e = 0; e < engines; ++e)
    os << fmt::format("<rect x=\"{}\" y=\"26\" width=\"12\" height=\"10\" "
                      "fill=\"{}\"/><text x=\"{}\" y=\"35\">{}</text>\n",
                      4 + 200 * e + (e == 3 ? 400 : 0), colours[e],
                      20 + 200 * e + (e == 3 ? 400 : 0), legend[e]);
  os << fmt::format("<text x=\"604\" y=\"35\">shade: share of a pixel's {:.3g} "
                    "us the engine was busy</text>\n",
                    perPixel * 1e6);
  for (auto [i, lane] : llvm::enumerate(lanes)) {
    const ChipRole &role = *lane.role;
    os << fmt::format("<text x=\"4\" y=\"{}\">{}: {}</text>\n",
                      top + laneHeight * i + 12,
                      role.stage < 0 ? std::string("no layers")
                                     : fmt::format("stage {} r{} L{}-{}",
                                                   role.stage, role.replica,
                                                   role.firstLayer,
                                                   role.lastLayer),
                      chipList(role.group));
    // Communication first, so compute stays visible where they overlap.
    for (int engine : {3, 2, 1, 0}) {
      if (engine >= engines)
        continue;
      const std::vector<double> &columns = busy[i][engine];
      double y = top + laneHeight * i + (engine == 0 ? 1 : engine == 3 ? 18 : 10);
      // Runs of columns at the same shade (quarters of a pixel's time).
      for (int c = 0; c < width;) {
        int level = int(std::ceil(4 * columns[c] / perPixel - 1e-9));
        level = std::clamp(level, 0, 4);
        int end = c + 1;
        while (end < width &&
               std::clamp(int(std::ceil(4 * columns[end] / perPixel - 1e-9)),
                          0, 4) == level)
          ++end;
        if (level > 0)
          os << fmt::format("<rect x=\"{:.0f}\" y=\"{:.0f}\" width=\"{}\" "
                            "height=\"{}\" fill=\"{}\"{}/>\n",
                            left + c, y, end - c,
                            engine == 0 ? 9 : engine == 3 ? 2 : 8,
                            colours[engine],
                            level == 4 ? ""
                                       : fmt::format(" fill-opacity=\"{}\"",
                                                     level / 4.0));
        c = end;
      }
    }
  }
  os << fmt::format("<text x=\"{}\" y=\"{}\">0</text><text x=\"{}\" "
                    "y=\"{}\">{:.3f} ms</text>\n",
                    left, height - 10, left + width - 60, height - 10,
                    result.makespan * 1e3);
  os << "</svg>\n";
}
