//===- LoomDialect.cpp - the loom dialect ---------------------------------===//

#include "loom/Dialect/Loom/LoomDialect.h"
#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Hardware/TargetSchema.h"
#include "loom/Hardware/TopologyLimit.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include <cmath>
#include <cstdio>
#include <cstdlib>

using namespace mlir;
using namespace loom;

#include "loom/Dialect/Loom/LoomDialect.cpp.inc"
#include "loom/Dialect/Loom/LoomEnums.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "loom/Dialect/Loom/LoomAttrs.cpp.inc"

void LoomDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "loom/Dialect/Loom/LoomOps.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "loom/Dialect/Loom/LoomAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// Parameters: figures and flags
//===----------------------------------------------------------------------===//

FailureOr<APFloat> loom::parseFigure(AsmParser &parser) {
  double value;
  if (parser.parseFloat(value))
    return failure();
  return APFloat(value);
}

void loom::printFigure(AsmPrinter &printer, const APFloat &figure) {
  double value = figure.convertToDouble();
  // The shortest %g form that reads back as the same double.
  for (int precision = 6; precision <= 17; ++precision) {
    char buffer[32];
    std::snprintf(buffer, sizeof(buffer), "%.*g", precision, value);
    std::string text = buffer;
    if (std::strtod(buffer, nullptr) == value || precision == 17) {
      // MLIR's float literals need a decimal point ("1e-06" lexes as an
      // integer): write "1.0e-06", "128.0".
      if (std::isfinite(value) && text.find('.') == std::string::npos) {
        size_t exponent = text.find_first_of("eE");
        text.insert(exponent == std::string::npos ? text.size() : exponent,
                    ".0");
      }
      printer << text;
      return;
    }
  }
}

FailureOr<bool> loom::parseFlag(AsmParser &parser) {
  StringRef word;
  SMLoc loc = parser.getCurrentLocation();
  if (parser.parseKeyword(&word))
    return failure();
  if (word == "true" || word == "false")
    return word == "true";
  return parser.emitError(loc, "expected true or false, got '") << word << "'";
}

/// An attribute's figures as doubles, in the order of its parameters. That
/// is the order the target schema lists the section's figures in
/// (loom/Hardware/TargetSchema.h; TargetSchemaTest checks it), so the
/// schema's keys, ranges and TargetDesc members apply to them by position.
static SmallVector<double, 8> figures(std::initializer_list<APFloat> params) {
  SmallVector<double, 8> values;
  for (const APFloat &param : params)
    values.push_back(param.convertToDouble());
  return values;
}

/// Checks an attribute's figures against the ranges the schema declares,
/// the ones the target file and the schedule file are read with.
static LogicalResult
checkFigures(llvm::function_ref<InFlightDiagnostic()> emitError,
             IrSection section, ArrayRef<double> values) {
  for (auto [figure, value] : llvm::zip_equal(getIrFigures(section), values)) {
    if (!figure->required && value == 0)
      continue; // an optional figure the target does not give
    std::string problem = figure->check(value);
    if (!problem.empty())
      return emitError() << figure->irKey << " " << problem;
  }
  return success();
}

/// Sets the TargetDesc members the schema names for an attribute's figures.
static void setFigures(TargetDesc &desc, IrSection section,
                       ArrayRef<double> values) {
  for (auto [figure, value] : llvm::zip_equal(getIrFigures(section), values))
    figure->set(desc, value);
}

//===----------------------------------------------------------------------===//
// ChipAttr, InterconnectAttr, CalibrationAttr
//===----------------------------------------------------------------------===//

LogicalResult ChipAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               APFloat peakBf16, APFloat peakInt8,
                               int64_t mxuTile, APFloat mxuEfficiency,
                               APFloat hbmCapacity, APFloat hbmBandwidth,
                               APFloat hbmEfficiency, APFloat hostBandwidth,
                               APFloat hostMemory) {
  // An mxu_tile past 2^53 reads inexactly, but still past 2^53: refused.
  return checkFigures(emitError, IrSection::Chip,
                      figures({peakBf16, peakInt8, APFloat(double(mxuTile)),
                               mxuEfficiency, hbmCapacity, hbmBandwidth,
                               hbmEfficiency, hostBandwidth, hostMemory}));
}

LogicalResult
InterconnectAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         APFloat linkBandwidth, APFloat hopLatency) {
  return checkFigures(emitError, IrSection::Ici,
                      figures({linkBandwidth, hopLatency}));
}

LogicalResult
CalibrationAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                        StringRef file, StringRef name, int64_t version,
                        APFloat programDispatch, APFloat kernelStep,
                        APFloat collectiveSync, APFloat ringEfficiency,
                        APFloat lineEfficiency) {
  if (name.empty() || version < 0)
    return emitError() << "a calibration needs a name and a version >= 0";
  return checkFigures(emitError, IrSection::Calibration,
                      figures({programDispatch, kernelStep, collectiveSync,
                               ringEfficiency, lineEfficiency}));
}

LogicalResult DcnAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                              int64_t slices, int64_t chipsPerHost,
                              APFloat bandwidth, APFloat latency) {
  if (slices < 2)
    return emitError() << "a #loom.dcn joins 2 or more slices, got " << slices;
  // Every DCN figure is required here: a target without them spans no
  // slices.
  SmallVector<double, 8> values =
      figures({APFloat(double(chipsPerHost)), bandwidth, latency});
  for (auto [figure, value] :
       llvm::zip_equal(getIrFigures(IrSection::Dcn), values))
    if (value <= 0)
      return emitError() << "a #loom.dcn needs its " << figure->irKey;
  return checkFigures(emitError, IrSection::Dcn, values);
}

static CalibrationAttr makeCalibration(MLIRContext *context,
                                       const Calibration &c) {
  return CalibrationAttr::get(
      context, c.file, c.name, c.version, APFloat(c.programDispatch),
      APFloat(c.kernelStep), APFloat(c.collectiveSync),
      APFloat(c.ringEfficiency), APFloat(c.lineEfficiency));
}

//===----------------------------------------------------------------------===//
// TargetAttr
//===----------------------------------------------------------------------===//

