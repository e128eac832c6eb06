//===- TargetSchemaTest.cpp - one schema for a target's figures -----------===//
//
// The target file's reader, the schedule file's reader and the #loom.chip /
// #loom.ici / #loom.calibration verifiers all check a target's figures
// through loom/Hardware/TargetSchema.h: the same figure out of range is
// refused by each of them, for the same reason, at its own location.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Loom/LoomDialect.h"
#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Hardware/TargetSchema.h"
#include "loom/Schedule/Schedule.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Regex.h"

#include <gtest/gtest.h>

#include <cmath>

using namespace loom;

namespace {

std::string readSourceFile(const char *relative) {
  auto buffer = llvm::MemoryBuffer::getFile(std::string(LOOM_SOURCE_DIR) + "/" +
                                            relative);
  EXPECT_TRUE(bool(buffer)) << relative;
  return buffer ? (*buffer)->getBuffer().str() : "";
}

llvm::StringRef fileSectionKey(FileSection section) {
  switch (section) {
  case FileSection::Chip:
    return "chip";
  case FileSection::Interconnect:
    return "interconnect";
  case FileSection::Host:
    return "host";
  case FileSection::Pod:
    return "pod";
  case FileSection::Efficiency:
    return "efficiency";
  case FileSection::Calibration:
    return "calibration";
  }
  return "";
}

llvm::StringRef irSectionKey(IrSection section) {
  return section == IrSection::Chip   ? "chip"
         : section == IrSection::Ici ? "ici"
         : section == IrSection::Dcn ? "dcn"
                                      : "calibration";
}

std::string errorText(llvm::Error error) {
  return error ? llvm::toString(std::move(error)) : "";
}

/// targets/tpu-v5e.json with `figure`'s value replaced (a choice's used
/// variant, or with `unused` another one); returns the reader's error.
std::string fileError(const TargetFigure &figure, double value,
                      bool unused = false) {
  llvm::Expected<llvm::json::Value> doc =
      llvm::json::parse(readSourceFile("targets/tpu-v5e.json"));
  if (!doc)
    return "unparsable: " + errorText(doc.takeError());
  llvm::json::Object &entry = *doc->getAsObject()
                                   ->getObject(fileSectionKey(figure.fileSection))
                                   ->getObject(figure.fileKey);
  llvm::json::Object *target = &entry;
  if (figure.form == FigureForm::Choice) {
    std::string use = entry.getString("use")->str();
    for (llvm::StringRef variant : {"nominal", "measured", "assumed", "fitted"})
      if (entry.getObject(variant) && (variant == use) != unused)
        target = entry.getObject(variant);
  }
  if (target == &entry && figure.form == FigureForm::Choice)
    return "no variant to edit";
  (*target)["value"] = value;
  std::string text;
  llvm::raw_string_ostream os(text);
  os << *doc;
  llvm::Expected<TargetDesc> parsed = parseTargetDesc(text, "edited.json");
  return parsed ? "" : errorText(parsed.takeError());
}

/// A one-chip schedule carrying v5e's figures with `figure` set to `value`
/// in the file; returns the reader's error.
std::string scheduleError(const TargetFigure &figure, double value) {
  schedule::Schedule plan;
  plan.targetName = "tpu-v5e";
  plan.shape = {2, 2};
  plan.figures = *lookupTarget("tpu-v5e");
  plan.dcn = schedule::DcnFigures::of(*plan.figures);
  plan.chips.emplace_back();
  std::string written;
  llvm::raw_string_ostream os(written);
  schedule::writeSchedule(plan, os);
  llvm::Expected<llvm::json::Value> doc = llvm::json::parse(written);
  if (!doc)
    return "unparsable: " + errorText(doc.takeError());
  llvm::json::Object *section = doc->getAsObject()
                                    ->getObject("target")
                                    ->getObject(irSectionKey(figure.irSection));
  if (!section || !section->get(figure.irKey))
    return "the writer left out " + figure.irKey.str();
  (*section)[figure.irKey] = value;
  std::string text;
  llvm::raw_string_ostream edited(text);
  edited << *doc;
  llvm::Expected<schedule::Schedule> parsed =
      schedule::parseSchedule(text, "edited.json");
  return parsed ? "" : errorText(parsed.takeError());
}

/// #loom.target of v5e's figures with `figure` set to `value`; returns the
/// verifier's diagnostic.
std::string attributeError(const TargetFigure &figure, double value) {
  mlir::MLIRContext context;
  context.loadDialect<LoomDialect>();
  TargetDesc desc = *lookupTarget("tpu-v5e");
  figure.set(desc, value);
  std::string message;
  mlir::ScopedDiagnosticHandler handler(&context, [&](mlir::Diagnostic &d) {
    message = d.str();
    return mlir::success();
  });
  auto emitError = [&] {
    return mlir::emitError(mlir::UnknownLoc::get(&context));
  };
  TargetAttr attr = TargetAttr::getChecked(emitError, &context, desc,
                                           *desc.findTopology("v5e-4"));
  if (attr && message.empty())
    return "";
  return message.empty() ? "refused without a message" : message;
}

/// A value out of `figure`'s range that every reader can hold: a whole
/// number past 2^53 fits mxu_tile's int64_t and a JSON number alike.
std::vector<double> outOfRange(const TargetFigure &figure) {
  switch (figure.range) {
  case FigureRange::Rate:
    return {0.5};
  case FigureRange::Latency:
  case FigureRange::FixedCost:
    return {2};
  case FigureRange::Fraction:
    return {1.5, 0.005};
  case FigureRange::Whole:
    return {1152921504606846976.0}; // 2^60
  }
  return {};
}

} // namespace

