//===- Schedule.cpp - the executable schedule file ------------------------===//

#include "loom/Schedule/Schedule.h"

#include "loom/Hardware/TargetSchema.h"
#include "loom/Support/JsonReader.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/JSON.h"

#include <array>
#include <cmath>
#include <map>
#include <optional>
#include <utility>

using namespace loom;
using namespace loom::schedule;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

namespace {

constexpr std::array<std::pair<TaskKind, llvm::StringLiteral>, 9> taskKinds = {{
    {TaskKind::Compute, "compute"}, {TaskKind::Send, "send"},
    {TaskKind::Recv, "recv"},       {TaskKind::Collective, "collective_start"},
    {TaskKind::CollectiveDone, "collective_done"},
    {TaskKind::Alloc, "alloc"},     {TaskKind::Free, "free"},
    {TaskKind::HostStore, "host_store"}, {TaskKind::HostLoad, "host_load"}}};
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

/// The spellings of a shared enum (loom/Support/Enums.h), for errors.
template <typename Enum>
std::string choices(unsigned maxValue, llvm::StringRef (*stringify)(Enum)) {
  std::string text;
  for (unsigned value = 0; value <= maxValue; ++value)
    text += (value ? ", " : "") + stringify(Enum(value)).str();
  return text;
}

} // namespace

llvm::StringRef schedule::name(TaskKind kind) { return nameIn(taskKinds, kind); }

namespace {

/// A value of a task or chip field as the streaming reader saw it.
struct Field {
  enum class Type : uint8_t { Missing, Null, Bool, Number, String, Array, Object };
  Type type = Type::Missing;
  bool integral = false;
  int64_t integer = 0;
  double number = 0;
  /// A string's text: a view of the document, or of `decoded` when the
  /// string had escapes.
  llvm::StringRef view;
  std::string decoded;
  bool escaped = false;
  /// Array elements, one level deep (deeper values are kept as their type).
  std::vector<Field> items;

  bool present() const { return type != Type::Missing; }
  llvm::StringRef text() const { return escaped ? llvm::StringRef(decoded) : view; }
  /// Forgets the value, keeping the storage for the next one.
  void reset() {
    type = Type::Missing;
    integral = escaped = false;
    integer = 0;
    number = 0;
    items.clear();
  }
  std::string show() const {
    switch (type) {
    case Type::Null:
      return "null";
    case Type::Bool:
      return integer ? "true" : "false";
    case Type::Number:
      return showNumber(number);
    case Type::String:
      return "\"" + text().str() + "\"";
    case Type::Array:
      return "an array";
    case Type::Object:
      return "an object";
    case Type::Missing:
      break;
    }
    return "nothing";
  }
};

// The fields a task may have; a task's kind says which it must.
enum TaskField { Kind, Name, Op, Layer, Slice, Step, Flops, Bytes, To, From,
                 Tag, CollectiveName, Group, What, Alloc, Deps, Bits, Start,
                 VectorOps, Steps, Store, NumFields };
constexpr llvm::StringLiteral taskFieldNames[NumFields] = {
    "kind", "name", "op",  "layer", "slice", "step", "flops", "bytes",
    "to",   "from", "tag", "collective", "group", "what", "alloc", "deps",
    "bits", "start", "vector_ops", "steps", "store"};

/// Reads a schedule document in one pass over the text, without building a
/// document tree: a 1.4-million-task file would otherwise spend most of its
/// time allocating. Errors match JsonReader's: the JSON path, then what is
/// wrong.
class StreamReader {
public:
  StreamReader(llvm::StringRef text, llvm::StringRef fileName)
      : text(text), fileName(fileName.str()) {}