LogicalResult TargetAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 StringRef name, StringRef topology,
                                 ArrayRef<int64_t> shape,
                                 ArrayRef<int64_t> wrapAxes, ChipAttr chip,
                                 InterconnectAttr ici,
                                 CalibrationAttr calibration, DcnAttr dcn) {
  if (name.empty() || topology.empty())
    return emitError() << "a target needs a name and a topology name";
  if (shape.empty())
    return emitError() << "topology " << topology << " needs a shape";
  Count chips = 1;
  for (int64_t extent : shape) {
    if (extent < 1)
      return emitError() << "topology " << topology
                         << " has an axis of " << extent << " chips";
    chips *= extent;
  }
  if (dcn) {
    if (std::string problem =
            TopologyDesc::hostProblem(dcn.getChipsPerHost(), chips.get());
        !problem.empty())
      return emitError() << problem;
    chips *= dcn.getSlices();
  }
  if (chips.get() > kMaxTopologyChips)
    return emitError() << "topology " << topology << " has "
                       << describeCount(chips.get())
                       << " chips; Loom plans at most " << kMaxTopologyChips;
  for (auto [i, axis] : llvm::enumerate(wrapAxes))
    if (axis < 0 || axis >= int64_t(shape.size()) ||
        (i > 0 && axis <= wrapAxes[i - 1]))
      return emitError() << "wrap_axes must list axes of the " << shape.size()
                         << "-D shape in increasing order";
  if (!chip || !ici || !calibration)
    return emitError() << "a target needs its chip, ici and calibration";
  return success();
}

TargetAttr TargetAttr::getChecked(function_ref<InFlightDiagnostic()> emitError,
                                  MLIRContext *context,
                                  const TargetDesc &target,
                                  const TopologyDesc &topology) {
  SmallVector<int64_t> wrapAxes;
  for (unsigned axis = 0; axis < topology.shape.size(); ++axis)
    if (target.axisWraps(topology.shape, axis))
      wrapAxes.push_back(axis);
  auto chip = ChipAttr::getChecked(
      emitError, context, APFloat(target.peakFlopsBf16),
      APFloat(target.peakOpsInt8), target.mxuTile,
      APFloat(target.flopEfficiency), APFloat(target.hbmBytes),
      APFloat(target.hbmBandwidth), APFloat(target.hbmEfficiency),
      APFloat(target.hostBandwidth), APFloat(target.hostBytes));
  auto ici = InterconnectAttr::getChecked(emitError, context,
                                          APFloat(target.linkBandwidth),
                                          APFloat(target.hopLatency));
  const Calibration &c = target.calibration;
  auto calibration = CalibrationAttr::getChecked(
      emitError, context, c.file, c.name, c.version,
      APFloat(c.programDispatch), APFloat(c.kernelStep),
      APFloat(c.collectiveSync), APFloat(c.ringEfficiency),
      APFloat(c.lineEfficiency));
  if (!chip || !ici || !calibration)
    return {};
  DcnAttr dcn;
  if (topology.slices > 1) {
    dcn = DcnAttr::getChecked(emitError, context, topology.slices,
                              target.chipsPerHost,
                              APFloat(target.dcnBandwidth),
                              APFloat(target.dcnLatency));
    if (!dcn)
      return {};
  }
  return TargetAttr::getChecked(emitError, context, target.name,
                                topology.name, topology.shape, wrapAxes, chip,
                                ici, calibration, dcn);
}

TargetAttr TargetAttr::get(MLIRContext *context, const TargetDesc &target,
                           const TopologyDesc &topology) {
  // Figures from a loaded target file or the bundled ones are in range.
  return getChecked([context] { return emitError(UnknownLoc::get(context)); },
                    context, target, topology);
}

TargetDesc TargetAttr::getDesc() const {
  TargetDesc desc;
  desc.name = getName().str();
  ChipAttr chip = getChip();
  setFigures(desc, IrSection::Chip,
             figures({chip.getPeakBf16(), chip.getPeakInt8(),
                      APFloat(double(chip.getMxuTile())),
                      chip.getMxuEfficiency(), chip.getHbmCapacity(),
                      chip.getHbmBandwidth(), chip.getHbmEfficiency(),
                      chip.getHostBandwidth(), chip.getHostMemory()}));
  setFigures(desc, IrSection::Ici,
             figures({getIci().getLinkBandwidth(), getIci().getHopLatency()}));
  CalibrationAttr c = getCalibration();
  desc.calibration.file = c.getFile().str();
  desc.calibration.name = c.getName().str();
  desc.calibration.version = c.getVersion();
  setFigures(desc, IrSection::Calibration,
             figures({c.getProgramDispatch(), c.getKernelStep(),
                      c.getCollectiveSync(), c.getLinkEfficiencyRing(),
                      c.getLinkEfficiencyLine()}));
  if (DcnAttr dcn = getDcn()) {
    desc.chipsPerHost = dcn.getChipsPerHost();
    desc.dcnBandwidth = dcn.getBandwidth().convertToDouble();
    desc.dcnLatency = dcn.getLatency().convertToDouble();
  }
  desc.wrap.kind = TargetDesc::WrapRule::Kind::ListedAxes;
  desc.wrap.sizes.assign(getWrapAxes().begin(), getWrapAxes().end());
  desc.maxChips = getNumChips();
  desc.topologies.push_back(getTopologyDesc());
  return desc;
}

TopologyDesc TargetAttr::getTopologyDesc() const {
  TopologyDesc topology;
  topology.name = getTopology().str();
  topology.shape.assign(getShape().begin(), getShape().end());
  if (DcnAttr dcn = getDcn())
    topology.slices = dcn.getSlices();
  return topology;
}

int64_t TargetAttr::getNumChips() const {
  int64_t chips = getDcn() ? getDcn().getSlices() : 1;
  for (int64_t extent : getShape())
    chips *= extent;
  return chips;
}

static std::string joinShape(ArrayRef<int64_t> shape) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::interleave(shape, os, "x");
  return text;
}

