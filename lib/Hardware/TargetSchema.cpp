//===- TargetSchema.cpp - every figure of a target, declared once ---------===//

#include "loom/Hardware/TargetSchema.h"
#include "loom/Support/JsonReader.h"

#include <cmath>

using namespace loom;

namespace {

using FS = FileSection;
using IS = IrSection;
using Form = FigureForm;
using Range = FigureRange;

/// 2^53: doubles stop holding every whole number past it, and it is well
/// inside the 64-bit integers counts are read into.
constexpr double kMaxWhole = 9007199254740992.0;

constexpr double TargetDesc::*kNoReal = nullptr;
constexpr int64_t TargetDesc::*kNoWhole = nullptr;
constexpr double Calibration::*kNoCalibration = nullptr;

/// A figure the cost model reads into a double of TargetDesc.
constexpr TargetFigure priced(llvm::StringLiteral fileKey, FS fileSection,
                            Form form, llvm::StringLiteral unit, Range range,
                            llvm::StringLiteral irKey, IS irSection,
                              double TargetDesc::*member) {
  return {fileKey, fileSection, form,   true,   unit,
          range,   irKey,       irSection, member, kNoWhole, kNoCalibration};
}

/// A figure the cost model reads when the target file gives it; absent (0
/// in TargetDesc, the IR and a schedule) what needs it is refused.
constexpr TargetFigure optional(llvm::StringLiteral fileKey,
                                FS fileSection, llvm::StringLiteral unit,
                                Range range, llvm::StringLiteral irKey,
                                IS irSection, double TargetDesc::*member) {
  return {fileKey, fileSection, Form::Figure, false,  unit,
          range,   irKey,       irSection,    member, kNoWhole,
          kNoCalibration};
}

/// A calibration constant (targets/README.md, "Calibration").
constexpr TargetFigure fitted(llvm::StringLiteral key, llvm::StringLiteral unit,
                              Range range, double Calibration::*member) {
  return {key,   FS::Calibration, Form::Figure,   true,     unit, range,
          key,   IS::Calibration, kNoReal,        kNoWhole, member};
}

/// A figure only the target file records.
constexpr TargetFigure recorded(llvm::StringLiteral fileKey, FS fileSection,
                                bool required, llvm::StringLiteral unit,
                                Range range) {
  return {fileKey, fileSection, Form::Figure, required, unit, range,
          "",      IS::None,    kNoReal,      kNoWhole, kNoCalibration};
}

// The sections' keys, forms, units and whether they are required, as
// targets/README.md tabulates them. The ones the cost model reads come
// first, in the order of their attribute's parameters (LoomAttrs.td), which
// the schedule file's writer follows too.
constexpr TargetFigure figures[] = {
    // #loom.chip and a schedule's "chip".
    priced("peak_bf16", FS::Chip, Form::Figure, "FLOP/s", Range::Rate,
         "peak_bf16", IS::Chip, &TargetDesc::peakFlopsBf16),
    priced("peak_int8", FS::Chip, Form::Figure, "OP/s", Range::Rate, "peak_int8",
         IS::Chip, &TargetDesc::peakOpsInt8),
    {"mxu_columns", FS::Chip, Form::Figure, true, "elements", Range::Whole,
     "mxu_tile", IS::Chip, kNoReal, &TargetDesc::mxuTile, kNoCalibration},
    priced("mxu_fraction", FS::Efficiency, Form::Choice, "fraction",
         Range::Fraction, "mxu_efficiency", IS::Chip,
         &TargetDesc::flopEfficiency),
    priced("hbm_capacity", FS::Chip, Form::Figure, "bytes", Range::Whole,
         "hbm_capacity", IS::Chip, &TargetDesc::hbmBytes),
    priced("hbm_bandwidth", FS::Chip, Form::Figure, "bytes/s", Range::Rate,
         "hbm_bandwidth", IS::Chip, &TargetDesc::hbmBandwidth),
    priced("hbm_bandwidth_fraction", FS::Efficiency, Form::Choice, "fraction",
         Range::Fraction, "hbm_efficiency", IS::Chip,
         &TargetDesc::hbmEfficiency),
    // Each chip's link to its host's memory, where saved activations are
    // offloaded (docs/training.md, "Offload to host memory").
    optional("pcie_bandwidth_per_chip", FS::Host, "bytes/s", Range::Rate,
             "host_bandwidth", IS::Chip, &TargetDesc::hostBandwidth),
    optional("memory_per_chip", FS::Host, "bytes", Range::Whole,
             "host_memory", IS::Chip, &TargetDesc::hostBytes),
    // #loom.ici and a schedule's "ici".
    priced("link_bandwidth", FS::Interconnect, Form::Choice, "bytes/s",
         Range::Rate, "link_bandwidth", IS::Ici, &TargetDesc::linkBandwidth),
    priced("hop_latency", FS::Interconnect, Form::Choice, "s", Range::Latency,
         "hop_latency", IS::Ici, &TargetDesc::hopLatency),
    // A schedule's "dcn": the data-center network between slices, through
    // each host's NICs (docs/multislice.md); a target without them cannot
    // span slices.
    {"chips_per_host", FS::Host, Form::Figure, false, "chips", Range::Whole,
     "chips_per_host", IS::Dcn, kNoReal, &TargetDesc::chipsPerHost,
     kNoCalibration},
    optional("dcn_bandwidth", FS::Host, "bytes/s", Range::Rate, "bandwidth",
             IS::Dcn, &TargetDesc::dcnBandwidth),
    optional("dcn_latency", FS::Host, "s", Range::Latency, "latency", IS::Dcn,
             &TargetDesc::dcnLatency),
    // #loom.calibration and a schedule's "calibration".
    fitted("program_dispatch", "s", Range::FixedCost,
           &Calibration::programDispatch),
    fitted("kernel_step", "s", Range::FixedCost, &Calibration::kernelStep),
    fitted("collective_sync", "s", Range::FixedCost,
           &Calibration::collectiveSync),
    fitted("link_efficiency_ring", "fraction", Range::Fraction,
           &Calibration::ringEfficiency),
    fitted("link_efficiency_line", "fraction", Range::Fraction,
           &Calibration::lineEfficiency),
    // The pod's size bounds its topologies; the IR carries one topology.
    {"max_chips", FS::Pod, Form::Figure, true, "chips", Range::Whole, "",
     IS::None, kNoReal, &TargetDesc::maxChips, kNoCalibration},
    // Recorded with their sources, not read by the cost model.
    recorded("tensorcores", FS::Chip, true, "count", Range::Whole),
    recorded("mxus_per_tensorcore", FS::Chip, true, "count", Range::Whole),
    recorded("mxu_rows", FS::Chip, true, "elements", Range::Whole),
    recorded("vmem_capacity_per_tensorcore", FS::Chip, true, "bytes",
             Range::Whole),
    recorded("hbm_transfer_rate", FS::Chip, false, "transfers/s", Range::Rate),
    // Derived by the cost model from peak_bf16; the target file's reader
    // checks that a stated one agrees.
    recorded("vpu_ops", FS::Chip, false, "FLOP/s", Range::Rate),
    recorded("links_per_chip", FS::Interconnect, true, "links", Range::Whole),
    recorded("chip_bandwidth", FS::Interconnect, true, "bytes/s", Range::Rate),
    recorded("latency_bound_below", FS::Interconnect, true, "bytes",
             Range::Whole),
    recorded("nics", FS::Host, false, "count", Range::Whole),
    recorded("dram", FS::Host, false, "bytes", Range::Whole),
    recorded("hosts", FS::Pod, true, "hosts", Range::Whole),
    recorded("racks", FS::Pod, false, "count", Range::Whole),
    recorded("sides_per_rack", FS::Pod, false, "count", Range::Whole),
    recorded("sleds_per_side", FS::Pod, false, "count", Range::Whole),
    recorded("chips_per_sled", FS::Pod, false, "chips", Range::Whole),
    recorded("chips_per_rack", FS::Pod, false, "chips", Range::Whole),
    recorded("bisection_bandwidth", FS::Pod, false, "bytes/s", Range::Rate),
    recorded("allreduce_bandwidth", FS::Pod, false, "bytes/s", Range::Rate),
};

} // namespace

