//===- ModelImporter.cpp - model configs to loom IR -----------------------===//
//
// The entry points: the JSON is parsed, the family chosen from the config's
// `model_type` or `_class_name` (the table below), and its builder
// (DecoderModels.cpp, DiffusionModels.cpp) builds the function; the module
// is then verified and its total cost bounded.
//
//===----------------------------------------------------------------------===//

#include "loom/Import/ModelImporter.h"
#include "ImportContext.h"
#include "loom/Support/JsonReader.h"

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Dialect/Loom/ModelCost.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <functional>

using namespace mlir;
using namespace loom;
using namespace loom::importer;

/// The largest batch, and the most tokens a step's batch holds (4096
/// sequences of the longest, 2^20 tokens): bounds under which every op's
/// and the whole model's cost figures stay within 64 bits (checked after
/// the import).
static constexpr int64_t kMaxBatch = int64_t(1) << 20;
static constexpr int64_t kMaxBatchTokens = int64_t(1) << 32;

static const BundledModel bundledModels[] = {
#include "BundledModels.inc"
};

ArrayRef<BundledModel> loom::getBundledModels() { return bundledModels; }

std::optional<ImportOptions::Mode> loom::parseImportMode(StringRef mode) {
  return llvm::StringSwitch<std::optional<ImportOptions::Mode>>(mode)
      .Case("prefill", ImportOptions::Mode::Prefill)
      .Case("decode", ImportOptions::Mode::Decode)
      .Case("diffusion", ImportOptions::Mode::Diffusion)
      .Default(std::nullopt);
}

std::optional<ImportOptions::Precision> loom::parsePrecision(StringRef text) {
  return llvm::StringSwitch<std::optional<ImportOptions::Precision>>(text)
      .Case("bf16", ImportOptions::Precision::BF16)
      .Case("int8", ImportOptions::Precision::Int8)
      .Default(std::nullopt);
}

std::optional<ImportOptions::AttentionKernel>
loom::parseAttentionKernel(StringRef text) {
  return llvm::StringSwitch<std::optional<ImportOptions::AttentionKernel>>(text)
      .Case("flash", ImportOptions::AttentionKernel::Flash)
      .Case("materialized", ImportOptions::AttentionKernel::Materialized)
      .Case("jetstream-pytorch",
            ImportOptions::AttentionKernel::JetStreamPyTorch)
      .Default(std::nullopt);
}

StringRef loom::stringifyAttentionKernel(ImportOptions::AttentionKernel kernel) {
  switch (kernel) {
  case ImportOptions::AttentionKernel::Flash:
    return "flash";
  case ImportOptions::AttentionKernel::Materialized:
    return "materialized";
  case ImportOptions::AttentionKernel::JetStreamPyTorch:
    return "jetstream-pytorch";
  }
  return "flash";
}

StringRef loom::stringifyPrecision(ImportOptions::Precision precision) {
  return precision == ImportOptions::Precision::Int8 ? "int8" : "bf16";
}

std::string loom::setPrecisions(ImportOptions &options, StringRef weights,
                                StringRef kvCache, StringRef activations) {
  for (auto [text, flag, field] :
       {std::tuple{weights, "--weights-dtype", &options.weights},
        {kvCache, "--kv-dtype", &options.kvCache},
        {activations, "--activations-dtype", &options.activations}}) {
    if (text.empty())
      continue;
    std::optional<ImportOptions::Precision> parsed = parsePrecision(text);
    if (!parsed)
      return (Twine(flag) + " must be bf16 or int8, got '" + text + "'").str();
    *field = *parsed;
  }
  return "";
}

