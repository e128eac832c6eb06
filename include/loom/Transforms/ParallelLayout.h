//===- ParallelLayout.h - a plan's layout, one value ------------*- C++ -*-===//
//
// Every degree, choice and placement of a plan as one typed value. Its
// dimensions are declared once (layoutDimensions(): the option name, the
// JSON key, the default and the help), and everything that spells a layout
// reads that declaration: loom-plan's options, loom-plan-pipeline's
// options, plan files, the report's JSON and the textual form
// ("tp=4 stages=4 virtual-stages=2", what loom-plan-pipeline{...} takes).
// In the IR the layout is #loom.parallel, #loom.pipeline and
// #loom.placement (layoutOf reads it back from a planned module).
//
// LayoutOf<F> holds one F<T> per dimension: ParallelLayout (every value),
// LayoutRequest (std::optional: given by the user, or free for the
// search) and LayoutDimensions (the declaration) are the same fields, so a
// dimension added to LayoutOf and forEachDimension reaches all of them.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_TRANSFORMS_PARALLELLAYOUT_H
#define LOOM_TRANSFORMS_PARALLELLAYOUT_H

#include "loom/Dialect/Loom/LoomEnums.h"
#include "loom/Hardware/DeviceMesh.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/JSON.h"

#include <cstdint>
#include <optional>
#include <string>
#include <tuple>

namespace loom {

class JsonReader;
class JsonPath;

/// How the tensor-parallel group splits the layers.
enum class TensorLayout {
  /// Megatron: heads and d_ff over the whole group.
  OneD,
  /// 2-D weight-stationary (Pope et al. 2023, 3.2.2): a tp_x x (tp / tp_x)
  /// block, d_model over its rows.
  TwoD,
  /// Weight-gathered (Pope et al. 2023, 3.2.3): the tp chips split the
  /// batch; each layer's weights are all-gathered before it.
  WeightGathered,
};

/// How the sequence-parallel chips split attention.
enum class SequenceMode { Ulysses, Ring };

/// Which chips the expert-parallel group occupies.
enum class ExpertLayout {
  /// ep chips of the tensor-parallel group.
  Tensor,
  /// A group of ep chips of its own beside tp (a stage holds tp x ep).
  Data,
};

/// What a training step's forward pass keeps for its backward pass
/// (loom-remat): Korthikanti et al.'s three (MLSys 2023) and MaxText's
/// named policies that map onto loom ops (MaxText/layers/decoders.py,
/// get_remat_policy).
enum class RematPolicy {
  None,
  Selective,
  Full,
  /// checkpoint_dots_with_no_batch_dims: every projection's output.
  Minimal,
  /// query_proj, key_proj, value_proj, qkv_proj, context, out_proj.
  SaveDotWithContextExceptMlp,
  /// query_proj, key_proj, value_proj, qkv_proj, out_proj, mlpwo.
  SaveDotExceptMlpwi,
  /// query_proj, key_proj, value_proj, qkv_proj, out_proj.
  SaveDotExceptMlp,
  /// query_proj, key_proj, value_proj, qkv_proj.
  SaveQkvProj,
  /// save_and_offload_only_these_names: q, k, v (and kv) projections kept
  /// in host memory, nothing in HBM.
  QkvProjOffloaded,
  /// Minimal's names kept in host memory, nothing in HBM.
  MinimalOffloaded,
};

/// Whether `policy` keeps activations in host memory.
inline bool offloads(RematPolicy policy) {
  return policy == RematPolicy::QkvProjOffloaded ||
         policy == RematPolicy::MinimalOffloaded;
}

/// An enum's spellings: one per value, with its help.
template <typename T>
struct EnumSpelling {
  T value;
  llvm::StringLiteral name;
  const char *help;
};
llvm::ArrayRef<EnumSpelling<TensorLayout>> enumSpellings(TensorLayout);
llvm::ArrayRef<EnumSpelling<SequenceMode>> enumSpellings(SequenceMode);
llvm::ArrayRef<EnumSpelling<ExpertLayout>> enumSpellings(ExpertLayout);
llvm::ArrayRef<EnumSpelling<RematPolicy>> enumSpellings(RematPolicy);
llvm::ArrayRef<EnumSpelling<PipelineSchedule>> enumSpellings(PipelineSchedule);
/// An enum value's spelling, and the value of one (none when unknown).
template <typename T>
llvm::StringRef spellingOf(T value) {
  for (const EnumSpelling<T> &s : enumSpellings(value))
    if (s.value == value)
      return s.name;
  return "";
}
template <typename T>
std::optional<T> parseSpelling(llvm::StringRef name) {
  for (const EnumSpelling<T> &s : enumSpellings(T()))
    if (s.name == name)
      return s.value;
  return std::nullopt;
}
/// "a, b or c": the spellings, for a message naming the valid values.
template <typename T>
std::string validSpellings() {
  std::string all;
  llvm::ArrayRef<EnumSpelling<T>> spellings = enumSpellings(T());
  for (size_t i = 0; i < spellings.size(); ++i)
    all += (i == 0 ? "" : i + 1 == spellings.size() ? " or " : ", ") +
           spellings[i].name.str();
  return all;
}

/// The token slices: `auto` (loom-split-tokens chooses), a count of equal
/// slices, or their lengths. Whether they cut the sequence is
/// loom-split-tokens' check, which knows the tokens.
struct SliceSpec {
  enum class Kind { Auto, Count, Lengths };
  Kind kind = Kind::Auto;
  /// The count, or the lengths.
  llvm::SmallVector<int64_t> values;

