//===- OutputFile.cpp - writing a tool's output file ----------------------===//

#include "loom/Support/OutputFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/ToolOutputFile.h"

bool loom::writeOutputFile(llvm::StringRef tool, llvm::StringRef path,
                           llvm::function_ref<void(llvm::raw_ostream &)> write) {
  std::error_code error;
  llvm::ToolOutputFile file(path, error, llvm::sys::fs::OF_Text);
  if (error) {
    llvm::errs() << tool << ": cannot write '" << path
                 << "': " << error.message() << "\n";
    return false;
  }
  write(file.os());
  file.os().flush();
  if (std::error_code failed = file.os().error()) {
    // Say so here rather than let raw_fd_ostream's destructor abort.
    llvm::errs() << tool << ": cannot write '" << path
                 << "': " << failed.message() << "\n";
    file.os().clear_error();
    return false;
  }
  file.keep();
  return true;
}
