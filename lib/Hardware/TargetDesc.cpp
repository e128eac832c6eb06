//===- TargetDesc.cpp - loading target files ------------------------------===//
//
// A strict reader for targets/*.json (format in targets/README.md): every
// key must be known, every figure must carry a positive value and its
// source, and errors name the JSON path of what is wrong.
//
//===----------------------------------------------------------------------===//

#include "loom/Hardware/TargetDesc.h"
#include "loom/Hardware/CostModel.h"
#include "loom/Hardware/TargetSchema.h"
#include "loom/Hardware/TopologyLimit.h"
#include "loom/Support/JsonReader.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"

#include <algorithm>
#include <cmath>
#include <limits>

using namespace loom;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

int64_t TopologyDesc::sliceChips() const {
  // The loader bounds every topology by kMaxPodChips; a shape built elsewhere
  // saturates rather than wraps.
  int64_t chips = 1;
  for (int64_t dim : shape)
    if (llvm::MulOverflow(chips, dim, chips))
      return std::numeric_limits<int64_t>::max();
  return chips;
}

int64_t TopologyDesc::numChips() const {
  int64_t chips;
  if (llvm::MulOverflow(sliceChips(), std::max<int64_t>(slices, 1), chips))
    return std::numeric_limits<int64_t>::max();
  return chips;
}

llvm::StringRef TargetDesc::missingDcnFigure() const {
  if (chipsPerHost <= 0)
    return "chips_per_host";
  if (dcnBandwidth <= 0)
    return "dcn_bandwidth";
  if (dcnLatency <= 0)
    return "dcn_latency";
  return "";
}

llvm::Expected<TopologyDesc> loom::parseTopology(const TargetDesc &target,
                                                 llvm::StringRef spelling) {
  auto fail = [&](const llvm::Twine &why) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   "topology '" + spelling + "': " + why);
  };
  llvm::StringRef name = spelling;
  int64_t slices = 1;
  // "4xv5e-256": a slice count, an 'x', then a topology's name. Names of
  // topologies start with a letter, so a leading digit means a count.
  if (!spelling.empty() && (llvm::isDigit(spelling[0]) || spelling[0] == '-' ||
                            spelling[0] == '+' || spelling[0] == '.')) {
    auto [count, rest] = spelling.split('x');
    if (rest.empty() && !spelling.contains('x'))
      return fail("expected <slices>x<topology> (e.g. 4x" +
                  (target.topologies.empty() ? std::string("v5e-256")
                                             : target.topologies.back().name) +
                  ") or a topology's name");
    if (count.getAsInteger(10, slices) || slices < 1)
      return fail("the slice count '" + count +
                  "' must be an integer of at least 1");
    name = rest;
  }
  const TopologyDesc *topology = target.findTopology(name);
  if (!topology)
    return fail(target.name + " has no topology '" + name +
                "'; valid: " + target.listTopologies());
  if (slices > kMaxTopologyChips / topology->numChips())
    return fail(std::to_string(slices) + " slices of " +
                std::to_string(topology->numChips()) +
                " chips exceed the " + std::to_string(kMaxTopologyChips) +
                " chips Loom plans at most");
  if (slices > 1)
    if (llvm::StringRef missing = target.missingDcnFigure(); !missing.empty())
      return fail(std::to_string(slices) + " slices are joined by the "
                  "data-center network, and target " + target.name +
                  " does not give host." + missing.str() +
                  " (targets/README.md, \"host\")");
  return topology->times(slices);
}

const TopologyDesc *TargetDesc::findTopology(llvm::StringRef topologyName) const {
  for (const TopologyDesc &topology : topologies)
    if (topology.name == topologyName)
      return &topology;
  return nullptr;
}

const TopologyDesc *TargetDesc::findTopology(llvm::ArrayRef<int64_t> shape) const {
  for (const TopologyDesc &topology : topologies)
    if (llvm::ArrayRef<int64_t>(topology.shape) == shape)
      return &topology;
  return nullptr;
}

