//===- OutputFile.h - writing a tool's output files -------------*- C++ -*-===//

#ifndef LOOM_SUPPORT_OUTPUTFILE_H
#define LOOM_SUPPORT_OUTPUTFILE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <string>
#include <vector>

namespace loom {

/// Writes `path` with `write`, keeping it only when it could be opened;
/// otherwise prints "<tool>: cannot write ..." and returns false.
bool writeOutputFile(llvm::StringRef tool, llvm::StringRef path,
                     llvm::function_ref<void(llvm::raw_ostream &)> write);

/// Whether `a` and `b` name the same file: the same file where both exist
/// (through links too), else the same absolute path once the folders that
/// exist are resolved and dots removed. Devices and pipes (/dev/null,
/// stdout) are never the same file: writing one replaces nothing.
bool isSameFile(llvm::StringRef a, llvm::StringRef b);

/// A file a run reads or writes: what names it ("--trace", "the
/// schedule") and its path (none when empty).
struct PathOption {
  llvm::StringRef option;
  llvm::StringRef path;
};

/// Why the outputs cannot be written as given, or "": an output that is
/// one of `inputs`, or the file of an earlier output ("--svg 'x' is also
/// the file of --trace"), so that no run replaces what it reads or writes.
std::string findOutputClash(llvm::ArrayRef<PathOption> inputs,
                            llvm::ArrayRef<PathOption> outputs);

/// A tool's output files, written only when all of them can be: commit()
/// writes each into a temporary file beside it and renames them all into
/// place once every one is written, so that a run that fails leaves none
/// behind, and none half-written. ("-", devices and pipes are written
/// directly, last.)
class StagedOutputs {
public:
  explicit StagedOutputs(llvm::StringRef tool) : tool(tool.str()) {}
  void add(llvm::StringRef path,
           std::function<void(llvm::raw_ostream &)> write);
  /// Writes every output; false, with "<tool>: cannot write ..." printed
  /// and no file of a regular output left, when one cannot be written.
  bool commit();

private:
  std::string tool;
  std::vector<std::pair<std::string, std::function<void(llvm::raw_ostream &)>>>
      outputs;
};

} // namespace loom

#endif // LOOM_SUPPORT_OUTPUTFILE_H
