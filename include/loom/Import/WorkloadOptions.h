//===- WorkloadOptions.h - the forward pass's command-line options -*- C++ -*-===//
//
// --mode, --batch, --seq, the image and video sizes, --steps, --text-len,
// the precisions and --expert-imbalance: what loom-import and loom-plan
// both take to say which forward pass to build. Construct one (a static in
// the tool) in the tool's option category; after parsing, get() fills an
// ImportOptions. One declaration, so that an option added for a model
// family reaches both tools.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_IMPORT_WORKLOADOPTIONS_H
#define LOOM_IMPORT_WORKLOADOPTIONS_H

#include "loom/Import/ModelImporter.h"
#include "loom/Support/CommandLine.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/CommandLine.h"

#include <string>

namespace loom {

/// A training step's options (loom-plan): with `--mode train`, the
/// optimizer and the types of its states.
struct TrainingWorkloadOptions {
  explicit TrainingWorkloadOptions(llvm::cl::OptionCategory &category)
      : optimizer("optimizer", llvm::cl::cat(category),
                  llvm::cl::value_desc("adamw|adafactor|sgd"),
                  llvm::cl::desc("--mode train: the optimizer (default "
                                 "adamw; sgd is SGD with momentum)")),
        masterType("master-dtype", llvm::cl::cat(category),
                   llvm::cl::value_desc("f32|bf16|none"),
                   llvm::cl::desc("--mode train: the master copy of the "
                                  "weights beside their bf16 compute copy "
                                  "(default f32; none: the update writes "
                                  "the bf16 weights)")),
        stateType("optimizer-dtype", llvm::cl::cat(category),
                  llvm::cl::value_desc("f32|bf16"),
                  llvm::cl::desc("--mode train: the optimizer state's type "
                                 "(default f32)")) {}

  /// The training step the options give, or a message naming a bad one.
  std::string get(TrainingSettings &training) const {
    for (auto [option, field] : llvm::zip(all(), kTrainingSettingFields)) {
      std::string &value = training.*field.member;
      if (option->getNumOccurrences())
        value = static_cast<const llvm::cl::opt<std::string> *>(option)
                    ->getValue();
      if (std::string bad = field.check(value); !bad.empty())
        return "--" + std::string(field.option) + " " + bad;
    }
    return "";
  }
  /// The first option given, or null.
  const llvm::cl::Option *anyGiven() const {
    for (const llvm::cl::Option *o : all())
      if (o->getNumOccurrences())
        return o;
    return nullptr;
  }
  llvm::SmallVector<const llvm::cl::Option *> all() const {
    return {&optimizer, &masterType, &stateType};
  }

