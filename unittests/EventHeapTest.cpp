//===- EventHeapTest.cpp - the simulator's event order --------------------===//
//
// loom-sim takes its pending events earliest first and, at one instant, in
// the order they were made (what makes a run deterministic). EventHeap
// must take them in exactly the order std::priority_queue ordered by
// (time, seq) takes them, ties and signed zeros included.
//
//===----------------------------------------------------------------------===//

#include "loom/Sim/EventHeap.h"

#include <gtest/gtest.h>

#include <limits>
#include <queue>
#include <random>
#include <tuple>

using namespace loom::sim;

namespace {

/// The order the simulator took events in before EventHeap: the standard
/// heap, ordered by std::tie(time, seq).
struct Later {
  bool operator()(const Event &a, const Event &b) const {
    return std::make_tuple(a.time, a.seq()) > std::make_tuple(b.time, b.seq());
  }
};

TEST(EventHeap, TakesEventsInThePriorityQueuesOrder) {
  // Few distinct times, so that many events share an instant; pushes and
  // pops interleaved as a run makes them (a few hundred pending).
  const double times[] = {0.0,  -0.0, 1e-300, 1.0,  1.0 + 1e-16, 2.5,
                          -1.0, 3e5,  1e-9,   7e-7,
                          std::numeric_limits<double>::infinity()};
  std::mt19937_64 random(42);
  EventHeap heap;
  std::priority_queue<Event, std::vector<Event>, Later> reference;
  uint64_t seq = 0;
  size_t taken = 0;
  for (int round = 0; round < 200000; ++round) {
    bool push = reference.empty() ||
                random() % 100 < (reference.size() < 300 ? 55 : 45);
    if (push) {
      double time = times[random() % std::size(times)];
      auto kind = Event::Kind(random() % 7);
      Event event(time, seq, kind, int32_t(seq % 1000), uint32_t(seq));
      ++seq;
      heap.push(event);
      reference.push(event);
      continue;
    }
    ASSERT_FALSE(heap.empty());
    const Event &got = heap.top(), &want = reference.top();
    ASSERT_EQ(got.seq(), want.seq()) << "event " << taken;
    EXPECT_EQ(got.kind(), want.kind());
    EXPECT_EQ(got.a, want.a);
    EXPECT_EQ(got.b, want.b);
    heap.pop();
    reference.pop();
    ++taken;
  }
  EXPECT_EQ(heap.events().size(), reference.size());
  while (!reference.empty()) {
    ASSERT_EQ(heap.top().seq(), reference.top().seq());
    heap.pop();
    reference.pop();
  }
  EXPECT_TRUE(heap.empty());
  EXPECT_GT(taken, 50000u);
}

TEST(EventHeap, OrdersTimesAsDoublesDo) {
  // Event::orderOf keeps the doubles' order, and -0 is +0.
  const double sorted[] = {-std::numeric_limits<double>::infinity(), -1e300,
                           -1.0, -1e-300, 0.0, 1e-320, 1e-300, 1.0,
                           1.0 + 2.220446049250313e-16, 1e300,
                           std::numeric_limits<double>::infinity()};
  for (size_t i = 0; i + 1 < std::size(sorted); ++i)
    EXPECT_LT(Event::orderOf(sorted[i]), Event::orderOf(sorted[i + 1]))
        << sorted[i] << " before " << sorted[i + 1];
  EXPECT_EQ(Event::orderOf(-0.0), Event::orderOf(0.0));
  // At one time, the one made first; a later time whatever its seq.
  Event early(1.0, 5, Event::Kind::Arrive, 0, 0),
      same(1.0, 6, Event::Kind::ComputeDone, 0, 0),
      late(2.0, 1, Event::Kind::HostDone, 0, 0);
  EXPECT_TRUE(early.before(same));
  EXPECT_FALSE(same.before(early));
  EXPECT_TRUE(same.before(late));
  EXPECT_EQ(same.kind(), Event::Kind::ComputeDone);
  EXPECT_EQ(late.seq(), 1u);
}

} // namespace
