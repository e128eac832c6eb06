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

class JsonReader {
public:
  explicit JsonReader(llvm::StringRef fileName) : fileName(fileName.str()) {}

  bool failed() const { return !message.empty(); }
  /// "file: $.path: what" as an llvm::Error.
  llvm::Error takeError() const;
  void fail(const std::string &path, const llvm::Twine &what);

  /// `object` has only `known` keys and all `required` ones.
  void keys(const llvm::json::Object &object, const std::string &path,
            llvm::ArrayRef<llvm::StringRef> known,
            llvm::ArrayRef<llvm::StringRef> required);

  /// The value as an object (null with an error when it is missing or not
  /// one).
  const llvm::json::Object *object(const llvm::json::Value *value,
                                   const std::string &path);
  const llvm::json::Array *array(const llvm::json::Value *value,
                                 const std::string &path);
  std::string string(const llvm::json::Object &o, llvm::StringRef key,
                     const std::string &path);
  /// A number > 0.
  double positive(const llvm::json::Object &o, llvm::StringRef key,
                  const std::string &path);
  /// An integer >= `min`.
  int64_t integer(const llvm::json::Object &o, llvm::StringRef key,
                  const std::string &path, int64_t min);
  int64_t integer(const llvm::json::Value &value, const std::string &path,
                  int64_t min);
  /// An array of 1 to `maxSize` positive integers.
  llvm::SmallVector<int64_t, 3> shape(const llvm::json::Object &o,
                                      llvm::StringRef key,
                                      const std::string &path,
                                      size_t maxSize = 3);

  static std::string at(const std::string &path, llvm::StringRef key) {
    return path + "." + key.str();
  }
  static std::string at(const std::string &path, size_t index) {
    return path + "[" + std::to_string(index) + "]";
  }

private:
  std::string fileName;
  std::string message;
};

/// A number as a user wrote it: integers without decimals.
std::string showNumber(double value);

} // namespace loom

#endif // LOOM_SUPPORT_JSONREADER_H
