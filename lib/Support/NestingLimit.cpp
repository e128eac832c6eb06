//===- NestingLimit.cpp - refuse MLIR text nested too deep ----------------===//

#include "loom/Support/NestingLimit.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/Twine.h"

#include <algorithm>

using namespace loom;

namespace {
/// One open bracket.
struct Level {
  char close;     ///< the character that closes it
  bool affine;    ///< inside affine_map<...> or affine_set<...>
  unsigned chain; ///< affine operators chained at this level so far
};

bool isWordChar(char c) {
  return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.';
}

int kindOf(char close) {
  switch (close) {
  case ')':
    return 0;
  case ']':
    return 1;
  case '}':
    return 2;
  default:
    return 3;
  }
}
} // namespace

std::optional<IRNestingError>
loom::findIRNestingError(llvm::StringRef text, llvm::StringRef splitMarker,
                         unsigned limit) {
  if (text.starts_with("ML\xEFR"))
    return std::nullopt;
  llvm::SmallVector<Level, 32> levels;
  // How many open levels each closing character would close, so that a
  // closer with nothing to close costs O(1) and the scan stays linear.
  unsigned open[4] = {0, 0, 0, 0};
  // Brackets plus chained affine operators.
  size_t depth = 0;
  // The word just before, across whitespace (`affine_map <` is allowed).
  llvm::StringRef word;

  auto fail = [&](size_t at,
                  const llvm::Twine &what) -> std::optional<IRNestingError> {
    llvm::StringRef before = text.take_front(at);
    size_t lineStart = before.rfind('\n');
    lineStart = lineStart == llvm::StringRef::npos ? 0 : lineStart + 1;
    IRNestingError error;
    error.offset = at;
    error.line = 1 + before.count('\n');
    error.column = at - lineStart + 1;
    error.message =
        (what + " nests " + llvm::Twine(limit + 1) +
         " levels deep, past the limit of " + llvm::Twine(limit) +
         " (MLIR's parser recurses once per bracket and per chained affine "
         "operator; deeper input could overflow its stack)")
            .str();
    return error;
  };
  auto pop = [&] {
    depth -= 1 + levels.back().chain;
    --open[kindOf(levels.back().close)];
    levels.pop_back();
  };
  auto affineOperator =
      [&](size_t at,
          llvm::StringRef spelling) -> std::optional<IRNestingError> {
    if (levels.empty() || !levels.back().affine)
      return std::nullopt;
    ++levels.back().chain;
    if (++depth > limit)
      return fail(at, "this '" + spelling + "'");
    return std::nullopt;
  };

  const size_t size = text.size();
  for (size_t i = 0; i < size; ++i) {
    char c = text[i];
    if (llvm::isSpace(c))
      continue;
    if (isWordChar(c)) {
      size_t end = i + 1;
      while (end < size && isWordChar(text[end]))
        ++end;
      word = text.slice(i, end);
      if (word == "floordiv" || word == "ceildiv" || word == "mod")
        if (auto error = affineOperator(i, word))
          return error;
      i = end - 1;
      continue;
    }
    llvm::StringRef before = word;
    word = llvm::StringRef();
    switch (c) {
    case '"':
      // A string ends at its unescaped quote; MLIR's lexer refuses one
      // that reaches the end of its line.
      for (++i; i < size && text[i] != '"' && text[i] != '\n'; ++i)
        if (text[i] == '\\' && i + 1 < size && text[i + 1] != '\n')
          ++i;
      break;
    case '/':
      if (i + 1 < size && text[i + 1] == '/') {
        if (!splitMarker.empty() && text.substr(i).starts_with(splitMarker)) {
          levels.clear();
          std::fill(std::begin(open), std::end(open), 0);
          depth = 0;
        }
        size_t end = text.find('\n', i);
        i = end == llvm::StringRef::npos ? size : end;
      }
      break;
    case '(':
    case '[':
    case '{':
    case '<': {
      char close = c == '(' ? ')' : c == '[' ? ']' : c == '{' ? '}' : '>';
      bool affine =
          (!levels.empty() && levels.back().affine) ||
          (c == '<' && (before == "affine_map" || before == "affine_set"));
      levels.push_back({close, affine, 0});
      ++open[kindOf(close)];
      if (++depth > limit)
        return fail(i, llvm::Twine("this '") + llvm::Twine(c) + "'");
      break;
    }
    case ')':
    case ']':
    case '}':
      // Closes the innermost level it matches, and any unclosed one inside
      // it (a '<' that was not a bracket); a closer that matches nothing
      // open is left to the parser's error.
      if (open[kindOf(c)] > 0) {
        while (levels.back().close != c)
          pop();
        pop();
      }
      break;
    case '>':
      // Only the innermost '<' closes: a '>' elsewhere is a comparison (an
      // integer set's `>=`).
      if (!levels.empty() && levels.back().close == '>')
        pop();
      break;
    case '-':
      if (i + 1 < size && text[i + 1] == '>') {
        ++i; // the arrow `->`
        break;
      }
      if (auto error = affineOperator(i, "-"))
        return error;
      break;
    case '+':
    case '*':
      if (auto error = affineOperator(i, text.substr(i, 1)))
        return error;
      break;
    case ',':
      // The next expression of a list starts a new chain.
      if (!levels.empty()) {
        depth -= levels.back().chain;
        levels.back().chain = 0;
      }
      break;
    default:
      break;
    }
  }
  return std::nullopt;
}

llvm::LogicalResult loom::checkIRNesting(llvm::MemoryBufferRef buffer,
                                         llvm::raw_ostream &os,
                                         llvm::StringRef splitMarker,
                                         unsigned limit) {
  llvm::StringRef text = buffer.getBuffer();
  std::optional<IRNestingError> error =
      findIRNestingError(text, splitMarker, limit);
  if (!error)
    return llvm::success();
  os << buffer.getBufferIdentifier() << ":" << error->line << ":"
     << error->column << ": error: " << error->message << "\n";
  // The line, or 80 characters of it around the column when it is longer
  // (a nest of thousands of brackets is often one line).
  size_t lineStart = error->offset - (error->column - 1);
  size_t lineEnd = std::min(text.find('\n', error->offset), text.size());
  size_t from = lineStart, to = lineEnd;
  if (to - from > 80) {
    from = std::max(lineStart, error->offset > 60 ? error->offset - 60 : 0);
    to = std::min(lineEnd, from + 80);
  }
  llvm::StringRef prefix = from > lineStart ? "..." : "";
  llvm::StringRef suffix = to < lineEnd ? "..." : "";
  os << prefix << text.slice(from, to).rtrim('\r') << suffix << "\n";
  os.indent(prefix.size() + (error->offset - from)) << "^\n";
  return llvm::failure();
}
