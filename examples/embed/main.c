/*===- main.c - Loom through MLIR's C API ----------------------------------===*\
|*                                                                            *|
|* Registers Loom's dialects through their handles, parses a one-layer loom   *|
|* module, runs loom-shard-heads from a textual pipeline and prints the       *|
|* result; lit checks it (test/CAPI/capi.test), and so does examples/embed's  *|
|* ctest against the installed package.                                       *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "loom-c/Loom.h"

#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <stdio.h>

static void print(MlirStringRef text, void *user) {
  (void)user;
  fwrite(text.data, 1, text.length, stdout);
}

static const char *source =
    "module attributes {loom.target = #loom.target<\"tpu-v5e\", shape = [2, 2]>} {\n"
    "  func.func @m(%x: tensor<1x8x8192xbf16>) -> tensor<1x8x8192xbf16> {\n"
    "    %y = loom.layer 0 (%x) : (tensor<1x8x8192xbf16>) -> tensor<1x8x8192xbf16> {\n"
    "    ^bb0(%in: tensor<1x8x8192xbf16>):\n"
    "      %q = loom.linear q %in : tensor<1x8x8192xbf16> -> tensor<1x8x8192xbf16>\n"
    "      %k = loom.linear k %in : tensor<1x8x8192xbf16> -> tensor<1x8x8192xbf16>\n"
    "      %v = loom.linear v %in : tensor<1x8x8192xbf16> -> tensor<1x8x8192xbf16>\n"
    "      %a = loom.attention %q, %k, %v {heads = 64, kv_heads = 64, head_dim = 128, causal}"
    " : tensor<1x8x8192xbf16>, tensor<1x8x8192xbf16> -> tensor<1x8x8192xbf16>\n"
    "      %o = loom.linear o %a : tensor<1x8x8192xbf16> -> tensor<1x8x8192xbf16>\n"
    "      loom.yield %o : tensor<1x8x8192xbf16>\n"
    "    }\n"
    "    return %y : tensor<1x8x8192xbf16>\n"
    "  }\n"
    "}\n";

int main(void) {
  MlirContext context = mlirContextCreate();
  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  loomRegisterAllDialects(registry);
  mlirContextAppendDialectRegistry(context, registry);
  mlirDialectRegistryDestroy(registry);
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__loom__(), context);
  mlirDialectHandleLoadDialect(mlirGetDialectHandle__sched__(), context);
  loomRegisterAllPasses();

  MlirModule module =
      mlirModuleCreateParse(context, mlirStringRefCreateFromCString(source));
  if (mlirModuleIsNull(module)) {
    fprintf(stderr, "parse failed\n");
    return 1;
  }
  MlirPassManager pm = mlirPassManagerCreate(context);
  MlirOpPassManager opm = mlirPassManagerGetAsOpPassManager(pm);
  MlirLogicalResult parsed = mlirOpPassManagerAddPipeline(
      opm, mlirStringRefCreateFromCString("loom-shard-heads{tp=4}"), print, NULL);
  if (mlirLogicalResultIsFailure(parsed)) {
    fprintf(stderr, "pipeline failed to parse\n");
    return 1;
  }
  if (mlirLogicalResultIsFailure(
          mlirPassManagerRunOnOp(pm, mlirModuleGetOperation(module)))) {
    fprintf(stderr, "pass failed\n");
    return 1;
  }
  mlirOperationPrint(mlirModuleGetOperation(module), print, NULL);
  printf("\n");
  mlirPassManagerDestroy(pm);
  mlirModuleDestroy(module);
  mlirContextDestroy(context);
  return 0;
}