std::string TargetDesc::listTopologies() const {
  std::string text;
  for (const TopologyDesc &topology : topologies) {
    if (!text.empty())
      text += ", ";
    text += topology.name + " (" + llvm::join(llvm::map_range(topology.shape, [](int64_t d) {
              return std::to_string(d);
            }), "x") + ")";
  }
  return text;
}

bool TargetDesc::axisWraps(llvm::ArrayRef<int64_t> topology, unsigned axis) const {
  if (axis >= topology.size() || topology[axis] <= 2)
    return false;
  switch (wrap.kind) {
  case WrapRule::Kind::Always:
    return true;
  case WrapRule::Kind::Never:
    return false;
  case WrapRule::Kind::AxisSizeAtLeast:
    return topology[axis] >= wrap.sizes[0];
  case WrapRule::Kind::ListedAxes:
    return llvm::is_contained(wrap.sizes, int64_t(axis));
  case WrapRule::Kind::WholeCubes:
    if (topology.size() != wrap.sizes.size())
      return false;
    for (size_t i = 0; i < topology.size(); ++i)
      if (topology[i] % wrap.sizes[i] != 0)
        return false;
    return true;
  }
  return false;
}

namespace {

/// The most chips a pod in a target file may have. The largest TPU pods
/// published have 8,960 chips (v5p, Google Cloud TPU docs, "TPU v5p") and
/// 9,216 (Ironwood, Google Cloud blog, 2025-04-09); 2^16 leaves room for a
/// larger one while keeping every chip count, and the simulator's per-chip
/// and per-link state, small.
constexpr int64_t kMaxPodChips = int64_t(1) << 16;

/// Whether a torus of `shape` has at most `maxChips` chips, without
/// overflow.
bool fitsChips(llvm::ArrayRef<int64_t> shape, int64_t maxChips) {
  int64_t chips = 1;
  for (int64_t dim : shape) {
    if (dim > maxChips / chips)
      return false;
    chips *= dim;
  }
  return true;
}

/// The target file's reader: JsonReader plus figures, choices and shapes.
class Reader : public JsonReader {
public:
  using JsonReader::JsonReader;

  /// Checks the keys of a section against its figures in the schema (plus
  /// `extra` keys that are not figures), reads every figure and choice into
  /// `target`'s member, and returns their values by key (0 for absent
  /// optional ones).
  llvm::StringMap<double> section(const Object &section,
                                  const std::string &path, FileSection which,
                                  TargetDesc &target,
                                  llvm::ArrayRef<llvm::StringRef> extra = {}) {
    auto specs = getFileFigures(which);
    llvm::SmallVector<llvm::StringRef> known(extra.begin(), extra.end()),
        required(extra.begin(), extra.end());
    for (const TargetFigure *spec : specs) {
      known.push_back(spec->fileKey);
      if (spec->required)
        required.push_back(spec->fileKey);
    }
    keys(section, path, known, required);
    llvm::StringMap<double> values;
    for (const TargetFigure *spec : specs) {
      double value = read(section, *spec, path);
      if (section.get(spec->fileKey))
        spec->set(target, value);
      values[spec->fileKey] = value;
    }
    return values;
  }

  /// A shape of `dims` positive integers: {shape, source[, note]}.
  llvm::SmallVector<int64_t, 3> shapeObject(const Value *value,
                                            const std::string &path,
                                            int64_t dims) {
    const Object *o = object(value, path);
    if (!o)
      return {1};
    keys(*o, path, {"shape", "source", "note"}, {"shape", "source"});
    nonEmpty(*o, "source", path);
    return dimsShape(*o, "shape", path, dims);
  }

  llvm::SmallVector<int64_t, 3> dimsShape(const Object &o, llvm::StringRef key,
                                          const std::string &path,
                                          int64_t dims) {
    llvm::SmallVector<int64_t, 3> shape = JsonReader::shape(o, key, path);
    if (!failed() && static_cast<int64_t>(shape.size()) != dims)
      fail(path + "." + key.str(),
           "has " + std::to_string(shape.size()) + " axes but the torus has " +
               std::to_string(dims));
    return shape;
  }