double TargetFigure::get(const TargetDesc &target) const {
  if (real)
    return target.*real;
  if (whole)
    return double(target.*whole);
  if (calibration)
    return target.calibration.*calibration;
  return 0;
}

void TargetFigure::set(TargetDesc &target, double value) const {
  if (real)
    target.*real = value;
  // Casting a double outside int64_t's range (or infinite) would be
  // undefined; check() refuses such a value, and the reader fails.
  if (whole)
    target.*whole = std::fabs(value) < 9.2e18 && value == std::floor(value)
                        ? static_cast<int64_t>(value)
                        : 0;
  if (calibration)
    target.calibration.*calibration = value;
}

std::string TargetFigure::describeRange() const {
  switch (range) {
  case Range::Rate:
    return "at least 1 " + unit.str();
  case Range::Latency:
    return "in (0, 1] s";
  case Range::FixedCost:
    return "in [0, 1] s";
  case Range::Fraction:
    return "a fraction in [0.01, 1]";
  case Range::Whole:
    return "a whole number" + (unit == "count" ? "" : " of " + unit.str()) +
           " in [1, 2^53]";
  }
  return "";
}

std::string TargetFigure::check(double value) const {
  // JSON reads a number past the double range (2e5679) as infinity.
  if (!std::isfinite(value))
    return "must be a finite number";
  // No rate below one per second, no latency or fixed cost above a second,
  // no efficiency below 1%: the bounds that keep derived times finite.
  bool ok = false;
  switch (range) {
  case Range::Rate:
    ok = value >= 1;
    break;
  case Range::Latency:
    ok = value > 0 && value <= 1;
    break;
  case Range::FixedCost:
    ok = value >= 0 && value <= 1;
    break;
  case Range::Fraction:
    ok = value >= 0.01 && value <= 1;
    break;
  case Range::Whole:
    ok = value >= 1 && value <= kMaxWhole && value == std::floor(value);
    break;
  }
  return ok ? "" : "must be " + describeRange() + ", got " + showNumber(value);
}

