//===- LayoutTest.cpp - one layout value, spelled one way everywhere ------===//

#include "loom/Import/ModelImporter.h"
#include "loom/InitAll.h"
#include "loom/Support/JsonReader.h"
#include "loom/Transforms/ParallelLayout.h"
#include "loom/Transforms/PlanPipeline.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringSet.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace loom;

namespace {

/// A layout with every dimension away from its default.
ParallelLayout everyDimension() {
  ParallelLayout l;
  l.tp = 8;
  l.tpLayout = TensorLayout::TwoD;
  l.tpX = 2;
  l.kvBatch = 2;
  l.ep = 4;
  l.epLayout = ExpertLayout::Data;
  l.sp = 2;
  l.spMode = SequenceMode::Ring;
  l.sequenceParallel = true;
  l.stages = 4;
  l.virtualStages = 2;
  l.dataParallel = 2;
  l.microbatches = 4;
  l.interleave = 2;
  l.slices = SliceSpec::lengths({640, 512, 480, 416});
  l.decompose = true;
  l.scatterHandover = true;
  l.placement = cantFail(parsePlacement("4x4, tp 2x4 inside sp"));
  l.fsdp = 2;
  l.zero = 2;
  l.remat = RematPolicy::SaveQkvProj;
  l.schedule = PipelineSchedule::ZeroBubbleH1;
  return l;
}

TEST(Layout, EveryDimensionIsDeclaredOnceWithItsOwnNames) {
  llvm::StringSet<> names, keys;
  int count = 0;
  forEachDimension(
      [&](const auto &d) {
        ++count;
        EXPECT_TRUE(names.insert(d.name).second) << d.name.str();
        EXPECT_TRUE(keys.insert(d.key).second) << d.key.str();
        EXPECT_NE(std::string(d.help), "") << d.name.str();
      },
      layoutDimensions());
  EXPECT_EQ(count, 22);
  // The defaults: one chip, one stage, the rule's placement.
  ParallelLayout defaults;
  EXPECT_EQ(defaults.str(), "");
  EXPECT_EQ(defaults.chipsPerStage(), 1);
  EXPECT_TRUE(defaults.placement.isDefault());
  EXPECT_TRUE(defaults.slices.isAuto());
}

TEST(Layout, TheTextualFormReadsBack) {
  ParallelLayout l = everyDimension();
  std::string text = l.str();
  EXPECT_NE(text.find("tp=8 tp-layout=2d tp-x=2 kv-batch=2 ep=4 ep-layout=data"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("slices=640,512,480,416"), std::string::npos) << text;
  EXPECT_NE(text.find("placement={4x4, tp 2x4 inside sp"), std::string::npos)
      << text;
  llvm::Expected<ParallelLayout> back = parseLayout(text);
  ASSERT_TRUE(bool(back)) << llvm::toString(back.takeError());
  EXPECT_TRUE(*back == l) << back->str();
  EXPECT_EQ(back->str(), text);
}

TEST(Layout, TheTextualFormNamesWhatItCannotRead) {
  auto error = [](llvm::StringRef text) {
    llvm::Expected<ParallelLayout> parsed = parseLayout(text);
    return parsed ? std::string() : llvm::toString(parsed.takeError());
  };
  EXPECT_EQ(error("tq=4"), "no layout option 'tq'");
  EXPECT_EQ(error("tp-layout=3d"),
            "tp-layout must be one of 1d, 2d, weight-gathered, got '3d'");
  EXPECT_EQ(error("stages=two"), "stages expects an integer, got 'two'");
  EXPECT_EQ(error("decompose=yes"),
            "decompose expects true or false, got 'yes'");
  EXPECT_NE(error("slices=4,x").find("cannot read 'x'"), std::string::npos);
  EXPECT_NE(error("placement={5x5}"), "");
}

TEST(Layout, AGivenDimensionIsFixedTheRestTakeTheirDefaults) {
  LayoutRequest given;
  EXPECT_FALSE(given.anyGiven());
  given.stages = 4;
  given.tpLayout = TensorLayout::TwoD;
  EXPECT_TRUE(given.anyGiven());
  ParallelLayout l = given.complete();
  EXPECT_EQ(l.stages, 4);
  EXPECT_EQ(l.tp, 1);
  // A 2-D block given without its rows: the planner chooses them.
  EXPECT_EQ(l.tpX, 0);
  given.tpX = 2;
  EXPECT_EQ(given.complete().tpX, 2);
}

/// `layout` written as a plan file's "layout" object and read back.
LayoutRequest throughJSON(const ParallelLayout &layout, bool onlyChanged) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream j(os);
  j.object([&] { writeLayoutJSON(layout, j, onlyChanged); });
  llvm::Expected<llvm::json::Value> value = llvm::json::parse(text);
  EXPECT_TRUE(bool(value)) << text;
  JsonReader reader("layout.json");
  LayoutRequest read;
  readLayoutJSON(reader, *value->getAsObject(), "$.layout", read);
  EXPECT_FALSE(reader.failed()) << llvm::toString(reader.takeError());
  return read;
}

TEST(Layout, TheOrderIsTotalOverEveryDimension) {
  // Layouts that differ in any one dimension are ordered one way, whether
  // or not the search's tie-break key names that dimension.
  const ParallelLayout base, changed = everyDimension();
  size_t dimensions = 0;
  forEachDimension([&](const auto &) { ++dimensions; }, base);
  for (size_t target = 0; target < dimensions; ++target) {
    ParallelLayout one = base;
    size_t index = 0;
    forEachDimension(
        [&](auto &field, const auto &from) {
          if (index++ == target)
            field = from;
        },
        one, changed);
    EXPECT_FALSE(one == base) << "dimension " << target;
    EXPECT_NE(one < base, base < one) << "dimension " << target;
    EXPECT_FALSE(one < one) << "dimension " << target;
  }
}

TEST(Layout, JSONReadsBackWhatItWrote) {
  ParallelLayout l = everyDimension();
  EXPECT_TRUE(throughJSON(l, /*onlyChanged=*/true).complete() == l);
  EXPECT_TRUE(throughJSON(l, /*onlyChanged=*/false).complete() == l);
  // A plan file holds the keys format 1 always had, and no others at their
  // defaults.
  LayoutRequest defaults = throughJSON(ParallelLayout(), true);
  EXPECT_TRUE(defaults.tp && defaults.stages && defaults.dataParallel &&
              defaults.sequenceParallel && defaults.slices && defaults.ep);
  EXPECT_FALSE(defaults.tpLayout || defaults.placement || defaults.decompose);
}

TEST(Layout, JSONNamesTheKeyItCannotRead) {
  auto error = [](llvm::StringRef text) {
    llvm::json::Value value = cantFail(llvm::json::parse(text));
    JsonReader reader("plan.json");
    LayoutRequest read;
    readLayoutJSON(reader, *value.getAsObject(), "$.layout", read);
    return reader.failed() ? llvm::toString(reader.takeError()) : "";
  };
  std::string base = R"("tp": 1, "ep": 1, "stages": 1, "data_parallel": 1,
                        "sequence_parallel": false, "slices": [2048])";
  EXPECT_EQ(error("{" + base + "}"), "");
  EXPECT_NE(error("{" + base + R"(, "sp_mode": "rings"})")
                .find("$.layout.sp_mode: must be \"ulysses\" or \"ring\", got "
                      "\"rings\""),
            std::string::npos);
  EXPECT_NE(error("{" + base + R"(, "stagez": 2})").find("stagez"),
            std::string::npos);
  EXPECT_NE(error(R"({"tp": 1})").find("missing"), std::string::npos);
}

