//===- SimulatorTest.cpp - the simulator against closed forms -------------===//
//
// Uncontended, the simulator must agree with the cost model's closed forms
// (within 2%); contended, it must be slower; and it must report overflow
// and refuse a schedule that would deadlock instead of hanging.
//
//===----------------------------------------------------------------------===//

#include "loom/Sim/Simulator.h"
#include "loom/Hardware/CostModel.h"
#include "loom/Hardware/DeviceMesh.h"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <tuple>

using namespace loom;
using namespace loom::schedule;
using loom::sim::SimResult;

namespace {

const TargetDesc &v5e() { return *lookupTarget("tpu-v5e"); }

Schedule emptySchedule(llvm::ArrayRef<int64_t> shape, int64_t chips) {
  Schedule s;
  s.targetName = "tpu-v5e";
  s.shape.assign(shape.begin(), shape.end());
  for (int64_t id = 0; id < chips; ++id)
    s.chips.push_back({id, {}});
  return s;
}

Task send(int64_t to, int64_t bytes, int64_t tag) {
  Task t;
  t.kind = TaskKind::Send;
  t.peer = to;
  t.bytes = bytes;
  t.tag = tag;
  return t;
}
Task recv(int64_t from, int64_t bytes, int64_t tag) {
  Task t = send(from, bytes, tag);
  t.kind = TaskKind::Recv;
  return t;
}
Task compute(double flops, double bytes) {
  Task t;
  t.kind = TaskKind::Compute;
  t.flops = flops;
  t.bytes = bytes;
  t.name = "c";
  t.op = "loom.linear";
  return t;
}

/// A collective's done (schedule version 2) after its start, the last
/// task of `tasks`.
void addDone(std::vector<Task> &tasks) {
  Task done;
  done.kind = TaskKind::CollectiveDone;
  done.start = int64_t(tasks.size()) - 1;
  tasks.push_back(done);
}

SimResult run(const Schedule &s) {
  auto result = sim::simulate(v5e(), s, /*recordTrace=*/false);
  EXPECT_TRUE(bool(result)) << llvm::toString(result.takeError());
  return result ? *result : SimResult();
}

double relative(double a, double b) { return std::fabs(a - b) / b; }

TEST(Simulator, UncontendedTransferMatchesTheCostModel) {
  // 4x4 (no wraparound): chip 0 = (0,0) to chip 15 = (3,3), 6 hops.
  Schedule s = emptySchedule({4, 4}, 16);
  s.chips[0].tasks.push_back(send(15, 45000000, 0));
  s.chips[15].tasks.push_back(recv(0, 45000000, 0));
  SimResult r = run(s);
  EXPECT_TRUE(r.failure.empty()) << r.failure;
  CostModel model(v5e());
  double expected = model.pointToPointTime({4, 4}, {0, 0}, {3, 3}, 45e6);
  // The program's dispatch comes first; the transfer is the rest.
  EXPECT_EQ(r.dispatch, model.programDispatch());
  EXPECT_LT(relative(r.makespan - r.dispatch, expected), 0.02) << r.makespan;

  // 16x16 wraps: chip (0,0) to (15,0) is one hop through the wraparound.
  Schedule w = emptySchedule({16, 16}, 256);
  w.chips[0].tasks.push_back(send(240, 45000000, 0));
  w.chips[240].tasks.push_back(recv(0, 45000000, 0));
  SimResult rw = run(w);
  EXPECT_LT(relative(rw.makespan - rw.dispatch,
                     model.pointToPointTime({16, 16}, {0, 0}, {15, 0}, 45e6)),
            0.02);
}

/// A collective of `kind` over the chips of `group` on `shape`.
double collectiveTime(llvm::ArrayRef<int64_t> shape, llvm::ArrayRef<int64_t> group,
                      CollectiveKind kind, int64_t bytes) {
  int64_t chips = 1;
  for (int64_t d : shape)
    chips *= d;
  Schedule s = emptySchedule(shape, chips);
  for (int64_t member : group) {
    Task t;
    t.kind = TaskKind::Collective;
    t.collective = kind;
    t.group.assign(group.begin(), group.end());
    t.bytes = bytes;
    t.tag = 0;
    s.chips[member].tasks.push_back(t);
    addDone(s.chips[member].tasks);
  }
  SimResult r = run(s);
  EXPECT_TRUE(r.failure.empty()) << r.failure;
  return r.makespan - r.dispatch;
}

TEST(Simulator, UncontendedCollectivesMatchTheCostModel) {
  CostModel model(v5e());
  // A wrapped 16-chip row of v5e-256 (ring) and a 4-chip row of v5e-16
  // (line), each kind.
  llvm::SmallVector<int64_t> row16, row4 = {0, 1, 2, 3};
  for (int64_t i = 0; i < 16; ++i)
    row16.push_back(i);
  for (CollectiveKind kind :
       {CollectiveKind::AllGather, CollectiveKind::ReduceScatter,
        CollectiveKind::AllReduce, CollectiveKind::AllToAll}) {
    double ring = collectiveTime({16, 16}, row16, kind, 90000000);
    EXPECT_LT(relative(ring, model.collectiveTime(kind, {{16, true}}, 9e7)),
              0.02)
        << schedule::name(kind).str() << " ring " << ring;
    double line = collectiveTime({4, 4}, row4, kind, 45000000);
    EXPECT_LT(relative(line, model.collectiveTime(kind, {{4, false}}, 4.5e7)),
              0.02)
        << schedule::name(kind).str() << " line " << line;
  }
  // A 2x2 block as a ring over its cycle (0,0) (1,0) (1,1) (0,1).
  double block = collectiveTime({2, 2}, {0, 2, 3, 1}, CollectiveKind::AllReduce,
                                8000000);
  EXPECT_LT(relative(block, model.collectiveTime(CollectiveKind::AllReduce,
                                                 {{2, false}, {2, false}}, 8e6)),
            0.02);
}

// An all-to-all over a block of two axes: the simulator routes every chunk
// over the torus, and the cost model's per-axis closed form must agree (it
// once priced a 16x2 block as a 32-chip ring, twice the time).
TEST(Simulator, AllToAllOverABlockMatchesTheCostModel) {
  CostModel model(v5e());
  // 16 x 2 of v5e-256 (chip id = 16 x + y), in the order of its cycle.
  llvm::SmallVector<int64_t> block16x2;
  for (int64_t x = 0; x < 16; ++x)
    block16x2.push_back(16 * x);
  for (int64_t x = 15; x >= 0; --x)
    block16x2.push_back(16 * x + 1);
  double wide = collectiveTime({16, 16}, block16x2, CollectiveKind::AllToAll,
                               9000000);
  EXPECT_LT(relative(wide, model.collectiveTime(CollectiveKind::AllToAll,
                                                {{16, true}, {2, false}}, 9e6)),
            0.02)
      << wide;
  // A 4x4 slice of v5e-16 (no wraparound), its cycle of neighbours.
  double square = collectiveTime({4, 4}, {0, 1, 2, 3, 7, 6, 5, 9, 10, 11, 15,
                                          14, 13, 12, 8, 4},
                                 CollectiveKind::AllToAll, 4500000);
  EXPECT_LT(relative(square, model.collectiveTime(CollectiveKind::AllToAll,
                                                  {{4, false}, {4, false}},
                                                  4.5e6)),
            0.02)
      << square;
}

// An all-to-all over a whole 16x16 slice starts 256 x 255 flows at one
// instant, most of them sharing links; they end together too. Link shares
// are recomputed once per instant, so the events grow with the flows (a
// finish and an arrival each, plus the share changes), not with the flows
// times their neighbours (23.6 million events before).
TEST(Simulator, AllToAllEventsGrowWithTheFlows) {
  Schedule s = emptySchedule({16, 16}, 256);
  llvm::SmallVector<int64_t> everyone;
  for (int64_t i = 0; i < 256; ++i)
    everyone.push_back(i);
  for (int64_t member : everyone) {
    Task t;
    t.kind = TaskKind::Collective;
    t.collective = CollectiveKind::AllToAll;
    t.group.assign(everyone.begin(), everyone.end());
    t.bytes = 1 << 20;
    s.chips[member].tasks.push_back(t);
    addDone(s.chips[member].tasks);
  }
  SimResult r = run(s);
  EXPECT_TRUE(r.failure.empty()) << r.failure;
  int64_t flows = 256 * 255;
  EXPECT_LE(r.events, uint64_t(3 * flows));
}

TEST(Simulator, SharedLinksSlowTransfersDown) {
  // Two transfers over the same link (0 -> 1 on a 4x4) against one alone,
  // and against two on disjoint links (0 -> 1 and 2 -> 3).
  auto time = [](std::vector<std::pair<int64_t, int64_t>> pairs) {
    Schedule s = emptySchedule({4, 4}, 16);
    int64_t tag = 0;
    for (auto [from, to] : pairs) {
      s.chips[from].tasks.push_back(send(to, 45000000, tag));
      s.chips[to].tasks.push_back(recv(from, 45000000, tag));
      ++tag;
    }
    return run(s).makespan;
  };
  double alone = time({{0, 1}});
  double shared = time({{0, 1}, {0, 1}});
  double disjoint = time({{0, 1}, {2, 3}});
  EXPECT_GT(shared, 1.9 * alone - 1e-6);
  EXPECT_NEAR(disjoint, alone, 1e-12);
  // Two flows whose routes share only the first link: 0 -> 2 and 0 -> 1.
  double partial = time({{0, 2}, {0, 1}});
  EXPECT_GT(partial, alone);
}

namespace {

/// Two replicas on a 4x4 (no wraparound) as data-parallel inference runs
/// them: `first` and `second`, pairs of chips, each computing, sending its
/// partner `bytes` (the second replica's `secondBytes`) and all-reducing
/// over the pair; the tags of the second are the first's plus 100.
Schedule twoReplicas(std::pair<int64_t, int64_t> first,
                     std::pair<int64_t, int64_t> second, int64_t bytes,
                     int64_t secondBytes) {
  Schedule s = emptySchedule({4, 4}, 16);
  for (auto [pair, tags, size] :
       {std::make_tuple(first, 0, bytes),
        std::make_tuple(second, 100, secondBytes)}) {
    auto [a, b] = pair;
    for (int64_t chip : {a, b})
      s.chips[chip].tasks.push_back(compute(2e11, 1e8));
    s.chips[a].tasks.push_back(send(b, size, tags));
    s.chips[b].tasks.push_back(recv(a, size, tags));
    for (int64_t chip : {a, b}) {
      Task reduce;
      reduce.kind = TaskKind::Collective;
      reduce.collective = CollectiveKind::AllReduce;
      reduce.bytes = 8000000;
      reduce.tag = tags + 1;
      reduce.group = {a, b};
      reduce.deps = {int64_t(s.chips[chip].tasks.size()) - 1};
      s.chips[chip].tasks.push_back(reduce);
      addDone(s.chips[chip].tasks);
    }
  }
  return s;
}

/// `s` run with its replicas run once where they may (the default) and
/// with every chip: the two runs' figures, to the bit.
std::pair<SimResult, SimResult> bothWays(const Schedule &s) {
  sim::SimOptions every;
  every.everyReplica = true;
  auto once = sim::simulate(v5e(), s, /*recordTrace=*/false);
  auto whole = sim::simulate(v5e(), s, /*recordTrace=*/false, 0, every);
  EXPECT_TRUE(once && whole);
  if (!once || !whole)
    return {};
  EXPECT_EQ(whole->replicas, 1);
  EXPECT_EQ(once->makespan, whole->makespan);
  EXPECT_EQ(once->events, whole->events);
  EXPECT_EQ(once->failure, whole->failure);
  EXPECT_EQ(once->chips.size(), whole->chips.size());
  for (size_t i = 0; i < once->chips.size() && i < whole->chips.size(); ++i) {
    const sim::ChipStats &a = once->chips[i], &b = whole->chips[i];
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.computeBusy, b.computeBusy) << "chip " << a.id;
    EXPECT_EQ(a.flops, b.flops) << "chip " << a.id;
    EXPECT_EQ(a.exposedComm, b.exposedComm) << "chip " << a.id;
    EXPECT_EQ(a.peakHbm, b.peakHbm) << "chip " << a.id;
    EXPECT_EQ(a.tasks, b.tasks) << "chip " << a.id;
  }
  EXPECT_EQ(once->links.size(), whole->links.size());
  for (size_t i = 0; i < once->links.size() && i < whole->links.size(); ++i) {
    EXPECT_EQ(once->links[i].from, whole->links[i].from);
    EXPECT_EQ(once->links[i].to, whole->links[i].to);
    EXPECT_EQ(once->links[i].bytes, whole->links[i].bytes);
    EXPECT_EQ(once->links[i].busy, whole->links[i].busy);
  }
  return {std::move(*once), std::move(*whole)};
}

} // namespace