llvm::ArrayRef<TargetFigure> loom::getTargetFigures() { return figures; }

llvm::SmallVector<const TargetFigure *, 16>
loom::getFileFigures(FileSection section) {
  llvm::SmallVector<const TargetFigure *, 16> result;
  for (const TargetFigure &figure : figures)
    if (figure.fileSection == section)
      result.push_back(&figure);
  return result;
}

llvm::SmallVector<const TargetFigure *, 8> loom::getIrFigures(IrSection section) {
  llvm::SmallVector<const TargetFigure *, 8> result;
  for (const TargetFigure &figure : figures)
    if (section != IrSection::None && figure.irSection == section)
      result.push_back(&figure);
  return result;
}

const TargetFigure *loom::findIrFigure(IrSection section, llvm::StringRef key) {
  for (const TargetFigure *figure : getIrFigures(section))
    if (figure->irKey == key)
      return figure;
  return nullptr;
}

std::string loom::listIrKeys(IrSection section, llvm::StringRef last,
                             bool requiredOnly) {
  llvm::SmallVector<const TargetFigure *, 8> keys = getIrFigures(section);
  if (requiredOnly)
    llvm::erase_if(keys, [](const TargetFigure *f) { return !f->required; });
  std::string text;
  for (auto [i, figure] : llvm::enumerate(keys)) {
    if (i > 0)
      text += i + 1 == keys.size() ? last.str() : ", ";
    text += figure->irKey.str();
  }
  return text;
}
