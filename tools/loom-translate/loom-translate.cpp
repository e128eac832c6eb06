//===- loom-translate.cpp - sched programs to and from schedule files -----===//
//
// mlir-translate with Loom's translations:
//   --sched-to-json  a module holding a sched.program -> the schedule file
//   --json-to-sched  a schedule file -> the sched.program (validated)
// The target travels with the program (#loom.target carries its figures),
// so no flag names it.
//
// --sched-to-json parses its input itself (MLIR's TranslateFromMLIR
// registration would too) so that input nested deeper than MLIR's parser
// can recurse is refused first (loom/Support/NestingLimit.h).
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Sched/ScheduleIR.h"
#include "loom/InitAll.h"
#include "loom/Support/CommandLine.h"
#include "loom/Support/NestingLimit.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Tools/ParseUtilities.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

static void registerDialects(DialectRegistry &registry) {
  loom::registerAllDialects(registry);
}

static void registerScheduleTranslations() {
  TranslateRegistration toJson(
      "sched-to-json", "write the sched.program as a schedule file",
      [](const std::shared_ptr<llvm::SourceMgr> &sourceMgr,
         llvm::raw_ostream &os, MLIRContext *context) -> LogicalResult {
        // What a TranslateFromMLIRRegistration does (register the dialects,
        // parse, verify), with the nesting check before the parse.
        DialectRegistry registry;
        registerDialects(registry);
        context->appendDialectRegistry(registry);
        const llvm::MemoryBuffer *buffer =
            sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID());
        if (failed(loom::checkIRNesting(buffer->getMemBufferRef(),
                                        llvm::errs())))
          return failure();
        auto *noImplicitModule = static_cast<llvm::cl::opt<bool> *>(
            llvm::cl::getRegisteredOptions().lookup("no-implicit-module"));
        OwningOpRef<Operation *> op = parseSourceFileForTool(
            sourceMgr, ParserConfig(context),
            /*insertImplicitModule=*/!noImplicitModule ||
                !noImplicitModule->getValue());
        if (!op || failed(verify(*op)))
          return failure();
        loom::sched::ProgramOp program;
        op->walk([&](loom::sched::ProgramOp p) {
          program = p;
          return WalkResult::interrupt();
        });
        if (!program)
          return op->emitError() << "no sched.program to write; lower a "
                                    "planned model with convert-loom-to-sched";
        loom::schedule::writeSchedule(loom::sched::exportSchedule(program), os);
        return success();
      });

  TranslateToMLIRRegistration fromJson(
      "json-to-sched", "read a schedule file into a sched.program",
      [](llvm::SourceMgr &sourceMgr, MLIRContext *context) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        StringRef name = buffer->getBufferIdentifier();
        auto parsed = loom::schedule::parseSchedule(buffer->getBuffer(), name);
        // Errors name the JSON path, so the location names only the file
        // (line 0: no source line, which may be the whole file, is quoted),
        // and the op a verifier names is not printed: it may be a chip's
        // whole program.
        Location loc = FileLineColLoc::get(context, name, 0, 0);
        context->printOpOnDiagnostic(false);
        if (!parsed) {
          std::string message = llvm::toString(parsed.takeError());
          StringRef what(message);
          what.consume_front((name + ": ").str());
          emitError(loc) << what;
          return nullptr;
        }
        OwningOpRef<ModuleOp> module =
            loom::sched::importSchedule(*parsed, context, loc);
        return OwningOpRef<Operation *>(module.release());
      },
      registerDialects);
}

int main(int argc, char **argv) {
  loom::hidePreloadedLLVMOptions();
  registerScheduleTranslations();
  return failed(mlirTranslateMain(argc, argv, "Loom translator"));
}