// Replicas that never meet, alike task for task, on links of their own,
// run once for all: every figure is the run of every chip's, to the bit.
// Replicas whose routes share a link, or whose programs differ, run whole.
TEST(Simulator, ReplicasApartRunOnce) {
  // 0 -> 1 and 2 -> 3: one link each; the second replica two columns on.
  auto [once, whole] = bothWays(twoReplicas({0, 1}, {2, 3}, 45000000,
                                            45000000));
  EXPECT_EQ(once.replicas, 2);
  // Both replicas' chips and links are there, the second's moved.
  EXPECT_GT(once.chips[2].computeBusy, 0);
  EXPECT_EQ(once.chips[2].computeBusy, once.chips[0].computeBusy);
  EXPECT_EQ(once.links.size(), 4u);
  // Two rows down (a translation of the first) as well.
  EXPECT_EQ(bothWays(twoReplicas({0, 1}, {8, 9}, 45000000, 45000000))
                .first.replicas,
            2);
}

TEST(Simulator, ReplicasSharingALinkRunWhole) {
  // 0 -> 2 and 1 -> 3 both cross 1 -> 2: the transfers share it, which a
  // run of one replica would not see.
  auto [once, whole] = bothWays(twoReplicas({0, 2}, {1, 3}, 45000000,
                                            45000000));
  EXPECT_EQ(once.replicas, 1);
  Schedule alone = twoReplicas({0, 2}, {1, 3}, 45000000, 45000000);
  for (int64_t chip : {1, 3})
    alone.chips[chip].tasks.clear();
  EXPECT_GT(once.makespan, run(alone).makespan);
}

TEST(Simulator, ReplicasThatDifferRunWhole) {
  EXPECT_EQ(bothWays(twoReplicas({0, 1}, {2, 3}, 45000000, 46000000))
                .first.replicas,
            1);
}

TEST(Simulator, MirroredReplicasRunOnce) {
  // The second pair reversed, 3 -> 2: its chips in the other order, its
  // link the other way, one for one.
  auto [once, whole] = bothWays(twoReplicas({0, 1}, {3, 2}, 45000000,
                                            45000000));
  EXPECT_EQ(once.replicas, 2);
  EXPECT_EQ(once.chips[3].computeBusy, once.chips[0].computeBusy);
}

TEST(Simulator, ComputeOnlyTakesTheSumOfRooflines) {
  Schedule s = emptySchedule({1, 1}, 1);
  CostModel model(v5e());
  double expected = 0;
  for (int i = 1; i <= 5; ++i) {
    s.chips[0].tasks.push_back(compute(1e11 * i, 1e8 * (6 - i)));
    expected += model.taskTime(1e11 * i, 1e8 * (6 - i));
  }
  SimResult r = run(s);
  // Each task a kernel step plus its roofline, after the program's dispatch.
  EXPECT_GT(model.getTarget().calibration.kernelStep, 0);
  EXPECT_NEAR(r.makespan, model.programDispatch() + expected, 1e-12 * expected);
  EXPECT_NEAR(r.chips[0].computeBusy, expected, 1e-12 * expected);
}

TEST(Simulator, HbmOverflowIsReported) {
  Schedule s = emptySchedule({1, 1}, 1);
  Task weights;
  weights.kind = TaskKind::Alloc;
  weights.what = MemoryKind::Weights;
  weights.name = "layer0.weights";
  weights.bytes = 10000000000;
  s.chips[0].tasks.push_back(compute(1e12, 0));
  Task more = weights;
  more.name = "layer1.weights";
  more.deps = {0};
  s.chips[0].tasks.push_back(weights);
  s.chips[0].tasks.push_back(more);
  SimResult r = run(s);
  EXPECT_NE(r.failure.find("HBM overflow on chip 0 at task 2 (alloc weights "
                           "\"layer1.weights\", 10000000000 bytes) at t = "),
            std::string::npos)
      << r.failure;
  EXPECT_NE(r.failure.find("20000000000 bytes in use, capacity 16000000000"),
            std::string::npos);
}