  llvm::Expected<Schedule> read();

private:
  // Lexing.
  void skipSpace() {
    while (pos < text.size() && (text[pos] == ' ' || text[pos] == '\n' ||
                                 text[pos] == '\r' || text[pos] == '\t'))
      ++pos;
  }
  bool peek(char c) {
    skipSpace();
    return pos < text.size() && text[pos] == c;
  }
  bool eat(char c) {
    if (!peek(c))
      return false;
    ++pos;
    return true;
  }
  void expect(char c) {
    if (!eat(c))
      syntax(std::string("expected '") + c + "'");
  }
  void syntax(const std::string &what) {
    if (!failed.empty())
      return;
    size_t line = 1 + text.take_front(pos).count('\n');
    size_t lineStart = text.take_front(pos).rfind('\n');
    size_t column = 1 + (lineStart == llvm::StringRef::npos ? pos : pos - lineStart - 1);
    failed = fileName + ": invalid JSON: " + what + " at line " +
             std::to_string(line) + ", column " + std::to_string(column);
    pos = text.size();
  }
  void fail(const JsonPath &path, const llvm::Twine &what) {
    if (failed.empty())
      failed = fileName + ": " + path.str() + ": " + what.str();
  }
  /// Whether the next value opens `open` ('{' or '['); if not, an error:
  /// the end of the input where it ends, else the value's expected kind.
  bool opens(char open, const JsonPath &path) {
    if (peek(open))
      return true;
    if (pos >= text.size())
      syntax("unexpected end of input");
    else
      fail(path, open == '{' ? "must be an object" : "must be an array");
    return false;
  }
  /// Reports each of `keys` (seen, name) of the object at `path` not seen.
  void requireKeys(const JsonPath &path,
                   std::initializer_list<std::pair<bool, const char *>> keys) {
    for (auto [seen, key] : keys)
      if (!seen)
        fail(JsonPath(path, key), "missing required key");
  }
  /// Marks the key at `path` seen; seeing it again is an error, since an
  /// object that repeats a key is ambiguous.
  bool firstTime(bool &seen, const JsonPath &path) {
    if (seen)
      fail(path, "duplicate key");
    return !std::exchange(seen, true);
  }
  /// A string's text: a view of the document, or, when the string has
  /// escapes, of `decoded`, which then holds it.
  llvm::StringRef string(std::string &decoded);
  void value(Field &field, int depth);
  /// Calls `onKey(key)` for each key of an object; `onKey` reads the value.
  template <typename Fn> void object(Fn onKey) {
    expect('{');
    if (eat('}'))
      return;
    do {
      if (!failed.empty())
        return;
      skipSpace();
      llvm::StringRef key = string(keyScratch);
      expect(':');
      if (!failed.empty())
        return;
      onKey(key);
    } while (eat(','));
    expect('}');
  }
  template <typename Fn> void array(Fn onItem) {
    expect('[');
    if (eat(']'))
      return;
    size_t index = 0;
    do {
      if (!failed.empty())
        return;
      onItem(index++);
    } while (eat(','));
    expect(']');
  }

  // Checks, with JsonReader's messages.
  int64_t integer(const Field &f, const JsonPath &path, int64_t min);
  llvm::StringRef stringField(const Field &f, const JsonPath &path);
  void readTask(Chip &chip, const JsonPath &path);
  void readChip(Schedule &schedule, const JsonPath &path);
  void readTarget(Schedule &schedule, const JsonPath &path);
  /// An object of the target's figures, those of `section` in the target
  /// schema, read into `figs` and checked against the schema's ranges. A key
  /// that is not a figure goes to `other(key, field, path)`, which returns
  /// false for an unknown one (refused naming `otherKeys` and the figures).
  /// Returns how many of the section's required figures were given.
  template <typename Fn>
  size_t targetFigures(const JsonPath &path, IrSection section,
                       TargetDesc &figs, llvm::StringRef otherKeys, Fn other);