  static SliceSpec count(int64_t n) { return {Kind::Count, {n}}; }
  static SliceSpec lengths(llvm::ArrayRef<int64_t> l) {
    return {Kind::Lengths, llvm::SmallVector<int64_t>(l)};
  }
  bool isAuto() const { return kind == Kind::Auto; }
  /// "auto", "4" or "640,512,480,416" (loom-split-tokens' option); one
  /// length is written "2048,", since "2048" is a count.
  std::string str() const;
  /// str()'s form back; the error names the part it cannot read.
  static llvm::Expected<SliceSpec> parse(llvm::StringRef text);
  bool operator==(const SliceSpec &other) const {
    return kind == other.kind && values == other.values;
  }
};

/// One dimension's declaration: its option name (loom-plan --NAME,
/// loom-plan-pipeline{NAME=...}), its key in plan files and JSON reports,
/// its default and what it means.
template <typename T>
struct Dimension {
  llvm::StringRef name;
  llvm::StringRef key;
  T defaultValue;
  const char *help;
  /// Written to plan files even at its default (the keys every plan file
  /// has had), and required in them (all of those but ep).
  bool alwaysWritten = false;
  bool required = alwaysWritten;
};

template <typename T>
using Plain = T;

template <template <typename> class F>
struct LayoutOf {
  F<int64_t> tp;
  F<TensorLayout> tpLayout;
  /// Rows of a 2-D block (1 for the other layouts; 0 with TwoD: the
  /// planner chooses the rows nearest Pope et al.'s optimum).
  F<int64_t> tpX;
  /// With more tp chips than KV heads: the chips holding one KV head that
  /// split its cache by batch (loom-shard-heads kv-batch).
  F<int64_t> kvBatch;
  F<int64_t> ep;
  F<ExpertLayout> epLayout;
  F<int64_t> sp;
  F<SequenceMode> spMode;
  F<int64_t> stages;
  F<int64_t> dataParallel;
  /// Megatron sequence parallelism between the matmuls.
  F<bool> sequenceParallel;
  /// Units of a stage whose ops run zipped (docs/overlap.md).
  F<int64_t> interleave;
  F<int64_t> microbatches;
  F<int64_t> virtualStages;
  /// A training step's pipeline schedule (loom/Analysis/TrainingSchedule.h).
  F<PipelineSchedule> schedule;
  /// Collective matmuls as ring steps under partial matmuls.
  F<bool> decompose;
  /// Megatron-LM's scatter/gather stage handover.
  F<bool> scatterHandover;
  /// Which chips each group occupies; the default value is the rule's.
  F<Placement> placement;
  F<SliceSpec> slices;
  /// A training step: the data-parallel replicas of a group that split
  /// the model states (ZeRO, FSDP), the ZeRO stage of that split, and
  /// what the forward pass keeps for the backward pass.
  F<int64_t> fsdp;
  F<int64_t> zero;
  F<RematPolicy> remat;
};

/// Calls `fn` with the same dimension of each of `layouts` (any LayoutOf),
/// dimension by dimension in declaration order: the one list of the
/// fields.
template <typename Fn, typename... Layouts>
void forEachDimension(Fn &&fn, Layouts &...layouts) {
  fn(layouts.tp...);
  fn(layouts.tpLayout...);
  fn(layouts.tpX...);
  fn(layouts.kvBatch...);
  fn(layouts.ep...);
  fn(layouts.epLayout...);
  fn(layouts.sp...);
  fn(layouts.spMode...);
  fn(layouts.stages...);
  fn(layouts.dataParallel...);
  fn(layouts.sequenceParallel...);
  fn(layouts.interleave...);
  fn(layouts.microbatches...);
  fn(layouts.virtualStages...);
  fn(layouts.schedule...);
  fn(layouts.decompose...);
  fn(layouts.scatterHandover...);
  fn(layouts.placement...);
  fn(layouts.slices...);
  fn(layouts.fsdp...);
  fn(layouts.zero...);
  fn(layouts.remat...);
}

using LayoutDimensions = LayoutOf<Dimension>;
/// The declaration of every dimension.
const LayoutDimensions &layoutDimensions();

struct ParallelLayout : LayoutOf<Plain> {
  /// Every dimension at its default: one chip, one stage, the rule's
  /// placement.
  ParallelLayout();

