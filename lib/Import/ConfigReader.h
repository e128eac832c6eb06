//===- ConfigReader.h - typed, located access to a config.json --*- C++ -*-===//

#ifndef LOOM_LIB_IMPORT_CONFIGREADER_H
#define LOOM_LIB_IMPORT_CONFIGREADER_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/JSON.h"

#include <memory>
#include <optional>
#include <string>

namespace loom {

/// Reads fields of a JSON object and reports each problem as an error
/// located at the field in the file (or at the file when it is missing).
/// Errors do not stop the reader: every bad field is reported, and `ok()`
/// says whether any was.
class ConfigReader {
public:
  ConfigReader(const llvm::json::Object &object, llvm::StringRef text,
               llvm::StringRef fileName, mlir::MLIRContext *context)
      : object(object), text(text), fileName(fileName.str()),
        context(context), flags(std::make_shared<Flags>()) {}

  /// A reader of the object at `key` (e.g. a multimodal config's
  /// `text_config`), locating its fields after that key in the same file
  /// and sharing this reader's errors. Null (after an error) when the
  /// field is missing or not an object.
  std::unique_ptr<ConfigReader> nested(llvm::StringRef key);

  /// A required integer in (0, kMaxDimension].
  int64_t positive(llvm::StringRef key);
  /// An optional integer > 0; `fallback` when absent or null.
  int64_t positive(llvm::StringRef key, int64_t fallback);
  /// A layer count: positive and at most kMaxLayers.
  int64_t layerCount(llvm::StringRef key);

  /// The largest value Loom accepts for a config integer, and for a layer
  /// count. With the importer's caps on batch, tokens and steps they keep
  /// the FLOP and byte counts of one forward pass within 64 bits for any
  /// model of today's proportions.
  static constexpr int64_t kMaxDimension = int64_t(1) << 20;
  static constexpr int64_t kMaxLayers = 1024;
  /// An optional non-empty array of integers > 0; empty when absent or
  /// null.
  llvm::SmallVector<int64_t> positiveArray(llvm::StringRef key);
  /// An optional array of indices in [0, bound); empty when
  /// absent, null or empty.
  llvm::SmallVector<int64_t> indexArray(llvm::StringRef key, int64_t bound);
  /// An optional integer >= 0; `fallback` when absent or null.
  int64_t nonNegative(llvm::StringRef key, int64_t fallback);
  /// An optional number; `fallback` when absent or null.
  double number(llvm::StringRef key, double fallback);
  /// An optional array of strings; empty when absent or null.
  llvm::SmallVector<std::string> stringArray(llvm::StringRef key);
  /// Reports a present, non-null `key` that is not a JSON object.
  void requireObject(llvm::StringRef key);
  /// An optional boolean; `fallback` when absent or null.
  bool boolean(llvm::StringRef key, bool fallback);
  /// An optional string; empty when absent or null.
  std::string string(llvm::StringRef key);
  bool has(llvm::StringRef key) const;
  /// Whether `key` holds a non-empty array.
  bool hasItems(llvm::StringRef key) const;

  /// Reports an inconsistency at `key` (at the file when the key is
  /// absent). Once a field itself was wrong, inconsistencies are not
  /// reported: they would be computed from the stand-in value, not the file.
  mlir::InFlightDiagnostic error(llvm::StringRef key);
  /// Reports that the workload options do not fit this model (a sequence
  /// length for a DiT, an image size the VAE does not divide), as
  /// error(key), at workloadLoc().
  mlir::InFlightDiagnostic error();
  /// Reports a field that is missing, of the wrong type or out of range.
  mlir::InFlightDiagnostic fieldError(llvm::StringRef key);

  bool ok() const { return !flags->failed; }
  mlir::Location fileLoc() const;
  /// Where an error about the workload options is: not a place in the file
  /// (loom-import still shows the file; loom-plan, which reads the options
  /// from its command line, names none).
  static mlir::Location workloadLoc(mlir::Location file);

private:
  mlir::Location keyLoc(llvm::StringRef key) const;
  const llvm::json::Value *present(llvm::StringRef key) const;
  mlir::InFlightDiagnostic wrongType(llvm::StringRef key, llvm::StringRef want,
                                     const llvm::json::Value &got);

  const llvm::json::Object &object;
  llvm::StringRef text;
  std::string fileName;
  mlir::MLIRContext *context;
  /// Where this reader's keys start in `text` (after the key of a nested
  /// object).
  size_t searchFrom = 0;
  struct Flags {
    bool failed = false, fieldFailed = false;
  };
  std::shared_ptr<Flags> flags;
};

} // namespace loom

#endif // LOOM_LIB_IMPORT_CONFIGREADER_H
