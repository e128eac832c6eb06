//===- ParallelLayout.cpp - a plan's layout, one value --------------------===//

#include "loom/Transforms/ParallelLayout.h"

#include "loom/Dialect/Loom/LoomAttributes.h"
#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Support/JsonReader.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

using namespace llvm;
using namespace loom;

//===----------------------------------------------------------------------===//
// The declaration
//===----------------------------------------------------------------------===//

static const EnumSpelling<TensorLayout> kTensorLayouts[] = {
    {TensorLayout::OneD, "1d", "Megatron: heads and d_ff over the whole group"},
    {TensorLayout::TwoD, "2d",
     "2-D weight-stationary (Pope et al. 2023): the group is a tp-x x "
     "(tp / tp-x) block, d_model split over its rows, heads and d_ff over "
     "its columns; decoder LLMs"},
    {TensorLayout::WeightGathered, "weight-gathered",
     "weight-gathered (Pope et al. 2023, 3.2.3): the tp chips split the "
     "batch and run whole layers, each layer's weights (stored split tp "
     "ways) all-gathered before it, prefetched; batched prefill"},
};
static const EnumSpelling<SequenceMode> kSequenceModes[] = {
    {SequenceMode::Ulysses, "ulysses",
     "all-to-alls trading tokens for heads (DeepSpeed-Ulysses); sp divides "
     "the heads"},
    {SequenceMode::Ring, "ring",
     "K/V blocks passed around a ring of the sp chips, overlapped with the "
     "attention (Liu et al. 2023); any head count"},
};
static const EnumSpelling<ExpertLayout> kExpertLayouts[] = {
    {ExpertLayout::Tensor, "tensor",
     "ep chips of the tensor-parallel group, each expert's width split tp / "
     "ep ways; tokens dispatched over the whole group"},
    {ExpertLayout::Data, "data",
     "a group of ep chips of its own beside the tp group (a stage holds tp "
     "x ep chips): it splits the batch for attention and dense layers and "
     "the experts for MoE layers, the all-to-alls over it alone "
     "(DeepSeek-V3's serving layout); ep divides the batch"},
};

static const EnumSpelling<RematPolicy> kRematPolicies[] = {
    {RematPolicy::None, "none",
     "every value the backward pass reads stays in HBM from the forward "
     "pass"},
    {RematPolicy::Selective, "selective",
     "as none, but attention's score-sized tensors are recomputed "
     "(Korthikanti et al., MLSys 2023)"},
    {RematPolicy::Full, "full",
     "every forward op runs again; only each layer's input is kept"},
    {RematPolicy::Minimal, "minimal",
     "MaxText's: every projection's output kept, the rest recomputed"},
    {RematPolicy::SaveDotWithContextExceptMlp,
     "save_dot_with_context_except_mlp",
     "MaxText's: q, k, v, out projections and attention's output kept"},
    {RematPolicy::SaveDotExceptMlpwi, "save_dot_except_mlpwi",
     "MaxText's: q, k, v, out projections and the MLP's down projection "
     "kept"},
    {RematPolicy::SaveDotExceptMlp, "save_dot_except_mlp",
     "MaxText's: q, k, v and out projections kept"},
    {RematPolicy::SaveQkvProj, "save_qkv_proj",
     "MaxText's: q, k and v projections kept"},
    {RematPolicy::QkvProjOffloaded, "qkv_proj_offloaded",
     "MaxText's: q, k and v projections kept in host memory (copied over "
     "the host link after the forward pass and back before the backward "
     "pass), the rest recomputed"},
    {RematPolicy::MinimalOffloaded, "minimal_offloaded",
     "MaxText's: every projection's output kept in host memory, the rest "
     "recomputed"},
};