/// `#loom.target<"name", key = value, ...>`: in full (topology, shape,
/// wrap_axes, chip, ici), or for a bundled target with only a topology name
/// or a shape, completed from the bundled file.
Attribute TargetAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  std::string name, topology;
  std::optional<SmallVector<int64_t>> shape, wrapAxes;
  ChipAttr chip;
  InterconnectAttr ici;
  CalibrationAttr calibration;
  DcnAttr dcn;
  // `calibration = "nominal"`: a bundled target's figures without its fit.
  bool nominal = false;
  auto parseCalibration = [&]() -> ParseResult {
    std::string word;
    if (succeeded(parser.parseOptionalString(&word))) {
      if (word == "nominal")
        return nominal = true, success();
      return parser.emitError(parser.getCurrentLocation(),
                              "a calibration is \"nominal\" or a "
                              "#loom.calibration");
    }
    return parser.parseAttribute(calibration);
  };
  auto parseInts = [&](std::optional<SmallVector<int64_t>> &into) {
    into.emplace();
    return parser.parseCommaSeparatedList(
        AsmParser::Delimiter::Square, [&]() -> ParseResult {
          int64_t value;
          if (parser.parseInteger(value))
            return failure();
          into->push_back(value);
          return success();
        });
  };
  if (parser.parseLess() || parser.parseString(&name))
    return {};
  while (succeeded(parser.parseOptionalComma())) {
    StringRef key;
    SMLoc keyLoc = parser.getCurrentLocation();
    if (parser.parseKeyword(&key) || parser.parseEqual())
      return {};
    ParseResult parsed =
        key == "topology"    ? parser.parseString(&topology)
        : key == "shape"     ? parseInts(shape)
        : key == "wrap_axes" ? parseInts(wrapAxes)
        : key == "chip"      ? parser.parseAttribute(chip)
        : key == "ici"       ? parser.parseAttribute(ici)
        : key == "calibration" ? parseCalibration()
        : key == "dcn"         ? parser.parseAttribute(dcn)
                               : (parser.emitError(keyLoc)
                                      << "unknown key '" << key
                                      << "' (known: topology, shape, "
                                         "wrap_axes, chip, ici, calibration, "
                                         "dcn)",
                                  failure());
    if (failed(parsed))
      return {};
  }
  if (parser.parseGreater())
    return {};
  MLIRContext *context = parser.getContext();
  auto error = [&] { return parser.emitError(loc); };
  if (chip && ici) {
    if (!shape)
      return error() << "target '" << name << "' needs a shape", Attribute();
    if (topology.empty())
      topology = joinShape(*shape);
    // Figures given without a calibration are nominal.
    if (!calibration || nominal)
      calibration = makeCalibration(context, Calibration());
    return getChecked(error, context, name, topology, *shape,
                      wrapAxes.value_or(SmallVector<int64_t>()), chip, ici,
                      calibration, dcn);
  }
  if (chip || ici || wrapAxes || calibration || dcn)
    return error() << "target '" << name
                   << "' gives some of its figures; give shape, wrap_axes, "
                      "chip and ici together, or none for a bundled target",
           Attribute();
  const TargetDesc *bundled = lookupTarget(name);
  if (!bundled)
    return error() << "unknown target '" << name << "' (bundled: "
                   << listTargets()
                   << "); give its figures, or set it with "
                      "loom-set-target=\"file=... topology=...\"",
           Attribute();
  const TopologyDesc *found = nullptr;
  // A topology of several slices ("4xv5e-256"): its slice's shape.
  std::optional<TopologyDesc> parsed;
  if (!topology.empty()) {
    found = bundled->findTopology(StringRef(topology));
    if (!found && !topology.empty() && llvm::isDigit(topology[0])) {
      llvm::Expected<TopologyDesc> named = parseTopology(*bundled, topology);
      if (!named)
        return error() << "target '" << name
                       << "': " << llvm::toString(named.takeError()),
               Attribute();
      parsed = std::move(*named);
      found = &*parsed;
    }
    if (!found)
      return error() << "target '" << name << "' has no topology '"
                     << topology << "'; valid: " << bundled->listTopologies(),
             Attribute();
    if (shape && ArrayRef<int64_t>(*shape) != ArrayRef<int64_t>(found->shape))
      return error() << "topology '" << topology << "' of '" << name
                     << "' is " << joinShape(found->shape) << ", not "
                     << joinShape(*shape),
             Attribute();
  } else if (shape) {
    found = bundled->findTopology(ArrayRef<int64_t>(*shape));
    if (!found)
      return error() << "target '" << name << "' has no " << joinShape(*shape)
                     << " topology; valid topologies: "
                     << bundled->listTopologies(),
             Attribute();
  } else {
    return error() << "target '" << name << "' needs a topology or a shape",
           Attribute();
  }
  if (!nominal)
    return TargetAttr::get(context, *bundled, *found);
  TargetDesc figures = *bundled;
  figures.calibration = Calibration();
  figures.calibration.file = bundled->calibration.file;
  return TargetAttr::get(context, figures, *found);
}

void TargetAttr::print(AsmPrinter &printer) const {
  printer << "<\"" << getName() << "\", topology = \"" << getTopology()
          << "\", shape = [";
  llvm::interleaveComma(getShape(), printer);
  printer << "], wrap_axes = [";
  llvm::interleaveComma(getWrapAxes(), printer);
  printer << "], chip = " << getChip() << ", ici = " << getIci()
          << ", calibration = " << getCalibration();
  if (getDcn())
    printer << ", dcn = " << getDcn();
  printer << ">";
}

//===----------------------------------------------------------------------===//
// ModelAttr, ParallelAttr
//===----------------------------------------------------------------------===//

LogicalResult ModelAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                StringRef name, StringRef family,
                                ModelMode mode, int64_t batch, int64_t seq,
                                int64_t resolution, int64_t textTokens,
                                int64_t steps, int64_t height, int64_t width,
                                int64_t frames) {
  if (batch < 1 || seq < 1)
    return emitError() << "a model's batch and seq must be positive, got "
                       << batch << " and " << seq;
  if (resolution < 0 || textTokens < 0 || steps < 0)
    return emitError()
           << "a model's resolution, text_tokens and steps cannot be negative";
  if (height < 0 || width < 0 || frames < 0)
    return emitError() << "a model's height, width and frames cannot be "
                          "negative";
  if (resolution > 0 && (height > 0 || width > 0))
    return emitError() << "a model has a square resolution or a height and "
                          "width, not both";
  if ((height > 0) != (width > 0) || (frames > 0 && height == 0))
    return emitError() << "a model's height and width go together, and "
                          "frames need both";
  bool diffusion = mode == ModelMode::diffusion;
  if (diffusion != (steps > 0))
    return emitError() << (diffusion ? "mode diffusion needs steps"
                                     : "steps belong to mode diffusion");
  return success();
}

