//===- TargetDesc.h - a TPU target described by data ------------*- C++ -*-===//
//
// A target is data, not code: a JSON file (targets/*.json, also compiled
// in) loaded into a TargetDesc. The passes, the cost model and the
// simulator all read the same TargetDesc. targets/README.md documents the
// file format; every figure in the files names its source.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_HARDWARE_TARGETDESC_H
#define LOOM_HARDWARE_TARGETDESC_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <string>
#include <vector>

namespace loom {

/// A named topology of a pod: `v5e-16` is a 4x4 torus. With `slices`
/// above 1 (spelled `4xv5e-256`, parseTopology) it is that many such
/// slices joined by the data-center network (DCN) through their hosts'
/// NICs (docs/multislice.md); chips are numbered slice-major, each slice's
/// in row-major order of `shape`.
struct TopologyDesc {
  std::string name;
  llvm::SmallVector<int64_t, 3> shape;
  int64_t slices = 1;

  /// The chips of one slice.
  int64_t sliceChips() const;
  /// The chips of every slice.
  int64_t numChips() const;
  /// `count` slices of this one: slices set and the name `<count>x<name>`
  /// (the name alone for one).
  TopologyDesc times(int64_t count) const {
    TopologyDesc many = *this;
    many.slices = count;
    if (count > 1)
      many.name = std::to_string(count) + "x" + name;
    return many;
  }
  /// The problem with `chipsPerHost` on slices of `sliceChips` (empty when
  /// none): the chips of a host share its NICs, so hosts tile a slice, or a
  /// slice is part of one host (v5e-4: half of one).
  static std::string hostProblem(int64_t chipsPerHost, int64_t sliceChips) {
    if (chipsPerHost > 0 && sliceChips > 0 &&
        (sliceChips % chipsPerHost == 0 || chipsPerHost % sliceChips == 0))
      return "";
    return std::to_string(chipsPerHost) +
           " chips per host neither divide a slice's " +
           std::to_string(sliceChips) + " chips nor are a multiple of them";
  }
  /// Whether replicas of `stages` stages of `stageChips` chips each tile
  /// every slice (DeviceMesh::build's rule): a replica within one slice
  /// divides it; a larger one spans whole slices, an equal run of its
  /// stages on each, and the slices it spans divide the slice count.
  bool tiledBy(int64_t stages, int64_t stageChips) const {
    int64_t each = sliceChips();
    // (A stage's group lies within a slice; the bounds keep the product
    // from overflowing.)
    if (stages < 1 || stageChips < 1 || stageChips > each ||
        stages > numChips())
      return false;
    int64_t replica = stages * stageChips;
    if (replica <= each)
      return each % replica == 0;
    int64_t spanned = replica / each;
    return replica % each == 0 && slices % spanned == 0 &&
           stages % spanned == 0;
  }
  /// What a group within one slice is placed on: the name, or "a slice of
  /// <name>" on several slices (for messages).
  std::string sliceName() const {
    return slices > 1 ? "a slice of " + name : name;
  }
};

/// The constants bench/calibrate.py fits from published measurements
/// (targets/README.md, "Calibration"), and which fit they are. A target
/// without a calibration section is nominal: no fixed costs, links at the
/// bandwidth the file gives.
struct Calibration {
  /// The target file the figures were read from ("targets/tpu-v5e.json" for
  /// a bundled one); empty when not known (IR written by hand).
  std::string file;
  /// The fit's name and version; "nominal" and 0 for an uncalibrated target.
  std::string name = "nominal";
  int64_t version = 0;
  double programDispatch = 0; ///< s, once per program (host launch)
  double kernelStep = 0;      ///< s, once per compute task (kernel step)
  double collectiveSync = 0;  ///< s, once per collective (start/done sync)
  double ringEfficiency = 1;  ///< fraction of link bandwidth, ring steps
  double lineEfficiency = 1;  ///< the same on a line (no wraparound)

  bool isNominal() const { return version == 0; }
};

/// The figures of one chip kind and its interconnect, in SI units (bytes,
/// seconds, FLOP/s). Where the file holds a nominal and a measured figure,
/// these are the ones it says to use.
struct TargetDesc {
  std::string name;

  // Compute.
  double peakFlopsBf16 = 0; ///< FLOP/s
  double peakOpsInt8 = 0;   ///< OP/s
  double flopEfficiency = 0; ///< achievable fraction of peak
  int64_t mxuTile = 0;       ///< MXU edge; matmul dims pad to it

  // Memory.
  double hbmBytes = 0;      ///< capacity per chip
  double hbmBandwidth = 0;  ///< bytes/s per chip
  double hbmEfficiency = 0; ///< achievable fraction of the bandwidth