TEST(Layout, FormatOneFlagsReadAsTheLayoutsTheyName) {
  llvm::json::Value value = cantFail(llvm::json::parse(
      R"({"tp": 4, "ep": 2, "ep_data": true, "stages": 1, "data_parallel": 1,
          "sequence_parallel": false, "slices": [2048]})"));
  JsonReader reader("plan.json");
  LayoutRequest read;
  readLayoutJSON(reader, *value.getAsObject(), "$.layout", read);
  ASSERT_FALSE(reader.failed());
  EXPECT_TRUE(read.complete().hasExpertGroup());
  // A list of one is a length, which loom-split-tokens checks against the
  // sequence (the text form "2048," keeps it a length, not a count).
  EXPECT_TRUE(read.complete().slices == SliceSpec::lengths({2048}));
  EXPECT_EQ(read.complete().slices.str(), "2048,");
  EXPECT_TRUE(cantFail(SliceSpec::parse("2048,")) ==
              SliceSpec::lengths({2048}));
  EXPECT_TRUE(cantFail(SliceSpec::parse("2048")) == SliceSpec::count(2048));
  value = cantFail(llvm::json::parse(
      R"({"tp": 8, "weight_gathered": true, "ep": 1, "stages": 1,
          "data_parallel": 1, "sequence_parallel": false, "slices": [8]})"));
  read = LayoutRequest();
  readLayoutJSON(reader, *value.getAsObject(), "$.layout", read);
  EXPECT_TRUE(read.complete().isWeightGathered());
  value = cantFail(llvm::json::parse(
      R"({"tp": 8, "tp_x": 2, "ep": 1, "stages": 1, "data_parallel": 1,
          "sequence_parallel": false, "slices": [8]})"));
  read = LayoutRequest();
  readLayoutJSON(reader, *value.getAsObject(), "$.layout", read);
  EXPECT_TRUE(read.complete().isTwoD());
}

// The planning pipeline records the layout in the IR, and layoutOf reads
// the same layout back: the IR is the layout's form, not a copy of it.
TEST(Layout, ThePlannedModuleCarriesTheLayout) {
  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  ImportOptions workload;
  workload.seqLen = 256;
  workload.batch = 4;
  struct Case {
    const char *text;
  } cases[] = {
      {"tp=2 stages=2 slices=4"},
      {"tp=2 sequence-parallel=true stages=2 virtual-stages=2 slices=4"},
      {"tp=2 data-parallel=2 stages=2 microbatches=2 slices=2"},
      {"tp=4 tp-layout=weight-gathered"},
      {"tp=4 tp-layout=2d tp-x=2"},
      {"sp=2 stages=2 slices=4"},
      {"tp=4 data-parallel=2 placement={1x4, tp 1x4 inside sp}"},
  };
  for (const Case &c : cases) {
    SCOPED_TRACE(c.text);
    ParallelLayout layout = cantFail(parseLayout(c.text));
    OwningOpRef<ModuleOp> module =
        importModel("llama-7b", workload, &context);
    ASSERT_TRUE(module);
    PassManager pm(&context);
    PlanPipelineSettings settings;
    settings.topology = "v5e-8";
    buildPlanPipeline(pm, layout, settings);
    ASSERT_TRUE(succeeded(pm.run(*module)));
    ParallelLayout read = layoutOf(*module);
    // What the lowering, not the IR, carries.
    read.interleave = layout.interleave;
    read.decompose = layout.decompose;
    read.scatterHandover = layout.scatterHandover;
    read.spMode = layout.spMode;
    // The slices as cut (the request may give a count).
    read.slices = layout.slices;
    EXPECT_TRUE(read == layout) << read.str();
  }
}

} // namespace
