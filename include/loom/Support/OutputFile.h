//===- OutputFile.h - writing a tool's output file --------------*- C++ -*-===//

#ifndef LOOM_SUPPORT_OUTPUTFILE_H
#define LOOM_SUPPORT_OUTPUTFILE_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

namespace loom {

/// Writes `path` with `write`, keeping it only when it could be opened;
/// otherwise prints "<tool>: cannot write ..." and returns false.
bool writeOutputFile(llvm::StringRef tool, llvm::StringRef path,
                     llvm::function_ref<void(llvm::raw_ostream &)> write);

} // namespace loom

#endif // LOOM_SUPPORT_OUTPUTFILE_H