LogicalResult
ParallelAttr::verify(function_ref<InFlightDiagnostic()> emitError, int64_t tp,
                     int64_t dp, bool sequenceParallel, int64_t ep,
                     int64_t sp, int64_t tpX, bool weightGathered,
                     bool epData, int64_t fsdp, int64_t zero,
                     int64_t kvBatch) {
  if (tp < 1 || dp < 1)
    return emitError() << "tp and dp must be positive, got " << tp << " and "
                       << dp;
  if (sp < 1)
    return emitError() << "sp must be positive, got " << sp;
  if (sp > 1 && sequenceParallel)
    return emitError() << "sp (Ulysses) and sequence_parallel (Megatron) both "
                          "split the sequence; choose one";
  if (ep < 1)
    return emitError() << "ep must be positive, got " << ep;
  if (epData && (ep < 2 || sp > 1))
    return emitError() << "ep_data gives the ep chips a group of their own "
                          "beside tp; it needs ep >= 2 and no sp, got ep = "
                       << ep << " and sp = " << sp;
  if (!epData && tp % ep != 0)
    return emitError() << "ep " << ep << " must divide tp " << tp
                       << ": expert parallelism runs over the "
                          "tensor-parallel group's chips (or over a group of "
                          "its own: ep_data)";
  if (sequenceParallel && tp < 2)
    return emitError() << "sequence_parallel splits activations across the "
                          "tensor-parallel group, so it needs tp >= 2";
  if (tpX < 1 || tp % tpX != 0)
    return emitError() << "tp_x " << tpX << " must divide tp " << tp
                       << ": the 2-D group is tp_x x (tp / tp_x) chips";
  if (tpX > 1 && (sp > 1 || ep > 1 || sequenceParallel))
    return emitError() << "a 2-D tensor-parallel group (tp_x = " << tpX
                       << ") runs without sp, ep or sequence_parallel";
  if (weightGathered && (tp < 2 || tpX > 1 || sp > 1 || ep > 1 ||
                         sequenceParallel))
    return emitError() << "weight_gathered splits the batch over the tp group "
                          "and gathers whole layers' weights: it needs tp >= 2 "
                          "and no tp_x, sp, ep or sequence_parallel, got tp = "
                       << tp;
  if (fsdp < 1 || dp % fsdp != 0)
    return emitError() << "fsdp " << fsdp << " must divide dp " << dp
                       << ": the model states are split within groups of "
                          "fsdp data-parallel replicas";
  if (zero < 0 || zero > 3 || (fsdp > 1) != (zero > 0))
    return emitError() << "zero " << zero << " with fsdp " << fsdp
                       << ": a group of fsdp > 1 replicas splits the model "
                          "states at ZeRO stage 1, 2 or 3; fsdp 1 has "
                          "zero 0";
  if (kvBatch < 1 || tp % kvBatch != 0)
    return emitError() << "kv_batch " << kvBatch << " must divide tp " << tp
                       << ": each KV head's cache is split over kv_batch of "
                          "the tensor-parallel chips computing it";
  if (kvBatch > 1 && (tpX > 1 || sp > 1 || weightGathered || sequenceParallel))
    return emitError() << "kv_batch splits the KV cache of 1-D tensor "
                          "parallelism; it runs without tp_x, sp, "
                          "weight_gathered or sequence_parallel";
  return success();
}

TargetAttr loom::getTarget(Operation *module) {
  return module->getAttrOfType<TargetAttr>(kTargetAttrName);
}
ModelAttr loom::getModel(Operation *module) {
  return module->getAttrOfType<ModelAttr>(kModelAttrName);
}
ParallelAttr loom::getParallel(Operation *module) {
  return module->getAttrOfType<ParallelAttr>(kParallelAttrName);
}
ParallelAttr loom::getParallelOrDefault(Operation *module) {
  if (ParallelAttr parallel = getParallel(module))
    return parallel;
  return ParallelAttr::get(module->getContext(), 1, 1, false, 1, 1, 1,
                           false, false, 1, 0, 1);
}
PipelineAttr loom::getPipeline(Operation *func) {
  return func->getAttrOfType<PipelineAttr>(kPipelineAttrName);
}
Placement loom::getPlacementOrDefault(Operation *module) {
  if (auto placement = module->getAttrOfType<PlacementAttr>(kPlacementAttrName))
    return placement.getPlacement();
  return {};
}

//===----------------------------------------------------------------------===//
// PlacementAttr
//===----------------------------------------------------------------------===//

LogicalResult
PlacementAttr::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                      int64_t blockRows, int64_t blockCols, bool sequenceInner,
                      int64_t innerRows, int64_t innerCols,
                      bool replicasInner, bool stagesRing, bool expertGroup,
                      bool byColumns) {
  if (blockRows < 1 || blockCols < 1 || innerRows < 1 || innerCols < 1)
    return emitError() << "placement sizes must be positive, got block "
                       << blockRows << "x" << blockCols << " and sub-block "
                       << innerRows << "x" << innerCols;
  if (blockRows % innerRows != 0 || blockCols % innerCols != 0)
    return emitError() << "the "
                       << (!sequenceInner ? "tp" : expertGroup ? "ep" : "sp")
                       << " sub-block " << innerRows << "x" << innerCols
                       << " does not tile the " << blockRows << "x"
                       << blockCols << " block";
  if (replicasInner && stagesRing)
    return emitError() << "a placement's blocks are either 'replicas inside "
                          "stages' or 'stages in ring', not both";
  if (byColumns && sequenceInner)
    return emitError() << "'by columns' numbers the tensor-parallel ranks, "
                          "so it follows 'tp AxB', not '"
                       << (expertGroup ? "ep" : "sp") << " AxB'";
  return success();
}