  void nonEmpty(const Object &o, llvm::StringRef key, const std::string &path) {
    if (string(o, key, path).empty() && !failed())
      fail(path + "." + key.str(), "must not be empty");
  }

private:
  double read(const Object &section, const TargetFigure &spec,
              const std::string &sectionPath) {
    std::string path = sectionPath + "." + spec.fileKey.str();
    const Value *value = section.get(spec.fileKey);
    if (!value)
      return 0;
    const Object *o = object(value, path);
    if (!o)
      return 1;
    bool isFigure = o->get("value") != nullptr;
    if (spec.form == FigureForm::Figure && !isFigure) {
      fail(path, "must be a figure {value, unit, source}");
      return 1;
    }
    if (spec.form == FigureForm::Choice && isFigure) {
      fail(path, "must be a choice {nominal | measured | assumed, use, why}");
      return 1;
    }
    return isFigure ? figure(*o, path, spec) : choice(*o, path, spec);
  }

  /// A choice's variants are each checked, the unused ones too.
  double choice(const Object &o, const std::string &path,
                const TargetFigure &spec) {
    keys(o, path,
         {"nominal", "measured", "assumed", "fitted", "use", "why", "note"},
         {"use", "why"});
    std::string use = string(o, "use", path);
    nonEmpty(o, "why", path);
    double chosen = 1;
    bool found = false, any = false;
    for (llvm::StringRef variant :
         {"nominal", "measured", "assumed", "fitted"}) {
      const Value *v = o.get(variant);
      if (!v)
        continue;
      any = true;
      std::string variantPath = path + "." + variant.str();
      const Object *vo = object(v, variantPath);
      if (!vo)
        return 1;
      double value = figure(*vo, variantPath, spec);
      if (use == variant) {
        chosen = value;
        found = true;
      }
    }
    if (!any)
      fail(path, "a choice needs a nominal, measured, assumed or fitted "
                 "figure");
    else if (!found)
      fail(path + ".use", "names '" + use +
                              "', which is not one of this figure's variants");
    return chosen;
  }

  double figure(const Object &o, const std::string &path,
                const TargetFigure &spec) {
    // fitted_from: the measurement ids bench/calibrate.py fitted it from.
    keys(o, path, {"value", "unit", "source", "note", "fitted_from"},
         {"value", "unit", "source"});
    std::string actual = string(o, "unit", path);
    if (!failed() && actual != spec.unit)
      fail(path + ".unit",
           "must be \"" + spec.unit.str() + "\", got \"" + actual + "\"");
    if (string(o, "source", path).empty() && !failed())
      fail(path + ".source", "must name where the figure comes from");
    // Every figure a file states is positive; its range is the schema's.
    double value = positive(o, "value", path);
    if (failed())
      return value;
    std::string problem = spec.check(value);
    if (!problem.empty()) {
      fail(path + ".value", problem);
      return 1;
    }
    return value;
  }
};

} // namespace