  llvm::StringRef text;
  size_t pos = 0;
  std::string fileName, failed;
  std::string keyScratch;
  std::array<Field, NumFields> fields;
  /// The collectives' groups read so far, each once.
  std::vector<int64_t> groupScratch;
  std::map<std::vector<int64_t>, ChipGroup> groups;
};

llvm::StringRef StreamReader::string(std::string &decoded) {
  skipSpace();
  if (pos >= text.size() || text[pos] != '"') {
    syntax("expected a string");
    return "";
  }
  ++pos;
  size_t start = pos;
  // Schedules are ASCII without escapes: a view of the text is the string.
  size_t end = pos;
  while (end < text.size() && text[end] != '"' && text[end] != '\\' &&
         static_cast<unsigned char>(text[end]) >= 0x20)
    ++end;
  if (end < text.size() && text[end] == '"') {
    pos = end + 1;
    return text.slice(start, end);
  }
  decoded.clear();
  std::string &out = decoded;
  while (pos < text.size() && text[pos] != '"') {
    if (static_cast<unsigned char>(text[pos]) < 0x20) {
      syntax("control character in a string (escape it)");
      return out;
    }
    if (text[pos] != '\\') {
      ++pos;
      continue;
    }
    out.append(text.data() + start, pos - start);
    if (pos + 1 >= text.size())
      break;
    char c = text[pos + 1];
    pos += 2;
    switch (c) {
    case 'n': out += '\n'; break;
    case 't': out += '\t'; break;
    case 'r': out += '\r'; break;
    case 'b': out += '\b'; break;
    case 'f': out += '\f'; break;
    case 'u': {
      std::string error = decodeUnicodeEscape(text, pos, out);
      if (!error.empty()) {
        syntax(error);
        return out;
      }
      break;
    }
    case '"':
    case '\\':
    case '/': out += c; break;
    default:
      pos -= 2;
      syntax(std::string("invalid escape \\") + c);
      return out;
    }
    start = pos;
  }
  if (pos >= text.size()) {
    syntax("unterminated string");
    return out;
  }
  out.append(text.data() + start, pos - start);
  ++pos;
  return out;
}

void StreamReader::value(Field &field, int depth) {
  // A schedule nests five levels deep; a bound keeps hostile input from
  // exhausting the stack.
  constexpr int maxDepth = 64;
  if (depth > maxDepth) {
    syntax("nested more than 64 levels deep");
    return;
  }
  skipSpace();
  if (pos >= text.size()) {
    syntax("unexpected end of input");
    return;
  }
  char c = text[pos];
  if (c == '"') {
    field.type = Field::Type::String;
    field.view = string(field.decoded);
    field.escaped = field.view.data() == field.decoded.data();
  } else if (c == '{') {
    field.type = Field::Type::Object;
    object([&](llvm::StringRef) {
      Field ignored;
      value(ignored, depth + 1);
    });
  } else if (c == '[') {
    field.type = Field::Type::Array;
    array([&](size_t) {
      Field item;
      value(item, depth + 1);
      if (depth == 0)
        field.items.push_back(std::move(item));
    });
  } else if (text.substr(pos).starts_with("true") ||
             text.substr(pos).starts_with("false")) {
    field.type = Field::Type::Bool;
    field.integer = c == 't';
    pos += c == 't' ? 4 : 5;
  } else if (text.substr(pos).starts_with("null")) {
    field.type = Field::Type::Null;
    pos += 4;
  } else {
    size_t start = pos;
    if (text[pos] == '-')
      ++pos;
    bool integral = true;
    while (pos < text.size() &&
           (llvm::isDigit(text[pos]) || text[pos] == '.' || text[pos] == 'e' ||
            text[pos] == 'E' || text[pos] == '+' || text[pos] == '-')) {
      integral &= llvm::isDigit(text[pos]);
      ++pos;
    }
    llvm::StringRef digits = text.slice(start, pos);
    if (digits.empty() || digits == "-") {
      syntax("unexpected character");
      return;
    }
    llvm::StringRef magnitude = digits.drop_front(digits.front() == '-');
    if (magnitude.size() > 1 && magnitude[0] == '0' &&
        llvm::isDigit(magnitude[1])) {
      pos = start;
      syntax("number with a leading zero");
      return;
    }
    field.type = Field::Type::Number;
    field.integral = false;
    // Up to 18 digits cannot overflow: the common case, without a library
    // call per number.
    if (integral && digits.size() <= 18) {
      bool negative = digits.front() == '-';
      int64_t n = 0;
      for (char d : digits.drop_front(negative ? 1 : 0))
        n = n * 10 + (d - '0');
      field.integral = true;
      field.integer = negative ? -n : n;
      field.number = double(field.integer);
    } else if (integral && !digits.getAsInteger(10, field.integer)) {
      field.integral = true;
      field.number = double(field.integer);
    } else if (digits.getAsDouble(field.number)) {
      syntax("invalid number");
    } else if (field.number == std::floor(field.number) &&
               std::fabs(field.number) < 9.2e18) {
      field.integral = true;
      field.integer = int64_t(field.number);
    }
  }
}

int64_t StreamReader::integer(const Field &f, const JsonPath &path, int64_t min) {
  if (!f.present()) {
    fail(path, "missing required key");
    return min;
  }
  if (f.type != Field::Type::Number || !f.integral) {
    fail(path, "must be an integer");
    return min;
  }
  if (f.integer < min) {
    fail(path, "must be at least " + std::to_string(min) + ", got " +
                   std::to_string(f.integer));
    return min;
  }
  return f.integer;
}

llvm::StringRef StreamReader::stringField(const Field &f, const JsonPath &path) {
  if (!f.present()) {
    fail(path, "missing required key");
    return "";
  }
  if (f.type != Field::Type::String) {
    fail(path, "must be a string");
    return "";
  }
  return f.text();
}

void StreamReader::readTask(Chip &chip, const JsonPath &path) {
  // One set of fields serves every task, so that their storage is reused.
  for (Field &field : fields)
    field.reset();
  llvm::SmallVector<std::string, 1> unknown;
  object([&](llvm::StringRef key) {
    const auto *it = llvm::find(taskFieldNames, key);
    if (it == std::end(taskFieldNames)) {
      unknown.push_back(key.str());
      Field ignored;
      value(ignored, 1);
      return;
    }
    Field &field = fields[it - std::begin(taskFieldNames)];
    if (field.present())
      return fail(JsonPath(path, *it), "duplicate key");
    value(field, 0);
  });
  if (!failed.empty())
    return;
  llvm::StringRef kindName = stringField(fields[Kind], JsonPath(path, "kind"));
  std::optional<TaskKind> kind = parseIn(taskKinds, kindName);
  if (!failed.empty())
    return;
  if (!kind)
    return fail(JsonPath(path, "kind"),
                "unknown task kind \"" + kindName.str() + "\" (known: " +
                    choices(taskKinds) + ")");
  llvm::SmallVector<TaskField, 10> allowed;
  switch (*kind) {
  case TaskKind::Compute:
    allowed = {Kind, Name, Op, Layer, Slice, Step, Flops, Bytes, Deps, Bits,
               VectorOps, Steps};
    break;
  case TaskKind::Send:
    allowed = {Kind, To, Bytes, Tag, Deps};
    break;
  case TaskKind::Recv:
    allowed = {Kind, From, Bytes, Tag, Deps};
    break;
  case TaskKind::Collective:
    allowed = {Kind, CollectiveName, Group, Bytes, Tag, Deps};
    break;
  case TaskKind::CollectiveDone:
    allowed = {Kind, Start, Deps};
    break;
  case TaskKind::Alloc:
    allowed = {Kind, What, Name, Bytes, Deps};
    break;
  case TaskKind::Free:
    allowed = {Kind, Alloc, Deps};
    break;
  case TaskKind::HostStore:
    allowed = {Kind, Name, Bytes, Deps};
    break;
  case TaskKind::HostLoad:
    allowed = {Kind, Name, Store, Bytes, Deps};
    break;
  }
  auto unknownKey = [&](llvm::StringRef key) {
    std::string known = llvm::join(
        llvm::map_range(allowed, [](TaskField f) { return taskFieldNames[f]; }),
        ", ");
    fail(JsonPath(path, key), "unknown key (known here: " + known + ")");
  };
  for (const std::string &key : unknown)
    unknownKey(key);
  for (int f = 0; f < NumFields; ++f)
    if (fields[f].present() && !llvm::is_contained(allowed, TaskField(f)))
      unknownKey(taskFieldNames[f]);
  // `bits`, `vector_ops` and `steps` are optional (16, 0 and 1 when
  // absent), and so is a host transfer's `name` (empty).
  bool host = *kind == TaskKind::HostStore || *kind == TaskKind::HostLoad;
  for (TaskField f : allowed)
    if (!fields[f].present() && f != Bits && f != VectorOps && f != Steps &&
        !(host && f == Name))
      fail(JsonPath(path, taskFieldNames[f]), "missing required key");
  if (!failed.empty())
    return;

  Task task;
  task.kind = *kind;
  auto at = [&](TaskField f) { return JsonPath(path, taskFieldNames[f]); };
  switch (task.kind) {
  case TaskKind::Compute:
    task.name = stringField(fields[Name], at(Name));
    task.op = stringField(fields[Op], at(Op));
    task.layer = integer(fields[Layer], at(Layer), -1);
    task.slice = integer(fields[Slice], at(Slice), 0);
    task.step = integer(fields[Step], at(Step), 0);
    task.flops = integer(fields[Flops], at(Flops), 0);
    task.bits = fields[Bits].present() ? integer(fields[Bits], at(Bits), 1) : 16;
    task.vectorOps = fields[VectorOps].present()
                         ? integer(fields[VectorOps], at(VectorOps), 0)
                         : 0;
    task.steps =
        fields[Steps].present() ? integer(fields[Steps], at(Steps), 1) : 1;
    break;
  case TaskKind::Send:
    task.peer = integer(fields[To], at(To), 0);
    task.tag = integer(fields[Tag], at(Tag), 0);
    break;
  case TaskKind::Recv:
    task.peer = integer(fields[From], at(From), 0);
    task.tag = integer(fields[Tag], at(Tag), 0);
    break;
  case TaskKind::Collective: {
    llvm::StringRef which =
        stringField(fields[CollectiveName], at(CollectiveName));
    if (auto c = symbolizeCollectiveKind(which))
      task.collective = *c;
    else if (failed.empty())
      fail(at(CollectiveName),
           "unknown collective \"" + which.str() + "\" (known: " +
               choices(getMaxEnumValForCollectiveKind(),
                       stringifyCollectiveKind) +
               ")");
    task.tag = integer(fields[Tag], at(Tag), 0);
    JsonPath groupPath = at(Group);
    if (fields[Group].type != Field::Type::Array)
      fail(groupPath, "must be an array");
    else if (fields[Group].items.empty())
      fail(groupPath, "a collective needs a group");
    groupScratch.clear();
    for (auto [g, member] : llvm::enumerate(fields[Group].items))
      groupScratch.push_back(integer(member, JsonPath(groupPath, g), 0));
    // The collective's other tasks name the same chips: one list for all.
    auto [known, fresh] = groups.try_emplace(groupScratch);
    if (fresh)
      known->second = ChipGroup(groupScratch);
    task.group = known->second;
    break;
  }
  case TaskKind::Alloc: {
    llvm::StringRef what = stringField(fields[What], at(What));
    if (auto m = symbolizeMemoryKind(what))
      task.what = *m;
    else if (failed.empty())
      fail(at(What), "unknown memory kind \"" + what.str() + "\" (known: " +
                         choices(getMaxEnumValForMemoryKind(),
                                 stringifyMemoryKind) +
                         ")");
    task.name = stringField(fields[Name], at(Name));
    break;
  }
  case TaskKind::Free:
    task.alloc = integer(fields[Alloc], at(Alloc), 0);
    break;
  case TaskKind::CollectiveDone:
    task.start = integer(fields[Start], at(Start), 0);
    break;
  case TaskKind::HostLoad:
    task.store = integer(fields[Store], at(Store), 0);
    [[fallthrough]];
  case TaskKind::HostStore:
    if (fields[Name].present())
      task.name = stringField(fields[Name], at(Name));
    break;
  }
  if (task.kind != TaskKind::Free && task.kind != TaskKind::CollectiveDone)
    task.bytes = integer(fields[Bytes], at(Bytes), 0);
  JsonPath depsPath = at(Deps);
  if (fields[Deps].type != Field::Type::Array)
    fail(depsPath, "must be an array");
  for (auto [d, dep] : llvm::enumerate(fields[Deps].items))
    task.deps.push_back(integer(dep, JsonPath(depsPath, d), 0));
  chip.tasks.push_back(std::move(task));
}

void StreamReader::readChip(Schedule &schedule, const JsonPath &path) {
  Chip chip;
  bool sawId = false, sawTasks = false;
  if (!opens('{', path))
    return;
  object([&](llvm::StringRef key) {
    if (key == "id") {
      if (!firstTime(sawId, JsonPath(path, "id")))
        return;
      Field id;
      value(id, 0);
      chip.id = integer(id, JsonPath(path, "id"), 0);
    } else if (key == "tasks") {
      JsonPath tasksPath(path, "tasks");
      if (!firstTime(sawTasks, tasksPath))
        return;
      if (!opens('[', tasksPath))
        return;
      array([&](size_t t) {
        JsonPath taskPath(tasksPath, t);
        if (!opens('{', taskPath))
          return;
        readTask(chip, taskPath);
      });
    } else {
      fail(JsonPath(path, key), "unknown key (known here: id, tasks)");
    }
  });
  requireKeys(path, {{sawId, "id"}, {sawTasks, "tasks"}});
  schedule.chips.push_back(std::move(chip));
}

template <typename Fn>
size_t StreamReader::targetFigures(const JsonPath &path, IrSection section,
                                   TargetDesc &figs, llvm::StringRef otherKeys,
                                   Fn other) {
  if (!opens('{', path))
    return 0;
  llvm::SmallVector<const TargetFigure *, 8> given;
  object([&](llvm::StringRef key) {
    // The value's own keys reuse the key's storage: copy it first.
    std::string name = key.str();
    Field f;
    value(f, 0);
    JsonPath at(path, name);
    const TargetFigure *figure = findIrFigure(section, name);
    if (!figure) {
      if (!other(name, f, at))
        fail(at, "unknown key (known here: " + otherKeys.str() +
                     listIrKeys(section) + ")");
      return;
    }
    if (!failed.empty())
      return;
    std::string problem =
        f.type == Field::Type::Number
            ? figure->check(f.number)
            : "must be " + figure->describeRange() + ", got " + f.show();
    if (!problem.empty())
      return fail(at, problem);
    figure->set(figs, f.number);
    // The DCN's figures are optional in a target but come together in a
    // schedule: each counts.
    if ((figure->required || section == IrSection::Dcn) &&
        !llvm::is_contained(given, figure))
      given.push_back(figure);
  });
  return given.size();
}

void StreamReader::readTarget(Schedule &result, const JsonPath &targetPath) {
  bool sawName = false, sawShape = false, sawTopology = false, sawWrap = false,
       sawChip = false, sawIci = false, sawCalibration = false,
       sawSlices = false, sawDcn = false;
  TargetDesc figs;
  std::string topologyName;
  llvm::SmallVector<int64_t, 3> wrapAxes;
  object([&](llvm::StringRef key) {
    // The value's own keys reuse the key's storage: copy it first.
    std::string field = key.str();
    JsonPath path(targetPath, field);
    bool *seen = field == "name"        ? &sawName
                 : field == "shape"     ? &sawShape
                 : field == "topology"  ? &sawTopology
                 : field == "wrap_axes" ? &sawWrap
                 : field == "chip"      ? &sawChip
                 : field == "ici"       ? &sawIci
                 : field == "calibration" ? &sawCalibration
                 : field == "slices"    ? &sawSlices
                 : field == "dcn"       ? &sawDcn
                                        : nullptr;
    if (!seen) {
      fail(path, "unknown key (known here: name, topology, shape, slices, "
                 "wrap_axes, chip, ici, dcn, calibration)");
      return;
    }
    if (!firstTime(*seen, path))
      return;
    if (field == "dcn") {
      // All three figures or none: a run between slices needs them all.
      TargetDesc dcn;
      size_t given = targetFigures(path, IrSection::Dcn, dcn, "",
                                   [](const std::string &, const Field &,
                                      const JsonPath &) { return false; });
      if (failed.empty() && given != getIrFigures(IrSection::Dcn).size())
        fail(path, "needs " + listIrKeys(IrSection::Dcn, " and "));
      result.dcn = DcnFigures::of(dcn);
      return;
    }
    if (field == "chip" || field == "ici") {
      IrSection section = field == "chip" ? IrSection::Chip : IrSection::Ici;
      size_t given = targetFigures(path, section, figs, "",
                                   [](const std::string &, const Field &,
                                      const JsonPath &) { return false; });
      if (failed.empty() &&
          given != size_t(llvm::count_if(getIrFigures(section),
                                         [](const TargetFigure *figure) {
                                           return figure->required;
                                         })))
        fail(path, "needs " + listIrKeys(section, " and ", true));
      return;
    }
    if (field == "calibration") {
      // Optional: figures without it are nominal (version 0), and so is a
      // figure it leaves out.
      Calibration &c = figs.calibration;
      bool named = false;
      targetFigures(path, IrSection::Calibration, figs, "file, name, version, ",
                    [&](const std::string &name, const Field &f,
                        const JsonPath &at) {
                      if (name == "file" || name == "name") {
                        (name == "file" ? c.file : c.name) =
                            stringField(f, at).str();
                        named |= name == "name";
                        return true;
                      }
                      if (name != "version")
                        return false;
                      c.version = integer(f, at, 0);
                      return true;
                    });
      if (failed.empty() && !named)
        fail(path, "needs a name");
      return;
    }
    Field f;
    value(f, 0);
    if (field == "name") {
      result.targetName = stringField(f, path);
    } else if (field == "slices") {
      result.slices = integer(f, path, 1);
    } else if (field == "topology") {
      topologyName = stringField(f, path).str();
    } else if (field == "shape" || field == "wrap_axes") {
      bool shape = field == "shape";
      if (f.type != Field::Type::Array || f.items.size() > 3 ||
          (shape && f.items.empty()))
        return fail(path, shape ? "must be an array of 1 to 3 positive integers"
                                : "must be an array of at most 3 axes");
      for (auto [i, dim] : llvm::enumerate(f.items))
        (shape ? result.shape : wrapAxes)
            .push_back(integer(dim, JsonPath(path, i), shape ? 1 : 0));
    }
  });
  requireKeys(targetPath, {{sawName, "name"}, {sawShape, "shape"}});
  // The figures come together or not at all.
  int given = sawTopology + sawWrap + sawChip + sawIci;
  if (failed.empty() && given != 0 && given != 4)
    fail(targetPath, "gives some of the target's figures; give topology, "
                     "wrap_axes, chip and ici together, or none for a "
                     "bundled target");
  if (failed.empty() && sawCalibration && given == 0)
    fail(JsonPath(targetPath, "calibration"),
         "comes with the target's figures (topology, wrap_axes, chip, ici)");
  if (failed.empty() && given == 4) {
    for (int64_t axis : wrapAxes)
      if (axis >= int64_t(result.shape.size()))
        return fail(JsonPath(targetPath, "wrap_axes"),
                    "names an axis the shape does not have");
    figs.name = result.targetName;
    figs.wrap.kind = TargetDesc::WrapRule::Kind::ListedAxes;
    figs.wrap.sizes.assign(wrapAxes.begin(), wrapAxes.end());
    TopologyDesc topology{topologyName, result.shape};
    // The figures' topology is one slice: a schedule's slices are its own.
    figs.maxChips = topology.numChips();
    figs.topologies.push_back(std::move(topology));
    result.figures = std::move(figs);
  }
}

llvm::Expected<Schedule> StreamReader::read() {
  Schedule result;
  JsonPath root("$");
  bool sawFormat = false, sawVersion = false, sawTarget = false, sawChips = false;
  if (opens('{', root))
    object([&](llvm::StringRef key) {
      if (key == "format") {
        if (!firstTime(sawFormat, JsonPath(root, "format")))
          return;
        Field f;
        value(f, 0);
        std::string format = stringField(f, JsonPath(root, "format")).str();
        if (failed.empty() && format != "loom-schedule")
          fail(JsonPath(root, "format"),
               "must be \"loom-schedule\", got \"" + format + "\"");
      } else if (key == "version") {
        if (!firstTime(sawVersion, JsonPath(root, "version")))
          return;
        Field f;
        value(f, 0);
        int64_t version = integer(f, JsonPath(root, "version"), 0);
        if (failed.empty() && version != kFormatVersion)
          fail(JsonPath(root, "version"),
               "version " + std::to_string(version) +
                   " is not supported (this Loom reads version " +
                   std::to_string(kFormatVersion) + ")" +
                   (version == 1 ? "; version 2 writes each collective as "
                                   "a collective_start / collective_done "
                                   "pair: lower the program again"
                                 : ""));
      } else if (key == "target") {
        JsonPath targetPath(root, "target");
        if (!firstTime(sawTarget, targetPath))
          return;
        if (!opens('{', targetPath))
          return;
        readTarget(result, targetPath);
      } else if (key == "chips") {
        JsonPath chipsPath(root, "chips");
        if (!firstTime(sawChips, chipsPath))
          return;
        if (!opens('[', chipsPath))
          return;
        array([&](size_t c) { readChip(result, JsonPath(chipsPath, c)); });
        if (failed.empty() && result.chips.empty())
          fail(chipsPath, "a schedule needs at least one chip");
      } else {
        fail(JsonPath(root, key),
             "unknown key (known here: format, version, target, chips)");
        Field ignored;
        value(ignored, 1);
      }
    });
  skipSpace();
  if (failed.empty() && pos != text.size())
    syntax("unexpected text after the document");
  requireKeys(root, {{sawFormat, "format"},
                     {sawVersion, "version"},
                     {sawTarget, "target"},
                     {sawChips, "chips"}});
  if (!failed.empty())
    return llvm::createStringError(llvm::inconvertibleErrorCode(), failed);
  return result;
}

} // namespace

