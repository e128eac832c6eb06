//===- PrintShardingRules.cpp - each op's sharding rule as a remark -------===//

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Transforms/Passes.h"

namespace loom {
#define GEN_PASS_DEF_PRINTSHARDINGRULES
#include "loom/Transforms/Passes.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;

namespace {
struct PrintShardingRulesPass
    : public loom::impl::PrintShardingRulesBase<PrintShardingRulesPass> {
  void runOnOperation() override {
    getOperation().walk([](ShardingRuleOpInterface op) {
      OpShardingRule rule = op.getShardingRule();
      // (A replicated op has no factors: nothing to say.)
      if (rule.factors.empty())
        return;
      std::string text;
      llvm::raw_string_ostream os(text);
      os << rule;
      op->emitRemark() << "sharding rule " << text;
    });
    markAllAnalysesPreserved();
  }
};
} // namespace
