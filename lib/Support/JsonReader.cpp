//===- JsonReader.cpp - strict JSON reading with located errors -----------===//

#include "loom/Support/JsonReader.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/ConvertUTF.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <cmath>

using namespace loom;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

std::string loom::showNumber(double value) {
  // Range first: casting a double outside int64_t's range is undefined.
  if (std::fabs(value) < 1e15 && value == std::trunc(value))
    return std::to_string(static_cast<int64_t>(value));
  // The shortest form that reads back as written for short inputs.
  return llvm::formatv("{0}", llvm::format("%g", value)).str();
}

std::string loom::decodeUnicodeEscape(llvm::StringRef text, size_t &pos,
                                      std::string &out) {
  auto hex = [&](size_t at, unsigned &code) {
    llvm::StringRef digits = text.substr(at, 4);
    return digits.size() == 4 && llvm::all_of(digits, llvm::isHexDigit) &&
           !digits.getAsInteger(16, code);
  };
  unsigned code = 0;
  if (!hex(pos, code))
    return "invalid \\u escape";
  size_t end = pos + 4;
  // UTF-16: a high surrogate (D800-DBFF) and a low one (DC00-DFFF) encode
  // one character above U+FFFF; either alone encodes nothing.
  if (code >= 0xDC00 && code <= 0xDFFF)
    return "lone UTF-16 surrogate \\u" + text.substr(pos, 4).str() +
           " (a low surrogate must follow a high one)";
  if (code >= 0xD800 && code <= 0xDBFF) {
    unsigned low = 0;
    if (!text.substr(end).starts_with("\\u") || !hex(end + 2, low) ||
        low < 0xDC00 || low > 0xDFFF)
      return "lone UTF-16 surrogate \\u" + text.substr(pos, 4).str() +
             " (a high surrogate must be followed by a low one)";
    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
    end += 6;
  }
  char utf8[4];
  char *cursor = utf8;
  llvm::ConvertCodePointToUTF8(code, cursor);
  out.append(utf8, cursor);
  pos = end;
  return "";
}

llvm::Expected<llvm::json::Value> loom::parseJson(llvm::StringRef text,
                                                  unsigned maxDepth) {
  unsigned depth = 0, line = 1;
  bool inString = false;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n')
      ++line;
    if (inString) {
      if (c == '\\' && i + 1 < text.size() && text[i + 1] == 'u') {
        // llvm::json turns a lone surrogate into U+FFFD silently.
        size_t end = i + 2;
        std::string scratch;
        std::string error = decodeUnicodeEscape(text, end, scratch);
        if (!error.empty())
          return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                         "line " + llvm::Twine(line) + ": " +
                                             error);
        i = end - 1;
      } else if (c == '\\') {
        ++i;
      } else if (c == '"') {
        inString = false;
      }
    } else if (c == '"') {
      inString = true;
    } else if (c == '[' || c == '{') {
      if (++depth > maxDepth)
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "line " + llvm::Twine(line) + ": nested more than " +
                llvm::Twine(maxDepth) + " levels deep");
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  llvm::Expected<llvm::json::Value> document = llvm::json::parse(text);
  if (!document)
    return document;
  // llvm::json keeps one of a repeated key silently; refuse it instead.
  // The document is valid JSON here, so a string right after '{' or after
  // a ',' inside an object is a key.
  struct Level {
    bool object, expectKey;
    llvm::StringSet<> keys;
  };
  llvm::SmallVector<Level, 8> stack;
  line = 1;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '\n') {
      ++line;
    } else if (c == '"') {
      size_t start = ++i;
      for (; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
      if (stack.empty() || !stack.back().expectKey)
        continue;
      llvm::StringRef key = text.slice(start, i);
      stack.back().expectKey = false;
      if (!stack.back().keys.insert(key).second)
        return llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            "line " + llvm::Twine(line) + ": key \"" + key +
                "\" appears twice in one object");
    } else if (c == '{' || c == '[') {
      stack.push_back({c == '{', c == '{', {}});
    } else if (c == '}' || c == ']') {
      stack.pop_back();
    } else if (c == ',' && stack.back().object) {
      stack.back().expectKey = true;
    }
  }
  return document;
}

std::pair<unsigned, unsigned>
loom::takeJsonErrorPosition(std::string &message) {
  llvm::StringRef rest(message);
  unsigned line = 0, column = 1;
  if (rest.consume_front("[")) {
    // llvm::json: "[line:column, byte=N]: what".
    if (rest.consumeInteger(10, line) || !rest.consume_front(":") ||
        rest.consumeInteger(10, column))
      return {0, 0};
    size_t end = rest.find("]: ");
    if (end == llvm::StringRef::npos)
      return {0, 0};
    rest = rest.drop_front(end + 3);
  } else if (rest.consume_front("line ")) {
    // parseJson's own: "line N: what".
    if (rest.consumeInteger(10, line) || !rest.consume_front(": "))
      return {0, 0};
  } else {
    return {0, 0};
  }
  message = rest.str();
  return {line, std::max(column, 1u)};
}

