//===- NestingLimitTest.cpp - the MLIR nesting scan -----------------------===//
//
// What loom::findIRNestingError counts as a level of nesting and what it
// does not, where it reports, and that it stays linear on large input.
//
//===----------------------------------------------------------------------===//

#include "loom/Support/NestingLimit.h"

#include "llvm/Support/MemoryBuffer.h"

#include <gtest/gtest.h>

#include <string>

using loom::findIRNestingError;

namespace {

std::string repeat(llvm::StringRef piece, unsigned times) {
  std::string out;
  for (unsigned i = 0; i < times; ++i)
    out += piece;
  return out;
}

/// The deepest nesting of `text`: the least limit it passes.
unsigned depthOf(llvm::StringRef text) {
  unsigned limit = 0;
  while (findIRNestingError(text, "", limit))
    ++limit;
  return limit;
}

TEST(NestingLimit, EveryBracketKindCounts) {
  EXPECT_EQ(depthOf("func.func private @f(tuple<i32>)"), 2u);
  EXPECT_EQ(depthOf("\"t.op\"() ({ \"t.op\"() {a = [[1]]} : () -> () })"), 5u);
  EXPECT_EQ(depthOf(""), 0u);
}

TEST(NestingLimit, ArrowsAndComparisonsCloseNothing) {
  // `->` is an arrow; a `>` with no `<` open at the innermost level (an
  // integer set's `>=`) is a comparison.
  EXPECT_EQ(depthOf("<(d0) -> (d0)>"), 2u);
  EXPECT_EQ(depthOf("affine_set<(d0) : (d0 >= 0, d0 == 0)>"), 2u);
  // Were `>=` to close the `(`, the brackets after it would count one
  // level too few.
  EXPECT_EQ(depthOf("affine_set<(d0) : (d0 >= 0, ((d0)) >= 0)>"), 4u);
}

TEST(NestingLimit, StringsAndCommentsDoNotCount) {
  EXPECT_EQ(depthOf("{s = \"((((\\\"[[[[\"} // ((((((\n[x]"), 1u);
  // A string ends at the end of its line (the lexer's error).
  EXPECT_EQ(depthOf("\"((((\n[[x]]"), 2u);
}

TEST(NestingLimit, AffineOperatorsChainOneLevelEach) {
  // Three '+' in one expression, after '<' and '(' : 5 levels.
  EXPECT_EQ(depthOf("affine_map<(d0) -> (d0 + d0 + d0 + d0)>"), 5u);
  // A comma ends the chain.
  EXPECT_EQ(depthOf("affine_map<(d0) -> (d0 + d0, d0 + d0, - d0)>"), 3u);
  EXPECT_EQ(depthOf("affine_map <(d0) -> (d0 floordiv 2 mod 3 * 4)>"), 5u);
  EXPECT_EQ(depthOf("affine_map<(d0) -> (- - - d0)>"), 5u);
  // Outside an affine map, '+' and '-' are no operators.
  EXPECT_EQ(depthOf("dense<[-1, -2, +3]> : tensor<3xi32>"), 2u);
  EXPECT_EQ(depthOf("#loom.thing<a - b + c - d>"), 1u);
}

TEST(NestingLimit, UnmatchedClosers) {
  // A ')' closes the innermost '(' and any '<' left open inside it; a
  // closer with nothing of its kind open closes nothing.
  EXPECT_EQ(depthOf("(a < b) (c)"), 2u);
  EXPECT_EQ(depthOf("]]]]]}}}}>>>> ((x))"), 2u);
}

TEST(NestingLimit, ReportsTheLevelPastTheLimit) {
  std::string text = "module {\n  " + repeat("(", 10) + "\n}";
  std::optional<loom::IRNestingError> error =
      findIRNestingError(text, "", /*limit=*/8);
  ASSERT_TRUE(error);
  EXPECT_EQ(error->line, 2u);
  // '{' is level 1, so the 8th '(' is level 9, at column 2 + 8.
  EXPECT_EQ(error->column, 10u);
  EXPECT_EQ(error->offset, text.find('(') + 7);
  EXPECT_NE(error->message.find("this '(' nests 9 levels deep, past the "
                                "limit of 8"),
            std::string::npos);
  EXPECT_FALSE(findIRNestingError(text, "", 11));
}

TEST(NestingLimit, SplitMarkerStartsTheCountAgain) {
  std::string text = repeat("[", 5) + "\n// -----\n" + repeat("[", 5);
  EXPECT_TRUE(findIRNestingError(text, "", 8));
  EXPECT_FALSE(findIRNestingError(text, "// -----", 8));
}

TEST(NestingLimit, BytecodeIsNotScanned) {
  EXPECT_FALSE(findIRNestingError("ML\xEFR" + repeat("(", 1000)));
}

TEST(NestingLimit, LinearOnLargeInput) {
  // 16 MB of brackets, mostly closers with nothing to close and balanced
  // pairs at the limit; a quadratic scan would not finish.
  std::string text = repeat("]", 1 << 22) +
                     repeat(repeat("(", 255) + repeat(")", 255), 1 << 14) +
                     repeat("affine_map<(d0) -> (d0 + d0, d0 - d0)>", 1 << 16);
  EXPECT_FALSE(findIRNestingError(text));
}

TEST(NestingLimit, CheckPrintsTheLocatedError) {
  std::string text = "x = " + repeat("[", 300);
  auto buffer = llvm::MemoryBuffer::getMemBuffer(text, "deep.mlir");
  std::string out;
  llvm::raw_string_ostream os(out);
  EXPECT_TRUE(failed(loom::checkIRNesting(*buffer, os)));
  // The 257th '[' is at column 4 + 257; the long line is shown as the 60
  // characters before it and 20 from it.
  EXPECT_EQ(out, "deep.mlir:1:261: error: this '[' nests 257 levels deep, "
                 "past the limit of 256 (MLIR's parser recurses once per "
                 "bracket and per chained affine operator; deeper input "
                 "could overflow its stack)\n..." +
                     repeat("[", 80) + "...\n" + std::string(63, ' ') + "^\n");
  out.clear();
  auto shallow = llvm::MemoryBuffer::getMemBuffer("x = [[1]]", "ok.mlir");
  EXPECT_TRUE(succeeded(loom::checkIRNesting(*shallow, os)));
  EXPECT_EQ(out, "");
}

} // namespace
