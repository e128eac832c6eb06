//===- ImporterTest.cpp - loom-import's options and its errors ------------===//

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Import/ModelImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace loom;

namespace {

class ImporterTest : public ::testing::Test {
protected:
  ImporterTest()
      : handler(&context, [this](Diagnostic &diag) {
          std::string text;
          llvm::raw_string_ostream os(text);
          os << diag.getLocation() << ": " << diag;
          diagnostics.push_back(text);
          return success();
        }) {}

  OwningOpRef<ModuleOp> import(StringRef json, ImportOptions options = {}) {
    diagnostics.clear();
    return importModelConfig(json, "cfg.json", "test", options, &context);
  }

  std::string allDiagnostics() const {
    std::string all;
    for (const std::string &d : diagnostics)
      all += d + "\n";
    return all;
  }

  MLIRContext context;
  ScopedDiagnosticHandler handler;
  std::vector<std::string> diagnostics;
};

const char *tinyLlama = R"({
  "model_type": "llama",
  "hidden_size": 64,
  "intermediate_size": 128,
  "num_attention_heads": 4,
  "num_key_value_heads": 2,
  "num_hidden_layers": 2,
  "vocab_size": 100,
  "max_position_embeddings": 256
})";

template <typename OpT>
std::vector<OpT> collect(ModuleOp module) {
  std::vector<OpT> ops;
  module.walk([&](OpT op) { ops.push_back(op); });
  return ops;
}

TEST(BundledModels, AreCompiledInByName) {
  std::vector<std::string> names;
  for (const BundledModel &model : getBundledModels())
    names.push_back(model.name.str());
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
  for (const char *name :
       {"dit-xl-2", "flux-dev", "gpt3-175b", "llama-65b", "llama-7b",
        "llama2-70b", "pixart-alpha-xl-2-1024", "sd3-medium", "llama3.1-8b",
        "llama3.1-70b", "mistral-7b-v0.1", "qwen2.5-7b", "qwen3-8b",
        "gemma-7b", "gemma2-9b", "gemma3-12b", "phi3-mini-4k", "cogvideox-5b",
        "flux-schnell", "hunyuan-video", "pixart-sigma-xl-2-1024",
        "sd35-medium", "wan21-t2v-1-3b", "wan21-t2v-14b", "mixtral-8x7b",
        "qwen3-30b-a3b", "deepseek-v3"})
    EXPECT_NE(std::find(names.begin(), names.end(), name), names.end())
        << name;
}

TEST_F(ImporterTest, LlamaPrefillShapes) {
  ImportOptions options;
  options.seqLen = 32;
  options.batch = 3;
  OwningOpRef<ModuleOp> module = import(tinyLlama, options);
  ASSERT_TRUE(module) << allDiagnostics();
  EXPECT_EQ(collect<LayerOp>(*module).size(), 2u);
  std::vector<AttentionOp> attn = collect<AttentionOp>(*module);
  ASSERT_EQ(attn.size(), 2u);
  EXPECT_EQ(attn[0].getHeads(), 4u);
  EXPECT_EQ(attn[0].getKvHeads(), 2u);
  EXPECT_EQ(attn[0].getHeadDim(), 16u);
  EXPECT_TRUE(attn[0].getCausal());
  EXPECT_EQ(cast<RankedTensorType>(attn[0].getQ().getType()).getShape(),
            ArrayRef<int64_t>({3, 32, 64}));
  EXPECT_EQ(cast<RankedTensorType>(attn[0].getK().getType()).getShape(),
            ArrayRef<int64_t>({3, 32, 32}));
}

TEST_F(ImporterTest, DecodeAttendsToCachedTokens) {
  ImportOptions options;
  options.mode = ImportOptions::Mode::Decode;
  options.seqLen = 100;
  OwningOpRef<ModuleOp> module = import(tinyLlama, options);
  ASSERT_TRUE(module) << allDiagnostics();
  AttentionOp attn = collect<AttentionOp>(*module).front();
  EXPECT_EQ(attn.getCached(), 100u);
  EXPECT_EQ(cast<RankedTensorType>(attn.getQ().getType()).getDimSize(1), 1);
}

TEST_F(ImporterTest, MissingFieldIsNamedAndLocated) {
  EXPECT_FALSE(import(R"({"model_type": "llama", "hidden_size": 64})"));
  std::string all = allDiagnostics();
  EXPECT_NE(all.find("missing required field 'num_attention_heads'"),
            std::string::npos) << all;
  EXPECT_NE(all.find("cfg.json"), std::string::npos) << all;
}

TEST_F(ImporterTest, WrongTypeIsNamedWithItsLine) {
  std::string json = tinyLlama;
  json.replace(json.find("\"num_hidden_layers\": 2"), 22,
               "\"num_hidden_layers\": \"two\"");
  EXPECT_FALSE(import(json));
  std::string all = allDiagnostics();
  EXPECT_NE(all.find("\"cfg.json\":7:3): field 'num_hidden_layers' must be a "
                     "positive integer, got \"two\""),
            std::string::npos) << all;
}