Attribute PlacementAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t, 2> block, inner;
  StringRef innerGroup, outerGroup;
  auto shape = [&](SmallVectorImpl<int64_t> &dims) -> ParseResult {
    SMLoc at = parser.getCurrentLocation();
    if (parser.parseDimensionList(dims, /*allowDynamic=*/false,
                                  /*withTrailingX=*/false))
      return failure();
    if (dims.size() != 2)
      return parser.emitError(at, "expected rows x cols, got ")
             << dims.size() << " sizes";
    return success();
  };
  if (parser.parseLess() || shape(block) || parser.parseComma())
    return {};
  SMLoc groupAt = parser.getCurrentLocation();
  if (parser.parseKeyword(&innerGroup) || shape(inner))
    return {};
  bool byColumns = succeeded(parser.parseOptionalKeyword("by"));
  if (byColumns && parser.parseKeyword("columns"))
    return {};
  if (parser.parseKeyword("inside") || parser.parseKeyword(&outerGroup))
    return {};
  auto beside = [](StringRef group) { return group == "sp" || group == "ep"; };
  if (!((innerGroup == "tp" && beside(outerGroup)) ||
        (beside(innerGroup) && outerGroup == "tp")))
    return parser.emitError(groupAt, "expected 'tp AxB inside sp' or 'sp AxB "
                                     "inside tp' (ep for sp), got '")
               << innerGroup << " ... inside " << outerGroup << "'",
           Attribute();
  bool replicasInner = false, stagesRing = false;
  if (succeeded(parser.parseOptionalComma())) {
    SMLoc at = parser.getCurrentLocation();
    StringRef first, word, second;
    if (parser.parseKeyword(&first) || parser.parseKeyword(&word) ||
        parser.parseKeyword(&second))
      return {};
    if (!((first == "stages" && word == "inside" && second == "replicas") ||
          (first == "replicas" && word == "inside" && second == "stages") ||
          (first == "stages" && word == "in" && second == "ring")))
      return parser.emitError(at, "expected 'stages inside replicas', "
                                  "'replicas inside stages' or 'stages in "
                                  "ring'"),
             Attribute();
    replicasInner = first == "replicas";
    stagesRing = word == "in";
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<PlacementAttr>(
      loc, parser.getContext(), block[0], block[1], innerGroup != "tp",
      inner[0], inner[1], replicasInner, stagesRing,
      innerGroup == "ep" || outerGroup == "ep", byColumns);
}

void PlacementAttr::print(AsmPrinter &printer) const {
  StringRef beside = getExpertGroup() ? "ep" : "sp";
  printer << "<" << getBlockRows() << "x" << getBlockCols() << ", "
          << (getSequenceInner() ? beside : "tp") << " " << getInnerRows()
          << "x" << getInnerCols() << (getByColumns() ? " by columns" : "")
          << " inside "
          << (getSequenceInner() ? "tp" : beside);
  if (getReplicasInner())
    printer << ", replicas inside stages";
  if (getStagesRing())
    printer << ", stages in ring";
  printer << ">";
}

Placement PlacementAttr::getPlacement() const {
  Placement placement;
  placement.block = {getBlockRows(), getBlockCols()};
  placement.sequenceInner = getSequenceInner();
  placement.inner = {getInnerRows(), getInnerCols()};
  placement.replicasInner = getReplicasInner();
  placement.stagesRing = getStagesRing();
  placement.expertGroup = getExpertGroup();
  placement.byColumns = getByColumns();
  return placement;
}

PlacementAttr PlacementAttr::get(MLIRContext *context,
                                 const Placement &placement) {
  return get(context, placement.block[0], placement.block[1],
             placement.sequenceInner, placement.inner[0], placement.inner[1],
             placement.replicasInner, placement.stagesRing,
             placement.expertGroup, placement.byColumns);
}

/// A module's loom.placement against its layout and target: the stage
/// block holds tp x sp (or tp x ep) chips and tiles the topology, the inner group's
/// sub-block holds its degree (DeviceMesh::build names the valid ones).
static LogicalResult verifyPlacement(Operation *op, PlacementAttr placement) {
  ParallelAttr parallel = getParallelOrDefault(op);
  TargetAttr target = getTarget(op);
  if (!target)
    return success(); // checked again once the target is set
  if (parallel.getBesideDegree() > 1 &&
      placement.getExpertGroup() != parallel.getEpData())
    return op->emitError()
           << "'" << kPlacementAttrName << "' names the group beside tp '"
           << (placement.getExpertGroup() ? "ep" : "sp")
           << "', but loom.parallel's is '"
           << (parallel.getEpData() ? "ep" : "sp") << "' (" << parallel
           << ")";
  TopologyDesc topology = target.getTopologyDesc();
  int64_t ranks = parallel.getTp() * parallel.getBesideDegree();
  if (topology.shape.size() != 2 || topology.numChips() % ranks != 0)
    return success(); // the layout's own checks say why
  TargetDesc desc = target.getDesc();
  MeshShape shape{topology.numChips() / ranks, 1, parallel.getTp(),
                  parallel.getBesideDegree()};
  shape.expertGroup = parallel.getEpData();
  // A ring of stage blocks is checked against the planned stages (a
  // function's loom.pipeline), once there are any.
  if (placement.getStagesRing())
    for (Region &region : op->getRegions())
      for (Operation &nested : region.getOps())
        if (PipelineAttr pipeline = getPipeline(&nested);
            pipeline && topology.numChips() % (ranks * pipeline.getStages()) ==
                            0) {
          shape.stages = pipeline.getStages();
          shape.dataParallel = topology.numChips() / (ranks * shape.stages);
        }
  if (parallel.getTpX() > 1)
    shape.tensorRows = parallel.getTpX();
  auto mesh = DeviceMesh::build(desc, topology, shape, placement.getPlacement());
  if (!mesh)
    return op->emitError() << "'" << kPlacementAttrName << "' "
                           << llvm::toString(mesh.takeError());
  return success();
}

//===----------------------------------------------------------------------===//
// SplitAttr
//===----------------------------------------------------------------------===//

LogicalResult
SplitAttr::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                  SplitKind kind, int64_t parts, int64_t replicas,
                  int64_t xParts) {
  if (parts < 1 || replicas < 1 || xParts < 1)
    return emitError() << "split parts, replicas and x parts must be "
                          "positive, got "
                       << parts << ", " << replicas << " and " << xParts;
  return success();
}

//===----------------------------------------------------------------------===//
// PipelineAttr
//===----------------------------------------------------------------------===//

