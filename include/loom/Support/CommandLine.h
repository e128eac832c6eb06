//===- CommandLine.h - options shared by Loom's tools -----------*- C++ -*-===//

#ifndef LOOM_SUPPORT_COMMANDLINE_H
#define LOOM_SUPPORT_COMMANDLINE_H

namespace loom {

/// Hides from --help the options registered before main runs. Debian links
/// Loom against libLLVM.so, whose backends, profilers and Polly register a
/// few hundred flags on load that no Loom tool reads; they would bury the
/// MLIR and Loom options in loom-opt --help. Call it first in main, before
/// the tool registers its own options. Hidden options still parse, and
/// --help-hidden lists them.
void hidePreloadedLLVMOptions();

} // namespace loom

#endif // LOOM_SUPPORT_COMMANDLINE_H