TEST_F(ImporterTest, InconsistentHeadsAreRejected) {
  std::string json = tinyLlama;
  json.replace(json.find("\"num_key_value_heads\": 2"), 24,
               "\"num_key_value_heads\": 3");
  EXPECT_FALSE(import(json));
  EXPECT_NE(allDiagnostics().find("'num_attention_heads' 4 is not divisible "
                                  "by 'num_key_value_heads' 3"),
            std::string::npos) << allDiagnostics();
}

TEST_F(ImporterTest, SequenceBeyondPositionsIsRejected) {
  ImportOptions options;
  options.seqLen = 512;
  EXPECT_FALSE(import(tinyLlama, options));
  EXPECT_NE(allDiagnostics().find("exceeds 'max_position_embeddings' = 256"),
            std::string::npos) << allDiagnostics();
}

TEST_F(ImporterTest, UnknownArchitectureAndBadJson) {
  EXPECT_FALSE(import(R"({"model_type": "bert"})"));
  EXPECT_NE(allDiagnostics().find("unsupported 'model_type' \"bert\""),
            std::string::npos);
  EXPECT_FALSE(import("{ not json"));
  EXPECT_NE(allDiagnostics().find("invalid JSON"), std::string::npos);
  EXPECT_FALSE(import("[1, 2]"));
  EXPECT_NE(allDiagnostics().find("must be a JSON object"), std::string::npos);
}

TEST_F(ImporterTest, DiffusionResolutionSetsTokens) {
  ImportOptions options;
  options.resolution = 512;
  options.steps = 10;
  OwningOpRef<ModuleOp> module = importModel("dit-xl-2", options, &context);
  ASSERT_TRUE(module) << allDiagnostics();
  // 512 px / 8 (VAE) / 2 (patch) = 32 -> 1024 tokens.
  PatchifyOp patch = collect<PatchifyOp>(*module).front();
  EXPECT_EQ(cast<RankedTensorType>(patch.getType()).getDimSize(1), 1024);
  ModelAttr info = getModel(*module);
  ASSERT_TRUE(info);
  EXPECT_EQ(info.getSteps(), 10);
  EXPECT_EQ(info.getSeq(), 1024);

  options.resolution = 500;
  EXPECT_FALSE(importModel("dit-xl-2", options, &context));
  EXPECT_NE(allDiagnostics().find("resolution 500 px is not a multiple of 16"),
            std::string::npos) << allDiagnostics();
}

TEST_F(ImporterTest, UnknownNameListsTheBundledModels) {
  EXPECT_FALSE(importModel("llama-3000b", {}, &context));
  EXPECT_NE(allDiagnostics().find("neither a bundled model ("),
            std::string::npos) << allDiagnostics();
  EXPECT_NE(allDiagnostics().find("dit-xl-2, flux-dev, "), std::string::npos)
      << allDiagnostics();
}

// A video DiT's tokens follow the causal VAE (first frame alone, then 4x in
// time, 8x in space) and the 1x2x2 patch; the workload records the size.
TEST_F(ImporterTest, VideoSizeSetsTokensAndTheWorkload) {
  const char *tinyWan = R"({
    "_class_name": "WanTransformer3DModel",
    "num_attention_heads": 2, "attention_head_dim": 16, "ffn_dim": 64,
    "num_layers": 2, "text_dim": 32, "freq_dim": 8, "patch_size": [1, 2, 2]
  })";
  ImportOptions options;
  options.frames = 17;
  options.height = 96;
  options.width = 160;
  options.textLen = 8;
  OwningOpRef<ModuleOp> module = import(tinyWan, options);
  ASSERT_TRUE(module) << allDiagnostics();
  ModelAttr info = getModel(*module);
  ASSERT_TRUE(info);
  // (17 - 1) / 4 + 1 = 5 latent frames, 12 x 20 latent pixels, 6 x 10 patches.
  EXPECT_EQ(info.getSeq(), 5 * 6 * 10);
  EXPECT_EQ(info.getFrames(), 17);
  EXPECT_EQ(info.getHeight(), 96);
  EXPECT_EQ(info.getWidth(), 160);
  EXPECT_EQ(info.getResolution(), 0);
  PatchifyOp patchify = collect<PatchifyOp>(*module).front();
  EXPECT_EQ(cast<RankedTensorType>(patchify.getInput().getType()).getShape(),
            ArrayRef<int64_t>({2, 16, 5, 12, 20}));
  EXPECT_EQ(patchify.getPatchT(), std::optional<uint64_t>(1));

  options.frames = 16;
  EXPECT_FALSE(import(tinyWan, options));
  EXPECT_NE(allDiagnostics().find("frames 16 is not 4k + 1"),
            std::string::npos) << allDiagnostics();
}

} // namespace
