//===- TargetOptions.h - --target-file for Loom's tools ---------*- C++ -*-===//

#ifndef LOOM_HARDWARE_TARGETOPTIONS_H
#define LOOM_HARDWARE_TARGETOPTIONS_H

namespace llvm::cl {
class OptionCategory;
} // namespace llvm::cl

namespace loom {

/// The category --target-file belongs to, for cl::HideUnrelatedOptions.
llvm::cl::OptionCategory &getTargetCLCategory();

/// Registers `--target-file=<json>` (repeatable) with llvm::cl. Call before
/// parsing the command line.
void registerTargetCLOptions();

/// Loads and registers the files given with --target-file, so that
/// #loom.target attributes may name them. Prints the problem and returns
/// false when a file is unreadable or invalid. Later calls do nothing and
/// return the first call's result.
bool applyTargetCLOptions();

} // namespace loom

#endif // LOOM_HARDWARE_TARGETOPTIONS_H
