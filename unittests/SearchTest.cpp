//===- SearchTest.cpp - the search's speed-ups change no result ----------===//
//
// Issue 19, item 5: a stage prices each kind of layer once, the search
// plans and simulates on several threads. Each must give exactly what the
// plain computation gives.
//
//===----------------------------------------------------------------------===//

#include "loom/Analysis/StageCost.h"
#include "loom/Dialect/Loom/ModuleTarget.h"
#include "loom/Import/ModelImporter.h"
#include "loom/InitAll.h"
#include "loom/Plan/Planner.h"
#include "loom/Plan/Report.h"

#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <set>
#include <tuple>

using namespace mlir;
using namespace loom;

namespace {

MLIRContext &loadedContext() {
  static MLIRContext *context = [] {
    DialectRegistry registry;
    registerAllDialects(registry);
    auto *made = new MLIRContext(registry);
    made->loadAllAvailableDialects();
    return made;
  }();
  return *context;
}

// Gemma 2 alternates local (sliding-window) and global layers: two kinds.
// Pricing each kind once must give every stage's seconds to the bit, the
// layers' own seconds added in order.
TEST(Search, AStagePricesEachKindOfLayerOnceToTheBit) {
  MLIRContext &context = loadedContext();
  // 8192 tokens: a late slice's local layers see the 4096-token window,
  // its global ones every earlier token, so the kinds cost differently.
  ImportOptions options;
  options.seqLen = 8192;
  OwningOpRef<ModuleOp> module = importModel("gemma2-9b", options, &context);
  ASSERT_TRUE(module);
  (*module)->setAttr(kTargetAttrName,
                     cantFail(materializeTarget(&context, "v5e-16")));
  TargetDesc desc = getTarget(*module).getDesc();
  CostModel model(desc);
  FailureOr<ModelView> view = getModelView(*module, model, "test");
  ASSERT_TRUE(succeeded(view));
  ASSERT_GE(view->layers.size(), 3u);
  int64_t tokens = getModel(*module).getSeq();
  SmallVector<GroupAxis> axes = {{4, true}};
  std::vector<LayerSliceCost> layers;
  for (LayerOp layer : view->layers)
    layers.emplace_back(layer, model, axes, tokens);
  // A local and a global layer differ; two local layers price alike.
  EXPECT_FALSE(layers[0].pricesAs(layers[1]));
  EXPECT_TRUE(layers[0].pricesAs(layers[2]));
  EXPECT_TRUE(layers[1].pricesAs(layers[3]));
  EXPECT_LT(layers[0].seconds(512, 7680), layers[1].seconds(512, 7680));
  // Another group prices differently.
  LayerSliceCost wider(view->layers[0], model, {{8, true}}, tokens);
  EXPECT_FALSE(layers[0].pricesAs(wider));

  StageSliceCost stage(view->layers, model, axes, tokens, /*stages=*/1);
  for (auto [length, context] :
       {std::pair<int64_t, int64_t>{tokens, 0}, {256, 1024}, {512, 7680}}) {
    double sum = 0;
    for (const LayerSliceCost &layer : layers)
      sum += layer.seconds(length, context);
    // The stage also runs the ops before and after the layers.
    SmallVector<Operation *> before, after;
    for (Operation &op : *view->layers.front()->getBlock()) {
      if (isa<LayerOp>(op))
        continue;
      (op.isBeforeInBlock(view->layers.front()) ? before : after)
          .push_back(&op);
    }
    double expected = sum;
    expected += LayerSliceCost(before, model, axes, tokens)
                    .seconds(length, context);
    expected += LayerSliceCost(after, model, axes, tokens)
                    .seconds(length, context);
    EXPECT_EQ(stage.stageSeconds(0, length, context), expected)
        << length << " after " << context;
    EXPECT_EQ(stage(length, context), expected);
  }
}

/// What a search's result is made of: every ranked plan's layout and times,
/// the rejected count and the winner.
void expectSameSearch(const SearchResult &a, const SearchResult &b) {
  EXPECT_EQ(a.rejected, b.rejected);
  ASSERT_EQ(a.ranked.size(), b.ranked.size());
  for (auto [p, q] : llvm::zip(a.ranked, b.ranked)) {
    EXPECT_EQ(p.layout.tp, q.layout.tp);
    EXPECT_EQ(p.layout.sp, q.layout.sp);
    EXPECT_EQ(p.layout.ep, q.layout.ep);
    EXPECT_EQ(p.layout.hasExpertGroup(), q.layout.hasExpertGroup());
    EXPECT_TRUE(p.layout.placement == q.layout.placement);
    EXPECT_EQ(p.layout.stages, q.layout.stages);
    EXPECT_EQ(p.layout.dataParallel, q.layout.dataParallel);
    EXPECT_EQ(p.layout.interleave, q.layout.interleave);
    EXPECT_EQ(p.sliceLengths, q.sliceLengths);
    EXPECT_EQ(p.predicted, q.predicted);
    ASSERT_EQ(p.simulated.has_value(), q.simulated.has_value());
    if (p.simulated) {
      EXPECT_EQ(p.simulated->makespan, q.simulated->makespan);
    }
  }
  ASSERT_EQ(a.winner.has_value(), b.winner.has_value());
  if (a.winner) {
    EXPECT_EQ(a.winner->layout.tp, b.winner->layout.tp);
    EXPECT_EQ(a.winner->layout.stages, b.winner->layout.stages);
    EXPECT_EQ(a.winner->predicted, b.winner->predicted);
    ASSERT_TRUE(a.winner->simulated && b.winner->simulated);
    EXPECT_EQ(a.winner->simulated->makespan, b.winner->simulated->makespan);
    EXPECT_EQ(a.winner->schedule.chips.size(), b.winner->schedule.chips.size());
  }
}

/// Searches `request` on one thread and on two, expects the same result
/// of both, and returns the first.
SearchResult searchOnOneAndTwoThreads(const PlanRequest &request,
                                      MLIRContext &context,
                                      int64_t simulateTop) {
  PlanOptions one;
  one.threads = 1;
  one.simulateTop = simulateTop;
  PlanOptions two = one;
  two.threads = 2;
  SearchResult alone = searchPlans(request, context, one);
  SearchResult shared = searchPlans(request, context, two);
  expectSameSearch(alone, shared);
  return alone;
}

// The search plans candidates on worker threads (each in its own context)
// and simulates its top plans at once; taken in order, the result is the
// one of a single thread: an LLM (token slices) and a DiT (patches, CFG
// data parallelism).
TEST(Search, TheResultDoesNotDependOnTheThreads) {
  MLIRContext &context = loadedContext();
  for (auto [model, topology] : {std::pair{"llama-7b", "v5e-8"},
                                 {"dit-xl-2", "v5e-8"}}) {
    PlanRequest request;
    request.problem.model = model;
    request.problem.topology = topology;
    SCOPED_TRACE(model);
    SearchResult alone = searchOnOneAndTwoThreads(request, context, 3);
    ASSERT_FALSE(alone.ranked.empty()) << model;
  }
}

// A batched MoE search tries an expert-parallel group of its own beside
// tp: every such layout with the rule's placement, then the other
// placements of the four that predict best (a second round, also threaded
// and taken in order).
TEST(Search, ExpertGroupPlacementsRefineTheBestLayouts) {
  MLIRContext &context = loadedContext();
  PlanRequest request;
  request.problem.model = "mixtral-8x7b";
  request.problem.topology = "v5e-16";
  request.problem.import.mode = ImportOptions::Mode::Decode;
  request.problem.import.seqLen = 2048;
  request.problem.import.batch = 64;
  SearchResult alone = searchOnOneAndTwoThreads(request, context, 1);
  std::set<std::tuple<int64_t, int64_t, int64_t, int64_t, int64_t, int64_t,
                      int64_t, bool>>
      refined, layouts;
  bool tensorLayout = false;
  for (const PlanOutcome &p : alone.ranked) {
    const ParallelLayout &r = p.layout;
    auto layout = std::make_tuple(r.tp, r.ep, r.stages, r.dataParallel,
                                  r.microbatches, r.virtualStages,
                                  r.interleave, r.decompose);
    tensorLayout |= r.ep > 1 && !r.hasExpertGroup();
    if (!r.hasExpertGroup())
      continue;
    layouts.insert(layout);
    if (!r.placement.isDefault())
      refined.insert(layout);
  }
  EXPECT_TRUE(tensorLayout);
  EXPECT_GT(layouts.size(), 4u);
  EXPECT_GE(refined.size(), 1u);
  EXPECT_LE(refined.size(), 4u);
  ASSERT_TRUE(alone.winner);
  EXPECT_TRUE(alone.winner->layout.hasExpertGroup());
}

// A simulation the budget leaves room for is skipped past as the single
// thread skips it: a budget for the best two simulates the same two.
TEST(Search, ThreadedSimulationsKeepTheBudget) {
  MLIRContext &context = loadedContext();
  PlanRequest request;
  request.problem.model = "llama-7b";
  request.problem.topology = "v5e-8";
  PlanOptions probe;
  probe.threads = 1;
  probe.simulateTop = 0;
  probe.rankOnly = true;
  SearchResult ranked = searchPlans(request, context, probe);
  ASSERT_GE(ranked.ranked.size(), 3u);
  PlanOptions one;
  one.threads = 1;
  one.simulateTop = 3;
  one.searchSimulationBudget =
      ranked.ranked[0].estimatedTasks + ranked.ranked[1].estimatedTasks;
  PlanOptions two = one;
  two.threads = 2;
  SearchResult alone = searchPlans(request, context, one);
  SearchResult shared = searchPlans(request, context, two);
  expectSameSearch(alone, shared);
  EXPECT_EQ(llvm::count_if(shared.ranked,
                           [](const PlanOutcome &p) {
                             return p.simulated.has_value();
                           }),
            2);
}

} // namespace