llvm::Expected<TargetDesc> loom::parseTargetDesc(llvm::StringRef json,
                                                 llvm::StringRef fileName) {
  llvm::Expected<Value> document = parseJson(json);
  if (!document)
    return jsonSyntaxError(document.takeError(), fileName);
  Reader r(fileName);
  TargetDesc t;
  const Object *root = r.object(&*document, "$");
  if (!root)
    return r.takeError();
  llvm::StringRef sections[] = {"format", "name", "description", "chip",
                                "interconnect", "host", "pod", "topologies",
                                "efficiency"};
  llvm::SmallVector<llvm::StringRef> known(std::begin(sections),
                                           std::end(sections));
  known.push_back("calibration");
  // The format first: another of Loom's files (the measurements, a model
  // config) given as a target is named for what it is, or for the format it
  // lacks, not for the keys a target lacks.
  std::string format = r.string(*root, "format", "$");
  if (format != "loom-target/1" && !r.failed())
    r.fail("$.format",
           "must be \"loom-target/1\", got \"" + format + "\"" +
               (llvm::StringRef(format).starts_with("loom-")
                    ? ": this is not a target file"
                    : ""));
  r.keys(*root, "$", known, sections);
  if (r.failed())
    return r.takeError();
  t.name = r.string(*root, "name", "$");
  r.nonEmpty(*root, "name", "$");
  r.string(*root, "description", "$");

  if (const Object *chip = r.object(root->get("chip"), "$.chip")) {
    auto v = r.section(*chip, "$.chip", FileSection::Chip, t);
    // The cost model derives the VPU's rate from the MXU's
    // (CostModel::vectorRate), so #loom.target need not carry it; a file
    // that states it must agree.
    double vpu = v["vpu_ops"];
    double derived = t.peakFlopsBf16 / CostModel::kMXUToVPURate;
    if (vpu > 0 && std::abs(vpu / derived - 1) > 0.005 && !r.failed())
      r.fail("$.chip.vpu_ops.value",
             llvm::formatv("must be peak_bf16 / 32 ({0:e}), the rate the "
                           "cost model derives for the vector unit",
                           derived));
  }

  int64_t dims = 2;
  if (const Object *ici = r.object(root->get("interconnect"), "$.interconnect")) {
    r.section(*ici, "$.interconnect", FileSection::Interconnect, t,
              {"topology"});
    const std::string topo = "$.interconnect.topology";
    if (const Object *topology = r.object(ici->get("topology"), topo)) {
      r.keys(*topology, topo, {"kind", "dims", "wraparound", "source", "note"},
             {"kind", "dims", "wraparound", "source"});
      if (r.string(*topology, "kind", topo) != "torus" && !r.failed())
        r.fail(topo + ".kind", "must be \"torus\"");
      dims = r.integer(*topology, "dims", topo, 2);
      if (!r.failed() && dims > 3)
        r.fail(topo + ".dims", "must be 2 or 3, got " + std::to_string(dims));
      r.nonEmpty(*topology, "source", topo);
      const std::string wrapPath = topo + ".wraparound";
      if (const Object *wrap = r.object(topology->get("wraparound"), wrapPath)) {
        using RuleKind = TargetDesc::WrapRule::Kind;
        std::string rule = r.string(*wrap, "rule", wrapPath);
        if (rule == "always" || rule == "never") {
          r.keys(*wrap, wrapPath, {"rule"}, {"rule"});
          t.wrap.kind = rule == "always" ? RuleKind::Always : RuleKind::Never;
        } else if (rule == "axis-size-at-least") {
          r.keys(*wrap, wrapPath, {"rule", "size"}, {"rule", "size"});
          t.wrap.kind = RuleKind::AxisSizeAtLeast;
          t.wrap.sizes = {r.integer(*wrap, "size", wrapPath, 1)};
        } else if (rule == "all-axes-when-whole-cubes") {
          r.keys(*wrap, wrapPath, {"rule", "cube"}, {"rule", "cube"});
          t.wrap.kind = RuleKind::WholeCubes;
          t.wrap.sizes = r.dimsShape(*wrap, "cube", wrapPath, dims);
        } else if (!r.failed()) {
          r.fail(wrapPath + ".rule",
                 "must be \"always\", \"never\", \"axis-size-at-least\" or "
                 "\"all-axes-when-whole-cubes\", got \"" + rule + "\"");
        }
      }
    }
  }

  if (const Object *host = r.object(root->get("host"), "$.host"))
    r.section(*host, "$.host", FileSection::Host, t);

  llvm::SmallVector<int64_t, 3> largest;
  if (const Object *pod = r.object(root->get("pod"), "$.pod")) {
    r.section(*pod, "$.pod", FileSection::Pod, t, {"max_topology_shape"});
    if (!r.failed() && t.maxChips > kMaxPodChips)
      r.fail("$.pod.max_chips.value",
             llvm::formatv("must be at most {0} chips (the largest TPU pod "
                           "Loom models), got {1}",
                           kMaxPodChips, t.maxChips));
    largest = r.shapeObject(pod->get("max_topology_shape"),
                            "$.pod.max_topology_shape", dims);
    if (!r.failed() && !fitsChips(largest, t.maxChips))
      r.fail("$.pod.max_topology_shape.shape",
             llvm::formatv("holds more than the pod's {0} chips "
                           "($.pod.max_chips)",
                           t.maxChips));
    llvm::sort(largest);
  }

  const Value *topologiesValue = root->get("topologies");
  const Array *topologies = topologiesValue ? topologiesValue->getAsArray() : nullptr;
  if (!topologies || topologies->empty())
    r.fail("$.topologies", "must be a non-empty array of topologies");
  else
    for (auto [i, element] : llvm::enumerate(*topologies)) {
      std::string path = "$.topologies[" + std::to_string(i) + "]";
      const Object *o = r.object(&element, path);
      if (!o)
        break;
      r.keys(*o, path, {"name", "shape", "source"}, {"name", "shape", "source"});
      TopologyDesc topology{r.string(*o, "name", path),
                      r.dimsShape(*o, "shape", path, dims)};
      r.nonEmpty(*o, "source", path);
      if (r.failed())
        break;
      if (t.findTopology(topology.name))
        r.fail(path + ".name", "repeats topology name '" + topology.name + "'");
      llvm::SmallVector<int64_t, 3> sorted(topology.shape);
      llvm::sort(sorted);
      bool fits = sorted.size() == largest.size();
      for (size_t a = 0; fits && a < sorted.size(); ++a)
        fits = sorted[a] <= largest[a];
      if (!fits || !fitsChips(topology.shape, t.maxChips))
        r.fail(path + ".shape",
               llvm::formatv("does not fit the pod ($.pod.max_topology_shape, "
                             "$.pod.max_chips = {0})",
                             t.maxChips));
      t.topologies.push_back(std::move(topology));
    }

  if (const Object *eff = r.object(root->get("efficiency"), "$.efficiency")) {
    r.section(*eff, "$.efficiency", FileSection::Efficiency, t);
  }

  t.calibration.file = fileName.str();
  if (const Value *calibration = root->get("calibration"))
    if (const Object *cal = r.object(calibration, "$.calibration")) {
      r.section(*cal, "$.calibration", FileSection::Calibration, t,
                {"name", "version", "fitted_by"});
      t.calibration.name = r.string(*cal, "name", "$.calibration");
      r.nonEmpty(*cal, "name", "$.calibration");
      // Version 0 is the nominal, uncalibrated model.
      t.calibration.version = r.integer(*cal, "version", "$.calibration", 1);
      r.nonEmpty(*cal, "fitted_by", "$.calibration");
    }

  if (r.failed())
    return r.takeError();
  return t;
}