TEST(TargetSchema, EveryReaderRefusesTheSameFigureForTheSameReason) {
  int checked = 0;
  for (IrSection section :
       {IrSection::Chip, IrSection::Ici, IrSection::Calibration})
    for (const TargetFigure *figure : getIrFigures(section))
      for (double value : outOfRange(*figure)) {
        std::string why = figure->check(value);
        ASSERT_FALSE(why.empty()) << figure->irKey.str() << " " << value;
        std::string filePath =
            "$." + fileSectionKey(figure->fileSection).str() + "." +
            figure->fileKey.str();
        std::string fileMessage = fileError(*figure, value);
        EXPECT_NE(fileMessage.find(filePath), std::string::npos) << fileMessage;
        EXPECT_NE(fileMessage.find(".value: " + why), std::string::npos)
            << fileMessage;
        EXPECT_EQ(scheduleError(*figure, value),
                  "edited.json: $.target." + irSectionKey(section).str() + "." +
                      figure->irKey.str() + ": " + why);
        EXPECT_EQ(attributeError(*figure, value),
                  figure->irKey.str() + " " + why);
        ++checked;
      }
  // 9 chip (the host link's two among them), 2 ici and 5 calibration
  // figures; fractions tried both ways.
  EXPECT_EQ(checked, 20);
  // Each reader takes v5e's own figures, through the member the schema names.
  const TargetDesc &v5e = *lookupTarget("tpu-v5e");
  for (IrSection section :
       {IrSection::Chip, IrSection::Ici, IrSection::Calibration})
    for (const TargetFigure *figure : getIrFigures(section)) {
      double value = figure->get(v5e);
      EXPECT_EQ(fileError(*figure, value), "") << figure->irKey.str();
      EXPECT_EQ(scheduleError(*figure, value), "") << figure->irKey.str();
      EXPECT_EQ(attributeError(*figure, value), "") << figure->irKey.str();
    }
}

// The DCN's figures (docs/multislice.md) are read by the target file and
// a schedule's "dcn" (no IR attribute carries them), with the same ranges.
TEST(TargetSchema, DcnFiguresAreRefusedAlikeInTheTargetFileAndTheSchedule) {
  int checked = 0;
  for (const TargetFigure *figure : getIrFigures(IrSection::Dcn))
    for (double value : outOfRange(*figure)) {
      std::string why = figure->check(value);
      ASSERT_FALSE(why.empty()) << figure->irKey.str() << " " << value;
      std::string fileMessage = fileError(*figure, value);
      EXPECT_NE(fileMessage.find("$.host." + figure->fileKey.str() +
                                 ".value: " + why),
                std::string::npos)
          << fileMessage;
      EXPECT_EQ(scheduleError(*figure, value),
                "edited.json: $.target.dcn." + figure->irKey.str() + ": " + why);
      ++checked;
    }
  // chips_per_host, bandwidth and latency.
  EXPECT_EQ(checked, 3);
  const TargetDesc &v5e = *lookupTarget("tpu-v5e");
  for (const TargetFigure *figure : getIrFigures(IrSection::Dcn)) {
    double value = figure->get(v5e);
    EXPECT_GT(value, 0) << figure->irKey.str();
    EXPECT_EQ(fileError(*figure, value), "") << figure->irKey.str();
    EXPECT_EQ(scheduleError(*figure, value), "") << figure->irKey.str();
  }
}