// A search ranks the plans the simulator cannot run after those it ran,
// so its winner is simulated; the report notes one of them that predicts
// faster than the winner runs, and nothing when none does.
TEST(Search, PlansTooLargeToSimulateRankLastAndAreNoted) {
  auto plan = [](double predicted, double simulated, double tasks) {
    PlanOutcome p;
    p.modelName = "m";
    p.problem.topology = "v5e-8";
    p.predicted = predicted;
    p.roofline = 0.5;
    p.simulatedTasks = p.estimatedTasks = tasks;
    if (simulated > 0) {
      p.simulated.emplace();
      p.simulated->makespan = simulated;
    }
    return p;
  };
  PlanOutcome big = plan(0.9, 0, 2 * kSimulationBudget);
  EXPECT_TRUE(beyondSimulator(big));
  EXPECT_FALSE(beyondSimulator(plan(0.9, 0, kSimulationBudget)));
  EXPECT_FALSE(beyondSimulator(plan(0.9, 1.0, 2 * kSimulationBudget)));
  PlanOutcome failed = plan(0.9, 0, 1e5);
  failed.simulationFailed = true;
  EXPECT_TRUE(beyondSimulator(failed));

  SearchResult search;
  search.ranked = {plan(1.1, 1.0, 1e6), plan(1.2, 0, 1e6), big};
  std::string text;
  llvm::raw_string_ostream os(text);
  printSearchTable(search, os);
  EXPECT_NE(text.find("note: rank 3 predicts 900.000 ms, faster than rank 1 "
                      "simulates, but the simulator cannot run it (its "
                      "program has about 8.0 million tasks)"),
            std::string::npos)
      << text;
  // Slower than the winner runs: no note.
  search.ranked.back().predicted = 1.05;
  text.clear();
  printSearchTable(search, os);
  EXPECT_EQ(text.find("note:"), std::string::npos) << text;
}