// The schedules' sources are in loom/Analysis/TrainingSchedule.h.
static const EnumSpelling<PipelineSchedule> kPipelineSchedules[] = {
    {PipelineSchedule::GPipe, "gpipe",
     "every microbatch's forward pass, then every backward pass (Huang et "
     "al. 2019); a stage holds all its microbatches' activations"},
    {PipelineSchedule::OneFOneB, "1f1b",
     "one forward and one backward in turn after a warm-up (PipeDream-"
     "Flush); at most p microbatches in flight; microbatches >= stages"},
    {PipelineSchedule::Interleaved, "interleaved",
     "1F1B over --virtual-stages chunks a stage (Megatron-LM): bubble "
     "(p - 1) / (v m); microbatches a multiple of the stages"},
    {PipelineSchedule::ZeroBubbleH1, "zb-h1",
     "1F1B with each backward split into input (B) and weight (W) gradients, "
     "W passes held back to fill the cool-down (Qi et al. 2024): a third of "
     "1F1B's bubble at its memory"},
    {PipelineSchedule::Circular, "circular",
     "MaxText's pipeline: GPipe round the stages --virtual-stages times "
     "(num_pipeline_repeats)"},
    {PipelineSchedule::ZeroBubbleH2, "zb-h2",
     "B and W split, 2p - 1 microbatches in flight, W passes wherever a "
     "stage would wait (Qi et al. 2024): no bubble between overlapping "
     "steps; microbatches >= 2 x stages - 1"},
};
static_assert(std::size(kPipelineSchedules) ==
                  getMaxEnumValForPipelineSchedule() + 1,
              "every pipeline schedule has a spelling");

ArrayRef<EnumSpelling<PipelineSchedule>>
loom::enumSpellings(PipelineSchedule) {
  return kPipelineSchedules;
}
ArrayRef<EnumSpelling<RematPolicy>> loom::enumSpellings(RematPolicy) {
  return kRematPolicies;
}
ArrayRef<EnumSpelling<TensorLayout>> loom::enumSpellings(TensorLayout) {
  return kTensorLayouts;
}
ArrayRef<EnumSpelling<SequenceMode>> loom::enumSpellings(SequenceMode) {
  return kSequenceModes;
}
ArrayRef<EnumSpelling<ExpertLayout>> loom::enumSpellings(ExpertLayout) {
  return kExpertLayouts;
}

/// "(1 when another layout option is given; with none, the search
/// chooses)": what a degree's help ends with.
#define LOOM_SEARCHED_DEGREE                                                   \
  " (1 when another layout option is given; with none, the search chooses)"