llvm::Expected<TargetDesc> loom::loadTargetFile(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return llvm::createStringError(buffer.getError(),
                                   "cannot read target file '" + path +
                                       "': " + buffer.getError().message());
  return parseTargetDesc((*buffer)->getBuffer(), path);
}

namespace {
struct BundledTargetText {
  llvm::StringRef name;
  llvm::StringRef json;
};
const BundledTargetText bundledTargetTexts[] = {
#include "BundledTargets.inc"
};

/// The bundled targets, parsed once on first use (a function-local static:
/// thread-safe) and never changed afterwards.
const std::vector<TargetDesc> &bundledTargets() {
  static const std::vector<TargetDesc> targets = [] {
    std::vector<TargetDesc> parsed;
    for (const BundledTargetText &text : bundledTargetTexts) {
      llvm::Expected<TargetDesc> target =
          parseTargetDesc(text.json, ("targets/" + text.name + ".json").str());
      // The bundled files are tested; a failure here is a build defect.
      if (!target)
        llvm::report_fatal_error(target.takeError());
      parsed.push_back(std::move(*target));
    }
    return parsed;
  }();
  return targets;
}
} // namespace

llvm::ArrayRef<TargetDesc> loom::getBundledTargets() { return bundledTargets(); }

const TargetDesc *loom::lookupTarget(llvm::StringRef name) {
  for (const TargetDesc &target : bundledTargets())
    if (target.name == name)
      return &target;
  return nullptr;
}

std::pair<const TargetDesc *, const TopologyDesc *>
loom::lookupTopology(llvm::StringRef topologyName) {
  for (const TargetDesc &target : bundledTargets())
    if (const TopologyDesc *topology = target.findTopology(topologyName))
      return {&target, topology};
  return {nullptr, nullptr};
}

std::string loom::listTargets() {
  std::string text;
  for (const TargetDesc &target : bundledTargets())
    text += (text.empty() ? "" : ", ") + target.name;
  return text;
}