LogicalResult
PipelineAttr::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                     int64_t stages, ArrayRef<int64_t> slices,
                     PipelineMode mode, int64_t steps, int64_t warmup,
                     int64_t microbatches, int64_t virtualStages,
                     PipelineSchedule schedule) {
  if (stages < 1)
    return emitError() << "a pipeline needs at least one stage, got "
                       << stages;
  if (slices.empty())
    return emitError() << "a pipeline needs at least one slice";
  for (auto [i, length] : llvm::enumerate(slices))
    if (length < 1)
      return emitError() << "slice #" << i << " has " << length
                         << " tokens; slices must be non-empty";
  if (mode == PipelineMode::patches && !llvm::all_equal(slices))
    return emitError() << "PipeFusion patches must be equal in size";
  if (steps < 0 || warmup < 0 || (steps > 0 && warmup > steps))
    return emitError() << "warmup (" << warmup
                       << ") must be between 0 and steps (" << steps << ")";
  if (microbatches < 1)
    return emitError() << "a pipeline needs at least one microbatch, got "
                       << microbatches;
  if (mode == PipelineMode::patches && microbatches != 1)
    return emitError() << "microbatches apply to token slices; PipeFusion "
                          "patches of a batch run together (got "
                       << microbatches << " microbatches)";
  if (virtualStages < 1)
    return emitError() << "a pipeline needs at least one virtual stage per "
                          "stage, got "
                       << virtualStages;
  if (int64_t chunks; llvm::MulOverflow(stages, virtualStages, chunks))
    return emitError() << "stages x virtual_stages = " << stages << " x "
                       << virtualStages << " chunks is 2^63 or more";
  if (virtualStages > 1 && stages < 2)
    return emitError() << "virtual_stages = " << virtualStages
                       << " interleaves chunks over several stages, but the "
                          "pipeline has one stage";
  // PipeFusion's patches stream across the denoising steps without a
  // barrier: their bubble is paid once a run, not once a step.
  if (virtualStages > 1 && mode == PipelineMode::patches)
    return emitError() << "virtual_stages apply to token slices; PipeFusion "
                          "patches already stream across steps (got "
                       << virtualStages << " virtual stages)";
  if (schedule != PipelineSchedule::GPipe && mode == PipelineMode::patches)
    return emitError() << "a pipeline schedule orders a training step's "
                          "microbatches; PipeFusion patches take none (got "
                       << stringifyPipelineSchedule(schedule) << ")";
  // 1F1B's warm-up runs p - s - 1 forwards before the first backward
  // (Narayanan et al., SC 2021, section 2.2.1): fewer microbatches than
  // stages leave it no steady state.
  bool needsSteadyState = schedule == PipelineSchedule::OneFOneB ||
                          schedule == PipelineSchedule::ZeroBubbleH1 ||
                          schedule == PipelineSchedule::Interleaved;
  if (needsSteadyState && microbatches < stages)
    return emitError() << "the " << stringifyPipelineSchedule(schedule)
                       << " schedule needs at least as many microbatches as "
                          "stages ("
                       << stages << "), got " << microbatches;
  // ZB-H2's first stage runs 2p - 1 forwards while its first B travels
  // down and back (Qi et al., ICLR 2024, section 2.2): fewer leave it
  // waiting, and the schedule's bubble is no longer zero.
  if (schedule == PipelineSchedule::ZeroBubbleH2 &&
      microbatches < 2 * stages - 1)
    return emitError() << "the zb-h2 schedule needs at least 2 x stages - 1 ("
                       << 2 * stages - 1 << ") microbatches, got "
                       << microbatches;
  return success();
}

Attribute PipelineAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  int64_t stages = 0;
  SmallVector<int64_t> slices;
  PipelineMode mode = PipelineMode::tokens;
  int64_t steps = 0, warmup = 0, microbatches = 1, virtualStages = 1;
  PipelineSchedule schedule = PipelineSchedule::GPipe;
  if (parser.parseLess() || parser.parseKeyword("stages") ||
      parser.parseEqual() || parser.parseInteger(stages) ||
      parser.parseComma() || parser.parseKeyword("slices") ||
      parser.parseEqual() ||
      parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        return parser.parseInteger(slices.emplace_back());
      }))
    return {};
  // The optional parts, in order: each may appear once, after the ones
  // before it.
  StringRef order[] = {"tokens",       "steps",          "warmup",
                       "microbatches", "virtual_stages", "schedule"};
  size_t next = 0;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc at = parser.getCurrentLocation();
    StringRef key;
    if (parser.parseKeyword(&key))
      return {};
    size_t place = key == "patches" ? 0
                   : llvm::find(order, key) - std::begin(order);
    if (place == std::size(order))
      return parser.emitError(at, "expected tokens, patches, steps, warmup, "
                                  "microbatches, virtual_stages or "
                                  "schedule, got '")
                 << key << "'",
             Attribute();
    if (place < next)
      return parser.emitError(at, "'")
                 << key
                 << "' comes at most once, in the order mode, steps, warmup, "
                    "microbatches, virtual_stages, schedule",
             Attribute();
    next = place + 1;
    if (place == 0) {
      mode = key == "patches" ? PipelineMode::patches : PipelineMode::tokens;
      continue;
    }
    if (place == 5) {
      std::string name;
      SMLoc nameAt;
      if (parser.parseEqual())
        return {};
      nameAt = parser.getCurrentLocation();
      if (parser.parseKeywordOrString(&name))
        return {};
      std::optional<PipelineSchedule> known = symbolizePipelineSchedule(name);
      if (!known)
        return parser.emitError(nameAt, "unknown pipeline schedule '")
                   << name << "' (valid: " << pipelineScheduleNames() << ")",
               Attribute();
      schedule = *known;
      continue;
    }
    int64_t &value = place == 1   ? steps
                     : place == 2 ? warmup
                     : place == 3 ? microbatches
                                  : virtualStages;
    if (parser.parseEqual() || parser.parseInteger(value))
      return {};
  }
  if (parser.parseGreater())
    return {};
  return parser.getChecked<PipelineAttr>(loc, parser.getContext(), stages,
                                         slices, mode, steps, warmup,
                                         microbatches, virtualStages,
                                         schedule);
}

void PipelineAttr::print(AsmPrinter &printer) const {
  printer << "<stages = " << getStages() << ", slices = [";
  llvm::interleaveComma(getSlices(), printer);
  printer << "]";
  if (getMode() != PipelineMode::tokens)
    printer << ", " << stringifyPipelineMode(getMode());
  if (getSteps() != 0)
    printer << ", steps = " << getSteps();
  if (getWarmup() != 0)
    printer << ", warmup = " << getWarmup();
  if (getMicrobatches() != 1)
    printer << ", microbatches = " << getMicrobatches();
  if (getVirtualStages() != 1)
    printer << ", virtual_stages = " << getVirtualStages();
  if (getSchedule() != PipelineSchedule::GPipe)
    printer << ", schedule = \"" << stringifyPipelineSchedule(getSchedule())
            << "\"";
  printer << ">";
}

int64_t PipelineAttr::getTokens() const {
  Count total = 0;
  for (int64_t length : getSlices())
    total += length;
  return total.get();
}

/// The first layer of `func` (null when it has none) and its first input's
/// type (null when it has no ranked input).
static std::pair<LayerOp, RankedTensorType> firstLayerInput(Operation *func) {
  LayerOp first;
  func->walk([&](LayerOp layer) {
    first = layer;
    return WalkResult::interrupt();
  });
  if (!first || first.getInputs().empty())
    return {first, nullptr};
  return {first, dyn_cast<RankedTensorType>(first.getInputs()[0].getType())};
}

