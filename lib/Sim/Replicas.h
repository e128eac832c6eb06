//===- Replicas.h - replicas the simulator runs once ------------*- C++ -*-===//
//
// A data-parallel inference plan's replicas run the same program on chips
// of their own and never meet. When a schedule's chips fall into such
// groups (no message or collective between two of them), each holding the
// first group's programs task for task, chip for chip (their peers, groups
// and tags the corresponding chips' and tags), the run of the first group
// alone is the run of each, provided no flow of one group can share a link
// with another's: the simulator (Simulator.cpp) checks that each route the
// first group takes has, in every other group, a corresponding route of as
// many links, the links corresponding one to one and never shared between
// groups; then it runs the first group and copies its figures to the
// others' chips and links.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_LIB_SIM_REPLICAS_H
#define LOOM_LIB_SIM_REPLICAS_H

#include "loom/Schedule/Schedule.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace loom::sim {

/// Groups of a schedule's chips that run what the first group runs.
struct Replicas {
  /// The groups, the first included.
  int64_t copies = 1;
  /// Per chip (its index in Schedule::chips): the index of the chip of the
  /// first group whose program it runs (itself for the first group's
  /// chips, and for a chip without tasks, which is in no group).
  std::vector<int32_t> twin;
  /// Per group: the chip ids of its chips, the k-th running what the first
  /// group's k-th runs.
  std::vector<std::vector<int64_t>> ids;

  bool runs(size_t chip) const { return twin[chip] == int32_t(chip); }
};

/// The schedule's replicas when its chips fall into two or more groups
/// alike as above, on one slice, with no host transfer; none otherwise.
/// Linear in the schedule's tasks.
std::optional<Replicas> findReplicas(const schedule::Schedule &schedule);

} // namespace loom::sim

#endif // LOOM_LIB_SIM_REPLICAS_H