const LayoutDimensions &loom::layoutDimensions() {
  static const LayoutDimensions dimensions = [] {
    LayoutDimensions d;
    d.tp = {"tp", "tp", 1, "Tensor-parallel degree" LOOM_SEARCHED_DEGREE,
            true};
    d.tpLayout = {"tp-layout", "tp_layout", TensorLayout::OneD,
                  "How the tensor-parallel group splits the layers (a "
                  "search tries 1d and 2d, and weight-gathered for a "
                  "batched prefill, unless given)"};
    d.tpX = {"tp-x", "tp_x", 1,
             "--tp-layout=2d: rows of the tp block (0: the one nearest Pope "
             "et al.'s optimum sqrt(tp) / 2 that tiles the slice)"};
    d.kvBatch = {
        "kv-batch", "kv_batch", 1,
        "With more tensor-parallel chips than KV heads: split each KV "
        "head's cache by batch over this many of the chips holding it "
        "(divides tp / KV heads and the batch; all-to-alls over them around "
        "each attention); 1: each holds the whole cache (docs/serving.md)"};
    d.ep = {"ep", "ep", 1,
            "Expert-parallel degree, MoE models: experts split over ep "
            "chips of the tensor-parallel group, or of a group of their own "
            "beside it (--ep-layout)" LOOM_SEARCHED_DEGREE,
            /*alwaysWritten=*/true, /*required=*/false};
    d.epLayout = {"ep-layout", "ep_layout", ExpertLayout::Tensor,
                  "Which chips the ep group occupies (with --ep; a search "
                  "tries both unless given)"};
    d.sp = {"sp", "sp", 1,
            "Sequence-parallel degree: sp chips share each tensor-parallel "
            "rank, each with 1/sp of the sequence, and exchange heads for "
            "tokens around attention (Ulysses) or pass K/V blocks round a "
            "ring (--sp-mode ring)" LOOM_SEARCHED_DEGREE};
    d.spMode = {"sp-mode", "sp_mode", SequenceMode::Ulysses,
                "How the sp chips split attention (with --sp; with neither, "
                "the search chooses)"};
    d.sequenceParallel = {"sequence-parallel", "sequence_parallel", false,
                          "Megatron sequence parallelism", true};
    d.stages = {"stages", "stages", 1,
                "Pipeline stages" LOOM_SEARCHED_DEGREE, true};
    d.virtualStages = {
        "virtual-stages", "virtual_stages", 1,
        "Interleaved stages (token slices, Megatron's interleaved schedule, "
        "MaxText's num_pipeline_repeats): each stage holds this many chunks "
        "of layers, so the bubble is a chunk's (a search chooses among 1, "
        "2, 4, ... unless given)"};
    d.schedule = {
        "schedule", "schedule", PipelineSchedule::GPipe,
        "A training step on several stages: the order in which each stage "
        "runs its microbatches' forward and backward passes (a search "
        "chooses unless given)"};
    d.dataParallel = {"data-parallel", "data_parallel", 1,
                      "Data-parallel replicas" LOOM_SEARCHED_DEGREE, true};
    d.microbatches = {
        "microbatches", "microbatches", 1,
        "Batched prefill on a pipeline: run each replica's sequences as "
        "this many microbatches, each cut into the token slices, so more "
        "units fill the pipeline at the same slice length; a training "
        "step: the microbatches whose gradients each replica accumulates "
        "(must divide the replica's batch; a search chooses unless given)"};
    d.interleave = {"interleave", "interleave", 1,
                    "Units (slices, patches) of a stage whose ops run "
                    "zipped, so that one's collectives overlap the others' "
                    "compute (1: none; a search chooses 1 or 2 unless "
                    "given)"};
    d.slices = {"slices", "slices", SliceSpec{},
                "auto, N, or lengths l1,l2,...", true};
    d.decompose = {"decompose", "decompose", false,
                   "Run the tensor-parallel collective matmuls as ring "
                   "steps under partial matmuls (docs/overlap.md; "
                   "interleave 1 only); --decompose=false forbids it; a "
                   "search chooses unless given"};
    d.scatterHandover = {
        "scatter-handover", "scatter_handover", false,
        "Hand each stage boundary over as Megatron-LM does (SC'21, section "
        "4.1): each tp rank sends 1/tp of it and the next stage's tp group "
        "all-gathers it (tp >= 2, a pipeline, no --sequence-parallel); "
        "--scatter-handover=false forbids it; a search chooses unless "
        "given"};
    d.placement = {
        "placement", "placement", Placement{},
        "Which chips each group occupies, as 'RxC, tp AxB inside sp' (each "
        "stage a RxC block of tp x sp chips, the tp ranks an AxB sub-block "
        "of it, the sp group striding across the sub-blocks; or 'sp AxB "
        "inside tp'; 'ep' for 'sp' with --ep-layout=data; 'tp AxB by "
        "columns' numbers the tp ranks down each column, as JAX's "
        "create_device_mesh did on v5e before it ordered rings), optionally "
        "followed by ', replicas inside stages' or ', stages in ring' (each "
        "replica's stage blocks a closed cycle, so the last stage is beside "
        "the first) (docs/placement.md; default: the rule, or the search's "
        "choice)"};
    d.fsdp = {"fsdp", "fsdp", 1,
              "A training step: data-parallel replicas of each group that "
              "split the model states between them (ZeRO; stage 3 is FSDP, "
              "MaxText's ici_fsdp_parallelism); divides --data-parallel "
              "(1: none; a search chooses unless given)"};
    d.zero = {"zero", "zero", 3,
              "With --fsdp: the ZeRO stage of the split: 1 the optimizer "
              "state and master weights, 2 and the gradients, 3 and the "
              "weights (FSDP: each weight gathered before each use)"};
    d.remat = {"remat", "remat", RematPolicy::None,
               "A training step: what the forward pass keeps for the "
               "backward pass (loom-remat's policies; a search chooses "
               "unless given)"};
    return d;
  }();
  return dimensions;
}

#undef LOOM_SEARCHED_DEGREE

//===----------------------------------------------------------------------===//
// Values
//===----------------------------------------------------------------------===//

std::string SliceSpec::str() const {
  switch (kind) {
  case Kind::Auto:
    return "auto";
  case Kind::Count:
    return std::to_string(values.front());
  case Kind::Lengths:
    // One length ends with a comma: "2048" alone is a count.
    return join(map_range(values, [](int64_t l) { return std::to_string(l); }),
                ",") +
           (values.size() == 1 ? "," : "");
  }
  llvm_unreachable("unknown slice kind");
}

Expected<SliceSpec> SliceSpec::parse(StringRef text) {
  text = text.trim();
  if (text == "auto")
    return SliceSpec{};
  SmallVector<StringRef> parts;
  text.split(parts, ',');
  // "N," is a list of one length (a plan file's [N]); "N" alone a count.
  bool oneLength = parts.size() == 2 && parts[1].trim().empty();
  if (oneLength)
    parts.pop_back();
  SliceSpec spec;
  for (StringRef part : parts) {
    int64_t value;
    if (part.trim().getAsInteger(10, value))
      return createStringError("slices must be 'auto', a count or comma-"
                               "separated lengths; cannot read '" +
                               part.trim() + "'");
    spec.values.push_back(value);
  }
  spec.kind = spec.values.size() == 1 && !oneLength ? Kind::Count
                                                      : Kind::Lengths;
  return spec;
}

