//===- GradientOpInterface.td - each op's backward pass -----*- tablegen -*-===//

#ifndef LOOM_GRADIENTOPINTERFACE_TD
#define LOOM_GRADIENTOPINTERFACE_TD

include "mlir/IR/OpBase.td"

def GradientOpInterface : OpInterface<"GradientOpInterface"> {
  let cppNamespace = "::loom";
  let description = [{
    How an op's backward pass is made (loom/Dialect/Loom/Gradient.h): the
    work of its two gradient parts, the cotangents of its operands
    (`input`, what a zero-bubble pipeline's B pass computes) and of its own
    parameters (`weight`, the W pass), each with the forward values it
    reads; and the ops that compute its operands' cotangents from its
    results'. loom-derive-training-step is a generic driver over this
    interface. By default an op's gradient is one `loom.grad` op per part
    whose work follows the op's kind (a matmul's transposes, a token-wise
    op's vector work, a rearrangement's copy); collectives build their
    transposes instead.
  }];

  let methods = [
    InterfaceMethod<[{
        The work of gradient part `part` on an MXU of `tile` x `tile`
        (FLOPs padded as CostOpInterface::getPaddedFlops pads them), and the
        operands and results of the forward op it reads. `exists` is false
        when the op has no such part (no parameters, or no operand with a
        cotangent).
      }], "::loom::GradientWork", "getGradientWork",
      (ins "::loom::GradientPart":$part, "int64_t":$tile), [{}], [{
        return ::loom::getDefaultGradientWork($_op.getOperation(), part, tile);
      }]>,
    InterfaceMethod<[{
        Builds, at `builder`, what computes the cotangents of the operands
        flagged in `wanted` from `cotangents` (one per result; null for a
        result nothing downstream differentiates), and appends one value
        per operand to `operandCotangents` (null where not wanted). The
        weight part, if any, is built too. Fails with a diagnostic on the
        op when it cannot be differentiated.
      }], "::mlir::LogicalResult", "buildGradient",
      (ins "::mlir::OpBuilder &":$builder, "::mlir::ValueRange":$cotangents,
           "::llvm::ArrayRef<bool>":$wanted,
           "::llvm::SmallVectorImpl<::mlir::Value> &":$operandCotangents),
      [{}], [{
        return ::loom::buildDefaultGradient($_op.getOperation(), builder,
                                            cotangents, wanted,
                                            operandCotangents);
      }]>,
    InterfaceMethod<[{
        How gradient part `part`, computed by `grad` (a `loom.grad` of this
        op), scales with a token slice, as CostOpInterface::getSliceTerms.
        By default one kernel whose parameter and gradient traffic every
        slice repeats.
      }], "void", "getGradientSliceTerms",
      (ins "const ::loom::CostModel &":$model, "::mlir::Operation *":$grad,
           "::llvm::SmallVectorImpl<::loom::SliceTerm> &":$terms), [{}], [{
        ::loom::getDefaultGradientSliceTerms(grad, model, terms);
      }]>,
  ];
}

#endif // LOOM_GRADIENTOPINTERFACE_TD