TEST(Simulator, FreeWaitsForItsAllocation) {
  // The free of layer0 lists no dependency, yet runs after its allocation,
  // which waits for a long compute; layer1 is allocated at once. Both are
  // live after the compute: the peak is 10 GB, not 5 GB.
  Schedule s = emptySchedule({1, 1}, 1);
  Task first;
  first.kind = TaskKind::Alloc;
  first.what = MemoryKind::Weights;
  first.name = "layer0.weights";
  first.bytes = 5000000000;
  first.deps = {0};
  Task free;
  free.kind = TaskKind::Free;
  free.alloc = 1;
  Task second = first;
  second.name = "layer1.weights";
  second.deps = {};
  s.chips[0].tasks = {compute(1e12, 0), first, free, second};
  SimResult r = run(s);
  EXPECT_TRUE(r.failure.empty()) << r.failure;
  EXPECT_EQ(r.chips[0].peakHbm, 10e9);
}

/// The error simulating `s` reports (empty when it runs).
std::string refusal(const Schedule &s) {
  auto result = sim::simulate(v5e(), s, /*recordTrace=*/false);
  return result ? std::string() : llvm::toString(result.takeError());
}

TEST(Simulator, MessagesMustMatchBeforeTheRun) {
  // A receive nobody sends, a send nobody receives, and a pair that
  // disagrees on the size are refused as the sched verifier refuses them.
  Schedule s = emptySchedule({2, 2}, 4);
  s.chips[1].tasks.push_back(recv(0, 64, 7));
  EXPECT_EQ(refusal(s), "$.chips[1].tasks[0]: chip 0 never sends tag 7 to chip 1");

  s = emptySchedule({2, 2}, 4);
  s.chips[0].tasks.push_back(send(1, 64, 7));
  EXPECT_EQ(refusal(s),
            "$.chips[0].tasks[0]: chip 1 never receives tag 7 from chip 0");

  s.chips[1].tasks.push_back(recv(0, 65, 7));
  EXPECT_EQ(refusal(s), "$.chips[1].tasks[0].bytes: receives 65 bytes but "
                        "the send carries 64");

  s.chips[1].tasks.back().bytes = 64;
  EXPECT_EQ(refusal(s), "");
}

TEST(Simulator, DependencyCycleIsRefusedBeforeTheRun) {
  // Each chip waits for the other's message before sending its own.
  Schedule s = emptySchedule({2, 2}, 4);
  s.chips[0].tasks = {recv(1, 8, 1), send(1, 8, 0)};
  s.chips[0].tasks[1].deps = {0};
  s.chips[1].tasks = {recv(0, 8, 0), send(0, 8, 1)};
  s.chips[1].tasks[1].deps = {0};
  EXPECT_EQ(refusal(s), "$: has a dependency cycle; blocked tasks: chip 0 "
                        "task 0 (recv from 1, tag 1); chip 0 task 1 (send to "
                        "1, tag 0); chip 1 task 0 (recv from 0, tag 0); chip "
                        "1 task 1 (send to 0, tag 1)");
}

TEST(Simulator, Deterministic) {
  Schedule s = emptySchedule({4, 4}, 16);
  for (int64_t i = 0; i < 15; ++i) {
    s.chips[i].tasks.push_back(send(i + 1, 1000000 + i, i));
    s.chips[i + 1].tasks.push_back(recv(i, 1000000 + i, i));
  }
  SimResult a = run(s), b = run(s);
  EXPECT_EQ(a.makespan, b.makespan);
  EXPECT_EQ(a.events, b.events);
}

TEST(Simulator, ScheduleOutsideTheSliceIsAnError) {
  Schedule s = emptySchedule({2, 2}, 4);
  s.chips[0].tasks.push_back(send(9, 8, 0));
  auto result = sim::simulate(v5e(), s, false);
  ASSERT_FALSE(bool(result));
  EXPECT_EQ(llvm::toString(result.takeError()),
            "$.chips[0].tasks[0].to: peer chip 9 must be another chip of v5e-4");
}

TEST(Simulator, MemoryGrowsWithTheLinksUsedNotTheTopology) {
  // The largest topology Loom accepts, 2^10 x 2^10, has 2^22 link
  // directions. Two neighbours exchanging a message touch one link, and
  // that is all the simulator keeps.
  TargetDesc huge = v5e();
  int64_t side = int64_t(1) << 10;
  huge.topologies.push_back({"huge", {side, side}});
  // Past it the one schedule checker refuses the topology, as
  // #loom.target does.
  huge.topologies.push_back({"past", {side * 2, side}});
  Schedule past = emptySchedule({side * 2, side}, 2);
  auto refused = sim::simulate(huge, past, /*recordTrace=*/false);
  ASSERT_FALSE(bool(refused));
  EXPECT_EQ(llvm::toString(refused.takeError()),
            "$.target.shape: topology past has 2097152 chips; Loom plans at "
            "most 1048576");
  Schedule s = emptySchedule({side, side}, 2);
  s.chips[0].tasks.push_back(send(1, 4500, 0));
  s.chips[1].tasks.push_back(recv(0, 4500, 0));
  auto result = sim::simulate(huge, s, /*recordTrace=*/false);
  ASSERT_TRUE(bool(result)) << llvm::toString(result.takeError());
  ASSERT_EQ(result->links.size(), 1u);
  EXPECT_EQ(result->links[0].from, 0);
  EXPECT_EQ(result->links[0].to, 1);
  const Calibration &c = huge.calibration;
  EXPECT_NEAR(result->makespan,
              c.programDispatch + huge.hopLatency +
                  4500 / (c.lineEfficiency * huge.linkBandwidth),
              1e-12);
}

TEST(Simulator, NonFiniteResultIsRefused) {
  // A peak of 1e-300 FLOP/s makes a compute task take forever: the run
  // ends with an infinite makespan, which is refused rather than reported.
  TargetDesc slow = v5e();
  slow.peakFlopsBf16 = 1e-300;
  Schedule s = emptySchedule({1, 1}, 1);
  s.chips[0].tasks.push_back(compute(1e18, 0));
  auto result = sim::simulate(slow, s, /*recordTrace=*/false);
  ASSERT_FALSE(bool(result));
  EXPECT_EQ(llvm::toString(result.takeError()),
            "refusing the result: the makespan is not a finite number; the "
            "target's figures or the schedule's sizes are out of range");
}

/// Two units A and B zipped on chips 0 and 1 of a 2x2 topology, as
/// convert-loom-to-sched{interleave=2} orders them: A1 B1 compute, each
/// followed by its unit's all-reduce, then A2 B2 compute after their unit's
/// all-reduce. Compute tasks take c each (kernel step and roofline), an
/// all-reduce alone r; the program's dispatch comes before all of them.
SimResult zipped(int64_t flops, int64_t bytes) {
  Schedule s = emptySchedule({2, 2}, 2);
  for (int64_t chip = 0; chip < 2; ++chip) {
    std::vector<Task> &t = s.chips[chip].tasks;
    auto allReduce = [](int64_t dep, int64_t bytes, int64_t tag) {
      Task task;
      task.kind = TaskKind::Collective;
      task.collective = CollectiveKind::AllReduce;
      task.group = {0, 1};
      task.bytes = bytes;
      task.tag = tag;
      task.deps = {dep};
      return task;
    };
    t.push_back(compute(flops, 0));          // 0: A1
    t.push_back(compute(flops, 0));          // 1: B1
    t.push_back(allReduce(0, bytes, 0));     // 2: A's all-reduce starts
    addDone(t);                              // 3: and is done
    t.push_back(allReduce(1, bytes, 1));     // 4: B's
    addDone(t);                              // 5
    t.push_back(compute(flops, 0));          // 6: A2
    t.back().deps = {3};
    t.push_back(compute(flops, 0));          // 7: B2
    t.back().deps = {5};
  }
  return run(s);
}