ParallelLayout::ParallelLayout() {
  forEachDimension([](const auto &d, auto &v) { v = d.defaultValue; },
                   layoutDimensions(), *this);
}

bool ParallelLayout::operator==(const ParallelLayout &other) const {
  bool equal = true;
  forEachDimension([&](const auto &a, const auto &b) { equal &= a == b; },
                   *this, other);
  return equal;
}

/// The search's tie-break among plans that predict alike: the degrees in
/// the order the search has always compared them (the placement as
/// written, the rule's first).
static auto orderKey(const ParallelLayout &l) {
  return std::make_tuple(
      l.tp, l.isTwoD() ? l.tpX : int64_t(1), l.isWeightGathered(), l.ep,
      l.hasExpertGroup(), l.sp, formatDimension(l.spMode), l.stages,
      l.dataParallel, l.interleave, l.microbatches, l.decompose,
      l.scatterHandover, l.sequenceParallel, l.virtualStages,
      formatDimension(l.placement), l.kvBatch);
}

bool ParallelLayout::operator<(const ParallelLayout &other) const {
  auto key = orderKey(*this), otherKey = orderKey(other);
  if (key != otherKey)
    return key < otherKey;
  // Layouts alike in the key differ, if at all, in a dimension it does not
  // name: the first such in declaration order decides (by value, or by
  // spelling for a slice list), so that a new dimension needs no change
  // here to keep the order total.
  int order = 0;
  forEachDimension(
      [&](const auto &a, const auto &b) {
        using T = std::decay_t<decltype(a)>;
        if (order != 0 || a == b)
          return;
        if constexpr (std::is_arithmetic_v<T> || std::is_enum_v<T>)
          order = a < b ? -1 : 1;
        else
          order = formatDimension(a) < formatDimension(b) ? -1 : 1;
      },
      *this, other);
  return order < 0;
}

ParallelLayout LayoutRequest::complete() const {
  ParallelLayout layout;
  forEachDimension(
      [](const auto &given, auto &value) {
        if (given)
          value = *given;
      },
      *this, layout);
  if (layout.isTwoD() && !tpX)
    layout.tpX = 0;
  return layout;
}

bool LayoutRequest::anyGiven() const {
  bool any = false;
  forEachDimension([&](const auto &given) { any |= given.has_value(); },
                   *this);
  return any;
}

std::string loom::formatDimension(int64_t value) {
  return std::to_string(value);
}
std::string loom::formatDimension(bool value) {
  return value ? "true" : "false";
}
std::string loom::formatDimension(TensorLayout value) {
  return spellingOf(value).str();
}
std::string loom::formatDimension(SequenceMode value) {
  return spellingOf(value).str();
}
std::string loom::formatDimension(ExpertLayout value) {
  return spellingOf(value).str();
}
std::string loom::formatDimension(RematPolicy value) {
  return spellingOf(value).str();
}
std::string loom::formatDimension(PipelineSchedule value) {
  return spellingOf(value).str();
}
std::string loom::formatDimension(const SliceSpec &value) {
  return value.str();
}
std::string loom::formatDimension(const Placement &value) {
  return value.isDefault() ? "" : value.str();
}

std::string ParallelLayout::str() const {
  std::string text;
  forEachDimension(
      [&](const auto &d, const auto &value) {
        if (value == d.defaultValue)
          return;
        std::string shown = formatDimension(value);
        // A placement's text has spaces: braced, as pass options take it.
        if (shown.find(' ') != std::string::npos)
          shown = "{" + shown + "}";
        text += (text.empty() ? "" : " ") + d.name.str() + "=" + shown;
      },
      layoutDimensions(), *this);
  return text;
}

//===----------------------------------------------------------------------===//
// Reading values back
//===----------------------------------------------------------------------===//

