//===- MultisliceTest.cpp - slices joined by the data-center network ------===//
//
// Several slices joined by the DCN through each host's NIC: loom-sim
// against closed forms worked by hand, the cost model's hierarchical
// collectives against loom-sim, and the refusals (docs/multislice.md).
// Times agree to a relative 1e-9: uncontended, or with every flow of a NIC
// alike, loom-sim runs the very steps the closed forms sum, so only
// floating-point rounding separates them.
//
// The bundled v5e's DCN figures (targets/tpu-v5e.json, host section):
// 8 chips per host, 1.25e10 bytes/s per host each way (one 100 Gbit/s NIC,
// the Loom specification), 1e-4 s a message (Jupiter's "sub-100us", an
// upper bound).
//
//===----------------------------------------------------------------------===//

#include "loom/Hardware/CostModel.h"
#include "loom/Hardware/DeviceMesh.h"
#include "loom/Sim/Simulator.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace loom;
using namespace loom::schedule;
using loom::sim::SimResult;

namespace {

const TargetDesc &v5e() { return *lookupTarget("tpu-v5e"); }

constexpr double kDcnBandwidth = 1.25e10, kDcnLatency = 1e-4;

/// `slices` slices of `shape`, every chip present with no task.
Schedule slicesOf(llvm::ArrayRef<int64_t> shape, int64_t slices) {
  Schedule s;
  s.targetName = "tpu-v5e";
  s.shape.assign(shape.begin(), shape.end());
  s.slices = slices;
  int64_t chips = slices;
  for (int64_t d : shape)
    chips *= d;
  for (int64_t id = 0; id < chips; ++id)
    s.chips.push_back({id, {}});
  return s;
}

void message(Schedule &s, int64_t from, int64_t to, int64_t bytes,
             int64_t tag) {
  Task send;
  send.kind = TaskKind::Send;
  send.peer = to;
  send.bytes = bytes;
  send.tag = tag;
  Task recv = send;
  recv.kind = TaskKind::Recv;
  recv.peer = from;
  s.chips[from].tasks.push_back(send);
  s.chips[to].tasks.push_back(recv);
}

/// Appends a collective's start and done to `chip`, after its last task.
void collective(Schedule &s, int64_t chip, CollectiveKind kind,
                llvm::ArrayRef<int64_t> group, int64_t bytes, int64_t tag) {
  std::vector<Task> &tasks = s.chips[chip].tasks;
  Task start;
  start.kind = TaskKind::Collective;
  start.collective = kind;
  start.group = ChipGroup(group);
  start.bytes = bytes;
  start.tag = tag;
  if (!tasks.empty())
    start.deps.push_back(int64_t(tasks.size()) - 1);
  tasks.push_back(start);
  Task done;
  done.kind = TaskKind::CollectiveDone;
  done.start = int64_t(tasks.size()) - 1;
  tasks.push_back(done);
}

/// Seconds from the program's launch to its end (the launch itself not
/// counted).
double runTime(const Schedule &s, SimResult *out = nullptr) {
  auto result = sim::simulate(v5e(), s, /*recordTrace=*/false);
  EXPECT_TRUE(bool(result)) << llvm::toString(result.takeError());
  if (!result)
    return 0;
  if (out)
    *out = *result;
  return result->makespan - result->dispatch;
}

std::string refusal(const Schedule &s, const TargetDesc &target = v5e()) {
  auto result = sim::simulate(target, s, /*recordTrace=*/false);
  return result ? std::string() : llvm::toString(result.takeError());
}

double relative(double a, double b) { return std::fabs(a - b) / b; }

TEST(Multislice, TopologiesAreSpelledSlicesTimesASlice) {
  auto four = parseTopology(v5e(), "4xv5e-256");
  ASSERT_TRUE(bool(four)) << llvm::toString(four.takeError());
  EXPECT_EQ(four->name, "4xv5e-256");
  EXPECT_EQ(four->slices, 4);
  EXPECT_EQ(four->sliceChips(), 256);
  EXPECT_EQ(four->numChips(), 1024);
  // A name alone is one slice, as before; so is 1x.
  auto one = parseTopology(v5e(), "v5e-16");
  ASSERT_TRUE(bool(one));
  EXPECT_EQ(one->slices, 1);
  EXPECT_EQ(one->numChips(), 16);
  auto once = parseTopology(v5e(), "1xv5e-16");
  ASSERT_TRUE(bool(once));
  EXPECT_EQ(once->name, "v5e-16");
  EXPECT_EQ(once->numChips(), 16);
}

TEST(Multislice, BadSliceCountsAreRefused) {
  for (llvm::StringRef bad : {"0xv5e-256", "-2xv5e-256", "2.5xv5e-256",
                              "twoxv5e-256", "4x", "4xv5e-3"}) {
    auto topology = parseTopology(v5e(), bad);
    ASSERT_FALSE(bool(topology)) << bad.str();
    std::string error = llvm::toString(topology.takeError());
    EXPECT_NE(error.find("topology '" + bad.str() + "'"), std::string::npos)
        << error;
  }
  auto zero = parseTopology(v5e(), "0xv5e-256");
  EXPECT_NE(llvm::toString(zero.takeError())
                .find("the slice count '0' must be an integer of at least 1"),
            std::string::npos);
  auto unknown = parseTopology(v5e(), "4xv5e-3");
  EXPECT_NE(llvm::toString(unknown.takeError()).find("valid: v5e-1 (1x1)"),
            std::string::npos);
}

TEST(Multislice, ReplicasLieInASliceOrSpanWholeSlices) {
  auto three = parseTopology(v5e(), "3xv5e-16");
  ASSERT_TRUE(bool(three));
  // Within a slice: a replica's chips divide the slice's 16.
  EXPECT_TRUE(three->tiledBy(1, 16));
  EXPECT_TRUE(three->tiledBy(4, 2));
  EXPECT_FALSE(three->tiledBy(3, 2));
  // Spanning: 16 x 3 stages over all three slices, a stage on each.
  EXPECT_TRUE(three->tiledBy(3, 16));
  EXPECT_TRUE(three->tiledBy(24, 2));
  // Two of three slices, so a third replica would be split by the DCN.
  EXPECT_FALSE(three->tiledBy(2, 16));
  // Three slices' worth but 4 stages: no equal run of stages on each.
  EXPECT_FALSE(three->tiledBy(4, 12));
  // A stage's group larger than a slice, nothing, or past every chip.
  EXPECT_FALSE(three->tiledBy(1, 32));
  EXPECT_FALSE(three->tiledBy(0, 4));
  EXPECT_FALSE(three->tiledBy(int64_t(1) << 62, 16));
}

TEST(Multislice, ATargetWithoutDcnFiguresCannotSpanSlices) {
  TargetDesc noLatency = v5e();
  noLatency.dcnLatency = 0;
  auto refused = parseTopology(noLatency, "2xv5e-256");
  ASSERT_FALSE(bool(refused));
  EXPECT_NE(llvm::toString(refused.takeError())
                .find("does not give host.dcn_latency"),
            std::string::npos);
  // One slice needs no DCN.
  EXPECT_TRUE(bool(parseTopology(noLatency, "v5e-256")));
  // A schedule of two slices on it, without figures of its own.
  Schedule s = slicesOf({1, 1}, 2);
  message(s, 0, 1, 1000, 1);
  std::string error = refusal(s, noLatency);
  EXPECT_NE(error.find("$.target.dcn: 2xv5e-1 has 2 slices joined by the "
                       "data-center network, which needs its figures"),
            std::string::npos)
      << error;
  // The schedule's own figures take the target's place.
  s.dcn = DcnFigures::of(v5e());
  EXPECT_EQ(refusal(s, noLatency), "");
}

TEST(Multislice, AMessageAcrossSlicesTakesTheLatencyAndTheNic) {
  // 2 x v5e-16: chip 0 of slice 0 to chip 5 of slice 1 (chip 21).
  Schedule s = slicesOf({4, 4}, 2);
  constexpr int64_t bytes = 250000000;
  message(s, 0, 21, bytes, 1);
  SimResult result;
  double t = runTime(s, &result);
  // 1e-4 + 2.5e8 / 1.25e10 = 0.0201 s, worked by hand.
  EXPECT_LT(relative(t, kDcnLatency + bytes / kDcnBandwidth), 1e-9) << t;
  EXPECT_NEAR(t, 0.0201, 1e-9);
  // Through host 0's NIC out and host 2's (chips 16-23) in; no ICI link.
  ASSERT_EQ(result.links.size(), 2u);
  for (const sim::LinkStats &link : result.links) {
    EXPECT_TRUE(link.dcn);
    EXPECT_EQ(link.bytes, bytes);
  }
  EXPECT_TRUE((result.links[0].from == 0 && result.links[0].to == -1) ||
              (result.links[1].from == 0 && result.links[1].to == -1));
  EXPECT_TRUE((result.links[0].from == -1 && result.links[0].to == 16) ||
              (result.links[1].from == -1 && result.links[1].to == 16));
}

TEST(Multislice, ChipsOfOneHostShareItsNic) {
  constexpr int64_t bytes = 250000000;
  // Chips 0 and 1 (host 0) both send to slice 1: one NIC, twice the time.
  Schedule shared = slicesOf({4, 4}, 2);
  message(shared, 0, 16, bytes, 1);
  message(shared, 1, 17, bytes, 2);
  EXPECT_LT(relative(runTime(shared),
                     kDcnLatency + 2.0 * bytes / kDcnBandwidth),
            1e-9);
  // Chips 0 and 8 are on hosts 0 and 1 (8 chips per host): no sharing,
  // their receivers on hosts 2 and 3.
  Schedule apart = slicesOf({4, 4}, 2);
  message(apart, 0, 16, bytes, 1);
  message(apart, 8, 24, bytes, 2);
  EXPECT_LT(relative(runTime(apart), kDcnLatency + bytes / kDcnBandwidth),
            1e-9);
  // Two hosts sending into one host share its NIC's way in.
  Schedule into = slicesOf({4, 4}, 2);
  message(into, 0, 16, bytes, 1);
  message(into, 8, 17, bytes, 2);
  EXPECT_LT(relative(runTime(into), kDcnLatency + 2.0 * bytes / kDcnBandwidth),
            1e-9);
}

TEST(Multislice, MessagesWithinASliceStayOnIci) {
  Schedule s = slicesOf({4, 4}, 2);
  message(s, 16, 17, 45000000, 1);
  SimResult result;
  double t = runTime(s, &result);
  ASSERT_EQ(result.links.size(), 1u);
  EXPECT_FALSE(result.links[0].dcn);
  EXPECT_EQ(result.links[0].from, 16);
  EXPECT_EQ(result.links[0].to, 17);
  // One hop, at the line's calibrated efficiency of the ICI link.
  CostModel model(v5e());
  EXPECT_LT(relative(t, v5e().hopLatency +
                            45e6 / (model.linkEfficiency(false) *
                                    v5e().linkBandwidth)),
            1e-9);
}

/// An all-reduce of `bytes` over every chip of `slices` v5e-4 slices, as
/// XLA runs it: a reduce-scatter over each slice's ring (0, 2, 3, 1), an
/// all-reduce of each chip's quarter with the chips at its place in the
/// other slices, an all-gather over the ring.
Schedule hierarchicalAllReduce(int64_t slices, int64_t bytes) {
  Schedule s = slicesOf({2, 2}, slices);
  const int64_t ring[] = {0, 2, 3, 1};
  for (int64_t slice = 0; slice < slices; ++slice)
    for (int64_t local = 0; local < 4; ++local) {
      int64_t chip = 4 * slice + local;
      llvm::SmallVector<int64_t> ici, dcn;
      for (int64_t r : ring)
        ici.push_back(4 * slice + r);
      for (int64_t other = 0; other < slices; ++other)
        dcn.push_back(4 * other + local);
      collective(s, chip, CollectiveKind::ReduceScatter, ici, bytes,
                 100 + slice);
      collective(s, chip, CollectiveKind::AllReduce, dcn, bytes / 4,
                 200 + local);
      collective(s, chip, CollectiveKind::AllGather, ici, bytes,
                 300 + slice);
    }
  return s;
}

TEST(Multislice, AllReduceAcrossSlicesMatchesTheHierarchicalClosedForm) {
  CostModel model(v5e());
  constexpr int64_t bytes = 400000000;
  const GroupAxis block[] = {{2, false}, {2, false}};
  double sync = v5e().calibration.collectiveSync;
  for (int64_t slices : {2, 4}) {
    double t = runTime(hierarchicalAllReduce(slices, bytes));
    // Worked by hand: the ICI phases as the ring's closed form (held to
    // loom-sim by SimulatorTest); between slices a ring (a line of two)
    // of 2 (S - 1) steps, each chip's chunk of bytes / 4 / S leaving
    // through a NIC its 4 chips share (a v5e-4 is half a host): each step
    // L + 4 (bytes / 4) / (S W).
    double s = slices;
    double across =
        sync + 2 * (s - 1) * (kDcnLatency + 4 * (bytes / 4.0) /
                                                (s * kDcnBandwidth));
    double expected =
        model.collectiveTime(CollectiveKind::ReduceScatter, block, bytes) +
        across + model.collectiveTime(CollectiveKind::AllGather, block, bytes);
    EXPECT_LT(relative(t, expected), 1e-9) << slices << " slices: " << t;
    // The cost model's price of the same collective: the same sum.
    TopologyDesc topology = *parseTopology(v5e(), std::to_string(slices) +
                                                      "xv5e-4");
    EXPECT_LT(relative(t, model.multisliceCollectiveTime(
                              CollectiveKind::AllReduce, block, topology,
                              bytes)),
              1e-9)
        << slices << " slices";
  }
}

TEST(Multislice, GathersAndScattersAcrossSlicesMatchTheCostModel) {
  CostModel model(v5e());
  constexpr int64_t bytes = 400000000;
  const GroupAxis block[] = {{2, false}, {2, false}};
  const int64_t ring[] = {0, 2, 3, 1};
  for (CollectiveKind kind :
       {CollectiveKind::ReduceScatter, CollectiveKind::AllGather}) {
    // Reduce-scatter within, then across; all-gather across, then within.
    Schedule s = slicesOf({2, 2}, 4);
    for (int64_t chip = 0; chip < 16; ++chip) {
      llvm::SmallVector<int64_t> ici, dcn;
      for (int64_t r : ring)
        ici.push_back(chip / 4 * 4 + r);
      for (int64_t other = 0; other < 4; ++other)
        dcn.push_back(4 * other + chip % 4);
      bool withinFirst = kind == CollectiveKind::ReduceScatter;
      collective(s, chip, kind, withinFirst ? ici : dcn,
                 withinFirst ? bytes : bytes / 4,
                 withinFirst ? 100 + chip / 4 : 200 + chip % 4);
      collective(s, chip, kind, withinFirst ? dcn : ici,
                 withinFirst ? bytes / 4 : bytes,
                 withinFirst ? 200 + chip % 4 : 100 + chip / 4);
    }
    TopologyDesc topology = *parseTopology(v5e(), "4xv5e-4");
    double t = runTime(s);
    EXPECT_LT(relative(t, model.multisliceCollectiveTime(kind, block, topology,
                                                         bytes)),
              1e-9)
        << schedule::name(kind).str() << ": " << t;
  }
  // One slice: the ICI collective alone.
  TopologyDesc one = *parseTopology(v5e(), "v5e-4");
  EXPECT_EQ(model.multisliceCollectiveTime(CollectiveKind::AllReduce, block,
                                           one, 1e8),
            model.collectiveTime(CollectiveKind::AllReduce, block, 1e8));
}

TEST(Multislice, AllToAllAcrossSlicesMatchesItsClosedForm) {
  // 4 x v5e-4: every chip all-to-alls 4e8 bytes with the chips at its
  // place in the other slices, the 4 chips of each host at once. Each
  // sends 1e8 to each of 3 others straight away: 12 flows share its host's
  // NIC, 1e-4 + 4 x 3 x 1e8 / 1.25e10 = 0.0961 s, plus the sync.
  constexpr int64_t bytes = 400000000;
  Schedule s = slicesOf({2, 2}, 4);
  for (int64_t chip = 0; chip < 16; ++chip) {
    llvm::SmallVector<int64_t> dcn;
    for (int64_t other = 0; other < 4; ++other)
      dcn.push_back(4 * other + chip % 4);
    collective(s, chip, CollectiveKind::AllToAll, dcn, bytes, chip % 4);
  }
  double t = runTime(s);
  double sync = v5e().calibration.collectiveSync;
  EXPECT_LT(relative(t, sync + kDcnLatency + 4 * 3 * 1e8 / kDcnBandwidth),
            1e-9)
      << t;
  EXPECT_LT(relative(t, CostModel(v5e()).dcnCollectiveTime(
                            CollectiveKind::AllToAll, 4, bytes, 4)),
            1e-9);
}

TEST(Multislice, CollectivesAcrossSlicesTakeOneChipOfEach) {
  Schedule s = slicesOf({2, 2}, 2);
  for (int64_t chip : {0, 1, 4})
    collective(s, chip, CollectiveKind::AllReduce, {0, 1, 4}, 1000, 7);
  std::string error = refusal(s);
  EXPECT_NE(error.find("$.chips[0].tasks[0].group: spans slices with several "
                       "chips of slice 0"),
            std::string::npos)
      << error;
}

TEST(Multislice, AbsurdDcnFiguresInAScheduleAreRefused) {
  Schedule s = slicesOf({2, 2}, 2);
  message(s, 0, 4, 1000, 1);
  s.dcn = {3, kDcnBandwidth, kDcnLatency};
  EXPECT_NE(refusal(s).find("$.target.dcn.chips_per_host: 3 chips per host "
                            "neither divide a slice's 4 chips"),
            std::string::npos)
      << refusal(s);
  // Out of range in a file: the schema's ranges, at the key.
  std::string file;
  llvm::raw_string_ostream os(file);
  s.dcn = {4, kDcnBandwidth, kDcnLatency};
  writeSchedule(s, os);
  auto bad = [&](llvm::StringRef from, llvm::StringRef to) {
    std::string text = file;
    size_t at = text.find(from.str());
    EXPECT_NE(at, std::string::npos) << from.str();
    text.replace(at, from.size(), to.str());
    auto parsed = parseSchedule(text, "bad.json");
    return parsed ? std::string() : llvm::toString(parsed.takeError());
  };
  EXPECT_NE(bad("\"latency\":0.0001", "\"latency\":5")
                .find("$.target.dcn.latency: must be in (0, 1] s, got 5"),
            std::string::npos)
      << bad("\"latency\":0.0001", "\"latency\":5");
  EXPECT_NE(bad("\"bandwidth\":12500000000", "\"bandwidth\":0")
                .find("$.target.dcn.bandwidth: must be at least 1 bytes/s"),
            std::string::npos)
      << bad("\"bandwidth\":12500000000", "\"bandwidth\":0");
  EXPECT_NE(bad("\"chips_per_host\":4,", "")
                .find("$.target.dcn: needs chips_per_host, bandwidth and latency"),
            std::string::npos)
      << bad("\"chips_per_host\":4,", "");
  EXPECT_NE(bad("\"slices\":2", "\"slices\":0")
                .find("$.target.slices"),
            std::string::npos)
      << bad("\"slices\":2", "\"slices\":0");
}

TEST(Multislice, TheScheduleFileKeepsSlicesAndDcnFigures) {
  Schedule s = slicesOf({2, 2}, 2);
  message(s, 0, 4, 1000, 1);
  s.dcn = {4, 2.5e10, 5e-5};
  std::string file;
  llvm::raw_string_ostream os(file);
  writeSchedule(s, os);
  auto parsed = parseSchedule(file, "round-trip.json");
  ASSERT_TRUE(bool(parsed)) << llvm::toString(parsed.takeError());
  EXPECT_EQ(parsed->slices, 2);
  EXPECT_EQ(parsed->dcn.chipsPerHost, 4);
  EXPECT_EQ(parsed->dcn.bandwidth, 2.5e10);
  EXPECT_EQ(parsed->dcn.latency, 5e-5);
  std::string again;
  llvm::raw_string_ostream os2(again);
  writeSchedule(*parsed, os2);
  EXPECT_EQ(file, again);
  // One slice writes neither (files of one slice read as before).
  Schedule one = slicesOf({2, 2}, 1);
  std::string single;
  llvm::raw_string_ostream os3(single);
  writeSchedule(one, os3);
  EXPECT_EQ(single.find("slices"), std::string::npos);
  EXPECT_EQ(single.find("dcn"), std::string::npos);
}

} // namespace

