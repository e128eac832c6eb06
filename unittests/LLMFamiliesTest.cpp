//===- LLMFamiliesTest.cpp - the LLM families added after LLaMA ----------===//
//
// Parameter totals of the bundled Llama 3.1, Mistral, Qwen2.5, Qwen3,
// Gemma 1/2/3 and Phi-3 configs against their publishers' figures (within
// 1%), the exact hand counts of models/PARAMS.md, and what a sliding
// window does to attention cost and the KV cache.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Dialect/Loom/ModelCost.h"
#include "loom/Import/ModelImporter.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace mlir;
using namespace loom;

namespace {

CostTotals llmTotals(StringRef model, ImportOptions options = {}) {
  static MLIRContext context;
  OwningOpRef<ModuleOp> module = importModel(model, options, &context);
  EXPECT_TRUE(module) << model.str();
  if (!module)
    return {};
  auto func = *module->getOps<func::FuncOp>().begin();
  return sumPartCosts(collectPartCosts(func.getBody().front()));
}

struct PublishedTotal {
  const char *model;
  double parameters;
  const char *source;
};

TEST(LLMFamilies, ParameterTotalsMatchPublishedFigures) {
  const PublishedTotal published[] = {
      // Meta, Llama 3.1 model card (github.com/meta-llama/llama-models,
      // models/llama3_1/MODEL_CARD.md) and "The Llama 3 Herd of Models"
      // (arXiv 2407.21783), Table 3: 8B and 70B.
      {"llama3.1-8b", 8e9, "Llama 3.1 model card: 8B"},
      {"llama3.1-70b", 70e9, "Llama 3.1 model card: 70B"},
      // Mistral AI, "Mistral 7B" announcement (mistral.ai/news/
      // announcing-mistral-7b, 2023-09-27): "a 7.3B parameter model".
      {"mistral-7b-v0.1", 7.3e9, "Mistral 7B announcement: 7.3B"},
      // Qwen, Qwen/Qwen2.5-7B model card: "Number of Parameters: 7.61B".
      {"qwen2.5-7b", 7.61e9, "Qwen2.5-7B model card: 7.61B"},
      // Qwen, Qwen/Qwen3-8B model card: "Number of Parameters: 8.2B".
      {"qwen3-8b", 8.2e9, "Qwen3-8B model card: 8.2B"},
      // Gemma Team 2024, "Gemma" (arXiv 2403.08295), Table 2: 7B has
      // 786,432,000 embedding and 7,751,248,896 non-embedding parameters.
      {"gemma-7b", 786432000.0 + 7751248896.0, "Gemma report, Table 2"},
      // Gemma Team 2024, "Gemma 2" (arXiv 2408.00118), Table 1: 9B has
      // 917,962,752 embedding and 8,324,201,984 non-embedding parameters.
      {"gemma2-9b", 917962752.0 + 8324201984.0, "Gemma 2 report, Table 1"},
      // Gemma Team 2025, "Gemma 3" (arXiv 2503.19786), Table 1: 12B has a
      // 417M vision encoder, 1,012M embedding and 10,759M non-embedding
      // parameters; Loom imports the language model (the last two).
      {"gemma3-12b", 1012e6 + 10759e6, "Gemma 3 report, Table 1 (text)"},
      // Abdin et al. 2024, "Phi-3 Technical Report" (arXiv 2404.14219):
      // phi-3-mini, "a 3.8 billion parameter language model".
      {"phi3-mini-4k", 3.8e9, "Phi-3 report: 3.8B"},
  };
  for (const PublishedTotal &p : published) {
    CostTotals total = llmTotals(p.model);
    double error = std::fabs(total.parameters - p.parameters) / p.parameters;
    EXPECT_LT(error, 0.01) << p.model << ": " << total.parameters << " vs "
                           << p.parameters << " (" << p.source << ")";
  }
}

// The module-by-module counts of models/PARAMS.md.
TEST(LLMFamilies, ParameterTotalsMatchTheReferenceModules) {
  const std::pair<const char *, int64_t> exact[] = {
      {"llama3.1-8b", 8030261248},   {"llama3.1-70b", 70553706496},
      {"mistral-7b-v0.1", 7241732096}, {"qwen2.5-7b", 7615616512},
      {"qwen3-8b", 8190735360},      {"gemma-7b", 8537680896},
      {"gemma2-9b", 9241705984},     {"gemma3-12b", 11766034176},
      {"phi3-mini-4k", 3821079552},
  };
  for (auto [model, parameters] : exact)
    EXPECT_EQ(llmTotals(model).parameters, parameters) << model;
}

TEST(LLMFamilies, CausalPairsStopGrowingPastTheWindow) {
  // No window: the triangle after the cached tokens.
  EXPECT_EQ(AttentionOp::countCausalPairs(8, 0, 0), 36);
  EXPECT_EQ(AttentionOp::countCausalPairs(4, 10, 0), 4 * 10 + 10);
  // Window 4: 1 + 2 + 3 + 4 * 5.
  EXPECT_EQ(AttentionOp::countCausalPairs(8, 0, 4), 26);
  // A window at least the context changes nothing.
  EXPECT_EQ(AttentionOp::countCausalPairs(8, 0, 8), 36);
  // Past the window every query sees exactly the window, so a slice costs
  // the same wherever it comes.
  EXPECT_EQ(AttentionOp::countCausalPairs(16, 1000, 64), 16 * 64);
  EXPECT_EQ(AttentionOp::countCausalPairs(16, 5000, 64), 16 * 64);
  // Straddling: queries at 61..70 see 61, 62, 63, 64, then 64.
  EXPECT_EQ(AttentionOp::countCausalPairs(10, 60, 64), 61 + 62 + 63 + 64 * 7);
}

TEST(LLMFamilies, DecodeReadsAndKeepsOnlyTheWindowOnLocalLayers) {
  // Gemma 2 9B at 8000 cached tokens: 21 local layers (window 4096) and 21
  // global ones; each keeps 2 (K, V) * 8 heads * 256 * 2 B per token.
  ImportOptions decode;
  decode.mode = ImportOptions::Mode::Decode;
  decode.seqLen = 8000;
  CostTotals total = llmTotals("gemma2-9b", decode);
  int64_t perToken = 2 * 8 * 256 * 2;
  EXPECT_EQ(total.kvCacheBytes, 21 * perToken * 4096 + 21 * perToken * 8001);
  // Mistral's every layer is local: the cache no longer grows past 4096.
  decode.seqLen = 20000;
  int64_t at20k = llmTotals("mistral-7b-v0.1", decode).kvCacheBytes;
  decode.seqLen = 30000;
  EXPECT_EQ(llmTotals("mistral-7b-v0.1", decode).kvCacheBytes, at20k);
  EXPECT_EQ(at20k, int64_t(32) * 2 * 8 * 128 * 2 * 4096);
}

TEST(LLMFamilies, Int8WeightsAndCacheHalveTheirBytes) {
  // Llama 3.1 8B: the projections' weights (the LM head too) take one byte
  // with --weights-dtype int8; the token embedding (a gather) and the norms
  // stay bf16.
  int64_t total = 8030261248, embedding = int64_t(128256) * 4096,
          norms = int64_t(32) * 2 * 4096 + 4096;
  ImportOptions int8;
  int8.weights = ImportOptions::Precision::Int8;
  int8.kvCache = ImportOptions::Precision::Int8;
  int8.mode = ImportOptions::Mode::Decode;
  int8.seqLen = 1000;
  CostTotals quantized = llmTotals("llama3.1-8b", int8);
  EXPECT_EQ(quantized.parameters, total);
  EXPECT_EQ(quantized.parameterBytes,
            2 * (embedding + norms) + (total - embedding - norms));
  // 32 layers * 2 (K, V) * 8 heads * 128 * 1001 tokens, one byte each.
  EXPECT_EQ(quantized.kvCacheBytes, int64_t(32) * 2 * 8 * 128 * 1001);
}

} // namespace