int64_t loom::getPipelineTokens(Operation *func) {
  auto [layer, input] = firstLayerInput(func);
  // Layers without a sequence (per-sample vectors) are one "token" that
  // cannot be sliced.
  int64_t tokens = !layer ? 0 : input && input.getRank() == 3
                                    ? input.getDimSize(1)
                                    : 1;
  // Sequence parallelism splits the tokens over the tensor-parallel group
  // (a 2-D block's tp_y: its rows keep d_model's split); the pipeline
  // slices the whole sequence.
  ModuleOp module = func->getParentOfType<ModuleOp>();
  if (tokens && module)
    if (ParallelAttr parallel = getParallel(module);
        parallel && parallel.getSequenceParallel())
      tokens = (Count(tokens) * (parallel.getTp() /
                                 std::max<int64_t>(parallel.getTpX(), 1)))
                   .get();
  // So does Ulysses over its sp chips (loom-shard-sequence).
  if (tokens && module)
    if (ParallelAttr parallel = getParallel(module); parallel)
      tokens = (Count(tokens) * parallel.getSp()).get();
  return tokens;
}

int64_t loom::getPipelineBatch(Operation *func) {
  RankedTensorType input = firstLayerInput(func).second;
  return input && input.getRank() >= 1 && input.getDimSize(0) > 0
             ? input.getDimSize(0)
             : 1;
}

std::string loom::pipelineScheduleNames() {
  std::string names;
  for (uint32_t i = 0; i <= getMaxEnumValForPipelineSchedule(); ++i) {
    if (i > 0)
      names += ", ";
    names += stringifyPipelineSchedule(PipelineSchedule(i)).str();
  }
  return names;
}

std::string loom::validMicrobatches(int64_t batch) {
  std::string valid;
  for (int64_t m = 1; m <= batch; ++m)
    if (batch % m == 0)
      valid += (valid.empty() ? "" : ", ") + std::to_string(m);
  return valid;
}

/// Whether `op` holds any attention, and any causal attention.
static std::pair<bool, bool> scanAttention(Operation *op) {
  bool anyAttention = false, anyCausal = false;
  op->walk([&](Operation *inner) {
    if (auto attention = dyn_cast<AttentionOp>(inner)) {
      anyAttention = true;
      anyCausal |= attention.getCausal();
    }
    anyAttention |= isa<JointAttentionOp, RingAttentionOp>(inner);
    if (auto ring = dyn_cast<RingAttentionOp>(inner))
      anyCausal |= ring.getCausal();
    if (auto latent = dyn_cast<LatentAttentionOp>(inner)) {
      anyAttention = true;
      anyCausal |= latent.getCausal();
    }
  });
  return {anyAttention, anyCausal};
}

/// The model function of a module: the function with layers.
static Operation *findModelFunction(Operation *module) {
  Operation *found = nullptr;
  module->walk([&](LayerOp layer) {
    found = layer->getParentOp();
    return WalkResult::interrupt();
  });
  return found;
}

/// `loom.model` against the graph it describes: the mode decides how
/// loom-split-tokens pipelines the model (TeraPipe's slices need causal
/// attention, PipeFusion's patches a DiT's full one), the batch and the
/// sequence are the model function's.
static LogicalResult verifyModel(Operation *op, ModelAttr model) {
  if (!isa<ModuleOp>(op))
    return op->emitError() << "'" << kModelAttrName
                           << "' belongs on the module";
  auto [anyAttention, anyCausal] = scanAttention(op);
  if (model.isDiffusion() && anyCausal)
    return op->emitError() << "'loom.model' says mode diffusion, but the "
                              "model has causal attention (a language model)";
  if (!model.isDiffusion() && anyAttention && !anyCausal)
    return op->emitError() << "'loom.model' says mode "
                           << stringifyModelMode(model.getMode())
                           << ", a causal language model, but none of the "
                              "model's attention is causal";
  Operation *fn = findModelFunction(op);
  if (!fn)
    return success();
  Region &body = fn->getRegion(0);
  if (body.empty() || body.front().getNumArguments() == 0)
    return success();
  // The batch is the first input's leading dimension: the token ids of an
  // LLM, the latent of a DiT.
  auto input = dyn_cast<RankedTensorType>(body.front().getArgument(0).getType());
  if (input && input.getRank() >= 1 && input.getDimSize(0) != model.getBatch())
    return op->emitError() << "'loom.model' has batch " << model.getBatch()
                           << ", but the model's input "
                           << body.front().getArgument(0).getType()
                           << " has " << input.getDimSize(0);
  // The sequence: a prefill's prompt is the token ids' second dimension; a
  // DiT's image tokens are what its layers see (before any sequence
  // split); a decode step's cache is what its attention has cached.
  int64_t seen = 0;
  switch (model.getMode()) {
  case ModelMode::prefill:
    if (anyCausal && input && input.getRank() == 2)
      seen = input.getDimSize(1);
    break;
  case ModelMode::diffusion:
    seen = getPipelineTokens(fn);
    break;
  case ModelMode::decode:
    fn->walk([&](Operation *inner) {
      if (auto attention = dyn_cast<AttentionOp>(inner))
        seen = attention.getCached();
      else if (auto latent = dyn_cast<LatentAttentionOp>(inner))
        seen = latent.getCached();
      else
        return WalkResult::advance();
      return WalkResult::interrupt();
    });
    break;
  }
  if (seen && seen != model.getSeq())
    return op->emitError() << "'loom.model' has seq " << model.getSeq()
                           << ", but the model's "
                           << (model.getMode() == ModelMode::decode
                                   ? "attention has cached "
                                   : "layers see ")
                           << seen << " tokens";
  return success();
}