/// Each reader returns an error message, or "" with `value` set.
static std::string parseValue(StringRef text, int64_t &value) {
  if (text.trim().getAsInteger(10, value))
    return "expects an integer, got '" + text.str() + "'";
  return "";
}
static std::string parseValue(StringRef text, bool &value) {
  StringRef word = text.trim();
  if (word != "true" && word != "false")
    return "expects true or false, got '" + text.str() + "'";
  value = word == "true";
  return "";
}
template <typename T>
static std::enable_if_t<std::is_enum_v<T>, std::string>
parseValue(StringRef text, T &value) {
  std::string names;
  for (const EnumSpelling<T> &s : enumSpellings(value)) {
    if (s.name == text.trim()) {
      value = s.value;
      return "";
    }
    names += (names.empty() ? "" : ", ") + s.name.str();
  }
  return "must be one of " + names + ", got '" + text.str() + "'";
}
static std::string parseValue(StringRef text, SliceSpec &value) {
  Expected<SliceSpec> parsed = SliceSpec::parse(text);
  if (!parsed)
    return toString(parsed.takeError());
  value = std::move(*parsed);
  return "";
}
static std::string parseValue(StringRef text, Placement &value) {
  if (text.trim().empty()) {
    value = Placement{};
    return "";
  }
  Expected<Placement> parsed = parsePlacement(text);
  if (!parsed)
    return toString(parsed.takeError());
  value = *parsed;
  return "";
}

Expected<ParallelLayout> loom::parseLayout(StringRef text) {
  LayoutRequest given;
  while (!(text = text.ltrim()).empty()) {
    auto [name, rest] = text.split('=');
    name = name.trim();
    StringRef value;
    rest = rest.ltrim();
    if (rest.consume_front("{")) {
      std::tie(value, text) = rest.split('}');
    } else {
      size_t end = rest.find_first_of(" \t");
      value = rest.take_front(end);
      text = rest.drop_front(value.size());
    }
    std::string error = "no layout option '" + name.str() + "'";
    forEachDimension(
        [&](const auto &d, auto &slot) {
          if (d.name != name)
            return;
          auto parsed = d.defaultValue;
          error = parseValue(value, parsed);
          if (!error.empty())
            error = d.name.str() + " " + error;
          slot = std::move(parsed);
        },
        layoutDimensions(), given);
    if (!error.empty())
      return createStringError(error);
  }
  return given.complete();
}

//===----------------------------------------------------------------------===//
// JSON
//===----------------------------------------------------------------------===//

static void writeValue(json::OStream &j, StringRef key, int64_t value) {
  j.attribute(key, value);
}
static void writeValue(json::OStream &j, StringRef key, bool value) {
  j.attribute(key, value);
}
template <typename T>
static std::enable_if_t<std::is_enum_v<T>> writeValue(json::OStream &j,
                                                      StringRef key, T value) {
  j.attribute(key, formatDimension(value));
}
static void writeValue(json::OStream &j, StringRef key,
                       const SliceSpec &value) {
  switch (value.kind) {
  case SliceSpec::Kind::Auto:
    j.attribute(key, "auto");
    return;
  case SliceSpec::Kind::Count:
    j.attribute(key, value.values.front());
    return;
  case SliceSpec::Kind::Lengths:
    j.attributeArray(key, [&] {
      for (int64_t l : value.values)
        j.value(l);
    });
    return;
  }
}
static void writeValue(json::OStream &j, StringRef key,
                       const Placement &value) {
  j.attribute(key, formatDimension(value));
}

void loom::writeLayoutJSON(const ParallelLayout &layout, json::OStream &j,
                           bool onlyChanged) {
  forEachDimension(
      [&](const auto &d, const auto &value) {
        if (!onlyChanged || d.alwaysWritten || !(value == d.defaultValue))
          writeValue(j, d.key, value);
      },
      layoutDimensions(), layout);
}

namespace {
/// Reads one dimension's JSON value, with located errors.
struct ValueReader {
  JsonReader &json;
  const json::Object &object;
  const JsonPath &path;