TEST(Simulator, InterleavedUnitsHideCollectivesUnderCompute) {
  // r <= c: A's all-reduce runs under B1 and B's under A2, so the chip
  // computes without a gap: 4c, against 4c + 2r run one unit after the
  // other; no communication is exposed.
  CostModel model(v5e());
  const int64_t flops = 80000000000, bytes = 8000000;
  double c = model.taskTime(flops, 0);
  double r = model.collectiveTime(CollectiveKind::AllReduce, {{2, false}}, 8e6);
  ASSERT_LT(r, c);
  SimResult hidden = zipped(flops, bytes);
  EXPECT_TRUE(hidden.failure.empty()) << hidden.failure;
  EXPECT_LT(relative(hidden.makespan - hidden.dispatch, 4 * c), 0.002)
      << hidden.makespan;
  EXPECT_LT(hidden.chips[0].exposedComm, 0.002 * c);
}

TEST(Simulator, InterleavedCollectivesShareTheLinks) {
  // r > c: A's all-reduce runs alone from c to 2c, then shares the links
  // with B's at half the rate each, so it ends at 2c + 2(r - c) = 2r; B's
  // has done r - c by then and ends alone at 2r + c. A2 runs [2r, 2r + c],
  // B2 [2r + c, 2r + 2c]: the makespan is 2r + 2c, and 2r - 2c of it is
  // exposed communication (the chip idles from 2c to 2r).
  CostModel model(v5e());
  const int64_t flops = 10000000000, bytes = 40000000;
  double c = model.taskTime(flops, 0);
  double r = model.collectiveTime(CollectiveKind::AllReduce, {{2, false}}, 4e7);
  ASSERT_GT(r, 1.5 * c);
  SimResult shared = zipped(flops, bytes);
  EXPECT_TRUE(shared.failure.empty()) << shared.failure;
  EXPECT_LT(relative(shared.makespan - shared.dispatch, 2 * r + 2 * c), 0.01)
      << shared.makespan;
  EXPECT_LT(relative(shared.chips[0].exposedComm, 2 * r - 2 * c), 0.02)
      << shared.chips[0].exposedComm;
}

/// A decomposed collective matmul (docs/overlap.md) on the ring 0, 1, 3, 2
/// of v5e-4's 2x2 block, one way round: n = 4 partial matmuls of `flops`
/// and messages of `bytes` to the next chip of the ring. All-gather:
/// each chip sends its block at once and forwards each block it receives;
/// partial k waits for the block received at step k - 1. Reduce-scatter:
/// partial 0's sum goes at once; after partial k >= 1 the sum received at
/// step k - 1 is added to it (an accumulation of `accumulateBytes`) and
/// sent on, but after the last step.
SimResult collectiveMatmul(bool gather, int64_t flops, int64_t bytes,
                           int64_t accumulateBytes) {
  const int64_t ring[] = {0, 1, 3, 2}, n = 4;
  Schedule s = emptySchedule({2, 2}, 4);
  for (int64_t pos = 0; pos < n; ++pos) {
    std::vector<Task> &t = s.chips[ring[pos]].tasks;
    int64_t next = ring[(pos + 1) % n], prev = ring[(pos + n - 1) % n];
    auto add = [&](Task task, std::vector<int64_t> deps) {
      task.deps.assign(deps.begin(), deps.end());
      t.push_back(task);
      return int64_t(t.size()) - 1;
    };
    if (gather) {
      add(send(next, bytes, 0), {});
      int64_t partial = add(compute(flops, 0), {});
      for (int64_t k = 1; k < n; ++k) {
        int64_t received = add(recv(prev, bytes, k - 1), {});
        if (k + 1 < n)
          add(send(next, bytes, k), {received});
        partial = add(compute(flops, 0), {partial, received});
      }
      continue;
    }
    int64_t partial = add(compute(flops, 0), {});
    add(send(next, bytes, 0), {partial});
    for (int64_t k = 1; k < n; ++k) {
      partial = add(compute(flops, 0), {partial});
      int64_t received = add(recv(prev, bytes, k - 1), {});
      int64_t sum = add(compute(0, accumulateBytes), {partial, received});
      if (k + 1 < n)
        add(send(next, bytes, k), {sum});
    }
  }
  return run(s);
}

TEST(Simulator, DecomposedCollectiveMatmulsMatchTheirClosedForms) {
  // By hand, with p a partial matmul, t a message to the next chip (one
  // hop) and a an accumulation: all-gather partial k starts at
  // max(end of partial k - 1, k t), so the last ends at
  // p + (n - 1) max(p, t); reduce-scatter accumulation k starts at
  // max(end of accumulation k - 1 + p, its sum's arrival), the sum sent
  // after accumulation k - 1, so the last ends at
  // p + (n - 1) (max(p, t) + a). Compute-bound, the TensorCore never
  // waits; transfer-bound, the matmuls hide under the ring's steps.
  CostModel model(v5e());
  const int64_t n = 4, accumulateBytes = 3 * 1000000;
  double a = model.taskTime(0, accumulateBytes);
  for (auto [flops, bytes] : {std::pair<int64_t, int64_t>{40000000000, 1000000},
                              {1000000000, 4000000}}) {
    SCOPED_TRACE(flops);
    double p = model.taskTime(flops, 0);
    double t = model.pointToPointTime({2, 2}, {0, 0}, {0, 1}, bytes);
    SimResult gather = collectiveMatmul(true, flops, bytes, accumulateBytes);
    EXPECT_TRUE(gather.failure.empty()) << gather.failure;
    double expected = p + (n - 1) * std::max(p, t);
    EXPECT_LT(relative(gather.makespan - gather.dispatch, expected), 1e-6)
        << gather.makespan;
    SimResult scatter = collectiveMatmul(false, flops, bytes, accumulateBytes);
    EXPECT_TRUE(scatter.failure.empty()) << scatter.failure;
    expected = p + (n - 1) * (std::max(p, t) + a);
    EXPECT_LT(relative(scatter.makespan - scatter.dispatch, expected), 1e-6)
        << scatter.makespan;
  }
}

/// An interleaved pipeline (Narayanan et al., SC'21, section 2.2.2) on K
/// chips, written by hand in Megatron's order: chunk c of a unit on chip
/// c mod K, the units in groups of K, per group chunk s for each unit, then
/// chunk s + K for each. Each chunk computes `flops`; its result goes on to
/// the next chunk's chip in a message of 8 bytes (one hop's latency, small
/// beside a chunk).
Schedule interleavedPipeline(int64_t stages, int64_t virtualStages,
                             int64_t units, double flops) {
  Schedule s = emptySchedule({2, 2}, 4);
  int64_t chunks = stages * virtualStages;
  for (int64_t k = 0; k < stages; ++k) {
    std::vector<Task> &t = s.chips[k].tasks;
    for (int64_t first = 0; first < units; first += stages)
      for (int64_t j = 0; j < virtualStages; ++j)
        for (int64_t u = first; u < std::min(first + stages, units); ++u) {
          int64_t c = j * stages + k;
          llvm::SmallVector<int64_t, 2> deps;
          if (c > 0) {
            t.push_back(recv((c - 1) % stages, 8, c * units + u));
            deps.push_back(int64_t(t.size()) - 1);
          }
          t.push_back(compute(flops, 0));
          t.back().deps = deps;
          if (c + 1 < chunks) {
            t.push_back(send((c + 1) % stages, 8, (c + 1) * units + u));
            t.back().deps = {int64_t(t.size()) - 2};
          }
        }
  }
  return s;
}

