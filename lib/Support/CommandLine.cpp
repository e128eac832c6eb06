//===- CommandLine.cpp - options shared by Loom's tools -------------------===//

#include "loom/Support/CommandLine.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/CommandLine.h"

void loom::hidePreloadedLLVMOptions() {
  namespace cl = llvm::cl;
  for (auto &[name, option] : cl::getRegisteredOptions())
    if (option->getOptionHiddenFlag() == cl::NotHidden &&
        !llvm::is_contained({"help", "help-list", "version", "color"}, name))
      option->setHiddenFlag(cl::Hidden);
}
