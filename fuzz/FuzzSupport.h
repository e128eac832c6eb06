//===- FuzzSupport.h - shared by Loom's fuzz targets ------------*- C++ -*-===//
//
// Each fuzz target defines LLVMFuzzerTestOneInput. An input may be refused
// (that is most of them); what must never happen is a crash, a sanitizer
// report, or a broken invariant, which a target reports with
// fuzzInvariantFailed: it prints what broke and aborts, so that libFuzzer
// saves the input and the replay test fails on it.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_FUZZ_FUZZSUPPORT_H
#define LOOM_FUZZ_FUZZSUPPORT_H

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdint>
#include <cstdlib>
#include <string>

namespace loom::fuzz {

[[noreturn]] inline void fuzzInvariantFailed(llvm::StringRef what,
                                             llvm::StringRef detail = "") {
  llvm::errs() << "loom fuzz target: invariant broken: " << what << "\n";
  if (!detail.empty())
    llvm::errs() << detail << "\n";
  std::abort();
}

/// Swallows a context's diagnostics (refusals are the normal case) and
/// keeps their text for an invariant's report.
class QuietDiagnostics {
public:
  explicit QuietDiagnostics(mlir::MLIRContext &context)
      : handler(&context, [this](mlir::Diagnostic &diag) {
          llvm::raw_string_ostream os(text);
          os << diag << "\n";
          return mlir::success();
        }) {}
  const std::string &str() const { return text; }

private:
  std::string text;
  mlir::ScopedDiagnosticHandler handler;
};

inline llvm::StringRef asText(const uint8_t *data, size_t size) {
  return llvm::StringRef(reinterpret_cast<const char *>(data), size);
}

} // namespace loom::fuzz

#endif // LOOM_FUZZ_FUZZSUPPORT_H