TEST(Simulator, VirtualStagesBubbleMatchesItsClosedForm) {
  // K = 4 stages, N = 8 units, chunks of c: Megatron's interleaved schedule
  // takes (N v + K - 1) c, its bubble (K - 1) c a chunk's, where v = 1 with
  // stages of v c takes (N + K - 1) v c. Worked by hand for v = 2:
  // chip 0 runs chunk 0 of units 0-3 in [0, 4c]; unit 0 is back from chip 3
  // at 4c for chunk 4, so chip 0 never waits, and chip 3's last chunk (7 of
  // unit 7) ends 3c after chip 0's last: 16c + 3c.
  CostModel model(v5e());
  const double flops = 2e11;
  double c = model.taskTime(flops, 0);
  for (int64_t v : {1, 2, 4}) {
    SimResult interleaved = run(interleavedPipeline(4, v, 8, flops / v));
    ASSERT_TRUE(interleaved.failure.empty()) << interleaved.failure;
    double chunk = model.taskTime(flops / v, 0);
    EXPECT_LT(relative(interleaved.makespan - interleaved.dispatch,
                       (8 * v + 3) * chunk),
              0.01)
        << "v = " << v << ": " << interleaved.makespan;
  }
  // The bubble shrinks by v: (N + (K - 1) / v) c against (N + K - 1) c.
  SimResult one = run(interleavedPipeline(4, 1, 8, flops));
  SimResult four = run(interleavedPipeline(4, 4, 8, flops / 4));
  double bubbleOne = one.makespan - one.dispatch - 8 * c;
  double bubbleFour = four.makespan - four.dispatch - 8 * c;
  EXPECT_GT(bubbleOne, 3.5 * bubbleFour);
  EXPECT_LT(bubbleOne, 4.5 * bubbleFour);
  // A last group of g = 3 < K units waits K - g chunks a round for its
  // units to come round: (v - 1) K + g + K - 1 chunks for one group.
  SimResult partial = run(interleavedPipeline(4, 2, 3, flops / 2));
  double half = model.taskTime(flops / 2, 0);
  EXPECT_LT(relative(partial.makespan - partial.dispatch, 10 * half), 0.01)
      << partial.makespan;
}

// Placement: the same all-gather in every sp group of a
// tp 2 x sp 4 stage on v5e-8, on two placements. Each sp group a row of 4
// (the rule) is a line of neighbours; with the tp pairs along the rows
// ("2x4, tp 1x2 inside sp") each sp group strides across the 1x2
// sub-blocks, its members 2 chips apart along the row and the two groups
// sharing the link between them. The
// closed form (CostModel::collectiveTime on the mesh's sp axes) orders
// them, and loom-sim agrees with it on each within 2%.
/// One `kind` collective of `bytes` in each group beside tp (sp, or ep of
/// its own) of `mesh`'s first stage: the chips of one tensor rank, all at
/// once, as the lowering emits them.
void addBesideGroupCollectives(Schedule &s, const DeviceMesh &mesh,
                               CollectiveKind kind, int64_t bytes) {
  int64_t tp = mesh.getShape().tensorParallel,
          beside = mesh.getShape().sequenceParallel;
  for (int64_t t = 0; t < tp; ++t) {
    std::vector<int64_t> group;
    for (int64_t u = 0; u < beside; ++u)
      group.push_back(mesh.chipId(mesh.chip(0, 0, u * tp + t)));
    for (int64_t member : group) {
      Task task;
      task.kind = TaskKind::Collective;
      task.collective = kind;
      task.group.assign(group.begin(), group.end());
      task.bytes = bytes;
      task.tag = t;
      s.chips[member].tasks.push_back(task);
      addDone(s.chips[member].tasks);
    }
  }
}

// An expert-parallel group of its own: tp 4 x ep 4 on
// v5e-16 (4x4, no wraparound), the four ep groups (one per tensor rank)
// running their all-to-all of V bytes a chip at once. Worked by hand with
// the calibrated figures (sync s, hop a, link W; a ring's links at its
// efficiency e_r, a line's at e_l; CostModel.h's all-to-all):
// - `tp 1x4 inside ep`: each group a column of 4, a line: the middle link
//   carries 4^2/4 = 4 chunks of V/4, the farthest chunk 3 hops:
//   s + 3a + V / (e_l W);
// - `ep 2x2 inside tp`: each group a 2x2 block, a ring: each axis's links
//   carry 2/4 of V, the farthest chunk 2 hops: s + 2a + V/2 / (e_r W);
// - `tp 2x2 inside ep`: each group the chips at one offset of the four 2x2
//   sub-blocks, 2 apart on both axes, its links shared with the group
//   interleaved on each: 2/4 x 2 of V, 2 + 2 hops: s + 4a + V / (e_l W).
TEST(Simulator, ExpertGroupAllToAllsMatchTheirClosedForms) {
  const TargetDesc &target = v5e();
  const TopologyDesc &topology = *target.findTopology("v5e-16");
  double bytes = 8 << 20;
  double s = target.calibration.collectiveSync, a = target.hopLatency,
         W = target.linkBandwidth,
         ring = target.calibration.ringEfficiency,
         line = target.calibration.lineEfficiency;
  auto simulate = [&](const char *text) {
    llvm::Expected<Placement> placement = parsePlacement(text);
    EXPECT_TRUE(bool(placement));
    MeshShape shape{1, 1, 4, 4};
    shape.expertGroup = true;
    llvm::Expected<DeviceMesh> mesh =
        DeviceMesh::build(target, topology, shape, *placement);
    EXPECT_TRUE(bool(mesh)) << llvm::toString(mesh.takeError());
    EXPECT_EQ(mesh->getPlacement().str(),
              std::string(text) + ", stages inside replicas");
    Schedule sched = emptySchedule({4, 4}, 16);
    addBesideGroupCollectives(sched, *mesh, CollectiveKind::AllToAll,
                              int64_t(bytes));
    SimResult r = run(sched);
    EXPECT_TRUE(r.failure.empty()) << r.failure;
    return r.makespan - r.dispatch;
  };
  double column = simulate("4x4, tp 1x4 inside ep");
  double block = simulate("4x4, ep 2x2 inside tp");
  double strided = simulate("4x4, tp 2x2 inside ep");
  EXPECT_LT(relative(column, s + 3 * a + bytes / (line * W)), 0.02) << column;
  EXPECT_LT(relative(block, s + 2 * a + bytes / 2 / (ring * W)), 0.02)
      << block;
  EXPECT_LT(relative(strided, s + 4 * a + bytes / (line * W)), 0.02)
      << strided;
  EXPECT_LT(block, column);
}

TEST(Simulator, PlacementsOrderAsTheClosedForm) {
  const TargetDesc &target = v5e();
  const TopologyDesc &topology = *target.findTopology("v5e-8");
  CostModel model(target);
  int64_t bytes = 32 << 20;
  auto both = [&](const char *text, double &predicted, double &simulated) {
    Placement placement;
    if (*text) {
      llvm::Expected<Placement> parsed = parsePlacement(text);
      ASSERT_TRUE(bool(parsed));
      placement = *parsed;
    }
    llvm::Expected<DeviceMesh> mesh =
        DeviceMesh::build(target, topology, {1, 1, 2, 4}, placement);
    ASSERT_TRUE(bool(mesh)) << llvm::toString(mesh.takeError());
    Schedule s = emptySchedule({2, 4}, 8);
    addBesideGroupCollectives(s, *mesh, CollectiveKind::AllGather, bytes);
    SimResult r = run(s);
    EXPECT_TRUE(r.failure.empty()) << r.failure;
    simulated = r.makespan - r.dispatch;
    predicted = model.collectiveTime(CollectiveKind::AllGather,
                                     mesh->sequenceParallelAxes(), bytes);
  };
  double rulePredicted = 0, ruleSimulated = 0, stridedPredicted = 0,
         stridedSimulated = 0;
  both("", rulePredicted, ruleSimulated);
  both("2x4, tp 1x2 inside sp", stridedPredicted, stridedSimulated);
  EXPECT_LT(rulePredicted, stridedPredicted);
  EXPECT_LT(ruleSimulated, stridedSimulated);
  EXPECT_LT(relative(ruleSimulated, rulePredicted), 0.02);
  EXPECT_LT(relative(stridedSimulated, stridedPredicted), 0.02)
      << stridedSimulated << " " << stridedPredicted;
}

