//===- CostOpInterface.h - the one cost interface ---------------*- C++ -*-===//
//
// Byte counting shared by the cost interface's default methods and by every
// pass that sizes tensors, and the saturating count the cost figures are
// computed in.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_DIALECT_LOOM_COSTOPINTERFACE_H
#define LOOM_DIALECT_LOOM_COSTOPINTERFACE_H

#include "loom/Dialect/Loom/SliceTerm.h"

#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/TypeRange.h"
#include "llvm/Support/MathExtras.h"

#include <limits>
#include <string>

namespace loom {

/// A cost figure (FLOPs, bytes, parameters, elements): products and sums of
/// non-negative shape sizes that stop at kSaturated instead of wrapping
/// around. Every real model's figures are far below it; a figure that
/// reaches kCostLimit is refused by the cost interface's verifier and by
/// the importer, so no pass ever prices a wrapped or negative count.
class Count {
public:
  static constexpr int64_t kSaturated = std::numeric_limits<int64_t>::max();

  constexpr Count(int64_t value) : value(value) {}
  int64_t get() const { return value; }

  friend Count operator*(Count a, Count b) {
    int64_t product;
    return llvm::MulOverflow(a.value, b.value, product) ? kSaturated : product;
  }
  friend Count operator+(Count a, Count b) {
    int64_t sum;
    return llvm::AddOverflow(a.value, b.value, sum) ? kSaturated : sum;
  }
  Count &operator*=(Count other) { return *this = *this * other; }
  Count &operator+=(Count other) { return *this = *this + other; }

private:
  int64_t value;
};

/// The largest cost figure one op, and one model in total, may have: 2^62,
/// so that a few such figures still add up inside 64 bits. GPT-3 175B on
/// 4096 sequences of 2048 tokens, the largest import Loom allows of a real
/// model, needs 2.9e18 FLOPs, under 2^62 = 4.6e18.
constexpr int64_t kCostLimit = int64_t(1) << 62;

/// `value` in words for a diagnostic: "2^63 or more" once saturated.
std::string describeCount(int64_t value);

/// A named cost figure, as the checks against kCostLimit report it.
struct CostFigure {
  llvm::StringRef what;
  int64_t value;
};

/// "needs <value> <what>" for the first of `figures` that reaches
/// kCostLimit, or an empty string when all are below it.
std::string findCostPastLimit(llvm::ArrayRef<CostFigure> figures);

/// Checks `op`'s cost figures against kCostLimit; an error names the first
/// figure that reaches it.
mlir::LogicalResult verifyCostRange(mlir::Operation *op);

/// Bytes of one element of a tensor type (or of a scalar type); sub-byte
/// types round up to a byte.
int64_t getElementBytes(mlir::Type type);

/// Bytes of a statically shaped tensor; 0 for anything else.
int64_t getTensorBytes(mlir::Type type);

/// Sum of getTensorBytes over `types`.
int64_t getTensorBytes(mlir::TypeRange types);

/// Number of elements of a statically shaped tensor.
int64_t getNumElements(mlir::Type type);

} // namespace loom

#include "loom/Dialect/Loom/LoomInterfaces.h.inc"

#endif // LOOM_DIALECT_LOOM_COSTOPINTERFACE_H
