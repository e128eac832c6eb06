//===- TargetOptions.cpp - --target-file for Loom's tools -----------------===//

#include "loom/Hardware/TargetOptions.h"
#include "loom/Hardware/TargetDesc.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/ManagedStatic.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;
using namespace loom;

cl::OptionCategory &loom::getTargetCLCategory() {
  static cl::OptionCategory category("Target options");
  return category;
}

namespace {
struct TargetCLOptions {
  cl::list<std::string> targetFiles{
      "target-file", cl::value_desc("json"), cl::cat(getTargetCLCategory()),
      cl::desc("Load a target description (format: targets/README.md); "
               "#loom.target attributes may then name it")};
};
} // namespace

static ManagedStatic<TargetCLOptions> options;

void loom::registerTargetCLOptions() { *options; }

static bool loadTargetFiles() {
  if (!options.isConstructed())
    return true;
  for (const std::string &path : options->targetFiles) {
    Expected<TargetDesc> target = loadTargetFile(path);
    if (!target) {
      errs() << "error: " << toString(target.takeError()) << "\n";
      return false;
    }
    registerTarget(std::move(*target));
  }
  return true;
}

bool loom::applyTargetCLOptions() {
  static const bool loaded = loadTargetFiles();
  return loaded;
}
