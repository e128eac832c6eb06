//===- TargetDesc.cpp - loading target files ------------------------------===//
//
// A strict reader for targets/*.json (format in targets/README.md): every
// key must be known, every figure must carry a positive value and its
// source, and errors name the JSON path of what is wrong.
//
//===----------------------------------------------------------------------===//

#include "loom/Target/TargetDesc.h"
#include "loom/Support/JsonReader.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"

#include <cmath>

using namespace loom;
using llvm::json::Array;
using llvm::json::Object;
using llvm::json::Value;

int64_t SliceDesc::numChips() const {
  int64_t chips = 1;
  for (int64_t dim : shape)
    chips *= dim;
  return chips;
}

const SliceDesc *TargetDesc::findSlice(llvm::StringRef sliceName) const {
  for (const SliceDesc &slice : slices)
    if (slice.name == sliceName)
      return &slice;
  return nullptr;
}

const SliceDesc *TargetDesc::findSlice(llvm::ArrayRef<int64_t> shape) const {
  for (const SliceDesc &slice : slices)
    if (llvm::ArrayRef<int64_t>(slice.shape) == shape)
      return &slice;
  return nullptr;
}

std::string TargetDesc::listSlices() const {
  std::string text;
  for (const SliceDesc &slice : slices) {
    if (!text.empty())
      text += ", ";
    text += slice.name + " (" + llvm::join(llvm::map_range(slice.shape, [](int64_t d) {
              return std::to_string(d);
            }), "x") + ")";
  }
  return text;
}

bool TargetDesc::axisWraps(llvm::ArrayRef<int64_t> slice, unsigned axis) const {
  if (axis >= slice.size() || slice[axis] <= 2)
    return false;
  switch (wrap.kind) {
  case WrapRule::Kind::AxisSizeAtLeast:
    return slice[axis] >= wrap.sizes[0];
  case WrapRule::Kind::WholeCubes:
    if (slice.size() != wrap.sizes.size())
      return false;
    for (size_t i = 0; i < slice.size(); ++i)
      if (slice[i] % wrap.sizes[i] != 0)
        return false;
    return true;
  }
  return false;
}

namespace {

/// The target file's reader: JsonReader plus its figures.
class Reader : public JsonReader {
public:
  using JsonReader::JsonReader;

  /// A figure: {value, unit, source[, note]}, or a choice between variants
  /// {nominal, measured, assumed: figure; use: which; why: text}. Returns
  /// the value to use.
  double figure(const Object &section, llvm::StringRef key,
                const std::string &sectionPath, bool required) {
    std::string path = sectionPath + "." + key.str();
    const Value *value = section.get(key);
    if (!value) {
      if (required)
        fail(path, "missing required key");
      return 0;
    }
    const Object *o = object(value, path);
    if (!o)
      return 1;
    if (o->get("value"))
      return plainFigure(*o, path);
    keys(*o, path, {"nominal", "measured", "assumed", "use", "why", "note"},
         {"use", "why"});
    std::string use = string(*o, "use", path);
    double chosen = 1;
    bool found = false;
    for (llvm::StringRef variant : {"nominal", "measured", "assumed"}) {
      const Value *v = o->get(variant);
      if (!v)
        continue;
      const Object *vo = object(v, path + "." + variant.str());
      if (!vo)
        return 1;
      double figureValue = plainFigure(*vo, path + "." + variant.str());
      if (use == variant) {
        chosen = figureValue;
        found = true;
      }
    }
    if (!found)
      fail(path + ".use", "names '" + use +
                              "', which is not one of this figure's variants");
    return chosen;
  }

  /// A figure whose value is a fraction in (0, 1].
  double fraction(const Object &section, llvm::StringRef key,
                  const std::string &sectionPath) {
    double value = figure(section, key, sectionPath, true);
    if (value > 1)
      fail(sectionPath + "." + key.str(),
           "must be a fraction in (0, 1], got " + showNumber(value));
    return value;
  }

private:
  double plainFigure(const Object &o, const std::string &path) {
    keys(o, path, {"value", "unit", "source", "note"},
         {"value", "unit", "source"});
    string(o, "unit", path);
    if (string(o, "source", path).empty() && !failed())
      fail(path + ".source", "must name where the figure comes from");
    return positive(o, "value", path);
  }

};

} // namespace