llvm::Error loom::jsonSyntaxError(llvm::Error error, llvm::StringRef fileName) {
  std::string message = llvm::toString(std::move(error));
  auto [line, column] = takeJsonErrorPosition(message);
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      line ? llvm::formatv("{0}:{1}:{2}: invalid JSON: {3}", fileName, line,
                           column, message)
                 .str()
           : (fileName + ": invalid JSON: " + message).str());
}

std::string JsonPath::str() const {
  if (!parent)
    return text;
  std::string prefix = parent->str();
  if (isIndex)
    return prefix + "[" + std::to_string(index) + "]";
  return prefix + "." + key.str();
}

llvm::Error JsonReader::takeError() const {
  return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                 fileName + ": " + message);
}

void JsonReader::fail(const JsonPath &path, const llvm::Twine &what) {
  if (!failed())
    message = path.str() + ": " + what.str();
}

void JsonReader::keys(const Object &object, const JsonPath &path,
                      llvm::ArrayRef<llvm::StringRef> known,
                      llvm::ArrayRef<llvm::StringRef> required) {
  bool unknown = false;
  for (const auto &entry : object)
    unknown |= !llvm::is_contained(known, llvm::StringRef(entry.first));
  if (unknown) {
    // Sorted, so that the key reported does not depend on hash order.
    llvm::SmallVector<llvm::StringRef> present;
    for (const auto &entry : object)
      present.push_back(entry.first);
    llvm::sort(present);
    for (llvm::StringRef key : present)
      if (!llvm::is_contained(known, key))
        fail(at(path, key),
             "unknown key (known here: " + llvm::join(known, ", ") + ")");
  }
  for (llvm::StringRef key : required)
    if (!object.get(key))
      fail(at(path, key), "missing required key");
}

const Object *JsonReader::object(const Value *value, const JsonPath &path) {
  if (!value) {
    fail(path, "missing required key");
    return nullptr;
  }
  if (const Object *o = value->getAsObject())
    return o;
  fail(path, "must be an object");
  return nullptr;
}

const Array *JsonReader::array(const Value *value, const JsonPath &path) {
  if (!value) {
    fail(path, "missing required key");
    return nullptr;
  }
  if (const Array *a = value->getAsArray())
    return a;
  fail(path, "must be an array");
  return nullptr;
}

std::string JsonReader::string(const Object &o, llvm::StringRef key,
                               const JsonPath &path) {
  const Value *value = o.get(key);
  if (!value) {
    fail(at(path, key), "missing required key");
    return "";
  }
  if (std::optional<llvm::StringRef> s = value->getAsString())
    return s->str();
  fail(at(path, key), "must be a string");
  return "";
}

double JsonReader::positive(const Object &o, llvm::StringRef key,
                            const JsonPath &path) {
  const Value *value = o.get(key);
  if (!value) {
    fail(at(path, key), "missing required key");
    return 1;
  }
  std::optional<double> number = value->getAsNumber();
  if (!number) {
    fail(at(path, key), "must be a number");
    return 1;
  }
  if (!(*number > 0)) {
    fail(at(path, key), "must be positive, got " + showNumber(*number));
    return 1;
  }
  return *number;
}

int64_t JsonReader::integer(const Value &value, const JsonPath &path,
                            int64_t min) {
  std::optional<int64_t> number = value.getAsInteger();
  if (!number) {
    fail(path, "must be an integer");
    return min;
  }
  if (*number < min) {
    fail(path, "must be at least " + std::to_string(min) + ", got " +
                   std::to_string(*number));
    return min;
  }
  return *number;
}

int64_t JsonReader::integer(const Object &o, llvm::StringRef key,
                            const JsonPath &path, int64_t min) {
  const Value *value = o.get(key);
  if (!value) {
    fail(at(path, key), "missing required key");
    return min;
  }
  return integer(*value, at(path, key), min);
}

llvm::SmallVector<int64_t, 3> JsonReader::shape(const Object &o,
                                                llvm::StringRef key,
                                                const JsonPath &path,
                                                size_t maxSize) {
  llvm::SmallVector<int64_t, 3> dims;
  const Value *value = o.get(key);
  const Array *list = value ? value->getAsArray() : nullptr;
  if (!list || list->empty() || list->size() > maxSize) {
    fail(at(path, key), "must be an array of 1 to " + std::to_string(maxSize) +
                            " positive integers");
    return {1};
  }
  for (auto [i, element] : llvm::enumerate(*list)) {
    std::optional<int64_t> dim = element.getAsInteger();
    if (!dim || *dim <= 0) {
      fail(at(at(path, key), i), "must be a positive integer");
      return {1};
    }
    dims.push_back(*dim);
  }
  return dims;
}