  // Host: each chip's PCIe link to its host's memory (activation offload).
  double hostBandwidth = 0; ///< bytes/s, each direction; 0 when unknown
  double hostBytes = 0;     ///< host memory one chip may fill; 0 when unknown

  // Data-center network (DCN) between slices, through each host's NICs;
  // 0 when unknown, and then no topology of several slices is priced.
  int64_t chipsPerHost = 0; ///< chips sharing one host's NICs
  double dcnBandwidth = 0;  ///< bytes/s per host, each direction
  double dcnLatency = 0;    ///< seconds, one message across the DCN

  /// The DCN figure a topology of several slices needs and this target
  /// lacks ("chips_per_host", "dcn_bandwidth" or "dcn_latency", as the
  /// target file spells it); empty when it has them all.
  llvm::StringRef missingDcnFigure() const;

  // Interconnect.
  double linkBandwidth = 0; ///< bytes/s, one direction of one link
  double hopLatency = 0;    ///< seconds per hop
  /// Which axes of a topology have wraparound links.
  struct WrapRule {
    enum class Kind {
      /// Every axis of more than two chips wraps; or none does.
      Always,
      Never,
      /// An axis wraps when it has at least `sizes[0]` chips (v5e: 16).
      AxisSizeAtLeast,
      /// Every axis wraps when the topology is made of whole cubes of
      /// `sizes` (v5p: 4x4x4), none otherwise.
      WholeCubes,
      /// The axes listed in `sizes` wrap (a target materialized for one
      /// topology, as #loom.target carries it).
      ListedAxes,
    };
    Kind kind = Kind::AxisSizeAtLeast;
    llvm::SmallVector<int64_t, 3> sizes;
  };
  WrapRule wrap;
  int64_t maxChips = 0;

  std::vector<TopologyDesc> topologies;

  Calibration calibration;

  /// The topology with this name ("v5e-16") or shape; null when there is none.
  const TopologyDesc *findTopology(llvm::StringRef name) const;
  const TopologyDesc *findTopology(llvm::ArrayRef<int64_t> shape) const;
  /// "v5e-1 (1x1), v5e-4 (2x2), ..." for diagnostics.
  std::string listTopologies() const;
  /// Whether `axis` of `topology` has a wraparound link. An axis of one or two
  /// chips never counts as wrapping: its ends are already neighbours.
  bool axisWraps(llvm::ArrayRef<int64_t> topology, unsigned axis) const;
  /// Peak FLOP/s for an element width in bits (8: int8; otherwise bf16;
  /// f32 is assumed to run at the bf16 rate).
  double peakFor(unsigned elementBits) const {
    return elementBits == 8 ? peakOpsInt8 : peakFlopsBf16;
  }
};

/// Parses a topology as a user spells it: a topology of `target` by name
/// ("v5e-256") or, for several slices, `<N>x<name>` ("4xv5e-256": N >= 1
/// slices of that topology). The error says what is wrong: an unknown name
/// (listing the valid ones), a slice count that is not an integer of at
/// least 1, or several slices on a target without DCN figures (naming the
/// missing one).
llvm::Expected<TopologyDesc> parseTopology(const TargetDesc &target,
                                           llvm::StringRef spelling);

/// Parses a target file. Errors name the JSON path of the offending field
/// (e.g. `$.chip.hbm_bandwidth.measured.value: must be positive`): unknown
/// keys, missing keys, wrong types and non-positive figures are all
/// rejected.
llvm::Expected<TargetDesc> parseTargetDesc(llvm::StringRef json,
                                           llvm::StringRef fileName);

/// Reads and parses a target file from disk.
llvm::Expected<TargetDesc> loadTargetFile(llvm::StringRef path);

/// The targets compiled into Loom (targets/*.json), e.g. "tpu-v5e".
llvm::ArrayRef<TargetDesc> getBundledTargets();

/// A bundled target, by name; null when there is none. The bundled table
/// is immutable: a user's target file is loaded with loadTargetFile and
/// travels in the IR as #loom.target, never through global state.
const TargetDesc *lookupTarget(llvm::StringRef name);

/// The bundled target with a topology of this name ("v5e-16") and the
/// topology; {null, null} when no target has it.
std::pair<const TargetDesc *, const TopologyDesc *>
lookupTopology(llvm::StringRef topologyName);

/// "tpu-v5e, tpu-v5p, ..." for diagnostics.
std::string listTargets();

} // namespace loom

#endif // LOOM_HARDWARE_TARGETDESC_H
