//===- loom-import.cpp - model configs to loom IR -------------------------===//
//
// Reads a Hugging Face transformers or diffusers config.json, or a bundled
// model name, and writes the loom IR of one forward pass.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Loom/ModuleTarget.h"
#include "loom/Import/ModelImporter.h"
#include "loom/Support/CommandLine.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace llvm;

static cl::OptionCategory category("loom-import options");

static cl::opt<std::string> input(cl::Positional, cl::value_desc("model"),
                                  cl::desc("<bundled model name | config.json>"),
                                  cl::cat(category));
static cl::opt<std::string> output("o", cl::desc("Output file (default: stdout)"),
                                   cl::value_desc("file"), cl::init("-"),
                                   cl::cat(category));
static cl::opt<std::string>
    targetTopology("target", cl::value_desc("topology"), cl::cat(category),
                   cl::desc("Record the target topology on the module (e.g. "
                            "v5e-16), with its figures: loom.target = "
                            "#loom.target<...>"));
static cl::opt<std::string>
    targetFile("target-file", cl::value_desc("json"), cl::cat(category),
               cl::desc("With --target: the target file (format: "
                        "targets/README.md) whose topology it names"));
static cl::opt<bool> list("list-models", cl::desc("List the bundled models and exit"),
                          cl::cat(category));
static cl::opt<std::string>
    mode("mode", cl::init("prefill"), cl::cat(category),
         cl::desc("prefill: the whole prompt (LLM) or one denoising step "
                  "(DiT); decode: one new token per sequence after --seq "
                  "cached tokens (LLMs); diffusion: prefill, refusing "
                  "LLMs"));
static cl::opt<int64_t> batch("batch", cl::cat(category),
                              cl::desc("Batch size (default: 1 for LLMs and "
                                       "Flux, 2 for guided DiT, PixArt, SD3)"));
static cl::opt<int64_t> seqLen("seq", cl::cat(category),
                            cl::desc("LLMs: prompt tokens, or cached tokens "
                                     "in decode mode (default: 2048)"));
static cl::opt<int64_t> resolution("resolution", cl::cat(category),
                                   cl::desc("DiTs: image side in pixels "
                                            "(default: sample_size * 8)"));
static cl::opt<int64_t> height("height", cl::cat(category),
                               cl::desc("DiTs: image or video height in pixels "
                                        "(with --width)"));
static cl::opt<int64_t> width("width", cl::cat(category),
                              cl::desc("DiTs: image or video width in pixels "
                                       "(with --height)"));
static cl::opt<int64_t> frames("frames", cl::cat(category),
                               cl::desc("Video DiTs: frames (default: the "
                                        "pipeline's)"));
static cl::opt<int64_t> steps("steps", cl::cat(category),
                              cl::desc("DiTs: denoising steps, recorded for "
                                       "the planners (default: the "
                                       "diffusers pipeline's)"));
static cl::opt<std::string>
    weightsDtype("weights-dtype", cl::value_desc("bf16|int8"), cl::cat(category),
                 cl::desc("Element type of the projections' weights "
                          "(default bf16)"));
static cl::opt<std::string>
    kvDtype("kv-dtype", cl::value_desc("bf16|int8"), cl::cat(category),
            cl::desc("Element type of the KV cache (default bf16)"));
static cl::opt<std::string> activationsDtype(
    "activations-dtype", cl::value_desc("bf16|int8"), cl::cat(category),
    cl::desc("int8: the projections multiply int8 activations by int8 "
             "weights at the MXU's int8 rate (needs --weights-dtype int8)"));
static cl::opt<int64_t> textLen("text-len", cl::cat(category),
                                cl::desc("DiTs with text: text tokens "
                                         "(default: PixArt 120, SD3 333, "
                                         "Flux 512)"));

static cl::opt<double> expertImbalance(
    "expert-imbalance", cl::cat(category), cl::init(1.0),
    cl::desc("Mixtures of experts: the busiest expert's load as a multiple "
             "of the average (default 1: uniform routing)"));

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "loom-import: model config to loom IR\n\n"
      "Reads a Hugging Face transformers config.json (llama, gpt2), a "
      "diffusers transformer config.json (DiT, PixArt-alpha, SD3, Flux) or "
      "the name of a bundled model, and writes the loom IR of one forward "
      "pass.\n");

  if (list) {
    for (const loom::BundledModel &model : loom::getBundledModels())
      outs() << model.name << "\n";
    return 0;
  }
  if (input.empty()) {
    errs() << "loom-import: no model given (a bundled name or a "
              "config.json; --list-models lists the bundled ones)\n";
    return 1;
  }

  loom::ImportOptions options;
  if (std::optional<loom::ImportOptions::Mode> parsed =
          loom::parseImportMode(mode))
    options.mode = *parsed;
  else {
    errs() << "loom-import: --mode must be prefill, decode or diffusion, got '"
           << mode << "'\n";
    return 1;
  }
  options.batch = loom::givenOption(batch);
  options.seqLen = loom::givenOption(seqLen);
  options.resolution = loom::givenOption(resolution);
  options.height = loom::givenOption(height);
  options.width = loom::givenOption(width);
  options.frames = loom::givenOption(frames);
  options.steps = loom::givenOption(steps);
  options.textLen = loom::givenOption(textLen);
  if (std::string bad = loom::setPrecisions(options, weightsDtype, kvDtype,
                                             activationsDtype);
      !bad.empty()) {
    errs() << "loom-import: " << bad << "\n";
    return 1;
  }
  options.expertImbalance = expertImbalance;

  mlir::MLIRContext context;
  // Prints errors as file:line:col with the offending line of the config.
  llvm::SourceMgr sourceMgr;
  mlir::SourceMgrDiagnosticHandler diagnostics(sourceMgr, &context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      loom::importModel(input, options, &context);
  if (!module)
    return 1;
  if (!targetFile.empty() && targetTopology.empty()) {
    errs() << "loom-import: --target-file needs --target (the topology)\n";
    return 1;
  }
  if (!targetTopology.empty()) {
    Expected<loom::TargetAttr> target =
        loom::materializeTarget(&context, targetTopology, targetFile);
    if (!target) {
      errs() << "loom-import: " << toString(target.takeError()) << "\n";
      return 1;
    }
    (*module)->setAttr(loom::kTargetAttrName, *target);
  }

  std::string error;
  std::unique_ptr<ToolOutputFile> file = mlir::openOutputFile(output, &error);
  if (!file) {
    errs() << "loom-import: " << error << "\n";
    return 1;
  }
  module->print(file->os());
  file->os() << "\n";
  file->keep();
  return 0;
}
