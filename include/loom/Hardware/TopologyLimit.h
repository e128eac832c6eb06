//===- TopologyLimit.h - the largest topology Loom accepts ------*- C++ -*-===//

#ifndef LOOM_HARDWARE_TOPOLOGYLIMIT_H
#define LOOM_HARDWARE_TOPOLOGYLIMIT_H

#include <cstdint>

namespace loom {

/// The largest torus Loom accepts, in #loom.target and in schedule files:
/// far beyond any TPU pod (v5p: 8960 chips), small enough that chip
/// counts and per-link state stay bounded.
constexpr int64_t kMaxTopologyChips = int64_t(1) << 20;

} // namespace loom

#endif // LOOM_HARDWARE_TOPOLOGYLIMIT_H