  bool isTwoD() const { return tpLayout == TensorLayout::TwoD; }
  bool isWeightGathered() const {
    return tpLayout == TensorLayout::WeightGathered;
  }
  bool hasExpertGroup() const { return epLayout == ExpertLayout::Data; }
  /// The degree of the stage's group beside tp: ep for an expert group of
  /// its own, else sp.
  int64_t besideDegree() const { return hasExpertGroup() ? ep : sp; }
  /// Chips of a stage: tp x the group beside it.
  int64_t chipsPerStage() const { return tp * besideDegree(); }
  /// The textual form: the dimensions away from their defaults as
  /// `name=value` separated by spaces (loom-plan-pipeline's options).
  std::string str() const;
  bool operator==(const ParallelLayout &other) const;
  /// A total order of layouts (the search's tie-break).
  bool operator<(const ParallelLayout &other) const;
};

/// Every dimension, given or free.
struct LayoutRequest : LayoutOf<std::optional> {
  /// The given values, the defaults elsewhere (tp_x of a 2-D block given
  /// without its rows: 0, for the planner to choose).
  ParallelLayout complete() const;
  bool anyGiven() const;
};

/// The textual form back (ParallelLayout::str(), or loom-plan-pipeline's
/// options); the error names the option and the value.
llvm::Expected<ParallelLayout> parseLayout(llvm::StringRef text);

/// A value's spelling in options, plan files and reports.
std::string formatDimension(int64_t value);
std::string formatDimension(bool value);
std::string formatDimension(TensorLayout value);
std::string formatDimension(SequenceMode value);
std::string formatDimension(ExpertLayout value);
std::string formatDimension(RematPolicy value);
std::string formatDimension(PipelineSchedule value);
std::string formatDimension(const SliceSpec &value);
std::string formatDimension(const Placement &value);

/// What a dimension's command-line or pass option holds: the value itself,
/// or, for a slice list and a placement, its text (parsed after the command
/// line, so that the error names the option).
template <typename T>
struct OptionText {
  using type = T;
  static const T &of(const T &value) { return value; }
};
template <>
struct OptionText<SliceSpec> {
  using type = std::string;
  static std::string of(const SliceSpec &value) { return value.str(); }
  static llvm::Expected<SliceSpec> parse(llvm::StringRef text) {
    return SliceSpec::parse(text);
  }
};
template <>
struct OptionText<Placement> {
  using type = std::string;
  static std::string of(const Placement &value) {
    return formatDimension(value);
  }
  static llvm::Expected<Placement> parse(llvm::StringRef text) {
    return parsePlacement(text);
  }
};

/// Writes the layout's dimensions as attributes of the JSON object being
/// written: all of them, or (`onlyChanged`) those away from their defaults
/// and the ones always written.
void writeLayoutJSON(const ParallelLayout &layout, llvm::json::OStream &j,
                     bool onlyChanged);

/// Reads the dimensions present in `object` (a plan file's "layout") into
/// `layout`, with located errors in `json`: every key known, the ones
/// always written required. Reads format 1's `weight_gathered` and
/// `ep_data` flags as the tp and ep layouts they name.
void readLayoutJSON(JsonReader &json, const llvm::json::Object &object,
                    const JsonPath &path, LayoutRequest &layout);

/// The layout a planned module carries in its IR form (#loom.parallel,
/// #loom.pipeline on its model function, #loom.placement): the dimensions
/// the IR holds, over `base`'s (interleave, decompose and the handover are
/// the lowering's, not the IR's).
ParallelLayout layoutOf(mlir::ModuleOp module, ParallelLayout base = {});

} // namespace loom

#endif // LOOM_TRANSFORMS_PARALLELLAYOUT_H
