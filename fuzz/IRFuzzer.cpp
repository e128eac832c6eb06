//===- IRFuzzer.cpp - fuzzes loom IR parsing, verification and planning ---===//
//
// The input is loom IR text. Text nested deeper than Loom's tools read
// (loom/Support/NestingLimit.h) is refused, as they refuse it, before MLIR's
// parser sees it; the rest is parsed and verified; a module that
// verifies goes through fixed pipelines of the planning passes and the
// lowering (inference, and training steps), registered by
// loom::registerAllPasses and named by pipeline strings (as loom-opt takes
// them). A pass may refuse the module; a pipeline that succeeds must leave
// IR that verifies.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "loom/InitAll.h"
#include "loom/Support/NestingLimit.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace loom::fuzz;

// tp 2 and 2 stages fit every slice of 4 or more chips, and exercise head
// sharding, the layer partition, token slices, the memory check and the
// lowering; the second makes a training step of 2 data-parallel replicas
// (the loss, the backward pass, rematerialisation, FSDP) and lowers it;
// the third, with ZeRO-2, offloads activations to the host; the fourth
// runs a training step on 2 pipeline stages in 1F1B's order; the fifth
// splits the sequence 2 ways (Ulysses), where it can.
static constexpr llvm::StringLiteral kPipelines[] = {
    "loom-plan-pipeline{tp=2 stages=2},convert-loom-to-sched",
    "loom-plan-pipeline{tp=2 data-parallel=2 slices=1},"
    "loom-derive-training-step,loom-remat{policy=selective},"
    "loom-shard-zero{stage=3},loom-check-memory,convert-loom-to-sched",
    "loom-plan-pipeline{tp=2 data-parallel=2 slices=1},"
    "loom-derive-training-step,loom-remat{policy=minimal_offloaded},"
    "loom-shard-zero{stage=2},loom-check-memory,convert-loom-to-sched",
    "loom-partition-layers{stages=2},"
    "loom-split-tokens{slices=1 microbatches=2 schedule=1f1b},"
    "loom-derive-training-step,loom-remat{policy=full},loom-check-memory,"
    "convert-loom-to-sched",
    "loom-plan-pipeline{tp=1 sp=2},convert-loom-to-sched"};

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static mlir::DialectRegistry *registry = [] {
    auto *r = new mlir::DialectRegistry;
    loom::registerAllDialects(*r);
    loom::registerAllPasses();
    return r;
  }();
  mlir::MLIRContext context(*registry, mlir::MLIRContext::Threading::DISABLED);
  QuietDiagnostics diagnostics(context);
  mlir::ParserConfig config(&context);
  // MLIR's lexer reads up to a terminating NUL, as every file buffer has;
  // libFuzzer's bytes have none.
  std::string text(asText(data, size));
  if (loom::findIRNestingError(text))
    return 0;
  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceString<mlir::ModuleOp>(text, config);
  if (!module || failed(mlir::verify(*module)))
    return 0;
  for (llvm::StringRef pipeline : kPipelines) {
    mlir::OwningOpRef<mlir::ModuleOp> copy = module->clone();
    mlir::PassManager pm(&context);
    // Verified once at the end instead, where a failure is a pass's defect
    // rather than a refusal.
    pm.enableVerifier(false);
    std::string error;
    llvm::raw_string_ostream errorOS(error);
    if (failed(mlir::parsePassPipeline(pipeline, pm, errorOS)))
      fuzzInvariantFailed("a fuzz pipeline no longer parses (a pass or "
                          "option was renamed?)",
                          error);
    if (succeeded(pm.run(*copy)) && failed(mlir::verify(*copy)))
      fuzzInvariantFailed("a planning pipeline left IR that does not verify",
                          diagnostics.str());
  }
  return 0;
}
