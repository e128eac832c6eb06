//===- main.cpp - a compiler that embeds Loom -----------------------------===//
//
// Registers Loom's dialects and passes into this program's own registry,
// imports LLaMA-7B and runs Loom's planning pipeline (head sharding, layer
// partition, token splitting) with its own pass manager.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Import/ModelImporter.h"
#include "loom/InitAll.h"
#include "loom/Transforms/PlanPipeline.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/raw_ostream.h"

int main() {
  // This compiler's own registry, with Loom's dialects in it.
  mlir::DialectRegistry registry;
  loom::registerAllDialects(registry);
  loom::registerAllPasses();
  mlir::MLIRContext context(registry);

  loom::ImportOptions options;
  options.seqLen = 256;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      loom::importModel("llama-7b", options, &context);
  if (!module)
    return 1;

  mlir::PassManager pm(&context);
  loom::ParallelLayout layout;
  layout.tp = 2;
  layout.stages = 2;
  layout.slices = loom::SliceSpec::count(4);
  loom::PlanPipelineSettings settings;
  settings.topology = "v5e-4";
  loom::buildPlanPipeline(pm, layout, settings);
  if (mlir::failed(pm.run(*module)))
    return 1;

  int64_t heads = 0;
  module->walk([&](loom::AttentionOp attn) { heads = attn.getHeads(); });
  auto func = *module->getOps<mlir::func::FuncOp>().begin();
  auto pipeline = func->getAttrOfType<loom::PipelineAttr>("loom.pipeline");
  llvm::outs() << func.getSymName() << ": " << heads << " of 32 heads per chip, "
               << pipeline.getStages() << " stages, slices ["
               << llvm::join(llvm::map_range(pipeline.getSlices(),
                                             [](int64_t l) { return std::to_string(l); }),
                             ", ")
               << "]\n";
  return 0;
}