// `stages in ring`: every stage boundary of tp 8 x
// 8 stages on v5e-64 (2x4 blocks) hands B bytes a rank on at once, round
// the cycle (the last stage back to the first, as virtual stages do). A
// boundary whose blocks lie k hops apart down a column sends the block's
// two rows' copies over each column's link between the blocks: closed form
// k hops + 2B at a message's rate; across (4 hops along a row) each row's
// four copies share the link out of the block: 4 hops + 4B. loom-sim gives
// each boundary its closed form within 2%, and the ring's cycle, 6 down
// and 2 across, moves less than the snake's (4 across, 3 down and the wrap
// 6 rows up: 4 x 4B + 4 x 2B).
TEST(Simulator, StageRingHandoversMatchTheirClosedForms) {
  const TargetDesc &target = v5e();
  const TopologyDesc &topology = *target.findTopology("v5e-64");
  CostModel model(target);
  int64_t bytes = 8 << 20;
  auto handovers = [&](const char *text) {
    llvm::Expected<Placement> placement = parsePlacement(text);
    EXPECT_TRUE(bool(placement));
    llvm::Expected<DeviceMesh> mesh =
        DeviceMesh::build(target, topology, {1, 8, 8, 1}, *placement);
    EXPECT_TRUE(bool(mesh)) << llvm::toString(mesh.takeError());
    Schedule s = emptySchedule({8, 8}, 64);
    std::map<std::pair<int64_t, int64_t>, int64_t> boundaryOf;
    for (int64_t b = 0; b < 8; ++b)
      for (int64_t r = 0; r < 8; ++r) {
        int64_t from = mesh->chipId(mesh->chip(0, b, r));
        int64_t to = mesh->chipId(mesh->chip(0, (b + 1) % 8, r));
        s.chips[from].tasks.push_back(send(to, bytes, b * 8 + r));
        boundaryOf[{to, int64_t(s.chips[to].tasks.size())}] = b;
        s.chips[to].tasks.push_back(recv(from, bytes, b * 8 + r));
      }
    auto result = sim::simulate(target, s, /*recordTrace=*/true);
    EXPECT_TRUE(bool(result));
    std::vector<double> done(8, 0.0), expected(8, 0.0);
    for (const sim::TraceEvent &e : result->trace)
      if (auto it = boundaryOf.find({e.chip, e.task}); it != boundaryOf.end())
        done[it->second] =
            std::max(done[it->second], e.end - result->dispatch);
    for (int64_t b = 0; b < 8; ++b) {
      ChipCoord from = mesh->chip(0, b, 0), to = mesh->chip(0, (b + 1) % 8, 0);
      int64_t copies = from[0] == to[0] ? 4 : 2;
      expected[b] = model.pointToPointTime({8, 8}, from, to,
                                           double(copies * bytes));
      EXPECT_LT(relative(done[b], expected[b]), 0.02)
          << text << " boundary " << b << ": " << done[b] << " against "
          << expected[b];
    }
    return std::accumulate(done.begin(), done.end(), 0.0);
  };
  double snake = handovers("2x4, tp 2x4 inside sp");
  double ring = handovers("2x4, tp 2x4 inside sp, stages in ring");
  EXPECT_LT(ring, snake);
}

/// A two-stage pipeline's handover of `bytes` on v5e-8 (2x4), tp 4: stage 0
/// on the 2x2 block of columns 0-1, stage 1 on columns 2-3, each block's
/// ranks walking its ring. Whole, every rank sends all `bytes` to the same
/// rank of stage 1; scattered (Megatron-LM, Narayanan et al., SC'21,
/// section 4.1), a quarter, and stage 1's ring all-gathers the whole.
/// Returns the seconds until the last chip of stage 1 has the boundary.
double twoStageHandover(int64_t bytes, bool scattered) {
  const TargetDesc &target = v5e();
  const TopologyDesc &topology = *target.findTopology("v5e-8");
  llvm::Expected<DeviceMesh> mesh =
      DeviceMesh::build(target, topology, {1, 2, 4, 1});
  EXPECT_TRUE(bool(mesh)) << llvm::toString(mesh.takeError());
  if (!mesh)
    return 0;
  Schedule s = emptySchedule({2, 4}, 8);
  llvm::SmallVector<int64_t> group;
  for (int64_t r = 0; r < 4; ++r)
    group.push_back(mesh->chipId(mesh->chip(0, 1, r)));
  for (int64_t r = 0; r < 4; ++r) {
    int64_t from = mesh->chipId(mesh->chip(0, 0, r)), to = group[r];
    int64_t size = scattered ? bytes / 4 : bytes;
    s.chips[from].tasks.push_back(send(to, size, r));
    s.chips[to].tasks.push_back(recv(from, size, r));
    if (!scattered)
      continue;
    Task gather;
    gather.kind = TaskKind::Collective;
    gather.collective = CollectiveKind::AllGather;
    gather.group.assign(group.begin(), group.end());
    gather.bytes = bytes;
    gather.tag = 0;
    gather.deps = {0};
    s.chips[to].tasks.push_back(gather);
    addDone(s.chips[to].tasks);
  }
  SimResult r = run(s);
  EXPECT_TRUE(r.failure.empty()) << r.failure;
  return r.makespan - r.dispatch;
}

TEST(Simulator, ScatteredHandoverMatchesItsClosedForm) {
  const TargetDesc &target = v5e();
  CostModel model(target);
  // The chips by hand: stage 0 is 0 (0,0), 4 (1,0), 5 (1,1), 1 (0,1);
  // stage 1 is 2 (0,2), 6 (1,2), 7 (1,3), 3 (0,3). Each rank's message runs
  // 2 hops along its row, and the link from column 1 to column 2 of each
  // row carries two of them (ranks 0 and 3 on row 0, 1 and 2 on row 1).
  // Whole: 2 hops + 2 B over a link at the line efficiency
  // (CostModel::pointToPointTime, which loom-sim's messages follow).
  // Scattered: the same with B / 4, then stage 1's 2x2 ring all-gathers B:
  // one synchronisation, 3 hops, and 3/4 B into each chip over its two ring
  // links (DESIGN.md section 4, AllGather ~ V / W_bidir; targets/tpu-v5e.json:
  // collective_sync, hop_latency, link_efficiency_ring).
  double ring = model.linkEfficiency(/*ring=*/true) * target.linkBandwidth;
  auto gather = [&](double b) {
    return target.calibration.collectiveSync + 3 * target.hopLatency +
           0.75 * b / (2 * ring);
  };
  auto whole = [&](double b) {
    return model.pointToPointTime({2, 4}, {0, 0}, {0, 2}, 2 * b);
  };
  auto scattered = [&](double b) {
    return model.pointToPointTime({2, 4}, {0, 0}, {0, 2}, 2 * b / 4) +
           gather(b);
  };
  // A prefill slice of LLaMA-65B (512 tokens x 8192 x 2 B, 8 MiB) and a
  // decode step's (one token, 16 KiB).
  for (int64_t bytes : {int64_t(8) << 20, int64_t(16) << 10}) {
    double simWhole = twoStageHandover(bytes, /*scattered=*/false);
    double simScattered = twoStageHandover(bytes, /*scattered=*/true);
    EXPECT_LT(relative(simWhole, whole(bytes)), 0.02)
        << bytes << " B whole: " << simWhole << " against " << whole(bytes);
    EXPECT_LT(relative(simScattered, scattered(bytes)), 0.02)
        << bytes << " B scattered: " << simScattered << " against "
        << scattered(bytes);
  }
  // Neither is always faster: 8 MiB moves in 0.43 of the time (a quarter
  // of the bytes on the shared links, the gather on the ring's two links a
  // chip), 16 KiB takes over twice as long (the gather's synchronisation
  // and three hops outweigh the bytes saved), which is why the search
  // chooses.
  EXPECT_LT(twoStageHandover(8 << 20, true),
            0.5 * twoStageHandover(8 << 20, false));
  EXPECT_GT(twoStageHandover(16 << 10, true),
            2 * twoStageHandover(16 << 10, false));
}

} // namespace

