//===- TrainingScheduleTest.cpp - pipeline schedules' bubbles -------------===//
//
// Each schedule's order, run with equal pass times, has the bubble its
// paper publishes: (p - 1) / m for GPipe and 1F1B (Narayanan et al., SC
// 2021), (p - 1) / (v m) interleaved, (p - 1) / (3 m) for ZB-H1 with T_F =
// T_B = T_W (Qi et al., ICLR 2024), and (p - 1) / (r m + p - 1) of the run
// for MaxText's circular pipeline; ZB-H2's (p - 1)(T_F + T_B - 2 T_W)
// between overlapping steps (the same paper's Table 2); and the
// activations in flight that tell them apart.
//
//===----------------------------------------------------------------------===//

#include "loom/Analysis/TrainingSchedule.h"

#include "gtest/gtest.h"

#include <cmath>
#include <map>
#include <tuple>

using namespace loom;

namespace {

ScheduleRun run(PipelineSchedule schedule, int64_t p, int64_t m,
                int64_t chunks = 1, PassTimes times = {}) {
  llvm::Expected<StageOrders> orders = scheduleOrder(schedule, p, m, chunks);
  EXPECT_TRUE(bool(orders)) << llvm::toString(orders.takeError());
  return runSchedule(*orders, chunks, times);
}

/// Every stage runs each (microbatch, chunk)'s F, B and W once.
void expectEveryPassOnce(const StageOrders &orders, int64_t m,
                         int64_t chunks) {
  for (const std::vector<PipelinePass> &order : orders) {
    std::map<std::tuple<int, int64_t, int64_t>, int> seen;
    for (const PipelinePass &pass : order) {
      if (pass.kind == PipelinePass::Kind::BackwardWeight) {
        ++seen[{int(PipelinePass::Kind::Backward), pass.microbatch,
                pass.chunk}];
        ++seen[{int(PipelinePass::Kind::Weight), pass.microbatch, pass.chunk}];
      } else {
        ++seen[{int(pass.kind), pass.microbatch, pass.chunk}];
      }
    }
    EXPECT_EQ(seen.size(), size_t(3 * m * chunks));
    for (auto &[key, count] : seen)
      EXPECT_EQ(count, 1);
  }
}

TEST(TrainingSchedule, EveryScheduleRunsEveryPassOnce) {
  for (auto [schedule, chunks] :
       {std::pair{PipelineSchedule::GPipe, 1},
        {PipelineSchedule::OneFOneB, 1},
        {PipelineSchedule::Interleaved, 2},
        {PipelineSchedule::ZeroBubbleH1, 1},
        {PipelineSchedule::Circular, 3},
        {PipelineSchedule::ZeroBubbleH2, 1}}) {
    llvm::Expected<StageOrders> orders = scheduleOrder(schedule, 4, 8, chunks);
    ASSERT_TRUE(bool(orders));
    expectEveryPassOnce(*orders, 8, chunks);
  }
}

TEST(TrainingSchedule, OneFOneBAndGPipeBubbleIsPMinusOneOverM) {
  for (int64_t p : {2, 4, 8})
    for (int64_t m : {4, 8, 16, 32}) {
      SCOPED_TRACE(testing::Message() << "p " << p << " m " << m);
      double published = double(p - 1) / double(m);
      EXPECT_NEAR(run(PipelineSchedule::OneFOneB, p, m).bubble(), published,
                  1e-12);
      EXPECT_NEAR(run(PipelineSchedule::GPipe, p, m).bubble(), published,
                  1e-12);
      // Whatever the passes' times: the bubble is (p - 1)(T_F + T_B).
      PassTimes uneven{1, 1.5, 0.5};
      EXPECT_NEAR(run(PipelineSchedule::OneFOneB, p, m, 1, uneven).bubble(),
                  published, 1e-12);
    }
}

TEST(TrainingSchedule, InterleavedBubbleIsDividedByTheChunks) {
  for (int64_t p : {2, 4, 8})
    for (int64_t v : {2, 3, 4})
      for (int64_t m : {p, 2 * p, 4 * p}) {
        SCOPED_TRACE(testing::Message()
                     << "p " << p << " v " << v << " m " << m);
        EXPECT_NEAR(run(PipelineSchedule::Interleaved, p, m, v).bubble(),
                    double(p - 1) / double(v * m), 1e-12);
      }
}

TEST(TrainingSchedule, ZeroBubbleH1IsAThirdOfOneFOneBs) {
  for (int64_t p : {2, 4, 8})
    for (int64_t m : {p, 2 * p, 4 * p, 4 * p + 1}) {
      SCOPED_TRACE(testing::Message() << "p " << p << " m " << m);
      EXPECT_NEAR(run(PipelineSchedule::ZeroBubbleH1, p, m).bubble(),
                  double(p - 1) / double(3 * m), 1e-12);
      // (p - 1)(T_F + T_B - T_W) of idle time with a shorter W.
      PassTimes shortW{1, 1, 0.5};
      ScheduleRun zb = run(PipelineSchedule::ZeroBubbleH1, p, m, 1, shortW);
      EXPECT_NEAR(zb.makespan - zb.work, double(p - 1) * 1.5, 1e-12);
    }
}

TEST(TrainingSchedule, ZeroBubbleH2HasNoBubbleBetweenOverlappingSteps) {
  for (int64_t p : {2, 3, 4, 8})
    for (int64_t m : {2 * p - 1, 2 * p, 4 * p + 1}) {
      SCOPED_TRACE(testing::Message() << "p " << p << " m " << m);
      // Qi et al., ICLR 2024, Table 2: (p - 1)(T_F + T_B - 2 T_W) of idle
      // time a stage, 0 with equal passes; with a W no longer than F (a
      // longer one outlasts the waits it fills).
      for (PassTimes times : {PassTimes{1, 1, 1}, PassTimes{1, 2, 1},
                              PassTimes{1, 1.5, 0.5}, PassTimes{2, 1, 1}}) {
        ScheduleRun zb = run(PipelineSchedule::ZeroBubbleH2, p, m, 1, times);
        double idle = double(p - 1) *
                      (times.forward + times.backward - 2 * times.weight);
        EXPECT_NEAR(zb.period - zb.work, idle, 1e-12);
        // Within one step the last stage starts (p - 1) T_F late.
        EXPECT_NEAR(zb.makespan - zb.work,
                    std::max(idle, double(p - 1) * times.forward), 1e-12);
      }
      EXPECT_NEAR(run(PipelineSchedule::ZeroBubbleH2, p, m).periodBubble(),
                  0, 1e-12);
      // ZB-H1's and 1F1B's last stages end last and their first stages start
      // first: their bubbles are the same between overlapping steps.
      for (PipelineSchedule other :
           {PipelineSchedule::OneFOneB, PipelineSchedule::ZeroBubbleH1}) {
        ScheduleRun one = run(other, p, m, 1, PassTimes{1, 1.5, 0.5});
        EXPECT_NEAR(one.period, one.makespan, 1e-12);
      }
    }
}

TEST(TrainingSchedule, ZeroBubbleH2SendsBackwardsAsSoonAsTheyCanRun) {
  // Stage s runs 2 (p - s - 1) + 1 forwards before its first B.
  llvm::Expected<StageOrders> orders =
      scheduleOrder(PipelineSchedule::ZeroBubbleH2, 4, 8);
  ASSERT_TRUE(bool(orders));
  for (int64_t s = 0; s < 4; ++s) {
    const std::vector<PipelinePass> &order = (*orders)[s];
    int64_t warmup = 2 * (4 - s - 1) + 1;
    for (int64_t i = 0; i < warmup; ++i)
      EXPECT_EQ(order[i].kind, PipelinePass::Kind::Forward);
    EXPECT_EQ(order[warmup].kind, PipelinePass::Kind::Backward);
    EXPECT_EQ(order[warmup].microbatch, 0);
  }
}

TEST(TrainingSchedule, CircularBubbleIsPMinusOneOverRmPlusPMinusOneOfTheRun) {
  for (int64_t p : {2, 4})
    for (int64_t r : {1, 2, 4})
      for (int64_t m : {p, 2 * p}) {
        SCOPED_TRACE(testing::Message()
                     << "p " << p << " r " << r << " m " << m);
        // MaxText runs the backward pass as one (B and W together).
        ScheduleRun circular =
            run(PipelineSchedule::Circular, p, m, r, PassTimes{1, 1, 0});
        EXPECT_NEAR((circular.makespan - circular.work) / circular.makespan,
                    double(p - 1) / double(r * m + p - 1), 1e-12);
      }
}

TEST(TrainingSchedule, ActivationsInFlightComeFromTheOrder) {
  // GPipe holds every microbatch; 1F1B and ZB-H1 p - s on stage s (ZB-H1's
  // W passes held back keep a stage's weight-gradient inputs longer, not
  // more microbatches' activations); interleaved more than 1F1B.
  ScheduleRun gpipe = run(PipelineSchedule::GPipe, 4, 8);
  ScheduleRun ofob = run(PipelineSchedule::OneFOneB, 4, 8);
  for (int64_t s = 0; s < 4; ++s) {
    EXPECT_EQ(gpipe.peakInFlight[s], 8);
    EXPECT_EQ(ofob.peakInFlight[s], 4 - s);
  }
  ScheduleRun zb = run(PipelineSchedule::ZeroBubbleH1, 4, 8);
  for (int64_t s = 0; s < 4; ++s) {
    EXPECT_LE(zb.peakInFlight[s], 4);
    // Stage s holds s W passes back: s + 1 microbatches between B and W
    // at once (the one running counted); a fused backward holds none.
    EXPECT_EQ(zb.peakAwaitingWeights[s], s + 1);
    EXPECT_EQ(ofob.peakAwaitingWeights[s], 0);
  }
  ScheduleRun interleaved = run(PipelineSchedule::Interleaved, 4, 8, 2);
  EXPECT_GT(interleaved.peakInFlight[0], 4);
  // ZB-H2 holds 2p - 1 on every stage (Qi et al., ICLR 2024, Table 2's
  // (2p - 1) M_B): the first stage's warm-up, and W passes held back on
  // the others; fewer microbatches, all of them.
  for (int64_t p : {2, 4, 8})
    for (int64_t m : {p, 2 * p - 1, 4 * p}) {
      ScheduleRun h2 = run(PipelineSchedule::ZeroBubbleH2, p, m);
      for (int64_t s = 0; s < p; ++s)
        EXPECT_EQ(h2.peakInFlight[s], std::min(2 * p - 1, m))
            << "p " << p << " m " << m << " stage " << s;
      // The last stage runs each B as its F ends and holds the W passes
      // back while it can run F: all of its in flight await their W.
      if (m >= 2 * p - 1)
        EXPECT_EQ(h2.peakAwaitingWeights[p - 1], 2 * p - 1);
    }
}

TEST(TrainingSchedule, TokenSlicesRunForwardInOrderAndBackwardInReverse) {
  llvm::Expected<StageOrders> orders =
      scheduleOrder(PipelineSchedule::OneFOneB, 2, 2);
  ASSERT_TRUE(bool(orders));
  // One slice: the order itself.
  StageOrders once = sliceOrders(*orders, 1);
  ASSERT_EQ(once.size(), orders->size());
  for (size_t s = 0; s < once.size(); ++s)
    for (size_t i = 0; i < once[s].size(); ++i) {
      EXPECT_EQ(once[s][i].kind, (*orders)[s][i].kind);
      EXPECT_EQ(once[s][i].microbatch, (*orders)[s][i].microbatch);
    }
  // Three slices: microbatch m's units 3m..3m+2, forwards ascending,
  // backwards descending; every unit's passes once.
  StageOrders sliced = sliceOrders(*orders, 3);
  expectEveryPassOnce(sliced, 6, 1);
  using Kind = PipelinePass::Kind;
  std::vector<std::pair<Kind, int64_t>> last;
  for (const PipelinePass &pass : sliced[1])
    last.push_back({pass.kind, pass.microbatch});
  std::vector<std::pair<Kind, int64_t>> expected = {
      {Kind::Forward, 0},        {Kind::Forward, 1},
      {Kind::Forward, 2},        {Kind::BackwardWeight, 2},
      {Kind::BackwardWeight, 1}, {Kind::BackwardWeight, 0},
      {Kind::Forward, 3},        {Kind::Forward, 4},
      {Kind::Forward, 5},        {Kind::BackwardWeight, 5},
      {Kind::BackwardWeight, 4}, {Kind::BackwardWeight, 3}};
  EXPECT_EQ(last, expected);
}

TEST(TrainingSchedule, TokenSlicesTakeTeraPipesTime) {
  // TeraPipe (Li et al., ICML 2021, section 3.3): slices costing t_i flow
  // through p stages in sum_i t_i + (p - 1) max_i t_i, here forward and
  // then backward (B = F, no W) over GPipe's m microbatches:
  // 2 (m sum_i t_i + (p - 1) max_i t_i). Later slices cost more (they
  // attend to more), so the largest need not be the last.
  std::vector<double> t = {1, 3, 2};
  double sum = 6, max = 3;
  for (int64_t p : {1, 2, 4})
    for (int64_t m : {1, 2, 3}) {
      SCOPED_TRACE(testing::Message() << "p " << p << " m " << m);
      llvm::Expected<StageOrders> orders =
          scheduleOrder(PipelineSchedule::GPipe, p, m);
      ASSERT_TRUE(bool(orders));
      ScheduleRun run = runSchedule(
          sliceOrders(*orders, 3), 1, [&](int64_t, int64_t unit) {
            double each = t[unit % 3];
            return PassTimes{each, each, 0, 0};
          });
      EXPECT_DOUBLE_EQ(run.makespan, 2 * (m * sum + (p - 1) * max));
      EXPECT_DOUBLE_EQ(run.work, 2 * m * sum);
    }
}

TEST(TrainingSchedule, EqualTokenSlicesDivideGPipesBubble) {
  // k equal slices of each microbatch: GPipe's bubble (p - 1) / m over k,
  // and 1F1B's no larger; a slice of a microbatch is a k-th of its work.
  for (int64_t p : {2, 4})
    for (int64_t m : {2, 4})
      for (int64_t k : {2, 4}) {
        SCOPED_TRACE(testing::Message()
                     << "p " << p << " m " << m << " k " << k);
        PassTimes slice{1.0 / k, 1.0 / k, 1.0 / k, 0};
        for (PipelineSchedule schedule :
             {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB}) {
          llvm::Expected<StageOrders> orders = scheduleOrder(schedule, p, m);
          ASSERT_TRUE(bool(orders));
          ScheduleRun run =
              runSchedule(sliceOrders(*orders, k), 1, slice);
          EXPECT_NEAR(run.work, 3.0 * m, 1e-12);
          if (schedule == PipelineSchedule::GPipe)
            EXPECT_NEAR(run.bubble(), double(p - 1) / double(m * k), 1e-12);
          else
            EXPECT_LE(run.bubble(), double(p - 1) / double(m) + 1e-12);
          // 1F1B holds at most p microbatches' slices; GPipe all of them.
          EXPECT_EQ(run.peakInFlight.front(),
                    schedule == PipelineSchedule::GPipe ? m * k
                                                        : std::min(p, m) * k);
        }
      }
}

TEST(TrainingSchedule, ASliceHoldsItsShareOfAMicrobatch) {
  // liveShares weighs each unit by its slice's share of a microbatch's
  // tokens: 1F1B's p - s microbatches in flight on stage s whatever the
  // slicing (a microbatch's slices run back to back), GPipe's m; ZB-H1's
  // B-to-W peak. Unequal slices, 1/2, 1/4, 1/4.
  std::vector<double> share = {0.5, 0.25, 0.25};
  auto shareOf = [&](int64_t unit) { return share[unit % 3]; };
  for (PipelineSchedule schedule :
       {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB,
        PipelineSchedule::ZeroBubbleH1}) {
    SCOPED_TRACE(scheduleName(schedule).str());
    llvm::Expected<StageOrders> orders = scheduleOrder(schedule, 4, 8);
    ASSERT_TRUE(bool(orders));
    std::vector<LiveShares> sliced =
        liveShares(sliceOrders(*orders, 3), shareOf);
    std::vector<LiveShares> whole =
        liveShares(*orders, [](int64_t) { return 1.0; });
    ScheduleRun run = runSchedule(*orders, 1, PassTimes());
    for (int64_t s = 0; s < 4; ++s) {
      EXPECT_NEAR(whole[s].inFlight, double(run.peakInFlight[s]), 1e-12);
      EXPECT_NEAR(whole[s].awaitingWeights,
                  double(run.peakAwaitingWeights[s]), 1e-12);
      EXPECT_NEAR(sliced[s].inFlight, whole[s].inFlight, 1e-12);
    }
  }
  // One unit alone: its share.
  StageOrders one = {{{PipelinePass::Kind::Forward, 1, 0},
                      {PipelinePass::Kind::BackwardWeight, 1, 0}}};
  EXPECT_NEAR(liveShares(one, shareOf).front().inFlight, 0.25, 1e-12);
}

TEST(TrainingSchedule, AnOrderThatWaitsForItselfNeverEnds) {
  // Stage 0 of 2 runs its backward before the forward it waits for.
  using Kind = PipelinePass::Kind;
  StageOrders orders = {
      {{Kind::BackwardWeight, 0, 0}, {Kind::Forward, 0, 0}},
      {{Kind::Forward, 0, 0}, {Kind::BackwardWeight, 0, 0}}};
  EXPECT_TRUE(std::isinf(runSchedule(orders, 1, PassTimes{}).makespan));
  // In the right order it ends: F, F, B, B of one unit each (B and W 2).
  std::swap(orders[0][0], orders[0][1]);
  EXPECT_DOUBLE_EQ(runSchedule(orders, 1, PassTimes{}).makespan, 6);
}

TEST(TrainingSchedule, ShapesASchedulesCannotRunAreRefused) {
  auto why = [](PipelineSchedule s, int64_t p, int64_t m, int64_t v) {
    llvm::Expected<StageOrders> orders = scheduleOrder(s, p, m, v);
    return orders ? std::string() : llvm::toString(orders.takeError());
  };
  EXPECT_EQ(why(PipelineSchedule::Interleaved, 4, 6, 2),
            "the interleaved schedule runs microbatches in groups of the 4 "
            "stages: 6 microbatches is no multiple of it");
  EXPECT_EQ(why(PipelineSchedule::OneFOneB, 4, 8, 2),
            "the 1f1b schedule runs one model chunk a stage, got 2");
  EXPECT_EQ(why(PipelineSchedule::GPipe, 0, 8, 1),
            "the gpipe schedule needs at least one stage, microbatch and "
            "chunk");
}

} // namespace
