//===- ConfigFuzzer.cpp - fuzzes the model config importer ----------------===//
//
// The input is a config.json, as loom-import reads it; the importer either
// refuses it with a diagnostic or builds a module that verifies.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "loom/Import/ModelImporter.h"

#include "mlir/IR/Verifier.h"

using namespace loom::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  // The importer loads the dialects it builds with.
  mlir::MLIRContext context(mlir::MLIRContext::Threading::DISABLED);
  QuietDiagnostics diagnostics(context);
  mlir::OwningOpRef<mlir::ModuleOp> module = loom::importModelConfig(
      asText(data, size), "fuzz.json", "fuzz", loom::ImportOptions(), &context);
  if (module && failed(mlir::verify(*module)))
    fuzzInvariantFailed("an imported model does not verify", diagnostics.str());
  return 0;
}
