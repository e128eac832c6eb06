//===- Gradient.h - how an op's backward pass is made -----------*- C++ -*-===//
//
// The vocabulary of GradientOpInterface. An op's gradient has two parts
// (GradientPart): `input`, the cotangents of its operands, which the
// backward pass carries to the layers before it, and `weight`, the
// cotangents of its own parameters, which nothing downstream waits for (a
// zero-bubble pipeline runs them late; Qi et al., "Zero Bubble Pipeline
// Parallelism", ICLR 2024). Each part's work is a GradientWork: FLOPs as
// CostOpInterface counts them, the bytes it moves, and the forward values
// it reads (what the forward pass must keep, or recompute, for it).
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_DIALECT_LOOM_GRADIENT_H
#define LOOM_DIALECT_LOOM_GRADIENT_H

#include "loom/Dialect/Loom/LoomEnums.h"
#include "loom/Dialect/Loom/SliceTerm.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/SmallVector.h"

#include <cstdint>

namespace loom {

/// The work of one gradient part of one op.
struct GradientWork {
  /// Whether the op has this part at all.
  bool exists = false;
  /// MXU FLOPs (a multiply-add counts two), and the same padded to the
  /// MXU's tile; vector-unit operations.
  int64_t flops = 0, paddedFlops = 0, vectorOps = 0;
  /// HBM bytes read (cotangents, kept forward values, parameters) and
  /// written (the cotangents it makes).
  int64_t bytesRead = 0, bytesWritten = 0;
  /// Of bytesRead, the parameters: traffic every token slice repeats.
  int64_t parameterBytes = 0;
  /// The element width the matmuls run in (8: int8, as the forward's).
  unsigned computeBits = 16;
  /// The forward op's operands and results this part reads.
  llvm::SmallVector<unsigned, 4> keptOperands, keptResults;
  /// Bytes of tensors inside the op that the forward pass keeps for this
  /// part (a materialised softmax, a dropout mask): no SSA value holds them.
  int64_t internalBytes = 0;
};

/// Each op's default GradientOpInterface::getGradientWork: a matmul with
/// parameters is its two transposed matmuls, each the forward's FLOPs
/// (dX = dY W^T, dW = X^T dY); a token-wise op's input part is vector
/// work reading the cotangent and its operands, its weight part (a norm's
/// scale) a reduction over the tokens; any other op without parameters
/// moves its cotangents (a rearrangement's inverse).
GradientWork getDefaultGradientWork(mlir::Operation *op, GradientPart part,
                                    int64_t tile);

/// The default GradientOpInterface::buildGradient: one `loom.grad input`
/// whose results are the wanted operands' cotangents, and one `loom.grad
/// weight` when the op has parameters.
mlir::LogicalResult
buildDefaultGradient(mlir::Operation *op, mlir::OpBuilder &builder,
                     mlir::ValueRange cotangents, llvm::ArrayRef<bool> wanted,
                     llvm::SmallVectorImpl<mlir::Value> &operandCotangents);

/// The default GradientOpInterface::getGradientSliceTerms: `grad` (a
/// loom.grad) as one kernel, its parameter traffic repeated by every slice.
void getDefaultGradientSliceTerms(mlir::Operation *grad,
                                  const CostModel &model,
                                  llvm::SmallVectorImpl<SliceTerm> &terms);

/// What an optimizer keeps and does per parameter.
struct OptimizerRule {
  /// Elements of state per parameter (Adafactor's factored statistics are
  /// counted by getOptimizerStateElements instead).
  int64_t statesPerParameter;
  /// Vector operations of one update of one parameter.
  int64_t vectorOpsPerParameter;
};
OptimizerRule getOptimizerRule(Optimizer optimizer);

/// A weight as an optimizer sees it: a matrix of `rows` x `cols`, or a
/// vector (`rows` 1).
struct WeightShape {
  int64_t rows, cols;
};
/// optax.adafactor's min_dim_size_to_factor: a matrix is factored only when
/// both of its dimensions are at least this.
constexpr int64_t kAdafactorMinFactorDim = 128;
/// Elements of optimizer state for `weights`: AdamW two per parameter, SGD
/// with momentum one, Adafactor a factored matrix's rows + cols and a
/// small tensor's own size.
int64_t getOptimizerStateElements(Optimizer optimizer,
                                  llvm::ArrayRef<WeightShape> weights);

/// Whether the backward pass runs `op` again under every rematerialisation
/// policy rather than keeping its results: an all-gather's, gathered again
/// from the shard the forward pass keeps (Korthikanti et al., MLSys 2023,
/// section 4.2.3).
bool isAlwaysRecomputed(mlir::Operation *op);

/// Whether an operand of `type` can have a cotangent: a floating-point
/// tensor (token ids, labels and other integers cannot).
bool isDifferentiable(mlir::Type type);

} // namespace loom

#include "loom/Dialect/Loom/GradientOpInterface.h.inc"

#endif // LOOM_DIALECT_LOOM_GRADIENT_H