  void read(StringRef key, int64_t &value) {
    value = json.integer(object, key, path, 1);
  }
  void read(StringRef key, bool &value) {
    if (std::optional<bool> b = object.get(key)->getAsBoolean())
      value = *b;
    else
      json.fail(JsonReader::at(path, key), "must be true or false");
  }
  template <typename T>
  std::enable_if_t<std::is_enum_v<T>> read(StringRef key, T &value) {
    std::string text = json.string(object, key, path);
    if (json.failed())
      return;
    std::string names;
    for (const EnumSpelling<T> &s : enumSpellings(value)) {
      if (s.name == text) {
        value = s.value;
        return;
      }
      names += (names.empty() ? "\"" : "\" or \"") + s.name.str();
    }
    json.fail(JsonReader::at(path, key),
              "must be " + names + "\", got \"" + text + "\"");
  }
  void read(StringRef key, SliceSpec &value) {
    const json::Value *v = object.get(key);
    if (std::optional<StringRef> text = v->getAsString()) {
      if (*text != "auto")
        json.fail(JsonReader::at(path, key),
                  "must be \"auto\", a count or the lengths");
      value = SliceSpec{};
      return;
    }
    if (v->getAsInteger()) {
      value = SliceSpec::count(json.integer(object, key, path, 1));
      return;
    }
    JsonPath slicesPath = JsonReader::at(path, key);
    const json::Array *lengths = json.array(v, slicesPath);
    if (!lengths)
      return;
    if (lengths->empty())
      json.fail(slicesPath, "must list at least one slice length");
    SmallVector<int64_t> values;
    for (auto [i, length] : enumerate(*lengths))
      values.push_back(json.integer(length, JsonReader::at(slicesPath, i), 1));
    // A list of one is a length too, which loom-split-tokens checks
    // against the sequence as it does any list.
    value = SliceSpec::lengths(values);
  }
  void read(StringRef key, Placement &value) {
    std::string text = json.string(object, key, path);
    if (json.failed())
      return;
    std::string error = parseValue(text, value);
    if (!error.empty())
      json.fail(JsonReader::at(path, key), error);
  }
};
} // namespace

void loom::readLayoutJSON(JsonReader &json, const json::Object &object,
                          const JsonPath &path, LayoutRequest &layout) {
  // Format 1's flags for the tp and ep layouts.
  constexpr StringLiteral kWeightGathered = "weight_gathered",
                          kExpertData = "ep_data";
  SmallVector<StringRef> known, required;
  forEachDimension(
      [&](const auto &d) {
        known.push_back(d.key);
        if (d.required)
          required.push_back(d.key);
      },
      layoutDimensions());
  known.append({kWeightGathered, kExpertData});
  json.keys(object, path, known, required);
  ValueReader reader{json, object, path};
  forEachDimension(
      [&](const auto &d, auto &slot) {
        if (json.failed() || !object.get(d.key))
          return;
        auto value = d.defaultValue;
        reader.read(d.key, value);
        slot = std::move(value);
      },
      layoutDimensions(), layout);
  bool flag = false;
  if (!json.failed() && object.get(kWeightGathered)) {
    reader.read(kWeightGathered, flag);
    if (flag)
      layout.tpLayout = TensorLayout::WeightGathered;
  }
  if (!json.failed() && object.get(kExpertData)) {
    flag = false;
    reader.read(kExpertData, flag);
    if (flag)
      layout.epLayout = ExpertLayout::Data;
  }
  // A 2-D block's rows were written alone.
  if (!json.failed() && layout.tpX && *layout.tpX > 1 && !layout.tpLayout)
    layout.tpLayout = TensorLayout::TwoD;
}

//===----------------------------------------------------------------------===//
// The IR form
//===----------------------------------------------------------------------===//

ParallelLayout loom::layoutOf(mlir::ModuleOp module, ParallelLayout base) {
  ParallelLayout layout = std::move(base);
  ParallelAttr parallel = getParallelOrDefault(module);
  layout.tp = parallel.getTp();
  layout.tpX = parallel.getTpX();
  layout.kvBatch = parallel.getKvBatch();
  layout.tpLayout = parallel.getTpX() > 1        ? TensorLayout::TwoD
                    : parallel.getWeightGathered() ? TensorLayout::WeightGathered
                                                   : TensorLayout::OneD;
  layout.ep = parallel.getEp();
  layout.epLayout =
      parallel.getEpData() ? ExpertLayout::Data : ExpertLayout::Tensor;
  layout.sp = parallel.getSp();
  layout.sequenceParallel = parallel.getSequenceParallel();
  layout.dataParallel = parallel.getDp();
  layout.fsdp = parallel.getFsdp();
  if (parallel.getZero() > 0)
    layout.zero = parallel.getZero();
  if (auto placement = module->getAttrOfType<PlacementAttr>(kPlacementAttrName))
    layout.placement = placement.getPlacement();
  for (auto func : module.getOps<mlir::func::FuncOp>())
    if (PipelineAttr pipeline = getPipeline(func)) {
      layout.stages = pipeline.getStages();
      layout.virtualStages = pipeline.getVirtualStages();
      layout.schedule = pipeline.getSchedule();
      layout.microbatches = pipeline.getMicrobatches();
      layout.slices = SliceSpec::lengths(pipeline.getSlices());
    }
  return layout;
}
