//===- EfficiencyTest.cpp - a plan's parallel efficiency and its losses ---===//

#include "loom/InitAll.h"
#include "loom/Plan/Planner.h"
#include "loom/Plan/Report.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace loom;

namespace {

struct Efficiency : public ::testing::Test {
  Efficiency() : context(registry()) { context.loadAllAvailableDialects(); }
  static DialectRegistry registry() {
    DialectRegistry registry;
    registerAllDialects(registry);
    return registry;
  }
  PlanOutcome plan(StringRef topology, int64_t tp, int64_t stages,
                   int64_t dp = 1, int64_t batch = 1) {
    PlanRequest request;
    request.problem.model = "llama-7b";
    request.problem.topology = topology.str();
    request.problem.import.seqLen = 512;
    request.problem.import.batch = batch;
    request.layout.tp = tp;
    request.layout.stages = stages;
    request.layout.dataParallel = dp;
    PlanOutcome out = planAndSimulate(request.problem, request.layout.complete(), context, PlanOptions());
    EXPECT_EQ(out.failure, "");
    EXPECT_TRUE(out.simulated.has_value());
    return out;
  }
  MLIRContext context;
};

double sum(const PlanEfficiency &e) {
  return e.efficiency + e.bubble + e.exposed + e.other;
}

TEST_F(Efficiency, TheIdealIsTheOneChipRunSplitOverTheChips) {
  // On one chip with one stage the simulated run is the sum of the ops'
  // roofline times, which is what the ideal divides over the chips.
  PlanOutcome one = plan("v5e-1", 1, 1);
  PlanEfficiency e = getEfficiency(one);
  ASSERT_TRUE(e.measured);
  EXPECT_NEAR(e.efficiency, 1.0, 0.01);
  EXPECT_NEAR(e.bubble, 0, 1e-9);
  EXPECT_NEAR(e.exposed, 0, 1e-9);
  PlanOutcome four = plan("v5e-4", 4, 1);
  EXPECT_NEAR(four.ideal * 4, one.simulated->makespan,
              0.01 * one.simulated->makespan);
}

TEST_F(Efficiency, PlansOfOneModelShareTheirIdeal) {
  // The ideal is the whole batch's, whatever the plan's layout: a
  // data-parallel replica's share does not change it.
  PlanOutcome a = plan("v5e-4", 4, 1, 1, 2);
  PlanOutcome b = plan("v5e-4", 2, 1, 2, 2);
  PlanOutcome c = plan("v5e-4", 1, 2, 2, 2);
  EXPECT_DOUBLE_EQ(a.ideal, b.ideal);
  EXPECT_DOUBLE_EQ(a.ideal, c.ideal);
  for (const PlanOutcome *p : {&a, &b, &c}) {
    PlanEfficiency e = getEfficiency(*p);
    EXPECT_NEAR(sum(e), 1.0, 1e-9);
    EXPECT_DOUBLE_EQ(e.efficiency, p->ideal / p->simulated->makespan);
  }
  // Tensor parallelism's all-reduces are exposed, the more so the more
  // chips and tokens each one spans.
  EXPECT_GT(getEfficiency(a).exposed, 0.05);
  EXPECT_LT(getEfficiency(b).exposed, getEfficiency(a).exposed);
}

TEST_F(Efficiency, IdleChipsAndPipelineFillAreLosses) {
  PlanOutcome p = plan("v5e-4", 1, 2);
  PlanEfficiency e = getEfficiency(p);
  EXPECT_DOUBLE_EQ(e.unusedChips, 0.5);
  EXPECT_GE(e.other, e.unusedChips);
  // Every stage waits for the first slices to reach it and the last stage
  // for the rest: a bubble, which a one-stage plan does not have.
  EXPECT_GT(e.bubble, 0.01);
  EXPECT_LT(getEfficiency(plan("v5e-4", 2, 1)).bubble, 1e-6);
  EXPECT_NEAR(sum(e), 1.0, 1e-9);
}

} // namespace
