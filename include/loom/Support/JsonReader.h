//===- JsonReader.h - strict JSON reading with located errors ---*- C++ -*-===//
//
// Loom's input files (targets, schedules) are read strictly: unknown keys,
// missing keys and values of the wrong kind are errors that name the JSON
// path of the offending value, e.g. `$.chips[3].tasks[17].deps[0]`. The
// first error wins; later reads return harmless defaults, so a reader can
// walk the whole document and check failed() once.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_SUPPORT_JSONREADER_H
#define LOOM_SUPPORT_JSONREADER_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <string>

namespace loom {

/// Where a value sits in a document, e.g. `$.chips[3].tasks[17]`. A path
/// made from a parent is spelled out only when an error needs it, so that
/// reading a large valid file builds no strings.
class JsonPath {
public:
  JsonPath(std::string text) : text(std::move(text)) {}
  JsonPath(const char *text) : text(text) {}
  JsonPath(const JsonPath &parent, llvm::StringRef key)
      : parent(&parent), key(key) {}
  JsonPath(const JsonPath &parent, size_t index)
      : parent(&parent), index(index), isIndex(true) {}
  std::string str() const;

private:
  const JsonPath *parent = nullptr;
  std::string text;
  llvm::StringRef key;
  size_t index = 0;
  bool isIndex = false;
};

/// llvm::json::parse, after refusing documents nested more than `maxDepth`
/// arrays and objects deep (llvm::json recurses once per level and would
/// exhaust the stack on hostile input), and refusing an object that repeats
/// a key (llvm::json would keep one of them silently).
/// Where a parseJson error happened: its 1-based line and column (column
/// 1 when only the line is known), or {0, 0}; `message` loses the position
/// prefix ("[line:column, byte=N]: " or "line N: ").
std::pair<unsigned, unsigned> takeJsonErrorPosition(std::string &message);

llvm::Expected<llvm::json::Value> parseJson(llvm::StringRef text,
                                            unsigned maxDepth = 64);

/// A parseJson error as the files' other errors read: "file:line:column:
/// invalid JSON: what" (just "file: invalid JSON: what" without a position).
llvm::Error jsonSyntaxError(llvm::Error error, llvm::StringRef fileName);

class JsonReader {
public:
  explicit JsonReader(llvm::StringRef fileName) : fileName(fileName.str()) {}

  bool failed() const { return !message.empty(); }
  /// "file: $.path: what" as an llvm::Error.
  llvm::Error takeError() const;
  void fail(const JsonPath &path, const llvm::Twine &what);

  /// `object` has only `known` keys and all `required` ones.
  void keys(const llvm::json::Object &object, const JsonPath &path,
            llvm::ArrayRef<llvm::StringRef> known,
            llvm::ArrayRef<llvm::StringRef> required);

  /// The value as an object (null with an error when it is missing or not
  /// one).
  const llvm::json::Object *object(const llvm::json::Value *value,
                                   const JsonPath &path);
  const llvm::json::Array *array(const llvm::json::Value *value,
                                 const JsonPath &path);
  std::string string(const llvm::json::Object &o, llvm::StringRef key,
                     const JsonPath &path);
  /// A number > 0.
  double positive(const llvm::json::Object &o, llvm::StringRef key,
                  const JsonPath &path);
  /// An integer >= `min`.
  int64_t integer(const llvm::json::Object &o, llvm::StringRef key,
                  const JsonPath &path, int64_t min);
  int64_t integer(const llvm::json::Value &value, const JsonPath &path,
                  int64_t min);
  /// An array of 1 to `maxSize` positive integers.
  llvm::SmallVector<int64_t, 3> shape(const llvm::json::Object &o,
                                      llvm::StringRef key,
                                      const JsonPath &path,
                                      size_t maxSize = 3);

  static JsonPath at(const JsonPath &path, llvm::StringRef key) {
    return JsonPath(path, key);
  }
  static JsonPath at(const JsonPath &path, size_t index) {
    return JsonPath(path, index);
  }

private:
  std::string fileName;
  std::string message;
};

/// A number as a user wrote it: integers without decimals.
std::string showNumber(double value);

/// Decodes the JSON escape `\uXXXX` whose hex digits start at `text[pos]`
/// (just after the `u`), with the `\uXXXX` low surrogate that must follow a
/// high one, and appends the character to `out` as UTF-8. Returns "" and
/// moves `pos` past the escape, or says what is wrong: bad hex digits, or a
/// surrogate without its other half.
std::string decodeUnicodeEscape(llvm::StringRef text, size_t &pos,
                                std::string &out);

} // namespace loom

#endif // LOOM_SUPPORT_JSONREADER_H
