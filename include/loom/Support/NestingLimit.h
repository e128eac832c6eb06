//===- NestingLimit.h - refuse MLIR text nested too deep --------*- C++ -*-===//
//
// MLIR's parser recurses once per level of nesting: a function type inside
// a function type, an array attribute inside an array, a region inside an
// op inside a region, a parenthesised or chained affine expression. It has
// no depth limit, so a few kilobytes of `((((` overflow the stack (a
// SIGSEGV found by the IR fuzzer). Loom's tools scan MLIR text first and
// refuse, with the position of the bracket (or operator) that goes too
// deep, text nested deeper than kMaxIRNesting levels; then MLIR parses it,
// and the printer, verifier and walks that recurse over the parsed IR stay
// as shallow. docs/fuzzing.md explains the choice.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_SUPPORT_NESTINGLIMIT_H
#define LOOM_SUPPORT_NESTINGLIMIT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/LogicalResult.h"
#include "llvm/Support/MemoryBufferRef.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <optional>
#include <string>

namespace loom {

/// The deepest nesting Loom's tools read in MLIR text. Loom's own IR nests
/// fewer than 10 levels; MLIR's parser overflows an 8 MB stack between
/// about 3,000 levels (regions) and 30,000 (tuple types).
inline constexpr unsigned kMaxIRNesting = 256;

/// Where MLIR text first nests deeper than the limit.
struct IRNestingError {
  size_t offset;         ///< byte offset of the bracket or operator
  unsigned line, column; ///< 1-based, column in bytes as MLIR counts them
  std::string message;
};

/// Scans MLIR text once, in linear time, and returns where it first nests
/// deeper than `limit`, or nothing. A level is an open bracket of any kind,
/// `(`, `[`, `{` or `<` (`->` is an arrow, not a closing `>`, and a `>`
/// that closes no `<`, as in an integer set's `>=`, closes nothing), and,
/// inside `affine_map<...>` and `affine_set<...>`, each operator (`+`, `-`,
/// `*`, `floordiv`, `ceildiv`, `mod`) chained in one expression: MLIR's
/// affine parser recurses once per operator, and a comma ends the chain.
/// Brackets in string literals and `//` comments do not count. With a
/// `splitMarker` (loom-opt --split-input-file), a comment starting with it
/// starts the count again, as MLIR parses each piece on its own. MLIR
/// bytecode (which starts with "ML\xEFR") is not text and is not scanned.
std::optional<IRNestingError>
findIRNestingError(llvm::StringRef text, llvm::StringRef splitMarker = "",
                   unsigned limit = kMaxIRNesting);

/// findIRNestingError on `buffer`; when it finds one, prints it to `os` as
/// `<buffer name>:line:column: error: ...` with the line (a window of it
/// around the column when the line is long) and a caret, and fails.
llvm::LogicalResult checkIRNesting(llvm::MemoryBufferRef buffer,
                                   llvm::raw_ostream &os,
                                   llvm::StringRef splitMarker = "",
                                   unsigned limit = kMaxIRNesting);

} // namespace loom

#endif // LOOM_SUPPORT_NESTINGLIMIT_H
