//===- SchedIRTest.cpp - schedule files to sched IR and back --------------===//
//
// Host transfers as sched.host_store / sched.host_load: built from a
// schedule, printed, parsed and exported back to the same tasks (a load's
// store is its first operand, as a free's allocation is).
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Dialect/Sched/ScheduleIR.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace loom;
namespace file = loom::schedule;

namespace {

file::Task hostTask(file::TaskKind kind, int64_t bytes,
                    llvm::ArrayRef<int64_t> deps, llvm::StringRef name,
                    int64_t store = -1) {
  file::Task t;
  t.kind = kind;
  t.bytes = bytes;
  t.deps.assign(deps.begin(), deps.end());
  t.name = name.str();
  t.store = store;
  return t;
}

TEST(SchedIR, HostTransfersRoundTrip) {
  MLIRContext context;
  context.loadDialect<sched::SchedDialect, LoomDialect>();
  const TargetDesc &v5e = *lookupTarget("tpu-v5e");
  TargetAttr target =
      TargetAttr::get(&context, v5e, *v5e.findTopology({1, 1}));
  file::Schedule s = sched::emptySchedule(target);
  using K = file::TaskKind;
  s.chips.push_back({0,
                     {hostTask(K::HostStore, 4096, {}, "layer0.qkv"),
                      hostTask(K::HostStore, 64, {0}, ""),
                      hostTask(K::HostLoad, 4096, {1}, "layer0.qkv", 0),
                      hostTask(K::HostLoad, 64, {}, "", 1)}});
  OwningOpRef<ModuleOp> module = ModuleOp::create(UnknownLoc::get(&context));
  OpBuilder b = OpBuilder::atBlockEnd(module->getBody());
  sched::buildProgram(b, module->getLoc(), target, s);
  std::string text;
  llvm::raw_string_ostream os(text);
  // (On a target without host link figures the program does not verify,
  // and the printer would fall back to the generic form.)
  module->print(os, OpPrintingFlags().assumeVerified());
  EXPECT_NE(text.find("%0 = sched.host_store 4096 \"layer0.qkv\"\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%1 = sched.host_store 64 deps(%0)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%2 = sched.host_load %0 4096 \"layer0.qkv\" deps(%1)\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("%3 = sched.host_load %1 64\n"), std::string::npos)
      << text;

  // Parsed back (whether the target allows host transfers is the
  // verifier's question, tested in lit) and exported: the same tasks.
  ParserConfig config(&context, /*verifyAfterParse=*/false);
  OwningOpRef<ModuleOp> parsed = parseSourceString<ModuleOp>(text, config);
  ASSERT_TRUE(parsed);
  auto program = *parsed->getOps<sched::ProgramOp>().begin();
  file::Schedule back = sched::exportSchedule(program);
  ASSERT_EQ(back.chips.size(), 1u);
  const std::vector<file::Task> &tasks = back.chips[0].tasks;
  ASSERT_EQ(tasks.size(), 4u);
  for (size_t i = 0; i < tasks.size(); ++i) {
    const file::Task &want = s.chips[0].tasks[i];
    EXPECT_EQ(tasks[i].kind, want.kind) << i;
    EXPECT_EQ(tasks[i].bytes, want.bytes) << i;
    EXPECT_EQ(tasks[i].name, want.name) << i;
    EXPECT_EQ(tasks[i].store, want.store) << i;
    EXPECT_EQ(tasks[i].deps, want.deps) << i;
  }
}

} // namespace