/// Marks the precision the user chose: int8 weights on every projection
/// and routed expert, an int8 KV cache on every causal attention (MLA's
/// latent too), int8 x int8 matmuls; and, with --attention materialized,
/// attention run as einsums with the scores in HBM.
static void applyPrecision(func::FuncOp func, const ImportOptions &options) {
  using P = ImportOptions::Precision;
  Builder b(func.getContext());
  TypeAttr i8 = TypeAttr::get(b.getI8Type());
  func.walk([&](Operation *op) {
    if (auto linear = dyn_cast<LinearOp>(op)) {
      if (options.weights == P::Int8)
        linear.setWeightTypeAttr(i8);
      if (options.activations == P::Int8)
        linear.setComputeTypeAttr(i8);
    } else if (auto attention = dyn_cast<AttentionOp>(op)) {
      if (options.kvCache == P::Int8 && attention.getCausal())
        attention.setKvTypeAttr(i8);
      if (options.attention != ImportOptions::AttentionKernel::Flash)
        attention.setMaterializedScores(true);
      if (options.attention == ImportOptions::AttentionKernel::JetStreamPyTorch) {
        attention.setDecodeQueryRowsAttr(
            b.getI64IntegerAttr(kMaterializedDecodeQueries));
        // Its int8 cache's one scale a token over all heads.
        if (attention.getKvType())
          attention.setKvScalesAcrossHeads(true);
      }
    } else if (auto experts = dyn_cast<MoEExpertsOp>(op)) {
      // The routed experts are most of a mixture's weights. The router
      // (hidden x experts) stays in the activations' type, like the norms.
      if (options.weights == P::Int8)
        experts.setWeightTypeAttr(i8);
      if (options.activations == P::Int8)
        experts.setComputeTypeAttr(i8);
    } else if (auto latent = dyn_cast<LatentAttentionOp>(op)) {
      // kv_b_proj is a weight; the cached latent is the KV cache.
      if (options.weights == P::Int8)
        latent.setWeightTypeAttr(i8);
      if (options.kvCache == P::Int8 && latent.getCausal())
        latent.setKvTypeAttr(i8);
    }
  });
}

bool loom::importer::requireDivisible(ConfigReader &c, StringRef key,
                                      int64_t value, StringRef divisorKey,
                                      int64_t divisor) {
  if (value % divisor == 0)
    return true;
  c.error(divisorKey) << "'" << key << "' " << value
                      << " is not divisible by '" << divisorKey << "' "
                      << divisor;
  return false;
}