TEST(TargetSchema, RangesSayWhatIsAllowed) {
  const TargetFigure *peak = findIrFigure(IrSection::Chip, "peak_bf16");
  const TargetFigure *tile = findIrFigure(IrSection::Chip, "mxu_tile");
  const TargetFigure *mxu = findIrFigure(IrSection::Chip, "mxu_efficiency");
  const TargetFigure *hop = findIrFigure(IrSection::Ici, "hop_latency");
  const TargetFigure *dispatch =
      findIrFigure(IrSection::Calibration, "program_dispatch");
  ASSERT_TRUE(peak && tile && mxu && hop && dispatch);
  EXPECT_EQ(peak->check(0.5), "must be at least 1 FLOP/s, got 0.5");
  EXPECT_EQ(peak->check(1), "");
  EXPECT_EQ(tile->check(127.5),
            "must be a whole number of elements in [1, 2^53], got 127.5");
  EXPECT_EQ(tile->check(0),
            "must be a whole number of elements in [1, 2^53], got 0");
  EXPECT_EQ(mxu->check(9e15), "must be a fraction in [0.01, 1], got 9e+15");
  EXPECT_EQ(mxu->check(0.01), "");
  EXPECT_EQ(hop->check(0), "must be in (0, 1] s, got 0");
  EXPECT_EQ(dispatch->check(0), "");
  EXPECT_EQ(dispatch->check(-1), "must be in [0, 1] s, got -1");
  EXPECT_EQ(peak->check(HUGE_VAL), "must be a finite number");
  EXPECT_EQ(findIrFigure(IrSection::Chip, "hop_latency"), nullptr);
  EXPECT_EQ(listIrKeys(IrSection::Ici, " and "), "link_bandwidth and hop_latency");
}

// The schema's IR keys are the attributes' parameters, in their order: the
// schedule writer follows the schema, the printer the ODS declaration.
TEST(TargetSchema, IrKeysAreTheAttributesParameters) {
  mlir::MLIRContext context;
  context.loadDialect<LoomDialect>();
  const TargetDesc &v5e = *lookupTarget("tpu-v5e");
  TargetAttr attr = TargetAttr::get(&context, v5e, *v5e.findTopology("v5e-4"));
  ASSERT_TRUE(attr);
  auto keysOf = [](mlir::Attribute a) {
    std::string text;
    llvm::raw_string_ostream os(text);
    a.print(os);
    std::vector<std::string> keys;
    llvm::Regex key("([a-z0-9_]+) = ");
    llvm::StringRef rest = text;
    llvm::SmallVector<llvm::StringRef> match;
    while (key.match(rest, &match)) {
      if (match[1] != "file" && match[1] != "name" && match[1] != "version")
        keys.push_back(match[1].str());
      rest = rest.substr(match[0].data() - rest.data() + match[0].size());
    }
    return keys;
  };
  auto schemaKeys = [](IrSection section) {
    std::vector<std::string> keys;
    for (const TargetFigure *figure : getIrFigures(section))
      keys.push_back(figure->irKey.str());
    return keys;
  };
  EXPECT_EQ(keysOf(attr.getChip()), schemaKeys(IrSection::Chip));
  EXPECT_EQ(keysOf(attr.getIci()), schemaKeys(IrSection::Ici));
  EXPECT_EQ(keysOf(attr.getCalibration()), schemaKeys(IrSection::Calibration));
}

// A choice's unused variant is checked like the used one: a "fraction" of
// 9e15 is refused even where the file says to use another figure.
TEST(TargetSchema, UnusedVariantsAreInRangeToo) {
  const TargetFigure *mxu = findIrFigure(IrSection::Chip, "mxu_efficiency");
  ASSERT_TRUE(mxu);
  std::string message = fileError(*mxu, 9e15, /*unused=*/true);
  EXPECT_NE(message.find("edited.json: $.efficiency.mxu_fraction."),
            std::string::npos)
      << message;
  EXPECT_NE(message.find(".value: must be a fraction in [0.01, 1], got 9e+15"),
            std::string::npos)
      << message;
}

// Another of Loom's files given as a target is refused at its format.
TEST(TargetSchema, MeasurementsAreNotATarget) {
  llvm::Expected<TargetDesc> parsed = parseTargetDesc(
      readSourceFile("targets/tpu-v5e-measurements.json"), "m.json");
  ASSERT_FALSE(bool(parsed));
  EXPECT_EQ(errorText(parsed.takeError()),
            "m.json: $.format: must be \"loom-target/1\", got "
            "\"loom-measurements/1\": this is not a target file");
}