llvm::Expected<TargetDesc> loom::parseTargetDesc(llvm::StringRef json,
                                                 llvm::StringRef fileName) {
  llvm::Expected<Value> document = llvm::json::parse(json);
  if (!document)
    return llvm::createStringError(
        llvm::inconvertibleErrorCode(),
        fileName + ": invalid JSON: " + llvm::toString(document.takeError()));
  Reader r(fileName);
  TargetDesc t;
  const Object *root = r.object(&*document, "$");
  if (!root)
    return r.takeError();
  r.keys(*root, "$",
         {"format", "name", "description", "chip", "interconnect", "host",
          "pod", "slices", "efficiency"},
         {"format", "name", "chip", "interconnect", "pod", "slices",
          "efficiency"});
  if (r.failed())
    return r.takeError();
  std::string format = r.string(*root, "format", "$");
  if (format != "loom-target/1" && !r.failed())
    r.fail("$.format", "must be \"loom-target/1\", got \"" + format + "\"");
  t.name = r.string(*root, "name", "$");

  if (const Object *chip = r.object(root->get("chip"), "$.chip")) {
    r.keys(*chip, "$.chip",
           {"tensorcores", "mxus_per_tensorcore", "mxu_rows", "mxu_columns",
            "peak_bf16", "peak_int8", "vmem_capacity_per_tensorcore",
            "hbm_capacity", "hbm_transfer_rate", "hbm_bandwidth"},
           {});
    for (llvm::StringRef key : {"tensorcores", "mxus_per_tensorcore",
                                "mxu_rows", "vmem_capacity_per_tensorcore",
                                "hbm_transfer_rate"})
      r.figure(*chip, key, "$.chip", false);
    t.mxuTile = static_cast<int64_t>(r.figure(*chip, "mxu_columns", "$.chip", true));
    t.peakFlopsBf16 = r.figure(*chip, "peak_bf16", "$.chip", true);
    t.peakOpsInt8 = r.figure(*chip, "peak_int8", "$.chip", true);
    t.hbmBytes = r.figure(*chip, "hbm_capacity", "$.chip", true);
    t.hbmBandwidth = r.figure(*chip, "hbm_bandwidth", "$.chip", true);
  }

  if (const Object *ici = r.object(root->get("interconnect"), "$.interconnect")) {
    r.keys(*ici, "$.interconnect",
           {"topology", "links_per_chip", "link_bandwidth", "chip_bandwidth",
            "hop_latency", "latency_bound_below"},
           {"topology", "link_bandwidth", "hop_latency"});
    for (llvm::StringRef key : {"links_per_chip", "chip_bandwidth",
                                "latency_bound_below"})
      r.figure(*ici, key, "$.interconnect", false);
    t.linkBandwidth = r.figure(*ici, "link_bandwidth", "$.interconnect", true);
    t.hopLatency = r.figure(*ici, "hop_latency", "$.interconnect", true);
    const std::string topo = "$.interconnect.topology";
    if (const Object *topology = r.object(ici->get("topology"), topo)) {
      r.keys(*topology, topo, {"kind", "dims", "wraparound", "source", "note"},
             {"kind", "dims", "wraparound", "source"});
      if (r.string(*topology, "kind", topo) != "torus" && !r.failed())
        r.fail(topo + ".kind", "must be \"torus\"");
      r.positive(*topology, "dims", topo);
      r.string(*topology, "source", topo);
      const std::string wrapPath = topo + ".wraparound";
      if (const Object *wrap = r.object(topology->get("wraparound"), wrapPath)) {
        std::string rule = r.string(*wrap, "rule", wrapPath);
        if (rule == "axis-size-at-least") {
          r.keys(*wrap, wrapPath, {"rule", "size"}, {"rule", "size"});
          t.wrap.kind = TargetDesc::WrapRule::Kind::AxisSizeAtLeast;
          t.wrap.sizes = {static_cast<int64_t>(r.positive(*wrap, "size", wrapPath))};
        } else if (rule == "all-axes-when-whole-cubes") {
          r.keys(*wrap, wrapPath, {"rule", "cube"}, {"rule", "cube"});
          t.wrap.kind = TargetDesc::WrapRule::Kind::WholeCubes;
          t.wrap.sizes = r.shape(*wrap, "cube", wrapPath);
        } else if (!r.failed()) {
          r.fail(wrapPath + ".rule",
                 "must be \"axis-size-at-least\" or "
                 "\"all-axes-when-whole-cubes\", got \"" + rule + "\"");
        }
      }
    }
  }

  if (const Value *hostValue = root->get("host"))
    if (const Object *host = r.object(hostValue, "$.host")) {
      llvm::StringRef known[] = {"chips_per_host", "nics", "dcn_bandwidth",
                                 "dram", "pcie_bandwidth_per_chip"};
      r.keys(*host, "$.host", known, {});
      for (llvm::StringRef key : known)
        r.figure(*host, key, "$.host", false);
    }

  if (const Object *pod = r.object(root->get("pod"), "$.pod")) {
    llvm::StringRef figures[] = {"hosts", "racks", "sides_per_rack",
                                 "sleds_per_side", "chips_per_sled",
                                 "chips_per_rack", "bisection_bandwidth",
                                 "allreduce_bandwidth"};
    llvm::SmallVector<llvm::StringRef> known(std::begin(figures), std::end(figures));
    known.append({"max_chips", "max_slice_shape"});
    r.keys(*pod, "$.pod", known, {"max_chips"});
    for (llvm::StringRef key : figures)
      r.figure(*pod, key, "$.pod", false);
    t.maxChips = static_cast<int64_t>(r.figure(*pod, "max_chips", "$.pod", true));
    if (const Value *maxShape = pod->get("max_slice_shape"))
      if (const Object *o = r.object(maxShape, "$.pod.max_slice_shape")) {
        r.keys(*o, "$.pod.max_slice_shape", {"shape", "source", "note"},
               {"shape", "source"});
        r.shape(*o, "shape", "$.pod.max_slice_shape");
      }
  }

  const Value *slicesValue = root->get("slices");
  const Array *slices = slicesValue ? slicesValue->getAsArray() : nullptr;
  if (!slices || slices->empty())
    r.fail("$.slices", "must be a non-empty array of slices");
  else
    for (auto [i, element] : llvm::enumerate(*slices)) {
      std::string path = "$.slices[" + std::to_string(i) + "]";
      const Object *o = r.object(&element, path);
      if (!o)
        break;
      r.keys(*o, path, {"name", "shape", "source"}, {"name", "shape", "source"});
      SliceDesc slice{r.string(*o, "name", path), r.shape(*o, "shape", path)};
      r.string(*o, "source", path);
      if (!r.failed() && slice.numChips() > t.maxChips)
        r.fail(path + ".shape",
               llvm::formatv("has {0} chips, more than $.pod.max_chips = {1}",
                             slice.numChips(), t.maxChips));
      t.slices.push_back(std::move(slice));
    }

  if (const Object *eff = r.object(root->get("efficiency"), "$.efficiency")) {
    r.keys(*eff, "$.efficiency", {"mxu_fraction", "hbm_bandwidth_fraction"},
           {"mxu_fraction", "hbm_bandwidth_fraction"});
    t.flopEfficiency = r.fraction(*eff, "mxu_fraction", "$.efficiency");
    t.hbmEfficiency = r.fraction(*eff, "hbm_bandwidth_fraction", "$.efficiency");
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

/// The known targets: the bundled ones, parsed on first use, then any the
/// user registered.
struct TargetTable {
  std::vector<TargetDesc> bundled;
  std::vector<TargetDesc> registered;

  TargetTable() {
    for (const BundledTargetText &text : bundledTargetTexts) {
      llvm::Expected<TargetDesc> target =
          parseTargetDesc(text.json, ("targets/" + text.name + ".json").str());
      // The bundled files are tested; a failure here is a build defect.
      if (!target)
        llvm::report_fatal_error(target.takeError());
      bundled.push_back(std::move(*target));
    }
  }
};

TargetTable &table() {
  static TargetTable instance;
  return instance;
}
} // namespace

llvm::ArrayRef<TargetDesc> loom::getBundledTargets() { return table().bundled; }

const TargetDesc *loom::lookupTarget(llvm::StringRef name) {
  for (const TargetDesc &target : table().registered)
    if (target.name == name)
      return &target;
  for (const TargetDesc &target : table().bundled)
    if (target.name == name)
      return &target;
  return nullptr;
}

std::pair<const TargetDesc *, const SliceDesc *>
loom::lookupSlice(llvm::StringRef sliceName) {
  for (auto *list : {&table().registered, &table().bundled})
    for (const TargetDesc &target : *list)
      if (const SliceDesc *slice = target.findSlice(sliceName))
        return {&target, slice};
  return {nullptr, nullptr};
}

void loom::registerTarget(TargetDesc target) {
  std::vector<TargetDesc> &registered = table().registered;
  llvm::erase_if(registered,
                 [&](const TargetDesc &t) { return t.name == target.name; });
  registered.push_back(std::move(target));
}

std::string loom::listTargets() {
  std::string text;
  llvm::StringSet<> seen;
  for (auto *list : {&table().registered, &table().bundled})
    for (const TargetDesc &target : *list)
      if (seen.insert(target.name).second)
        text += (text.empty() ? "" : ", ") + target.name;
  return text;
}