llvm::Expected<Schedule> schedule::parseSchedule(llvm::StringRef json,
                                                 llvm::StringRef fileName) {
  return StreamReader(json, fileName).read();
}

llvm::Expected<TargetDesc>
schedule::getScheduleTarget(const Schedule &schedule) {
  if (schedule.figures)
    return *schedule.figures;
  const TargetDesc *bundled = lookupTarget(schedule.targetName);
  if (!bundled)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        "unknown target '" + schedule.targetName + "' (bundled: " +
            listTargets() +
            "; a schedule of another target carries its figures, as "
            "loom-translate writes it, or take --target-file)");
  return *bundled;
}

void schedule::writeSchedule(const Schedule &schedule, llvm::raw_ostream &os) {
  llvm::json::OStream j(os, /*IndentSize=*/0);
  // One task per line: readable, diffable and still compact.
  j.object([&] {
    j.attribute("format", "loom-schedule");
    j.attribute("version", kFormatVersion);
    j.attributeObject("target", [&] {
      j.attribute("name", schedule.targetName);
      const TopologyDesc *topology =
          schedule.figures ? schedule.figures->findTopology(
                                 llvm::ArrayRef<int64_t>(schedule.shape))
                           : nullptr;
      if (topology)
        j.attribute("topology", topology->name);
      j.attributeArray("shape", [&] {
        for (int64_t d : schedule.shape)
          j.value(d);
      });
      if (schedule.slices != 1)
        j.attribute("slices", schedule.slices);
      // The figures in the schema's order; whole ones as integers.
      auto writeFigures = [&](const TargetDesc &f, IrSection section) {
        for (const TargetFigure *figure : getIrFigures(section))
          if (!figure->required && figure->get(f) == 0)
            continue; // an optional figure the target does not give
          else if (figure->whole)
            j.attribute(figure->irKey, f.*(figure->whole));
          else
            j.attribute(figure->irKey, figure->get(f));
      };
      if (schedule.dcn.given()) {
        TargetDesc dcn;
        dcn.chipsPerHost = schedule.dcn.chipsPerHost;
        dcn.dcnBandwidth = schedule.dcn.bandwidth;
        dcn.dcnLatency = schedule.dcn.latency;
        j.attributeObject("dcn", [&] { writeFigures(dcn, IrSection::Dcn); });
      }
      if (!topology)
        return;
      const TargetDesc &f = *schedule.figures;
      j.attributeArray("wrap_axes", [&] {
        for (unsigned axis = 0; axis < schedule.shape.size(); ++axis)
          if (f.axisWraps(schedule.shape, axis))
            j.value(axis);
      });
      j.attributeObject("chip", [&] { writeFigures(f, IrSection::Chip); });
      j.attributeObject("ici", [&] { writeFigures(f, IrSection::Ici); });
      const Calibration &c = f.calibration;
      j.attributeObject("calibration", [&] {
        j.attribute("file", c.file);
        j.attribute("name", c.name);
        j.attribute("version", c.version);
        writeFigures(f, IrSection::Calibration);
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
                  if (task.bits != 16)
                    j.attribute("bits", task.bits);
                  if (task.vectorOps != 0)
                    j.attribute("vector_ops", task.vectorOps);
                  if (task.steps != 1)
                    j.attribute("steps", task.steps);
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
                case TaskKind::CollectiveDone:
                  j.attribute("start", task.start);
                  break;
                case TaskKind::HostStore:
                case TaskKind::HostLoad:
                  if (task.kind == TaskKind::HostLoad)
                    j.attribute("store", task.store);
                  if (!task.name.empty())
                    j.attribute("name", task.name);
                  break;
                }
                if (task.kind != TaskKind::Free &&
                    task.kind != TaskKind::CollectiveDone)
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