// Two chips of one host send 1e9 and 2e9 bytes across at once: they share
// the NIC until the first is done (2e9 / W), then the second has the NIC
// alone for its last 1e9 bytes: L + 3e9 / W in all. The second flow's end
// as first rated (L + 4e9 / W) is stale once it is re-rated, and the
// makespan is the last task's end, not the last event popped.
TEST(Multislice, AReRatedFlowEndsTheRunWhenItsBytesArrive) {
  Schedule s = slicesOf({2, 2}, 2);
  message(s, 0, 4, 1000000000, 0);
  message(s, 1, 5, 2000000000, 1);
  EXPECT_LT(relative(runTime(s), kDcnLatency + 3e9 / kDcnBandwidth), 1e-9);
}

// Chips of one slice laid out over several: whole replicas per slice, slice
// k's chips stacked below slice k - 1's (ids slice-major); or a replica's
// stages in equal runs over the slices it spans. What does not tile is
// refused, naming the numbers.
TEST(Multislice, TheDeviceMeshLaysReplicasOverSlices) {
  auto two = parseTopology(v5e(), "2xv5e-16");
  ASSERT_TRUE(bool(two));
  auto replicas = DeviceMesh::build(v5e(), *two, MeshShape{8, 1, 4, 1});
  ASSERT_TRUE(bool(replicas)) << llvm::toString(replicas.takeError());
  EXPECT_EQ(replicas->numSlices(), 2);
  EXPECT_EQ(replicas->getSliceShape().dataParallel, 4);
  for (int64_t d = 0; d < 8; ++d)
    for (int64_t r = 0; r < 4; ++r) {
      ChipCoord at = replicas->chip(d, 0, r);
      EXPECT_EQ(replicas->sliceOf(at), d / 4);
      EXPECT_EQ(replicas->chipId(at) / 16, d / 4);
      // The same place in its slice as replica d mod 4 of slice 0.
      EXPECT_EQ(replicas->inSlice(at), replicas->chip(d % 4, 0, r));
    }
  // tp 4 x 8 stages = 32 chips: each replica's stages 0-3 on slice 0 and
  // 4-7 on slice 1.
  auto stages = DeviceMesh::build(v5e(), *two, MeshShape{1, 8, 4, 1});
  ASSERT_TRUE(bool(stages)) << llvm::toString(stages.takeError());
  EXPECT_EQ(stages->getSliceShape().stages, 4);
  for (int64_t st = 0; st < 8; ++st)
    EXPECT_EQ(stages->sliceOf(stages->chip(0, st, 0)), st / 4);
  auto three = parseTopology(v5e(), "3xv5e-16");
  ASSERT_TRUE(bool(three));
  auto spans = DeviceMesh::build(v5e(), *three, MeshShape{1, 12, 4, 1});
  ASSERT_TRUE(bool(spans)) << llvm::toString(spans.takeError());
  EXPECT_EQ(spans->sliceOf(spans->chip(0, 11, 3)), 2);
  auto odd = DeviceMesh::build(v5e(), *three, MeshShape{1, 2, 16, 1});
  ASSERT_FALSE(bool(odd));
  EXPECT_NE(llvm::toString(odd.takeError())
                .find("data-parallel 1 x stages 2 x 16 chips a stage = 32 "
                      "chips, but topology 3xv5e-16 (3 slices of 16) has 48"),
            std::string::npos);
}
