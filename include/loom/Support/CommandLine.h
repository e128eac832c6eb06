//===- CommandLine.h - options shared by Loom's tools -----------*- C++ -*-===//

#ifndef LOOM_SUPPORT_COMMANDLINE_H
#define LOOM_SUPPORT_COMMANDLINE_H

#include "llvm/Support/CommandLine.h"

#include <optional>
#include <string>

namespace loom {

/// The option's value when the command line gave it, otherwise nothing, so
/// that the library's own default applies.
template <typename T>
std::optional<T> givenOption(const llvm::cl::opt<T> &option) {
  if (option.getNumOccurrences() == 0)
    return std::nullopt;
  return option.getValue();
}

/// Hides from --help the options registered before main runs. Debian links
/// Loom against libLLVM.so, whose backends, profilers and Polly register a
/// few hundred flags on load that no Loom tool reads; they would bury the
/// MLIR and Loom options in loom-opt --help. Call it first in main, before
/// the tool registers its own options. Hidden options still parse, and
/// --help-hidden lists them.
void hidePreloadedLLVMOptions();

/// The argument LLVM's parser would take as -h (help, exit 0) although it
/// is no option: an unknown --hXXX (a mistyped option starting with h, or
/// a stray prefix). Empty when there is none. Call after registering the
/// tool's options.
std::string findHelpLikeTypo(int argc, char **argv);

} // namespace loom

#endif // LOOM_SUPPORT_COMMANDLINE_H