namespace {

// tp 8 on v5e-8 numbered by columns (JAX's create_device_mesh order before
// it learnt v5e-8's ring, JAX 0.4.32): loom-sim runs the all-reduce as a
// ring in that order over routed links, each chip passing a chunk on as
// soon as it has it (no barrier between steps). Worked by hand: the
// forward messages cross 1, 2, 1, 2, 1, 2, 1 and 4 links (HardwareTest's
// ColumnNumberedRanksRunARingOverSharedLinks), so a tiny all-reduce's 14
// steps chain the whole cycle (14 hops) and the worst 6 edges after it
// (1 + 2 + 1 + 4 + 1 + 2): sync + 25 hops, against sync + 14 on Loom's
// ring walk. A large one is bandwidth-bound, and the link each chip's two
// messages share halves it: twice the ring walk. The closed form
// (CostModel::routedCollectiveTime) follows the same chains; it pairs a
// chip's two messages of one step on their shared link, where loom-sim
// may overlap one step's with the next: 2.2% apart at 768 KB, within 1.1%
// elsewhere.
TEST(Simulator, ColumnNumberedRingMatchesItsClosedForm) {
  const TargetDesc &target = v5e();
  const TopologyDesc &topology = *target.findTopology("v5e-8");
  CostModel model(target);
  auto time = [&](const char *text, double bytes, double &predicted) {
    llvm::Expected<DeviceMesh> mesh = DeviceMesh::build(
        target, topology, {1, 1, 8, 1}, *parsePlacement(text));
    EXPECT_TRUE(bool(mesh)) << llvm::toString(mesh.takeError());
    llvm::SmallVector<int64_t> group;
    for (int64_t t = 0; t < 8; ++t)
      group.push_back(mesh->chipId(mesh->chip(0, 0, t)));
    predicted = model.collectiveTime(CollectiveKind::AllReduce,
                                     mesh->tensorParallelAxes(), bytes);
    return collectiveTime({2, 4}, group, CollectiveKind::AllReduce,
                          int64_t(bytes));
  };
  double s = target.calibration.collectiveSync, a = target.hopLatency;
  for (double bytes : {8192.0, 131072.0, 786432.0, 4194304.0, 16777216.0}) {
    double columnsPredicted = 0, ringPredicted = 0;
    double columns =
        time("2x4, tp 2x4 by columns inside sp", bytes, columnsPredicted);
    double ring = time("2x4, tp 2x4 inside sp", bytes, ringPredicted);
    EXPECT_LT(relative(columns, columnsPredicted), 0.025) << bytes;
    EXPECT_LT(relative(ring, ringPredicted), 0.02) << bytes;
    // 14 chunks of bytes / 16 at the ring's rate.
    double chunks = 14 * bytes / 16 /
                    (target.calibration.ringEfficiency * target.linkBandwidth);
    if (bytes == 8192.0) {
      EXPECT_LT(relative(columns, s + 25 * a + chunks), 0.01) << columns;
      EXPECT_LT(relative(ring, s + 14 * a + chunks), 0.01) << ring;
    }
    if (bytes == 16777216.0)
      EXPECT_NEAR(columns / ring, 2.0, 0.05);
  }
}

} // namespace

namespace {

/// `s` run with ring and line steps as bundles and with every flow on its
/// own (SimOptions::everyFlow): every figure the same to within rounding
/// (relative 1e-9), the trace's tasks at the same times; only the events
/// differ. Returns the two runs' events, bundled first.
std::pair<uint64_t, uint64_t> expectBundlesChangeNothing(const Schedule &s,
                                                         const char *name) {
  sim::SimOptions everyFlow;
  everyFlow.everyFlow = true;
  auto bundled = sim::simulate(v5e(), s, /*recordTrace=*/true);
  auto reference = sim::simulate(v5e(), s, /*recordTrace=*/true, 0, everyFlow);
  EXPECT_TRUE(bool(bundled) && bool(reference)) << name;
  if (!bundled || !reference) {
    llvm::consumeError(bundled.takeError());
    llvm::consumeError(reference.takeError());
    return {0, 0};
  }
  const SimResult &b = *bundled, &r = *reference;
  auto near = [](double x, double y) {
    return std::fabs(x - y) <= 1e-9 * std::max(std::fabs(x), std::fabs(y));
  };
  EXPECT_EQ(b.failure, r.failure) << name;
  EXPECT_TRUE(near(b.makespan, r.makespan))
      << name << ": " << b.makespan << " vs " << r.makespan;
  EXPECT_EQ(b.chips.size(), r.chips.size()) << name;
  for (size_t i = 0; i < b.chips.size() && i < r.chips.size(); ++i) {
    const sim::ChipStats &x = b.chips[i], &y = r.chips[i];
    EXPECT_TRUE(near(x.computeBusy, y.computeBusy)) << name << " chip " << i;
    EXPECT_TRUE(near(x.flops, y.flops)) << name << " chip " << i;
    EXPECT_NEAR(x.exposedComm, y.exposedComm, 1e-9 * r.makespan)
        << name << " chip " << i;
    EXPECT_EQ(x.peakHbm, y.peakHbm) << name << " chip " << i;
    EXPECT_EQ(x.tasks, y.tasks) << name << " chip " << i;
  }
  std::map<std::pair<int64_t, int64_t>, const sim::LinkStats *> links;
  for (const sim::LinkStats &l : r.links)
    links[{l.from, l.to}] = &l;
  EXPECT_EQ(b.links.size(), r.links.size()) << name;
  for (const sim::LinkStats &l : b.links) {
    const sim::LinkStats *o = links[{l.from, l.to}];
    EXPECT_NE(o, nullptr) << name << ": link " << l.from << " -> " << l.to;
    if (!o)
      continue;
    EXPECT_TRUE(near(l.bytes, o->bytes)) << name << ": link " << l.from;
    EXPECT_NEAR(l.busy, o->busy, 1e-9 * r.makespan)
        << name << ": link " << l.from;
  }
  // The trace by chip and task (tasks done at one instant may be listed in
  // another order).
  auto byTask = [](std::vector<sim::TraceEvent> trace) {
    llvm::sort(trace, [](const sim::TraceEvent &x, const sim::TraceEvent &y) {
      return std::tie(x.chip, x.task) < std::tie(y.chip, y.task);
    });
    return trace;
  };
  std::vector<sim::TraceEvent> tb = byTask(b.trace), tr = byTask(r.trace);
  EXPECT_EQ(tb.size(), tr.size()) << name;
  for (size_t k = 0; k < tb.size() && k < tr.size(); ++k) {
    EXPECT_EQ(std::tie(tb[k].chip, tb[k].task, tb[k].engine),
              std::tie(tr[k].chip, tr[k].task, tr[k].engine))
        << name;
    EXPECT_NEAR(tb[k].start, tr[k].start, 1e-9 * r.makespan) << name;
    EXPECT_NEAR(tb[k].end, tr[k].end, 1e-9 * r.makespan) << name;
  }
  return {b.events, r.events};
}

/// A collective's start over `group` (then its done) on each member,
/// after the member's task `after` (-1: none).
void addCollective(Schedule &s, CollectiveKind kind,
                   llvm::ArrayRef<int64_t> group, int64_t bytes, int64_t tag,
                   int64_t after = -1) {
  for (int64_t member : group) {
    std::vector<Task> &tasks = s.chips[member].tasks;
    Task t;
    t.kind = TaskKind::Collective;
    t.collective = kind;
    t.group.assign(group.begin(), group.end());
    t.bytes = bytes;
    t.tag = tag;
    if (after >= 0)
      t.deps = {after};
    tasks.push_back(t);
    addDone(tasks);
  }
}

/// Row `y` of a 16x16 slice, chips in order (a ring through the
/// wraparound).
llvm::SmallVector<int64_t> row16(int64_t y) {
  llvm::SmallVector<int64_t> row;
  for (int64_t x = 0; x < 16; ++x)
    row.push_back(16 * y + x);
  return row;
}

} // namespace

