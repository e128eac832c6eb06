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

std::string loom::findHelpLikeTypo(int argc, char **argv) {
  auto known = llvm::cl::getRegisteredOptions();
  for (int i = 1; i < argc; ++i) {
    llvm::StringRef arg(argv[i]);
    if (arg == "--")
      break;
    llvm::StringRef name = arg;
    if (!name.consume_front("--") && !name.consume_front("-"))
      continue;
    name = name.split('=').first;
    if (name.size() > 1 && name.front() == 'h' && !known.count(name))
      return arg.str();
  }
  return "";
}
