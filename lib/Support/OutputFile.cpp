//===- OutputFile.cpp - writing a tool's output files ---------------------===//

#include "loom/Support/OutputFile.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"

#include <optional>

using namespace llvm;

/// Prints "<tool>: cannot write 'path': why" and returns false.
static bool cannotWrite(StringRef tool, StringRef path, std::error_code why) {
  errs() << tool << ": cannot write '" << path << "': " << why.message()
         << "\n";
  return false;
}

/// Flushes `os` and says whether it failed (clearing the error, so that
/// raw_fd_ostream's destructor does not abort on it).
static std::error_code flushError(raw_fd_ostream &os) {
  os.flush();
  std::error_code failed = os.error();
  os.clear_error();
  return failed;
}

bool loom::writeOutputFile(StringRef tool, StringRef path,
                           function_ref<void(raw_ostream &)> write) {
  std::error_code error;
  ToolOutputFile file(path, error, sys::fs::OF_Text);
  if (error)
    return cannotWrite(tool, path, error);
  write(file.os());
  if (std::error_code failed = flushError(file.os()))
    return cannotWrite(tool, path, failed);
  file.keep();
  return true;
}

/// Whether writing `path` creates or replaces a regular file (not "-", a
/// device or a pipe).
static bool isRegularDestination(StringRef path) {
  if (path == "-")
    return false;
  sys::fs::file_status status;
  if (sys::fs::status(path, status))
    return true; // not there yet
  return sys::fs::is_regular_file(status);
}

/// `path` absolute, its deepest existing folder resolved through links,
/// and without dots.
static std::string normalisedPath(StringRef path) {
  SmallString<256> absolute(path);
  sys::fs::make_absolute(absolute);
  sys::path::remove_dots(absolute, /*remove_dot_dot=*/true);
  SmallString<256> real;
  if (!sys::fs::real_path(absolute, real))
    return std::string(real);
  StringRef parent = sys::path::parent_path(absolute);
  if (parent.empty() || parent == absolute)
    return std::string(absolute);
  SmallString<256> joined(normalisedPath(parent));
  sys::path::append(joined, sys::path::filename(absolute));
  return std::string(joined);
}

/// Whether commit() writes `path` through a temporary file beside it: a
/// regular file, whose name has no '%' (TempFile's pattern character).
static bool viaTemporary(StringRef path) {
  return isRegularDestination(path) && !path.contains('%');
}

bool loom::isSameFile(StringRef a, StringRef b) {
  if (!isRegularDestination(a) || !isRegularDestination(b))
    return false;
  bool same = false;
  if (!sys::fs::equivalent(a, b, same))
    return same;
  return normalisedPath(a) == normalisedPath(b);
}

std::string loom::findOutputClash(ArrayRef<PathOption> inputs,
                                  ArrayRef<PathOption> outputs) {
  for (auto [i, out] : enumerate(outputs)) {
    if (out.path.empty())
      continue;
    for (const PathOption &in : inputs)
      if (!in.path.empty() && isSameFile(out.path, in.path))
        return (out.option + " '" + out.path + "' is the file of " +
                in.option + ": an output never replaces an input")
            .str();
    for (const PathOption &earlier : outputs.take_front(i))
      if (!earlier.path.empty() && isSameFile(out.path, earlier.path))
        return (out.option + " '" + out.path + "' is also the file of " +
                earlier.option + ": give each output its own file")
            .str();
  }
  return "";
}

void loom::StagedOutputs::add(StringRef path,
                              std::function<void(raw_ostream &)> write) {
  outputs.emplace_back(path.str(), std::move(write));
}

bool loom::StagedOutputs::commit() {
  std::vector<std::pair<sys::fs::TempFile, const std::string *>> staged;
  auto discardAll = [&] {
    for (auto &[temp, path] : staged)
      consumeError(temp.discard());
    return false;
  };
  std::vector<const std::pair<std::string,
                              std::function<void(raw_ostream &)>> *>
      direct;
  for (const auto &output : outputs) {
    const auto &[path, write] = output;
    if (!viaTemporary(path)) {
      direct.push_back(&output);
      continue;
    }
    Expected<sys::fs::TempFile> temp =
        sys::fs::TempFile::create(path + "-%%%%%%.tmp");
    if (!temp) {
      std::error_code why = errorToErrorCode(temp.takeError());
      discardAll();
      return cannotWrite(tool, path, why);
    }
    staged.emplace_back(std::move(*temp), &path);
    raw_fd_ostream os(staged.back().first.FD, /*shouldClose=*/false);
    write(os);
    if (std::error_code failed = flushError(os)) {
      discardAll();
      return cannotWrite(tool, path, failed);
    }
  }
  for (auto &[temp, path] : staged)
    if (Error error = temp.keep(*path)) {
      std::error_code why = errorToErrorCode(std::move(error));
      discardAll();
      return cannotWrite(tool, *path, why);
    }
  for (const auto *output : direct)
    if (!writeOutputFile(tool, output->first, output->second))
      return false;
  return true;
}
