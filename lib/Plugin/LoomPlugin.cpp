//===- LoomPlugin.cpp - Loom as an mlir-opt dialect and pass plugin -------===//
//
// Lets upstream tools load Loom:
//   mlir-opt --load-dialect-plugin=LoomPlugin.so --load-pass-plugin=LoomPlugin.so
// The plugin links libMLIR.so, as the tools that load it do, never the
// static MLIR libraries (two copies of MLIR in one process do not work).
//
//===----------------------------------------------------------------------===//

#include "loom/InitAll.h"

#include "mlir/Tools/Plugins/DialectPlugin.h"
#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK mlir::DialectPluginLibraryInfo
mlirGetDialectPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "Loom", LLVM_VERSION_STRING,
          [](mlir::DialectRegistry *registry) {
            loom::registerAllDialects(*registry);
          }};
}

extern "C" LLVM_ATTRIBUTE_WEAK mlir::PassPluginLibraryInfo
mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "LoomPasses", LLVM_VERSION_STRING,
          []() { loom::registerAllPasses(); }};
}
