//===- EventHeap.h - the simulator's pending events -------------*- C++ -*-===//
//
// The events a loom-sim run has pending (Simulator.cpp's Engine), taken
// earliest first and, at one instant, in the order they were made: the
// order that makes a run deterministic. Its own header so that the order
// can be tested against std::priority_queue's (EventHeapTest.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_SIM_EVENTHEAP_H
#define LOOM_SIM_EVENTHEAP_H

#include "llvm/ADT/bit.h"

#include <algorithm>
#include <cstdint>
#include <vector>

namespace loom::sim {

struct Event {
  enum class Kind : uint8_t {
    ComputeDone,
    FlowDone,
    Arrive,
    StartCollective,
    BundleSent,
    BundleArrive,
    HostDone
  };
  double time;
  /// `time` as an integer in the same order (orderOf), and the count of
  /// events made before it (`seq`, below 2^61) with its kind in the low 3
  /// bits: 32 bytes an event, four children of a heap node in two cache
  /// lines.
  uint64_t order, seqKind;
  int32_t a;
  uint32_t b;
  Event(double time, uint64_t seq, Kind kind, int32_t a, uint32_t b)
      : time(time), order(orderOf(time)), seqKind(seq << 3 | uint64_t(kind)),
        a(a), b(b) {}
  Kind kind() const { return Kind(seqKind & 7); }
  uint64_t seq() const { return seqKind >> 3; }
  /// A double's bits as an unsigned integer in the doubles' order: the
  /// sign bit flipped on positives, every bit on negatives (-0 taken as
  /// +0, which it equals). Not NaN: a run with one is refused (trusted).
  static uint64_t orderOf(double time) {
    uint64_t bits = llvm::bit_cast<uint64_t>(time + 0.0);
    return bits >> 63 ? ~bits : bits | (uint64_t(1) << 63);
  }
  /// Taken first: earlier, or at the same time created first. One 128-bit
  /// comparison, so that choosing between events is a select, not a
  /// branch.
  bool before(const Event &other) const {
    return ((unsigned __int128)order << 64 | seqKind) <
           ((unsigned __int128)other.order << 64 | other.seqKind);
  }
};
static_assert(sizeof(Event) == 32, "four events to two cache lines");

/// The pending events, earliest first (Event::before), as a 4-ary heap: a
/// run pops an event for every task and flow (tens of millions in a
/// generated program) from a few hundred pending, and a binary heap's pop
/// (std::priority_queue's) was a fifth of a DiT search's CPU, most of it
/// mispredicted branches choosing the child to follow, one per level. Four
/// children a level halve the levels, and the earliest of them is chosen
/// without branches. (time, seq) orders the events totally, so they are
/// taken in std::priority_queue's order.
class EventHeap {
public:
  bool empty() const { return heap.empty(); }
  const Event &top() const { return heap.front(); }
  /// Every pending event, in no particular order.
  const std::vector<Event> &events() const { return heap; }
  void push(const Event &event) {
    size_t hole = heap.size();
    heap.push_back(event);
    while (hole > 0) {
      size_t parent = (hole - 1) / 4;
      if (!event.before(heap[parent]))
        break;
      heap[hole] = heap[parent];
      hole = parent;
    }
    heap[hole] = event;
  }
  void pop() {
    Event last = heap.back();
    heap.pop_back();
    size_t size = heap.size();
    if (size == 0)
      return;
    size_t hole = 0;
    for (;;) {
      size_t first = 4 * hole + 1;
      if (first >= size)
        break;
      // The earliest child, by arithmetic rather than jumps (the compiler
      // turns a conditional choice into a jump, mispredicted half the
      // time); of four, as the earlier of two pairs' earlier ones.
      size_t best;
      if (first + 4 <= size) {
        size_t x = first + heap[first + 1].before(heap[first]);
        size_t y = first + 2 + heap[first + 3].before(heap[first + 2]);
        best = x ^ ((x ^ y) & (0 - size_t(heap[y].before(heap[x]))));
      } else {
        best = first;
        for (size_t c = first + 1; c < size; ++c)
          best ^= (best ^ c) & (0 - size_t(heap[c].before(heap[best])));
      }
      if (!heap[best].before(last))
        break;
      heap[hole] = heap[best];
      hole = best;
    }
    heap[hole] = last;
  }

private:
  std::vector<Event> heap;
};

} // namespace loom::sim

#endif // LOOM_SIM_EVENTHEAP_H
