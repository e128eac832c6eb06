//===- HostTransferTest.cpp - host stores and loads, worked by hand -------===//
//
// A chip's host DMA engines (loom/Sim/Simulator.h) against closed forms on
// a target whose host link moves 1e10 bytes/s each way into 1e9 bytes of
// host memory: a transfer of B bytes takes B / 1e10 s, transfers one way
// queue, the two ways run together. Also the checker's rules for host
// transfers and the file's round trip.
//
//===----------------------------------------------------------------------===//

#include "loom/Schedule/Check.h"
#include "loom/Schedule/Schedule.h"
#include "loom/Sim/Report.h"
#include "loom/Sim/Simulator.h"
#include "loom/Sim/Timeline.h"
#include "loom/Hardware/CostModel.h"

#include <gtest/gtest.h>

using namespace loom;
using namespace loom::schedule;
using loom::sim::SimResult;

namespace {

constexpr double kBandwidth = 1e10, kHostBytes = 1e9;
// 1e8 bytes: 10 ms on the host link.
constexpr int64_t B = 100000000;
constexpr double kSeconds = B / kBandwidth;

TargetDesc hostTarget() {
  TargetDesc target = *lookupTarget("tpu-v5e");
  target.hostBandwidth = kBandwidth;
  target.hostBytes = kHostBytes;
  return target;
}

Schedule oneChip() {
  Schedule s;
  s.targetName = "tpu-v5e";
  s.shape = {1, 1};
  s.chips.push_back({0, {}});
  return s;
}

Task store(int64_t bytes, llvm::ArrayRef<int64_t> deps = {},
           llvm::StringRef name = "") {
  Task t;
  t.kind = TaskKind::HostStore;
  t.bytes = bytes;
  t.name = name.str();
  t.deps.assign(deps.begin(), deps.end());
  return t;
}

Task load(int64_t of, int64_t bytes, llvm::ArrayRef<int64_t> deps = {}) {
  Task t = store(bytes, deps);
  t.kind = TaskKind::HostLoad;
  t.store = of;
  return t;
}

Task compute(int64_t flops) {
  Task t;
  t.kind = TaskKind::Compute;
  t.flops = flops;
  t.name = "c";
  t.op = "loom.linear";
  return t;
}

SimResult run(const Schedule &s, bool trace = false,
              const TargetDesc &target = hostTarget()) {
  auto result = sim::simulate(target, s, trace);
  EXPECT_TRUE(bool(result)) << llvm::toString(result.takeError());
  return result ? *result : SimResult();
}

/// The run's time after the program's dispatch.
double elapsed(const SimResult &r) { return r.makespan - r.dispatch; }

TEST(HostTransfer, OneStoreTakesItsBytesOverTheBandwidth) {
  Schedule s = oneChip();
  s.chips[0].tasks = {store(B)};
  SimResult r = run(s);
  EXPECT_TRUE(r.failure.empty()) << r.failure;
  EXPECT_NEAR(elapsed(r), kSeconds, 1e-12);
  EXPECT_EQ(r.chips[0].peakHost, double(B));
  EXPECT_EQ(r.chips[0].peakHbm, 0);
}

TEST(HostTransfer, StoresQueueOnTheirEngine) {
  // Both ready at once: the second starts when the first ends.
  Schedule s = oneChip();
  s.chips[0].tasks = {store(B), store(B)};
  SimResult r = run(s, /*trace=*/true);
  EXPECT_NEAR(elapsed(r), 2 * kSeconds, 1e-12);
  EXPECT_EQ(r.chips[0].peakHost, 2.0 * B);
  ASSERT_EQ(r.trace.size(), 2u);
  for (const sim::TraceEvent &event : r.trace) {
    EXPECT_EQ(event.engine, 3);
    EXPECT_NEAR(event.end - event.start, kSeconds, 1e-12);
  }
  EXPECT_NEAR(r.trace[1].start, r.trace[0].end, 1e-12);
}

TEST(HostTransfer, EnginesRunInTheOrderTasksBecameReady) {
  // Task 1 (2B) waits for task 0; task 2 (B) is ready at once, so it runs
  // before task 1 though listed after it: 0 [0, 1], 2 [1, 2], 1 [2, 4].
  Schedule s = oneChip();
  s.chips[0].tasks = {store(B), store(2 * B, {0}), store(B)};
  SimResult r = run(s, /*trace=*/true);
  EXPECT_NEAR(elapsed(r), 4 * kSeconds, 1e-12);
  ASSERT_EQ(r.trace.size(), 3u);
  EXPECT_EQ(r.trace[1].task, 2);
  EXPECT_EQ(r.trace[2].task, 1);
  EXPECT_NEAR(r.trace[2].start - r.dispatch, 2 * kSeconds, 1e-12);
}

TEST(HostTransfer, AStoreAndALoadRunTogether) {
  // Store 0 (B) in [0, 1]; then store 1 (2B, queued behind it) in [1, 3]
  // beside load 2 of store 0 (B) in [1, 2]: full duplex, 3 units (a shared
  // engine would take 4). Host memory: B, then 0 at 2, then 2B at 3.
  Schedule s = oneChip();
  s.chips[0].tasks = {store(B), store(2 * B), load(0, B)};
  SimResult r = run(s);
  EXPECT_TRUE(r.failure.empty()) << r.failure;
  EXPECT_NEAR(elapsed(r), 3 * kSeconds, 1e-12);
  EXPECT_EQ(r.chips[0].peakHost, 2.0 * B);
}

TEST(HostTransfer, ALoadWaitsForItsStore) {
  // The load lists no dependency, yet starts when its store ends, which
  // waits for a compute of T: T + 2 units.
  Schedule s = oneChip();
  s.chips[0].tasks = {compute(1000000000000), store(B, {0}), load(1, B)};
  TargetDesc target = hostTarget(); // (the model keeps a reference)
  CostModel model(target);
  double t = model.taskTime(1000000000000, 0, 16, 0, 1);
  SimResult r = run(s, /*trace=*/true);
  EXPECT_NEAR(elapsed(r), t + 2 * kSeconds, 1e-12);
  ASSERT_EQ(r.trace.size(), 3u);
  EXPECT_EQ(r.trace[2].task, 2);
  EXPECT_NEAR(r.trace[2].start - r.dispatch, t + kSeconds, 1e-12);
  // The TensorCore was idle through both transfers.
  EXPECT_NEAR(r.chips[0].exposedComm, 2 * kSeconds, 1e-12);
}

TEST(HostTransfer, ComputeOverlapsAStore) {
  // A compute of T beside a store of 2T: the run takes 2T, and the
  // TensorCore sits idle for the store's last T (exposed communication).
  TargetDesc target = hostTarget(); // (the model keeps a reference)
  CostModel model(target);
  int64_t flops = 1000000000000;
  double t = model.taskTime(flops, 0, 16, 0, 1);
  int64_t bytes = int64_t(2 * t * kBandwidth);
  double seconds = bytes / kBandwidth;
  Schedule s = oneChip();
  s.chips[0].tasks = {compute(flops), store(bytes)};
  SimResult r = run(s);
  EXPECT_NEAR(elapsed(r), seconds, 1e-12);
  EXPECT_NEAR(r.chips[0].computeBusy, t, 1e-12);
  EXPECT_NEAR(r.chips[0].exposedComm, seconds - t, 1e-12);
  // The other way round, a store hidden under a longer compute: T.
  s.chips[0].tasks = {compute(flops), store(bytes / 4)};
  r = run(s);
  EXPECT_NEAR(elapsed(r), t, 1e-12);
  EXPECT_NEAR(r.chips[0].exposedComm, 0, 1e-12);
}

TEST(HostTransfer, HostMemoryPeakAndOverflow) {
  // 6e8 stored, loaded back, stored again: the peak is 6e8.
  Schedule s = oneChip();
  int64_t big = 600000000;
  s.chips[0].tasks = {store(big), load(0, big), store(big, {1})};
  SimResult r = run(s);
  EXPECT_TRUE(r.failure.empty()) << r.failure;
  EXPECT_EQ(r.chips[0].peakHost, 6e8);
  // Without the load the second store overflows the 1e9 bytes.
  s.chips[0].tasks = {store(big), store(big, {0}, "layer1.qkv")};
  r = run(s);
  EXPECT_EQ(r.failure,
            "host memory overflow on chip 0 at task 1 (host_store "
            "\"layer1.qkv\", 600000000 bytes) at t = 120.112 ms: 1200000000 "
            "bytes in use, capacity 1000000000");
  EXPECT_EQ(r.chips[0].peakHost, 1.2e9);
}

TEST(HostTransfer, TheRepetitionProofRefusesHostTransfers) {
  // Eight alike steps of a compute and a store loaded back at once: with
  // the stores the run is not extrapolated; without them it is.
  auto steps = [](bool host) {
    Schedule s = oneChip();
    s.stepStarts.emplace_back();
    for (int step = 0; step < 8; ++step) {
      int64_t first = s.chips[0].tasks.size();
      s.stepStarts[0].push_back(first);
      s.chips[0].tasks.push_back(compute(1000000000000));
      if (first > 0)
        s.chips[0].tasks.back().deps = {first - 1};
      if (host) {
        s.chips[0].tasks.push_back(store(B, {first}));
        s.chips[0].tasks.push_back(load(first + 1, B));
      }
    }
    return s;
  };
  auto proved = sim::simulate(hostTarget(), steps(false), false, 20);
  ASSERT_TRUE(bool(proved)) << llvm::toString(proved.takeError());
  EXPECT_FALSE(proved->unproven);
  EXPECT_EQ(proved->stepsRun, 8);
  auto refused = sim::simulate(hostTarget(), steps(true), false, 20);
  ASSERT_TRUE(bool(refused)) << llvm::toString(refused.takeError());
  EXPECT_TRUE(refused->unproven);
  EXPECT_EQ(refused->stepsRun, 0);
  EXPECT_TRUE(refused->failure.empty()) << refused->failure;
  auto generated = sim::simulateProgram(hostTarget(), steps(true), 20);
  ASSERT_TRUE(bool(generated)) << llvm::toString(generated.takeError());
  EXPECT_TRUE(generated->unproven);
}

TEST(HostTransfer, ReportsShowTheHostOnlyWhenUsed) {
  auto texts = [](const Schedule &s) {
    SimResult r = run(s, /*trace=*/true);
    std::string report, json, trace, svg;
    llvm::raw_string_ostream a(report), b(json), c(trace), d(svg);
    sim::printReport(r, s, a);
    sim::writeReportJSON(r, s, b);
    sim::writeTrace(r, s, c);
    sim::writeSVG(r, s, d);
    return std::array<std::string, 4>{report, json, trace, svg};
  };
  Schedule s = oneChip();
  s.chips[0].tasks = {compute(1000000000000)};
  auto [report, json, trace, svg] = texts(s);
  EXPECT_EQ(report.find("host"), std::string::npos) << report;
  EXPECT_EQ(json.find("host"), std::string::npos) << json;
  EXPECT_EQ(trace.find("host"), std::string::npos) << trace;
  EXPECT_EQ(svg.find("host DMA"), std::string::npos) << svg;

  s.chips[0].tasks.push_back(store(B, {0}, "layer0.qkv"));
  s.chips[0].tasks.push_back(load(1, B));
  auto [hostReport, hostJson, hostTrace, hostSvg] = texts(s);
  EXPECT_NE(hostReport.find("; peak HBM 0 B; peak host 100.00 MB\n"),
            std::string::npos)
      << hostReport;
  EXPECT_NE(hostReport.find("   peak HBM   peak host    tasks\n"),
            std::string::npos)
      << hostReport;
  EXPECT_NE(hostJson.find("\"peak_host_bytes\": 100000000"),
            std::string::npos)
      << hostJson;
  EXPECT_NE(hostTrace.find("\"tid\":3,\"args\":{\"name\":\"host DMA\"}"),
            std::string::npos)
      << hostTrace;
  EXPECT_NE(hostTrace.find("\"name\":\"host_store layer0.qkv\",\"cat\":"
                           "\"host_store\""),
            std::string::npos)
      << hostTrace;
  EXPECT_NE(hostSvg.find(">host DMA</text>"), std::string::npos) << hostSvg;
  EXPECT_NE(hostSvg.find("fill=\"#3a9a5b\""), std::string::npos);
}

/// The problem checkSchedule finds in `s` on a machine of one chip with
/// the host link's figures `bandwidth` and `bytes`; empty if none.
std::string problem(const Schedule &s, double bandwidth = kBandwidth,
                    double bytes = kHostBytes) {
  Machine machine{"v5e-1", 1, bandwidth, bytes};
  llvm::Error error = checkSchedule(s, machine);
  return error ? llvm::toString(std::move(error)) : "";
}

TEST(HostTransfer, CheckerRules) {
  Schedule s = oneChip();
  s.chips[0].tasks = {store(B), load(0, B)};
  EXPECT_EQ(problem(s), "");
  // No host link figures: refused at the first host task.
  Task alloc;
  alloc.kind = TaskKind::Alloc;
  alloc.bytes = 64;
  alloc.name = "x";
  s.chips[0].tasks = {alloc, store(B), load(1, B)};
  const char *noLink =
      "$.chips[0].tasks[1].kind: host_store moves data over the chip's host "
      "link, but the target gives no host link figures (host_bandwidth and "
      "host_memory)";
  EXPECT_EQ(problem(s, 0, kHostBytes), noLink);
  EXPECT_EQ(problem(s, kBandwidth, 0), noLink);
  // sim::checkSchedule passes the target's figures: none on this one.
  TargetDesc bare = hostTarget();
  bare.hostBandwidth = 0;
  auto checked = sim::checkSchedule(bare, s);
  ASSERT_FALSE(bool(checked));
  EXPECT_EQ(llvm::toString(checked.takeError()), noLink);
  auto ran = sim::simulate(bare, s, false);
  ASSERT_FALSE(bool(ran));
  llvm::consumeError(ran.takeError());
  // A load of something that is not an earlier store.
  s.chips[0].tasks = {alloc, load(0, 64)};
  EXPECT_EQ(problem(s), "$.chips[0].tasks[1].store: loads back task 0, which "
                        "is not an earlier host_store task of its chip");
  s.chips[0].tasks = {load(1, B), store(B)};
  EXPECT_EQ(problem(s), "$.chips[0].tasks[0].store: loads back task 1, which "
                        "is not an earlier host_store task of its chip");
  // Loaded back twice; bytes that differ; negative bytes.
  s.chips[0].tasks = {store(B), load(0, B), load(0, B)};
  EXPECT_EQ(problem(s), "$.chips[0].tasks[2].store: task 0 was already loaded "
                        "back by task 1");
  s.chips[0].tasks = {store(B), load(0, B / 2)};
  EXPECT_EQ(problem(s), "$.chips[0].tasks[1].bytes: loads 50000000 bytes back "
                        "but its host_store (task 0) stored 100000000");
  s.chips[0].tasks = {store(-1)};
  EXPECT_EQ(problem(s), "$.chips[0].tasks[0].bytes: must be at least 0, got -1");
}

TEST(HostTransfer, ALoadsStoreIsADependencyOfTheChecker) {
  // Chip 0 stores after a message from chip 1 and sends to chip 1 after
  // loading back, which lists no dependency; chip 1 waits for that before
  // sending. Only the load's implied dependency on its store closes the
  // cycle.
  Schedule s;
  s.targetName = "tpu-v5e";
  s.shape = {1, 2};
  Task recv0, send0, recv1, send1;
  recv0.kind = recv1.kind = TaskKind::Recv;
  send0.kind = send1.kind = TaskKind::Send;
  recv0.peer = send0.peer = 1;
  recv1.peer = send1.peer = 0;
  send0.deps = {2};
  send1.deps = {0};
  s.chips.push_back({0, {recv0, store(B, {0}), load(1, B), send0}});
  s.chips.push_back({1, {recv1, send1}});
  Machine machine{"v5e-2", 2, kBandwidth, kHostBytes};
  llvm::Error error = checkSchedule(s, machine);
  ASSERT_TRUE(bool(error));
  EXPECT_EQ(llvm::toString(std::move(error)),
            "$: has a dependency cycle; blocked tasks: chip 0 task 0 (recv "
            "from 1, tag 0); chip 0 task 1 (host_store); chip 0 task 2 "
            "(host_load); chip 0 task 3 (send to 1, tag 0)");
}

TEST(HostTransfer, TheFileReadsBackAsWritten) {
  Schedule s = oneChip();
  s.chips[0].tasks = {store(B, {}, "layer0.qkv"), store(64),
                      load(0, B, {1}), load(1, 64)};
  s.chips[0].tasks[2].name = "layer0.qkv";
  std::string text;
  llvm::raw_string_ostream os(text);
  writeSchedule(s, os);
  EXPECT_NE(text.find("{\"kind\":\"host_store\",\"name\":\"layer0.qkv\","
                      "\"bytes\":100000000,\"deps\":[]}"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("{\"kind\":\"host_load\",\"store\":1,\"bytes\":64,"
                      "\"deps\":[]}"),
            std::string::npos)
      << text;
  auto again = parseSchedule(text, "host.json");
  ASSERT_TRUE(bool(again)) << llvm::toString(again.takeError());
  const std::vector<Task> &tasks = again->chips[0].tasks;
  ASSERT_EQ(tasks.size(), 4u);
  EXPECT_EQ(tasks[0].kind, TaskKind::HostStore);
  EXPECT_EQ(tasks[0].name, "layer0.qkv");
  EXPECT_EQ(tasks[1].name, "");
  EXPECT_EQ(tasks[2].kind, TaskKind::HostLoad);
  EXPECT_EQ(tasks[2].store, 0);
  EXPECT_EQ(tasks[2].bytes, B);
  EXPECT_EQ(tasks[2].deps, (llvm::SmallVector<int64_t, 2>{1}));
  EXPECT_EQ(tasks[3].store, 1);
  std::string second;
  llvm::raw_string_ostream secondOS(second);
  writeSchedule(*again, secondOS);
  EXPECT_EQ(text, second);
}

TEST(HostTransfer, TheReaderNamesWrongKeys) {
  auto read = [](llvm::StringRef task) {
    std::string text =
        "{\"format\":\"loom-schedule\",\"version\":2,\"target\":{\"name\":"
        "\"tpu-v5e\",\"shape\":[1,1]},\"chips\":[{\"id\":0,\"tasks\":[" +
        task.str() + "]}]}";
    auto s = parseSchedule(text, "f.json");
    return s ? std::string() : llvm::toString(s.takeError());
  };
  EXPECT_EQ(read("{\"kind\":\"host_store\",\"bytes\":8,\"deps\":[]}"), "");
  EXPECT_EQ(read("{\"kind\":\"host_load\",\"bytes\":8,\"deps\":[]}"),
            "f.json: $.chips[0].tasks[0].store: missing required key");
  EXPECT_EQ(read("{\"kind\":\"host_store\",\"store\":0,\"bytes\":8,"
                 "\"deps\":[]}"),
            "f.json: $.chips[0].tasks[0].store: unknown key (known here: "
            "kind, name, bytes, deps)");
  EXPECT_EQ(read("{\"kind\":\"host_load\",\"store\":-1,\"bytes\":8,"
                 "\"deps\":[]}"),
            "f.json: $.chips[0].tasks[0].store: must be at least 0, got -1");
}

} // namespace