void loom::importer::requireVariant(ConfigReader &c, StringRef key,
                                    StringRef modelled) {
  std::string given = c.string(key);
  if (!given.empty() && given != modelled)
    c.error(key) << "field '" << key << "' must be \"" << modelled
                 << "\", the variant Loom models; got \"" << given << "\"";
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

/// The families Loom reads: transformers configs name a `model_type`,
/// diffusers configs a `_class_name`. `family` is what #loom.model records.
namespace {
struct Family {
  StringRef key;
  FamilyBuilder build;
  StringRef family;
};
} // namespace
static const Family modelTypes[] = {
    {"llama", buildLlama, "llama"},
    {"gpt2", buildGPT, "gpt"},
    {"gpt", buildGPT, "gpt"},
    {"mistral", buildMistral, "mistral"},
    {"qwen2", buildQwen2, "qwen2"},
    {"qwen3", buildQwen3, "qwen3"},
    {"gemma", buildGemma, "gemma"},
    {"gemma2", buildGemma2, "gemma2"},
    {"gemma3", buildGemma3, "gemma3"},
    {"gemma3_text", buildGemma3Text, "gemma3"},
    {"phi3", buildPhi3, "phi3"},
    {"mixtral", buildMixtral, "mixtral"},
    {"qwen2_moe", buildQwenMoE, "qwen2_moe"},
    {"qwen3_moe", buildQwenMoE, "qwen3_moe"},
    {"deepseek_v3", buildDeepSeekV3, "deepseek_v3"},
};
static const Family classNames[] = {
    {"DiTTransformer2DModel", buildDiT, "dit"},
    {"PixArtTransformer2DModel", buildPixArt, "pixart"},
    {"SD3Transformer2DModel", buildSD3, "sd3"},
    {"FluxTransformer2DModel", buildFlux, "flux"},
    {"WanTransformer3DModel", buildWan, "wan"},
    {"HunyuanVideoTransformer3DModel", buildHunyuanVideo, "hunyuan_video"},
    {"CogVideoXTransformer3DModel", buildCogVideoX, "cogvideox"},
};

static std::string keyList(ArrayRef<Family> families) {
  std::string list;
  for (const Family &f : families)
    list += (list.empty() ? "" : ", ") + f.key.str();
  return list;
}

static const Family *selectFamily(ConfigReader &config) {
  std::string modelType = config.string("model_type");
  std::string className = config.string("_class_name");
  // The original DiT and PixArt checkpoints use the generic class; the
  // norm type tells them apart, as diffusers itself does.
  if (className == "Transformer2DModel") {
    std::string norm = config.string("norm_type");
    if (norm == "ada_norm_zero")
      className = "DiTTransformer2DModel";
    else if (norm == "ada_norm_single")
      className = "PixArtTransformer2DModel";
  }
  auto find = [](ArrayRef<Family> families, StringRef key) -> const Family * {
    for (const Family &f : families)
      if (f.key == key)
        return &f;
    return nullptr;
  };
  if (!modelType.empty()) {
    if (const Family *f = find(modelTypes, modelType))
      return f;
    config.error("model_type")
        << "unsupported 'model_type' \"" << modelType
        << "\" (supported: " << keyList(modelTypes) << ")";
  } else if (!className.empty()) {
    if (const Family *f = find(classNames, className))
      return f;
    config.error("_class_name")
        << "unsupported '_class_name' \"" << className
        << "\" (supported: " << keyList(classNames) << ")";
  } else {
    config.error("model_type")
        << "cannot tell the architecture: the config has neither "
                      "'model_type' (transformers) nor '_class_name' "
                      "(diffusers)";
  }
  return nullptr;
}

static std::string functionName(StringRef modelName) {
  std::string name;
  for (char ch : modelName)
    name += std::isalnum(static_cast<unsigned char>(ch)) ? ch : '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
    name = "m_" + name;
  return name;
}

OwningOpRef<ModuleOp>
loom::importModelConfig(StringRef text, StringRef fileName, StringRef modelName,
                        const ImportOptions &options, MLIRContext *context) {
  context->loadDialect<LoomDialect, func::FuncDialect>();
  Location fileLoc = FileLineColLoc::get(context, fileName, 1, 1);
  llvm::Expected<llvm::json::Value> json = parseJson(text);
  if (!json) {
    std::string message = llvm::toString(json.takeError());
    auto [line, column] = takeJsonErrorPosition(message);
    Location at =
        line ? FileLineColLoc::get(context, fileName, line, column) : fileLoc;
    mlir::emitError(at) << "invalid JSON: " << message;
    return nullptr;
  }
  // The options' own errors are not at a place in the file.
  Location optionsLoc = ConfigReader::workloadLoc(fileLoc);
  const llvm::json::Object *object = json->getAsObject();
  if (!object) {
    mlir::emitError(fileLoc) << "a model config must be a JSON object";
    return nullptr;
  }
  for (auto [flag, what] : {std::pair{options.batch, "batch"},
                            {options.seqLen, "sequence length"},
                            {options.resolution, "resolution"},
                            {options.height, "height"},
                            {options.width, "width"},
                            {options.frames, "frames"},
                            {options.steps, "steps"},
                            {options.textLen, "text length"}})
    if (flag && *flag <= 0) {
      mlir::emitError(optionsLoc) << what << " must be positive, got " << *flag;
      return nullptr;
    }

  // Keep FLOP counts of the largest models within 64 bits (and a DiT's
  // resolution squared well inside them before its token cap applies); the
  // tokens of a whole batch are bounded once the model's sequence is known.
  for (auto [flag, what, limit] :
       {std::tuple{options.batch, "batch", kMaxBatch},
        {options.seqLen, "sequence length", int64_t(1) << 20},
        {options.resolution, "resolution", int64_t(1) << 16},
        {options.height, "height", int64_t(1) << 16},
        {options.width, "width", int64_t(1) << 16},
        {options.frames, "frames", int64_t(1) << 14},
        {options.steps, "steps", int64_t(10000)},
        {options.textLen, "text length", int64_t(1) << 16}})
    if (flag && *flag > limit) {
      mlir::emitError(optionsLoc)
          << what << " " << *flag << " is larger than Loom models (" << limit
          << ")";
      return nullptr;
    }
  if (options.activations == ImportOptions::Precision::Int8 &&
      options.weights != ImportOptions::Precision::Int8) {
    mlir::emitError(optionsLoc) << "int8 activations need int8 weights (an "
                                "int8 x int8 matmul); add --weights-dtype "
                                "int8";
    return nullptr;
  }
  ConfigReader config(*object, text, fileName, context);
  const Family *family = selectFamily(config);
  if (!family)
    return nullptr;
  // Weights stored quantized (DeepSeek-V3's FP8 blocks, an FP8 or int4
  // re-upload of any family) would change the bytes read, so the field is
  // refused for every family rather than priced as bf16. Precision is the
  // user's --weights-dtype: TPU v5e's MXU multiplies bf16 or int8 and has
  // no FP8 rate (Google Cloud TPU docs, 'TPU v5e', key specifications: peak
  // compute bf16 197 TFLOPs and int8 393 TOPs only,
  // https://cloud.google.com/tpu/docs/v5e), so an FP8 checkpoint is served
  // converted to one of those two.
  if (config.has("quantization_config")) {
    std::string method;
    if (const llvm::json::Object *q = object->getObject("quantization_config"))
      if (std::optional<StringRef> m = q->getString("quant_method"))
        method = (" (quant_method \"" + *m + "\")").str();
    config.error("quantization_config")
        << "field 'quantization_config' (a checkpoint stored quantized) is "
           "not supported: Loom prices the precision --weights-dtype chooses "
           "(bf16 or int8, the rates of TPU v5e's MXU, which has no FP8), "
           "not the checkpoint's storage"
        << method
        << "; remove the field and choose the precision with "
           "--weights-dtype";
    return nullptr;
  }

  OpBuilder builder(context);
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  ModelFunction fn(*module, functionName(modelName), builder, fileLoc);
  GraphBuilder graph(builder, fileLoc);
  ImportContext ic{config, options, fn, graph};
  if (failed(family->build(ic)) || !config.ok())
    return nullptr;
  if (ic.model.seq > kMaxBatchTokens / std::max<int64_t>(1, ic.model.batch)) {
    mlir::emitError(optionsLoc)
        << "batch " << ic.model.batch << " x " << ic.model.seq
        << " tokens is larger than Loom models (" << kMaxBatchTokens
        << " tokens a step)";
    return nullptr;
  }
  // The routing's imbalance applies to routed experts only; NaN included,
  // anything but the default is refused on a dense model.
  bool routed = false;
  fn.func.walk([&](MoERouteOp) { routed = true; });
  if (options.expertImbalance != 1.0 && !routed) {
    mlir::emitError(optionsLoc)
        << "an expert imbalance applies to mixture-of-experts models; this "
           "one has no routed experts";
    return nullptr;
  }
  applyPrecision(fn.func, options);
  (*module)->setAttr(kModelAttrName,
                     ModelAttr::get(context, modelName, family->family,
                                    ic.model.mode, ic.model.batch, ic.model.seq,
                                    ic.model.resolution, ic.model.textTokens,
                                    ic.model.steps, ic.model.height,
                                    ic.model.width, ic.model.frames));
  if (failed(mlir::verify(*module)))
    return nullptr;
  // The verifier bounds each op and layer; the whole model must fit too, so
  // that every pass's sums stay exact.
  CostTotals total = sumPartCosts(collectPartCosts(fn.func.getBody().front()));
  std::string past =
      findCostPastLimit({{"FLOPs", total.flops},
                         {"parameters", total.parameters},
                         {"bytes of parameters", total.parameterBytes},
                         {"bytes read", total.bytesRead},
                         {"bytes written", total.bytesWritten},
                         {"bytes of KV cache", total.kvCacheBytes}});
  if (!past.empty()) {
    mlir::emitError(optionsLoc) << "the model " << past
                             << " in all, past Loom's 64-bit cost figures (at "
                                "most 2^62); use a smaller batch, sequence or "
                                "model";
    return nullptr;
  }
  return module;
}

OwningOpRef<ModuleOp> loom::importModel(StringRef nameOrPath,
                                        const ImportOptions &options,
                                        MLIRContext *context) {
  for (const BundledModel &model : getBundledModels())
    if (model.name == nameOrPath)
      return importModelConfig(model.json,
                               ("models/" + model.name + ".json").str(),
                               model.name, options, context);
  auto buffer = llvm::MemoryBuffer::getFile(nameOrPath, /*IsText=*/true);
  if (!buffer) {
    std::string names;
    for (const BundledModel &model : getBundledModels())
      names += (names.empty() ? "" : ", ") + model.name.str();
    mlir::emitError(UnknownLoc::get(context))
        << "'" << nameOrPath << "' is neither a bundled model (" << names
        << ") nor a readable file: " << buffer.getError().message();
    return nullptr;
  }
  // The model is named after its file, or its folder for config.json.
  StringRef stem = llvm::sys::path::stem(nameOrPath);
  if (stem == "config") {
    StringRef parent = llvm::sys::path::parent_path(nameOrPath);
    StringRef folder = llvm::sys::path::filename(parent);
    stem = folder.empty() ? StringRef("model") : folder;
  }
  return importModelConfig((*buffer)->getBuffer(), nameOrPath, stem, options,
                           context);
}
