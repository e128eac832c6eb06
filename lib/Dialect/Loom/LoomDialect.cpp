//===- LoomDialect.cpp - the loom dialect ---------------------------------===//

#include "loom/Dialect/Loom/LoomDialect.h"
#include "loom/Dialect/Loom/LoomOps.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

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
// TargetAttr
//===----------------------------------------------------------------------===//

LogicalResult
TargetAttr::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                   StringRef name, ArrayRef<int64_t> shape) {
  const TargetDesc *target = lookupTarget(name);
  if (!target)
    return emitError() << "unknown target '" << name
                       << "' (known: " << listTargets()
                       << "; --target-file loads another)";
  if (!target->findTopology(shape)) {
    std::string dims;
    llvm::raw_string_ostream os(dims);
    llvm::interleave(shape, os, "x");
    return emitError() << "target '" << name << "' has no " << dims
                       << " slice; valid slices: " << target->listTopologies();
  }
  return success();
}

const TargetDesc *TargetAttr::getTargetDesc() const {
  return lookupTarget(getName());
}

const TopologyDesc *TargetAttr::getTopology() const {
  const TargetDesc *target = getTargetDesc();
  return target ? target->findTopology(getShape()) : nullptr;
}

//===----------------------------------------------------------------------===//
// SplitAttr
//===----------------------------------------------------------------------===//

LogicalResult
SplitAttr::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                  SplitKind kind, int64_t parts, int64_t replicas) {
  if (parts < 1 || replicas < 1)
    return emitError() << "split parts and replicas must be positive, got "
                       << parts << " and " << replicas;
  return success();
}

//===----------------------------------------------------------------------===//
// PipelineAttr
//===----------------------------------------------------------------------===//

LogicalResult
PipelineAttr::verify(llvm::function_ref<InFlightDiagnostic()> emitError,
                     int64_t stages, ArrayRef<int64_t> slices,
                     PipelineMode mode, int64_t steps, int64_t warmup) {
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
  return success();
}

int64_t PipelineAttr::getTokens() const {
  int64_t total = 0;
  for (int64_t length : getSlices())
    total += length;
  return total;
}

int64_t loom::getPipelineTokens(Operation *func) {
  int64_t tokens = 0;
  func->walk([&](LayerOp layer) {
    if (tokens)
      return;
    // Layers without a sequence (per-sample vectors) are one "token" that
    // cannot be sliced.
    tokens = 1;
    if (!layer.getInputs().empty())
      if (auto type = cast<RankedTensorType>(layer.getInputs()[0].getType());
          type.getRank() == 3)
        tokens = type.getDimSize(1);
  });
  ModuleOp module = func->getParentOfType<ModuleOp>();
  if (tokens && module && module->hasAttr("loom.sequence_parallel"))
    if (auto tp = module->getAttrOfType<IntegerAttr>("loom.tp"))
      tokens *= tp.getInt();
  return tokens;
}

/// Whether `op` holds any attention, and any causal attention.
static std::pair<bool, bool> scanAttention(Operation *op) {
  bool anyAttention = false, anyCausal = false;
  op->walk([&](Operation *inner) {
    if (auto attention = dyn_cast<AttentionOp>(inner)) {
      anyAttention = true;
      anyCausal |= attention.getCausal();
    }
    anyAttention |= isa<JointAttentionOp>(inner);
  });
  return {anyAttention, anyCausal};
}

/// Counts are i64, as loom-import writes them: a wider or unsigned integer
/// would be truncated or misread by getInt().
static bool isPositiveI64(Attribute value) {
  auto count = dyn_cast<IntegerAttr>(value);
  return count && count.getType().isSignlessInteger(64) && count.getInt() >= 1;
}