/// `loom.pipeline` on the model function: its mode suits the attention,
/// its steps are the model's, its layers carry contiguous stages and its
/// slices add up to the sequence.
static LogicalResult verifyPipeline(Operation *op, PipelineAttr pipeline) {
  // A later slice of a causal model needs only the K/V before it; patches
  // of a DiT attend to every token, stale or fresh.
  auto [anyAttention, anyCausal] = scanAttention(op);
  bool patches = pipeline.getMode() == PipelineMode::patches;
  if (patches && anyCausal)
    return op->emitError() << "'loom.pipeline' cuts patches (PipeFusion), but "
                              "the model's attention is causal; causal models "
                              "take token slices (TeraPipe)";
  if (!patches && anyAttention && !anyCausal && pipeline.getSlices().size() > 1)
    return op->emitError() << "'loom.pipeline' cuts token slices (TeraPipe), "
                              "but no attention of the model is causal; a DiT "
                              "takes patches (PipeFusion)";
  // Microbatches split the batch into equal shares.
  if (int64_t batch = getPipelineBatch(op);
      batch % pipeline.getMicrobatches() != 0)
    return op->emitError() << "'loom.pipeline' runs "
                           << pipeline.getMicrobatches()
                           << " microbatches, which do not divide the batch of "
                           << batch << " sequences (valid: "
                           << validMicrobatches(batch) << ")";
  // The denoising steps are the model's, recorded by loom-import.
  if (auto module = op->getParentOfType<ModuleOp>())
    if (ModelAttr model = getModel(module);
        model && patches && model.getSteps() != pipeline.getSteps())
      return op->emitError()
             << "'loom.pipeline' runs " << pipeline.getSteps()
             << " denoising steps, but the model's loom.model has "
             << model.getSteps();
  // Layers carry their stage: from 0 up, in order, every stage used.
  int64_t expected = 0, layers = 0;
  LogicalResult result = success();
  op->walk([&](LayerOp layer) {
    if (failed(result))
      return;
    ++layers;
    std::optional<uint64_t> stage = layer.getStage();
    if (!stage) {
      result = layer.emitOpError() << "of a pipelined function has no stage";
      return;
    }
    int64_t s = *stage;
    if (s != expected && s != expected + 1) {
      result = layer.emitOpError()
               << "is on stage " << s << " after a layer on stage " << expected
               << "; stages must be contiguous and in order";
      return;
    }
    if (s >= pipeline.getChunks()) {
      result = layer.emitOpError() << "is on stage " << s
                                   << " but the pipeline has "
                                   << pipeline.getChunks()
                                   << (pipeline.getVirtualStages() > 1
                                           ? " chunks (stages x virtual_stages)"
                                           : " stages");
      return;
    }
    if (layers == 1 && s != 0) {
      result = layer.emitOpError() << "the first layer must be on stage 0";
      return;
    }
    expected = s;
  });
  if (failed(result))
    return failure();
  if (layers > 0 && expected != pipeline.getChunks() - 1)
    return op->emitError() << "'loom.pipeline' has " << pipeline.getChunks()
                           << (pipeline.getVirtualStages() > 1
                                   ? " chunks (stages x virtual_stages)"
                                   : " stages")
                           << " but the layers use " << expected + 1;
  int64_t tokens = getPipelineTokens(op);
  if (tokens && pipeline.getTokens() != tokens)
    return op->emitError() << "the slices add up to "
                           << describeCount(pipeline.getTokens())
                           << " tokens but the layers see " << tokens;
  return success();
}

/// The value `attr` must have, by name.
template <typename T>
static FailureOr<T> valueOf(Operation *op, NamedAttribute attr,
                            StringRef what) {
  if (auto value = dyn_cast<T>(attr.getValue()))
    return value;
  return op->emitError() << "'" << attr.getName().getValue() << "' must be "
                         << what << ", got " << attr.getValue();
}

LogicalResult LoomDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  StringRef name = attr.getName().getValue();
  auto onModule = [&]() -> LogicalResult {
    if (isa<ModuleOp>(op))
      return success();
    return op->emitError() << "'" << name << "' belongs on the module";
  };
  if (name == kTargetAttrName)
    return failure(failed(onModule()) ||
                   failed(valueOf<TargetAttr>(op, attr, "a #loom.target")));
  if (name == kParallelAttrName)
    return failure(failed(onModule()) ||
                   failed(valueOf<ParallelAttr>(op, attr, "a #loom.parallel")));
  if (name == kModelAttrName) {
    auto model = valueOf<ModelAttr>(op, attr, "a #loom.model");
    return failed(model) ? failure() : verifyModel(op, *model);
  }
  if (name == kPipelineAttrName) {
    auto pipeline = valueOf<PipelineAttr>(op, attr, "a #loom.pipeline");
    return failed(pipeline) ? failure() : verifyPipeline(op, *pipeline);
  }
  if (name == kPlacementAttrName) {
    if (failed(onModule()))
      return failure();
    auto placement = valueOf<PlacementAttr>(op, attr, "a #loom.placement");
    return failed(placement) ? failure() : verifyPlacement(op, *placement);
  }
  if (name == kSplitAttrName) {
    if (!isa<LoomDialect>(op->getDialect()))
      return op->emitError() << "'" << name << "' belongs on a loom op";
    return failure(failed(valueOf<SplitAttr>(op, attr, "a #loom.split")));
  }
  if (name == kTimeAttrName) {
    if (!isa<LayerOp>(op))
      return op->emitError() << "'" << name << "' belongs on a loom.layer";
    auto time = valueOf<FloatAttr>(op, attr, "a float");
    if (failed(time))
      return failure();
    double us = time->getValueAsDouble();
    if (!std::isfinite(us) || us < 0)
      return op->emitError() << "'" << name
                             << "' must be a finite, non-negative time";
    return success();
  }
  if (name == kKeptAttrName || name == kRecomputeAttrName ||
      name == kOffloadedAttrName) {
    if (!isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << name << "' is a unit attribute";
    if (!isa<LoomDialect>(op->getDialect()) ||
        !isa_and_nonnull<LayerGradOp>(op->getParentOp()))
      return op->emitError() << "'" << name
                             << "' belongs on a forward op in a loom.layer_grad";
    return success();
  }
  InFlightDiagnostic diag = op->emitError()
                            << "unknown attribute '" << name << "' (loom's: ";
  llvm::interleaveComma(kOperationAttrNames, diag);
  return diag << ")";
}

LogicalResult LoomDialect::verifyRegionArgAttribute(Operation *op,
                                                    unsigned region,
                                                    unsigned argIndex,
                                                    NamedAttribute attr) {
  if (attr.getName() != kArgNameAttrName)
    return op->emitError() << "unknown argument attribute '"
                           << attr.getName().getValue() << "' (loom's: "
                           << kArgNameAttrName << ")";
  if (!isa<StringAttr>(attr.getValue()))
    return op->emitError() << "'" << kArgNameAttrName
                           << "' must be a string";
  return success();
}