  llvm::cl::opt<std::string> optimizer, masterType, stateType;
};

struct WorkloadOptions {
  /// `training`: the options of a training step (loom-plan's), which
  /// `--mode train` asks for.
  explicit WorkloadOptions(llvm::cl::OptionCategory &category,
                           bool training = false)
      : mode("mode", llvm::cl::cat(category),
             llvm::cl::value_desc(training ? "prefill|decode|diffusion|train"
                                           : "prefill|decode|diffusion"),
             llvm::cl::desc(
                 training
                     ? "prefill: the whole prompt (LLM) or one denoising "
                       "step (DiT), the default; decode: one new token per "
                       "sequence after --seq cached tokens (LLMs); "
                       "diffusion: prefill, refusing LLMs; train: one "
                       "training step of --batch sequences (a DiT: "
                       "latents of one denoising step) with its backward "
                       "pass and optimizer update (docs/training.md)"
                     : "prefill: the whole prompt (LLM) or one denoising "
                       "step (DiT), the default; decode: one new token per "
                       "sequence after --seq cached tokens (LLMs); "
                       "diffusion: prefill, refusing LLMs")),
        batch("batch", llvm::cl::cat(category),
              llvm::cl::desc("Batch size (default: 1 for LLMs and Flux, 2 "
                             "for guided DiT, PixArt, SD3)")),
        seqLen("seq", llvm::cl::cat(category),
               llvm::cl::desc("LLMs: prompt tokens, or cached tokens in "
                              "decode mode (default: 2048)")),
        resolution("resolution", llvm::cl::cat(category),
                   llvm::cl::desc("DiTs: square image side in pixels "
                                  "(default: the model's)")),
        height("height", llvm::cl::cat(category),
               llvm::cl::desc("DiTs: image or video height in pixels (with "
                              "--width)")),
        width("width", llvm::cl::cat(category),
              llvm::cl::desc("DiTs: image or video width in pixels (with "
                             "--height)")),
        frames("frames", llvm::cl::cat(category),
               llvm::cl::desc("Video DiTs: frames (default: the "
                              "pipeline's)")),
        steps("steps", llvm::cl::cat(category),
              llvm::cl::desc("DiTs: denoising steps (default: the diffusers "
                             "pipeline's)")),
        textLen("text-len", llvm::cl::cat(category),
                llvm::cl::desc("DiTs with text: text tokens (default: the "
                               "pipeline's, e.g. PixArt 120, SD3 333, Flux "
                               "512)")),
        weightsDtype("weights-dtype", llvm::cl::value_desc("bf16|int8"),
                     llvm::cl::cat(category),
                     llvm::cl::desc("Element type of the projections' "
                                    "weights (default bf16)")),
        kvDtype("kv-dtype", llvm::cl::value_desc("bf16|int8"),
                llvm::cl::cat(category),
                llvm::cl::desc("Element type of the KV cache (default "
                               "bf16)")),
        activationsDtype(
            "activations-dtype", llvm::cl::value_desc("bf16|int8"),
            llvm::cl::cat(category),
            llvm::cl::desc("int8: the projections multiply int8 activations "
                           "by int8 weights at the MXU's int8 rate (needs "
                           "--weights-dtype int8)")),
        expertImbalance(
            "expert-imbalance", llvm::cl::cat(category), llvm::cl::init(1.0),
            llvm::cl::desc("Mixtures of experts: the busiest expert's load "
                           "as a multiple of the average (default 1: "
                           "uniform routing)")),
        attention("attention",
                  llvm::cl::value_desc("flash|materialized|jetstream-pytorch"),
                  llvm::cl::cat(category),
                  llvm::cl::desc("How the runtime runs attention: flash "
                                 "(the flash kernels' blocks, the default), "
                                 "materialized (einsums with the scores "
                                 "in HBM and a separate softmax, as XLA "
                                 "runs einsum attention, e.g. MaxText's "
                                 "attention=dot_product) or "
                                 "jetstream-pytorch (those einsums as "
                                 "jetstream-pytorch writes them: a decode "
                                 "step's query broadcast to 2 rows)")) {}

  /// Fills `options` from the options given (the rest keep the model's
  /// defaults); returns a message naming a bad value, or "".
  std::string get(ImportOptions &options,
                  const TrainingWorkloadOptions *training = nullptr) const {
    if (training) {
      if (mode == "train") {
        options.training.emplace();
        if (std::string bad = training->get(*options.training); !bad.empty())
          return bad;
      } else if (const llvm::cl::Option *given = training->anyGiven()) {
        return "--" + given->ArgStr.str() +
               " applies to a training step; give --mode train";
      }
    }
    if (!mode.empty() && !options.training) {
      std::optional<ImportOptions::Mode> parsed = parseImportMode(mode);
      if (!parsed)
        return "--mode must be prefill, decode" +
               std::string(training ? ", diffusion or train" : " or diffusion") +
               ", got '" + mode + "'";
      options.mode = *parsed;
    }
    options.batch = givenOption(batch);
    options.seqLen = givenOption(seqLen);
    options.resolution = givenOption(resolution);
    options.height = givenOption(height);
    options.width = givenOption(width);
    options.frames = givenOption(frames);
    options.steps = givenOption(steps);
    options.textLen = givenOption(textLen);
    options.expertImbalance = expertImbalance;
    if (!attention.empty()) {
      std::optional<ImportOptions::AttentionKernel> kernel =
          parseAttentionKernel(attention);
      if (!kernel)
        return "--attention must be flash, materialized or "
               "jetstream-pytorch, got '" +
               attention + "'";
      options.attention = *kernel;
    }
    return setPrecisions(options, weightsDtype, kvDtype, activationsDtype);
  }

  /// Every option, e.g. to refuse them beside a saved plan.
  llvm::SmallVector<const llvm::cl::Option *> all() const {
    return {&mode,    &batch,        &seqLen,  &resolution, &height,
            &width,   &frames,       &steps,   &textLen,    &weightsDtype,
            &kvDtype, &activationsDtype, &expertImbalance, &attention};
  }

  llvm::cl::opt<std::string> mode;
  llvm::cl::opt<int64_t> batch, seqLen, resolution, height, width, frames,
      steps, textLen;
  llvm::cl::opt<std::string> weightsDtype, kvDtype, activationsDtype;
  llvm::cl::opt<double> expertImbalance;
  llvm::cl::opt<std::string> attention;
};

} // namespace loom

#endif // LOOM_IMPORT_WORKLOADOPTIONS_H