/// `loom.model`, what loom-import knew of the model: the passes read its
/// mode (token slices or PipeFusion patches) and its denoising steps, so a
/// hand-edited module must not contradict itself or its graph.
static LogicalResult verifyModelInfo(Operation *op, Attribute value) {
  auto info = dyn_cast<DictionaryAttr>(value);
  if (!info)
    return op->emitError() << "'loom.model' must be a dictionary";
  static constexpr StringLiteral strings[] = {"name", "family", "mode"};
  static constexpr StringLiteral counts[] = {"batch", "seq", "resolution",
                                             "text_tokens", "steps"};
  for (NamedAttribute entry : info) {
    StringRef key = entry.getName();
    if (llvm::is_contained(strings, key)) {
      if (!isa<StringAttr>(entry.getValue()))
        return op->emitError() << "'loom.model' " << key << " must be a string";
    } else if (llvm::is_contained(counts, key)) {
      if (!isPositiveI64(entry.getValue()))
        return op->emitError()
               << "'loom.model' " << key << " must be a positive i64";
    } else {
      InFlightDiagnostic diag = op->emitError()
                                << "'loom.model' has unknown key '" << key
                                << "' (known: ";
      llvm::interleaveComma(llvm::concat<const StringLiteral>(strings, counts),
                            diag);
      return diag << ")";
    }
  }
  auto mode = info.getAs<StringAttr>("mode");
  if (!mode)
    return op->emitError() << "'loom.model' needs a mode (prefill, decode or "
                              "diffusion)";
  if (!llvm::is_contained({"prefill", "decode", "diffusion"}, mode.getValue()))
    return op->emitError() << "'loom.model' mode must be prefill, decode or "
                              "diffusion, got \""
                           << mode.getValue() << "\"";
  bool diffusion = mode.getValue() == "diffusion";
  if (diffusion != bool(info.get("steps")))
    return op->emitError() << "'loom.model' "
                           << (diffusion ? "mode diffusion needs steps"
                                         : "steps belong to mode diffusion");
  // The mode decides how loom-split-tokens pipelines the model: TeraPipe's
  // slices need causal attention, PipeFusion's patches a DiT's full one.
  auto [anyAttention, anyCausal] = scanAttention(op);
  if (diffusion && anyCausal)
    return op->emitError() << "'loom.model' says mode diffusion, but the "
                              "model has causal attention (a language model)";
  if (!diffusion && anyAttention && !anyCausal)
    return op->emitError() << "'loom.model' says mode " << mode.getValue()
                           << ", a causal language model, but none of the "
                              "model's attention is causal";
  return success();
}

LogicalResult LoomDialect::verifyOperationAttribute(Operation *op,
                                                    NamedAttribute attr) {
  if (attr.getName() == "loom.model")
    return verifyModelInfo(op, attr.getValue());
  if (attr.getName() == "loom.tp" || attr.getName() == "loom.dp") {
    if (!isPositiveI64(attr.getValue()))
      return op->emitError() << "'" << attr.getName().getValue()
                             << "' must be a positive i64";
    return success();
  }
  if (attr.getName() != "loom.pipeline")
    return success();
  auto pipeline = dyn_cast<PipelineAttr>(attr.getValue());
  if (!pipeline)
    return op->emitError() << "'loom.pipeline' must be a #loom.pipeline";
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
  // The denoising steps are the model's, recorded by loom-import.
  if (auto module = op->getParentOfType<ModuleOp>())
    if (auto info = module->getAttrOfType<DictionaryAttr>("loom.model"))
      if (auto steps = info.getAs<IntegerAttr>("steps");
          steps && patches && steps.getInt() != pipeline.getSteps())
        return op->emitError()
               << "'loom.pipeline' runs " << pipeline.getSteps()
               << " denoising steps, but the model's loom.model has "
               << steps.getInt();
  // Layers carry their stage: from 0 up, in order, every stage used.
  int64_t expected = 0, layers = 0;
  LogicalResult result = success();
  op->walk([&](LayerOp layer) {
    if (failed(result))
      return;
    ++layers;
    std::optional<uint64_t> stage = layer.getStage();
    if (!stage) {
      result = layer.emitOpError()
               << "of a pipelined function has no stage";
      return;
    }
    int64_t s = *stage;
    if (s != expected && s != expected + 1) {
      result = layer.emitOpError()
               << "is on stage " << s << " after a layer on stage " << expected
               << "; stages must be contiguous and in order";
      return;
    }
    if (s >= pipeline.getStages()) {
      result = layer.emitOpError() << "is on stage " << s << " but the pipeline has "
                                   << pipeline.getStages() << " stages";
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
  if (layers > 0 && expected != pipeline.getStages() - 1)
    return op->emitError() << "'loom.pipeline' has " << pipeline.getStages()
                           << " stages but the layers use " << expected + 1;
  int64_t tokens = getPipelineTokens(op);
  if (tokens && pipeline.getTokens() != tokens)
    return op->emitError() << "the slices add up to " << pipeline.getTokens()
                           << " tokens but the layers see " << tokens;
  return success();
}