// Ring and line steps run as bundles report every figure that running each
// flow reports: collectives alone, overlapping on the same links (one
// starting mid-way through the other's steps, or the other way round the
// ring), crossed by a message, beside a ring that takes its links one hop
// further, an all-reduce, and a line over an axis that does not wrap.
TEST(Simulator, BundledStepsReportWhatEveryFlowReports) {
  const CollectiveKind gather = CollectiveKind::AllGather,
                       scatter = CollectiveKind::ReduceScatter,
                       reduce = CollectiveKind::AllReduce;
  {
    // One all-gather round a ring: 15 steps of 32 flows each.
    Schedule s = emptySchedule({16, 16}, 256);
    addCollective(s, gather, row16(0), 64000000, 0);
    auto [bundled, every] = expectBundlesChangeNothing(s, "alone");
    EXPECT_LT(bundled * 10, every);
  }
  {
    // A reduce-scatter after a compute, so that it starts during the
    // all-gather's steps on the same links; and a third the other way
    // round the ring, later still.
    Schedule s = emptySchedule({16, 16}, 256);
    llvm::SmallVector<int64_t> reversed(llvm::reverse(row16(0)));
    for (int64_t chip : row16(0)) {
      s.chips[chip].tasks.push_back(compute(2e10, 0));
      s.chips[chip].tasks.push_back(compute(4e10, 0));
    }
    addCollective(s, gather, row16(0), 64000000, 0);
    addCollective(s, scatter, row16(0), 48000000, 1, /*after=*/0);
    addCollective(s, gather, reversed, 32000000, 2, /*after=*/1);
    auto [bundled, every] = expectBundlesChangeNothing(s, "overlapping");
    EXPECT_LT(bundled * 5, every);
  }
  {
    // A message over part of the ring's links, sent mid-way through it,
    // and one received by a member as the collective runs.
    Schedule s = emptySchedule({16, 16}, 256);
    s.chips[0].tasks.push_back(compute(3e10, 0));
    s.chips[0].tasks.push_back(send(3, 20000000, 7));
    s.chips[0].tasks.back().deps = {0};
    s.chips[3].tasks.push_back(recv(0, 20000000, 7));
    s.chips[20].tasks.push_back(compute(5e10, 0));
    s.chips[20].tasks.push_back(send(4, 10000000, 8));
    s.chips[20].tasks.back().deps = {0};
    s.chips[4].tasks.push_back(recv(20, 10000000, 8));
    addCollective(s, gather, row16(0), 64000000, 0);
    expectBundlesChangeNothing(s, "crossed by messages");
  }
  {
    // An all-reduce round a ring, and one over every other chip of the
    // next row (not neighbours: a chained ring, run flow by flow) beside
    // an all-gather over that row's ring, whose links it takes.
    Schedule s = emptySchedule({16, 16}, 256);
    addCollective(s, reduce, row16(0), 48000000, 0);
    llvm::SmallVector<int64_t> everyOther;
    for (int64_t x = 0; x < 16; x += 2)
      everyOther.push_back(16 + x);
    for (int64_t chip : row16(1))
      s.chips[chip].tasks.push_back(compute(1e10, 0));
    addCollective(s, gather, row16(1), 64000000, 1);
    addCollective(s, reduce, everyOther, 16000000, 2, /*after=*/0);
    expectBundlesChangeNothing(s, "all-reduce");
  }
  {
    // Lines: a row of v5e-16 (no wraparound) all-gathered, then a column
    // all-reduced across it, and the row reduce-scattered again.
    Schedule s = emptySchedule({4, 4}, 16);
    addCollective(s, gather, {0, 1, 2, 3}, 45000000, 0);
    addCollective(s, reduce, {1, 5, 9, 13}, 30000000, 1);
    addCollective(s, scatter, {0, 1, 2, 3}, 45000000, 2);
    auto [bundled, every] = expectBundlesChangeNothing(s, "lines");
    EXPECT_LT(bundled, every);
  }
}

namespace {

/// A random schedule on rows 0 and 1 of a 16x16 slice: computes, messages,
/// allocations and collectives over rings (either way round, of a row or
/// of both rows' cycle), lines of neighbours, lines whose chips are not
/// neighbours, pairs across the rows, and all-to-alls; each task after a
/// random earlier one of its chip or none, every chip's tasks in one
/// global order (so that nothing deadlocks).
Schedule randomSchedule(uint32_t seed) {
  std::mt19937 rng(seed);
  auto pick = [&](uint32_t n) { return int64_t(rng() % n); };
  Schedule s = emptySchedule({16, 16}, 256);
  std::vector<std::vector<int64_t>> allocs(32);
  int64_t tag = 0;
  auto add = [&](int64_t chip, Task task) {
    std::vector<Task> &tasks = s.chips[chip].tasks;
    if (!tasks.empty() && pick(2))
      task.deps = {pick(tasks.size())};
    tasks.push_back(task);
    return int64_t(tasks.size()) - 1;
  };
  for (int op = 0, ops = 10 + pick(30); op < ops; ++op) {
    switch (pick(6)) {
    case 0: { // computes
      for (int64_t chip = 0; chip < 32; ++chip)
        if (pick(3) == 0)
          add(chip, compute(1e9 * (1 + pick(40)), 1e6 * pick(100)));
      break;
    }
    case 1: { // a message
      int64_t from = pick(32), to = pick(32), bytes = 1000000 * (1 + pick(30));
      if (from == to)
        break;
      add(from, send(to, bytes, tag));
      add(to, recv(from, bytes, tag));
      ++tag;
      break;
    }
    case 2: { // an allocation, or the free of one
      int64_t chip = pick(32);
      if (!allocs[chip].empty() && pick(2)) {
        Task free;
        free.kind = TaskKind::Free;
        free.alloc = allocs[chip].back();
        allocs[chip].pop_back();
        add(chip, free);
        break;
      }
      Task alloc;
      alloc.kind = TaskKind::Alloc;
      alloc.name = "a";
      alloc.bytes = 100000000 * (1 + pick(10));
      allocs[chip].push_back(add(chip, alloc));
      break;
    }
    default: { // a collective
      llvm::SmallVector<int64_t> group;
      int64_t row = 16 * pick(2), shape = pick(7);
      if (shape == 0 || shape == 1) { // a row's ring, either way round
        group = row16(row / 16);
        if (shape == 1)
          std::reverse(group.begin(), group.end());
      } else if (shape == 2) { // both rows' cycle
        group = row16(0);
        for (int64_t x = 15; x >= 0; --x)
          group.push_back(16 + x);
      } else if (shape == 3) { // a line of neighbours
        int64_t first = pick(12), length = 2 + pick(4);
        for (int64_t x = first; x < first + length; ++x)
          group.push_back(row + x);
      } else if (shape == 4) { // a line of every other chip
        for (int64_t x = pick(2); x < 16; x += 2 + pick(2))
          group.push_back(row + x);
      } else { // a pair across the rows
        int64_t x = pick(16);
        group = {x, 16 + x};
      }
      if (group.size() < 2)
        break;
      CollectiveKind kind = CollectiveKind(pick(3));
      if (pick(8) == 0)
        kind = CollectiveKind::AllToAll;
      int64_t bytes = 1000000 * (1 + pick(60)) * int64_t(group.size());
      for (int64_t member : group) {
        Task t;
        t.kind = TaskKind::Collective;
        t.collective = kind;
        t.group.assign(group.begin(), group.end());
        t.bytes = bytes;
        t.tag = tag;
        add(member, t);
        addDone(s.chips[member].tasks);
      }
      ++tag;
      break;
    }
    }
  }
  return s;
}

} // namespace

// The same on random schedules: collectives of every kind and shape
// overlapping one another on some of their links, crossed by messages,
// between computes, allocations and frees.
TEST(Simulator, BundledStepsReportWhatEveryFlowReportsOnRandomSchedules) {
  uint64_t bundled = 0, every = 0;
  for (uint32_t seed = 1; seed <= 200; ++seed) {
    Schedule s = randomSchedule(seed);
    std::string name = "seed " + std::to_string(seed);
    auto [b, e] = expectBundlesChangeNothing(s, name.c_str());
    bundled += b;
    every += e;
  }
  // Bundles ran.
  EXPECT_LT(bundled * 2, every);
}

// Random schedules (messages, rings and lines, all-to-alls, allocations)
// on two rows of a 16 x 16 torus, copied two rows down as a second
// replica: run once for both, every figure is the run of every chip's.
TEST(Simulator, ReplicasOfRandomSchedulesRunOnceToTheBit) {
  int once = 0;
  for (uint32_t seed = 1; seed <= 60; ++seed) {
    Schedule s = randomSchedule(seed);
    for (int64_t chip = 0; chip < 32; ++chip) {
      std::vector<Task> copy = s.chips[chip].tasks;
      for (Task &task : copy) {
        if (task.kind == TaskKind::Send || task.kind == TaskKind::Recv)
          task.peer += 32;
        if (task.kind == TaskKind::Collective) {
          ChipGroup moved;
          for (int64_t member : task.group)
            moved.push_back(member + 32);
          task.group = moved;
        }
        task.tag += 100000;
      }
      s.chips[32 + chip].tasks = std::move(copy);
    }
    SCOPED_TRACE("seed " + std::to_string(seed));
    auto [run, whole] = bothWays(s);
    once += run.replicas == 2;
  }
  // (A run that overflows HBM runs again whole.)
  EXPECT_GT(once, 30);
}
