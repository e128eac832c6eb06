//===- Schedule.cpp - the executable schedule file ------------------------===//

#include "loom/Schedule/Schedule.h"

#include "loom/Support/JsonReader.h"

#include "llvm/Support/JSON.h"

#include <array>
#include <optional>

using namespace loom;
using namespace loom::schedule;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace {

constexpr std::array<std::pair<TaskKind, llvm::StringLiteral>, 6> taskKinds = {{
    {TaskKind::Compute, "compute"}, {TaskKind::Send, "send"},
    {TaskKind::Recv, "recv"},       {TaskKind::Collective, "collective"},
    {TaskKind::Alloc, "alloc"},     {TaskKind::Free, "free"}}};
constexpr std::array<std::pair<Collective, llvm::StringLiteral>, 4> collectives = {{
    {Collective::AllReduce, "all_reduce"}, {Collective::AllGather, "all_gather"},
    {Collective::ReduceScatter, "reduce_scatter"},
    {Collective::AllToAll, "all_to_all"}}};
constexpr std::array<std::pair<Memory, llvm::StringLiteral>, 3> memories = {{
    {Memory::Weights, "weights"}, {Memory::Activations, "activations"},
    {Memory::KVCache, "kv_cache"}}};

template <typename Enum, size_t N>
llvm::StringRef nameIn(const std::array<std::pair<Enum, llvm::StringLiteral>, N> &table,
                       Enum value) {
  for (const auto &[e, text] : table)
    if (e == value)
      return text;
  return "";
}

template <typename Enum, size_t N>
std::optional<Enum>
parseIn(const std::array<std::pair<Enum, llvm::StringLiteral>, N> &table,
        llvm::StringRef text) {
  for (const auto &[e, name] : table)
    if (name == text)
      return e;
  return std::nullopt;
}

template <typename Enum, size_t N>
std::string choices(const std::array<std::pair<Enum, llvm::StringLiteral>, N> &table) {
  std::string text;
  for (const auto &entry : table)
    text += (text.empty() ? "" : ", ") + entry.second.str();
  return text;
}

} // namespace

llvm::StringRef schedule::name(TaskKind kind) { return nameIn(taskKinds, kind); }
llvm::StringRef schedule::name(Collective kind) { return nameIn(collectives, kind); }
llvm::StringRef schedule::name(Memory kind) { return nameIn(memories, kind); }

