//===- TargetSchema.h - every figure of a target, declared once -*- C++ -*-===//
//
// A target's figures are read in three places: the target file
// (targets/*.json), the "target" object of a schedule file, and the IR's
// #loom.chip / #loom.ici / #loom.calibration attributes. Each figure is
// declared once here, with its key in each place, its unit, its range and
// the TargetDesc member it fills. The three checkers iterate this table, so
// a figure out of range is refused for the same reason wherever it is read.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_HARDWARE_TARGETSCHEMA_H
#define LOOM_HARDWARE_TARGETSCHEMA_H

#include "loom/Hardware/TargetDesc.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <string>

namespace loom {

/// A section of a target file that holds figures (targets/README.md).
enum class FileSection : uint8_t {
  Chip,
  Interconnect,
  Host,
  Pod,
  Efficiency,
  Calibration
};

/// The object that carries a figure in the IR and in a schedule file:
/// #loom.chip and "chip", #loom.ici and "ici", #loom.calibration and
/// "calibration"; Dcn only a schedule's "dcn" (the network between slices,
/// read by loom-sim). None: the target file records it, the cost model
/// does not read it.
enum class IrSection : uint8_t { None, Chip, Ici, Calibration, Dcn };

/// How a target file states a figure (targets/README.md, "Value kinds").
enum class FigureForm : uint8_t {
  Figure, ///< {value, unit, source}
  Choice, ///< {nominal | measured | assumed | fitted, use, why}
};

/// The values a figure may take. These are Loom's sanity bounds, not
/// hardware figures: they keep every time the cost model and the simulator
/// derive finite, and every count exact in a double.
enum class FigureRange : uint8_t {
  Rate,      ///< per second, at least 1
  Latency,   ///< seconds in (0, 1]
  FixedCost, ///< seconds in [0, 1]; a nominal target has none
  Fraction,  ///< a fraction in [0.01, 1]
  Whole,     ///< a whole number in [1, 2^53]
};

/// One figure of a target.
struct TargetFigure {
  /// Its key and section in a target file, its form there, and whether the
  /// section must have it.
  llvm::StringLiteral fileKey;
  FileSection fileSection;
  FigureForm form;
  bool required;
  /// The unit a target file must spell; the range every reader checks.
  llvm::StringLiteral unit;
  FigureRange range;
  /// Its key in the IR and in a schedule file; empty when IrSection::None.
  llvm::StringLiteral irKey;
  IrSection irSection;
  /// The member of TargetDesc it fills: at most one is set.
  double TargetDesc::*real;
  int64_t TargetDesc::*whole;
  double Calibration::*calibration;

  bool hasMember() const { return real || whole || calibration; }
  /// The member's value; 0 for a figure without one.
  double get(const TargetDesc &target) const;
  /// Sets the member (a Whole figure no int64_t holds reads as 0); does
  /// nothing for a figure without one.
  void set(TargetDesc &target, double value) const;
  /// "" when `value` is in range; otherwise what is wrong, as
  /// "must be <range>, got <value>".
  std::string check(double value) const;
  /// The range in words: "at least 1 FLOP/s", "a fraction in [0.01, 1]".
  std::string describeRange() const;
};

/// Every figure of a target. The ones the cost model reads come first, in
/// the order of their attribute's parameters.
llvm::ArrayRef<TargetFigure> getTargetFigures();

/// The figures of one section of a target file, or of one IR object, in
/// table order.
llvm::SmallVector<const TargetFigure *, 16> getFileFigures(FileSection section);
llvm::SmallVector<const TargetFigure *, 8> getIrFigures(IrSection section);

/// The figure `key` of an IR object; null when it has none of that name.
const TargetFigure *findIrFigure(IrSection section, llvm::StringRef key);

/// The IR keys of a section joined for a message: "link_bandwidth, hop_latency"
/// with `last` = ", ", or "link_bandwidth and hop_latency" with " and ".
/// With `requiredOnly`, those an IR object or schedule must state (an
/// optional figure, such as the host link's, may be absent: 0).
std::string listIrKeys(IrSection section, llvm::StringRef last = ", ",
                       bool requiredOnly = false);

} // namespace loom

#endif // LOOM_HARDWARE_TARGETSCHEMA_H
