//===- ModelImporter.h - model configs to loom IR ---------------*- C++ -*-===//
//
// Reads the config.json files users already have (Hugging Face transformers
// LLaMA and GPT-2 style; diffusers DiT, PixArt, SD3, Flux, Wan, HunyuanVideo
// and CogVideoX transformers) or a bundled model name, and builds the loom graph of one
// forward pass.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_IMPORT_MODELIMPORTER_H
#define LOOM_IMPORT_MODELIMPORTER_H

#include "loom/Support/TrainingSettings.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>

namespace loom {

/// What forward pass to build. Unset fields take the model's defaults
/// (documented in the README's loom-import section).
struct ImportOptions {
  enum class Mode {
    /// The whole prompt at once (LLMs) or one denoising step (DiTs).
    Prefill,
    /// One new token per sequence attending to `seqLen` cached tokens.
    /// Decoder LLMs only.
    Decode,
    /// One denoising step, as Prefill, but only diffusion transformers.
    Diffusion,
  };
  Mode mode = Mode::Prefill;
  std::optional<int64_t> batch;
  /// LLMs: prompt tokens (prefill) or cached tokens (decode).
  std::optional<int64_t> seqLen;
  /// DiTs: image side in pixels (the square shorthand of height = width).
  std::optional<int64_t> resolution;
  /// DiTs: image or video height and width in pixels, and video frames.
  std::optional<int64_t> height, width, frames;
  /// DiTs: denoising steps, recorded on the module for the planners.
  std::optional<int64_t> steps;
  /// DiTs with text conditioning: text tokens.
  std::optional<int64_t> textLen;
  /// Precision, as the user chooses it (Loom never changes it): the
  /// weights of every projection, the KV cache, and the activations a
  /// projection multiplies (int8 activations need int8 weights: an
  /// int8 x int8 matmul at the MXU's int8 rate).
  enum class Precision { BF16, Int8 };
  Precision weights = Precision::BF16;
  Precision kvCache = Precision::BF16;
  Precision activations = Precision::BF16;
  /// Mixtures of experts: the busiest expert's load as a multiple of the
  /// average (1: uniform routing). Recorded on each loom.moe_route.
  double expertImbalance = 1.0;
  /// How the runtime runs attention: the flash kernels' blocks (MaxText's
  /// splash attention, the default), or einsums with the scores in HBM
  /// (jetstream-pytorch's Attention, MaxText's attention=dot_product),
  /// marked `materialized_scores` on every loom.attention; or those einsums
  /// as jetstream-pytorch writes them (layers.py at 9606a1f), which also
  /// run a decode step's one query as kMaterializedDecodeQueries rows
  /// (`decode_query_rows`).
  enum class AttentionKernel { Flash, Materialized, JetStreamPyTorch };
  AttentionKernel attention = AttentionKernel::Flash;
  /// loom-plan --mode train: a training step of this forward pass (the
  /// whole sequence of an LLM, one denoising step of a DiT). The importer
  /// builds the forward pass alone; the planner derives the step.
  std::optional<TrainingSettings> training;
};

/// Parses an --attention value: "flash", "materialized" or
/// "jetstream-pytorch".
std::optional<ImportOptions::AttentionKernel>
parseAttentionKernel(llvm::StringRef text);

/// The --attention value of `kernel`.
llvm::StringRef stringifyAttentionKernel(ImportOptions::AttentionKernel kernel);

/// Parses a --weights-dtype / --kv-dtype / --activations-dtype value:
/// "bf16" or "int8".
std::optional<ImportOptions::Precision> parsePrecision(llvm::StringRef text);
/// "bf16" or "int8".
llvm::StringRef stringifyPrecision(ImportOptions::Precision precision);
/// Sets the three precisions from the tools' flags (empty: bf16); returns
/// a message naming the bad flag, or "".
std::string setPrecisions(ImportOptions &options, llvm::StringRef weights,
                          llvm::StringRef kvCache, llvm::StringRef activations);

/// Parses a --mode value: "prefill", "decode" or "diffusion".
std::optional<ImportOptions::Mode> parseImportMode(llvm::StringRef mode);

/// A model config compiled into Loom.
struct BundledModel {
  llvm::StringRef name;
  llvm::StringRef json;
};

/// The bundled models (models/*.json), in name order.
llvm::ArrayRef<BundledModel> getBundledModels();

/// The name of the location (a NameLoc over the config file's) at which the
/// importer reports a workload option that does not fit the model: not a
/// place in the file, so a caller that read the options from a file of its
/// own may name that instead.
inline constexpr llvm::StringLiteral kWorkloadOptionsLocName =
    "workload options";

/// Imports `config`, the text of a config.json; `fileName` names it in
/// diagnostics and `modelName` becomes the function's name. Returns null
/// after emitting a located diagnostic when the config is missing a field,
/// has a field of the wrong type or is inconsistent.
mlir::OwningOpRef<mlir::ModuleOp>
importModelConfig(llvm::StringRef config, llvm::StringRef fileName,
                  llvm::StringRef modelName, const ImportOptions &options,
                  mlir::MLIRContext *context);

/// Imports a bundled model by name, or else a config.json at the path
/// `nameOrPath`.
mlir::OwningOpRef<mlir::ModuleOp> importModel(llvm::StringRef nameOrPath,
                                              const ImportOptions &options,
                                              mlir::MLIRContext *context);

} // namespace loom

#endif // LOOM_IMPORT_MODELIMPORTER_H