llvm::Expected<Schedule> schedule::parseSchedule(llvm::StringRef json,
                                                 llvm::StringRef fileName) {
  llvm::Expected<Value> document = llvm::json::parse(json);
  if (!document)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        fileName + ": invalid JSON: " + llvm::toString(document.takeError()));
  JsonReader r(fileName);
  Schedule result;
  const Object *root = r.object(&*document, "$");
  if (!root)
    return r.takeError();
  r.keys(*root, "$", {"format", "version", "target", "chips"},
         {"format", "version", "target", "chips"});
  if (r.failed())
    return r.takeError();
  std::string format = r.string(*root, "format", "$");
  if (!r.failed() && format != "loom-schedule")
    r.fail("$.format", "must be \"loom-schedule\", got \"" + format + "\"");
  int64_t version = r.integer(*root, "version", "$", 0);
  if (!r.failed() && version != kFormatVersion)
    r.fail("$.version", "version " + std::to_string(version) +
                            " is not supported (this Loom reads version " +
                            std::to_string(kFormatVersion) + ")");
  if (const Object *target = r.object(root->get("target"), "$.target")) {
    r.keys(*target, "$.target", {"name", "shape"}, {"name", "shape"});
    result.targetName = r.string(*target, "name", "$.target");
    result.shape = r.shape(*target, "shape", "$.target");
  }
  const Array *chips = r.array(root->get("chips"), "$.chips");
  if (!chips || r.failed())
    return r.takeError();
  JsonPath chipsPath("$.chips");
  for (auto [c, chipValue] : llvm::enumerate(*chips)) {
    JsonPath chipPath(chipsPath, c);
    const Object *chipObject = r.object(&chipValue, chipPath);
    if (!chipObject)
      return r.takeError();
    r.keys(*chipObject, chipPath, {"id", "tasks"}, {"id", "tasks"});
    Chip chip;
    chip.id = r.integer(*chipObject, "id", chipPath, 0);
    JsonPath tasksPath(chipPath, "tasks");
    const Array *tasks = r.array(chipObject->get("tasks"), tasksPath);
    if (!tasks || r.failed())
      return r.takeError();
    chip.tasks.reserve(tasks->size());
    for (auto [t, taskValue] : llvm::enumerate(*tasks)) {
      JsonPath path(tasksPath, t);
      const Object *o = r.object(&taskValue, path);
      if (!o)
        return r.takeError();
      Task task;
      std::string kind = r.string(*o, "kind", path);
      std::optional<TaskKind> parsed = parseIn(taskKinds, kind);
      if (!parsed) {
        r.fail(JsonReader::at(path, "kind"),
               "unknown task kind \"" + kind + "\" (known: " +
                   choices(taskKinds) + ")");
        return r.takeError();
      }
      task.kind = *parsed;
      switch (task.kind) {
      case TaskKind::Compute:
        r.keys(*o, path,
               {"kind", "name", "op", "layer", "slice", "step", "flops", "bytes",
                "deps"},
               {"kind", "name", "op", "layer", "slice", "step", "flops",
                "bytes", "deps"});
        task.name = r.string(*o, "name", path);
        task.op = r.string(*o, "op", path);
        task.layer = r.integer(*o, "layer", path, -1);
        task.slice = r.integer(*o, "slice", path, 0);
        task.step = r.integer(*o, "step", path, 0);
        task.flops = r.integer(*o, "flops", path, 0);
        break;
      case TaskKind::Send:
      case TaskKind::Recv: {
        llvm::StringRef peerKey = task.kind == TaskKind::Send ? "to" : "from";
        r.keys(*o, path, {"kind", peerKey, "bytes", "tag", "deps"},
               {"kind", peerKey, "bytes", "tag", "deps"});
        task.peer = r.integer(*o, peerKey, path, 0);
        task.tag = r.integer(*o, "tag", path, 0);
        break;
      }
      case TaskKind::Collective: {
        r.keys(*o, path, {"kind", "collective", "group", "bytes", "tag", "deps"},
               {"kind", "collective", "group", "bytes", "tag", "deps"});
        std::string which = r.string(*o, "collective", path);
        if (auto c = parseIn(collectives, which))
          task.collective = *c;
        else if (!r.failed())
          r.fail(JsonReader::at(path, "collective"),
                 "unknown collective \"" + which + "\" (known: " +
                     choices(collectives) + ")");
        task.tag = r.integer(*o, "tag", path, 0);
        JsonPath groupPath(path, "group");
        if (const Array *group = r.array(o->get("group"), groupPath)) {
          for (auto [g, member] : llvm::enumerate(*group))
            task.group.push_back(
                r.integer(member, JsonReader::at(groupPath, g), 0));
          if (group->empty())
            r.fail(groupPath, "a collective needs a group");
        }
        break;
      }
      case TaskKind::Alloc: {
        r.keys(*o, path, {"kind", "what", "name", "bytes", "deps"},
               {"kind", "what", "name", "bytes", "deps"});
        std::string what = r.string(*o, "what", path);
        if (auto m = parseIn(memories, what))
          task.what = *m;
        else if (!r.failed())
          r.fail(JsonReader::at(path, "what"),
                 "unknown memory kind \"" + what + "\" (known: " +
                     choices(memories) + ")");
        task.name = r.string(*o, "name", path);
        break;
      }
      case TaskKind::Free:
        r.keys(*o, path, {"kind", "alloc", "deps"}, {"kind", "alloc", "deps"});
        task.alloc = r.integer(*o, "alloc", path, 0);
        if (!r.failed() && (task.alloc >= static_cast<int64_t>(t) ||
                            chip.tasks[task.alloc].kind != TaskKind::Alloc))
          r.fail(JsonReader::at(path, "alloc"),
                 "must be the index of an earlier alloc task of this chip");
        break;
      }
      if (task.kind != TaskKind::Free)
        task.bytes = r.integer(*o, "bytes", path, 0);
      JsonPath depsPath(path, "deps");
      if (const Array *deps = r.array(o->get("deps"), depsPath))
        for (auto [d, dep] : llvm::enumerate(*deps)) {
          int64_t index = r.integer(dep, JsonReader::at(depsPath, d), 0);
          if (!r.failed() && index >= static_cast<int64_t>(t))
            r.fail(JsonReader::at(depsPath, d),
                   "dangling dependency on task " + std::to_string(index) +
                       ": a task may depend only on earlier tasks of its chip");
          task.deps.push_back(index);
        }
      if (r.failed())
        return r.takeError();
      chip.tasks.push_back(std::move(task));
    }
    result.chips.push_back(std::move(chip));
  }
  if (r.failed())
    return r.takeError();
  return result;
}

void schedule::writeSchedule(const Schedule &schedule, llvm::raw_ostream &os) {
  llvm::json::OStream j(os, /*IndentSize=*/0);
  // One task per line: readable, diffable and still compact.
  j.object([&] {
    j.attribute("format", "loom-schedule");
    j.attribute("version", kFormatVersion);
    j.attributeObject("target", [&] {
      j.attribute("name", schedule.targetName);
      j.attributeArray("shape", [&] {
        for (int64_t d : schedule.shape)
          j.value(d);
      });
    });
    j.attributeArray("chips", [&] {
      for (const Chip &chip : schedule.chips) {
        j.object([&] {
          j.attribute("id", chip.id);
          j.attributeArray("tasks", [&] {
            for (const Task &task : chip.tasks) {
              os << "\n";
              j.object([&] {
                j.attribute("kind", name(task.kind));
                switch (task.kind) {
                case TaskKind::Compute:
                  j.attribute("name", task.name);
                  j.attribute("op", task.op);
                  j.attribute("layer", task.layer);
                  j.attribute("slice", task.slice);
                  j.attribute("step", task.step);
                  j.attribute("flops", task.flops);
                  break;
                case TaskKind::Send:
                  j.attribute("to", task.peer);
                  j.attribute("tag", task.tag);
                  break;
                case TaskKind::Recv:
                  j.attribute("from", task.peer);
                  j.attribute("tag", task.tag);
                  break;
                case TaskKind::Collective:
                  j.attribute("collective", name(task.collective));
                  j.attributeArray("group", [&] {
                    for (int64_t member : task.group)
                      j.value(member);
                  });
                  j.attribute("tag", task.tag);
                  break;
                case TaskKind::Alloc:
                  j.attribute("what", name(task.what));
                  j.attribute("name", task.name);
                  break;
                case TaskKind::Free:
                  j.attribute("alloc", task.alloc);
                  break;
                }
                if (task.kind != TaskKind::Free)
                  j.attribute("bytes", task.bytes);
                j.attributeArray("deps", [&] {
                  for (int64_t dep : task.deps)
                    j.value(dep);
                });
              });
            }
          });
        });
      }
    });
  });
  os << "\n";
}
