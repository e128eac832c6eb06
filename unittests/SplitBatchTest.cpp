//===- SplitBatchTest.cpp - loom-split-batch against the importer --------===//
//
// The batch split is right when a replica's module is the model imported
// with its share of the batch: for every bundled model in every mode it
// supports (prefill and decode for LLMs, one denoising step for DiTs), on
// small workloads, split(import(batch)) must print exactly as
// import(batch / replicas) does, for replica counts with even and odd
// shares. And what the split refuses, with its diagnostic.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Import/ModelImporter.h"
#include "loom/Transforms/SplitBatch.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"

#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace loom;

namespace {

std::string print(ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module.print(os);
  return text;
}

class SplitBatchTest : public ::testing::Test {
protected:
  SplitBatchTest() {
    context.loadDialect<LoomDialect, func::FuncDialect>();
  }

  OwningOpRef<ModuleOp> import(StringRef model, ImportOptions options,
                               int64_t batch) {
    options.batch = batch;
    return importModel(model, options, &context);
  }

  /// The workloads a model supports, small: a prompt of 16 tokens and a
  /// decode step after 16 cached ones for an LLM; one denoising step of a
  /// 256-pixel image for a DiT (video models keep their frames).
  std::vector<ImportOptions> workloads(StringRef model) {
    OwningOpRef<ModuleOp> probe = importModel(model, {}, &context);
    EXPECT_TRUE(probe) << model.str();
    if (!probe)
      return {};
    std::vector<ImportOptions> all;
    ImportOptions o;
    if (getModel(*probe).isDiffusion()) {
      o.mode = ImportOptions::Mode::Diffusion;
      o.resolution = 256;
      all.push_back(o);
      return all;
    }
    o.seqLen = 16;
    all.push_back(o);
    o.mode = ImportOptions::Mode::Decode;
    all.push_back(o);
    return all;
  }

  /// The first error `splitReplicaBatch(module, replicas)` emits; "" when
  /// it succeeds.
  std::string splitError(ModuleOp module, int64_t replicas) {
    std::string message;
    ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
      if (message.empty())
        message = d.str();
      return success();
    });
    bool ok = succeeded(splitReplicaBatch(module, replicas));
    EXPECT_EQ(ok, message.empty()) << message;
    return message;
  }

  MLIRContext context;
};

TEST_F(SplitBatchTest, EveryBundledModelSplitsAsImportedWithItsShare) {
  constexpr int64_t batch = 6;
  int cases = 0;
  for (const BundledModel &model : getBundledModels()) {
    for (const ImportOptions &options : workloads(model.name)) {
      for (int64_t replicas : {2, 3}) {
        SCOPED_TRACE(model.name.str() + " mode " +
                     std::to_string(int(options.mode)) + " replicas " +
                     std::to_string(replicas));
        OwningOpRef<ModuleOp> whole = import(model.name, options, batch);
        OwningOpRef<ModuleOp> share =
            import(model.name, options, batch / replicas);
        ASSERT_TRUE(whole && share);
        std::string wholeText = print(*whole);
        ASSERT_EQ(splitError(*whole, replicas), "");
        EXPECT_TRUE(succeeded(verify(*whole)));
        std::string split = print(*whole);
        // The split changed the module, into exactly the share's.
        EXPECT_NE(split, wholeText);
        EXPECT_EQ(split, print(*share));
        ++cases;
      }
    }
  }
  // Every bundled model, LLMs in two modes.
  EXPECT_GE(cases, 2 * int(getBundledModels().size()));
}

TEST_F(SplitBatchTest, OneReplicaKeepsTheModule) {
  OwningOpRef<ModuleOp> module = import("llama-7b", workloads("llama-7b")[0], 4);
  ASSERT_TRUE(module);
  std::string before = print(*module);
  EXPECT_EQ(splitError(*module, 1), "");
  EXPECT_EQ(print(*module), before);
}

TEST_F(SplitBatchTest, MixtureOfExpertsRecountsItsTokens) {
  // The router's buffer holds every routed token's top_k copies and the
  // experts count the tokens: both follow the share (6 x 16 tokens -> 2 x
  // 16 over 3 replicas).
  OwningOpRef<ModuleOp> module =
      import("mixtral-8x7b", workloads("mixtral-8x7b")[0], 6);
  ASSERT_TRUE(module);
  ASSERT_EQ(splitError(*module, 3), "");
  int experts = 0;
  module->walk([&](MoEExpertsOp op) {
    EXPECT_EQ(op.getTokens(), 32);
    EXPECT_EQ(cast<RankedTensorType>(op.getType()).getDimSize(1),
              32 * op.getTopK());
    ++experts;
  });
  EXPECT_EQ(experts, 32);
  EXPECT_EQ(getModel(*module).getBatch(), 2);
}

TEST_F(SplitBatchTest, RefusesReplicasThatDoNotDivideTheBatch) {
  OwningOpRef<ModuleOp> module = import("llama-7b", workloads("llama-7b")[0], 6);
  ASSERT_TRUE(module);
  std::string before = print(*module);
  EXPECT_EQ(splitError(*module, 4),
            "replicas = 4 does not divide the batch of 6 (each data-parallel "
            "replica runs an equal share)");
  EXPECT_EQ(splitError(*module, 0), "replicas must be at least 1, got 0");
  // Refused before any change.
  EXPECT_EQ(print(*module), before);
}

TEST_F(SplitBatchTest, RefusesAPlannedModule) {
  OwningOpRef<ModuleOp> module = import("llama-7b", workloads("llama-7b")[0], 4);
  ASSERT_TRUE(module);
  (*module)->setAttr(kParallelAttrName, ParallelAttr::get(&context, 2, 1, false,
                                                          1, 1, 1, false,
                                                          false, 1, 0, 1));
  EXPECT_NE(splitError(*module, 2).find("already planned"), std::string::npos);
}

} // namespace
