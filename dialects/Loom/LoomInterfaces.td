//===- LoomInterfaces.td - cost interface -------------------*- tablegen -*-===//

#ifndef LOOM_INTERFACES_TD
#define LOOM_INTERFACES_TD

include "mlir/IR/OpBase.td"

def CostOpInterface : OpInterface<"CostOpInterface"> {
  let cppNamespace = "::loom";
  let description = [{
    The single place where Loom answers cost questions about an op: the
    floating-point work it does, the HBM bytes it reads and writes, the
    parameters it owns and the KV cache it keeps. The summary analysis, the
    planner passes and the lowering to per-chip schedules all ask this
    interface, so they can never disagree.

    Conventions (see README "Cost accounting"):
    - FLOPs count a multiply-add as two operations. Attention counts the two
      MXU matmuls (QK^T and PV) over the query/key pairs it really visits
      (half for causal); the softmax's vector work is not counted, as in
      PaLM's MFU accounting (Chowdhery et al. 2022, appendix B).
    - Bytes read are the operand tensors plus the weights; bytes written are
      the results. Attention is assumed fused (flash-style): the score matrix
      never reaches HBM.
    - Every figure fits in 64 bits with room to add: the verifier refuses an
      op whose figure reaches 2^62 (::loom::kCostLimit).
  }];

  let methods = [
    InterfaceMethod<"Floating-point operations of one execution.",
      "int64_t", "getFlops">,
    InterfaceMethod<[{
        FLOPs the MXU really spends when every contracted and output feature
        dimension of the op's matmuls is padded to a multiple of `tile`
        (its 128x128 systolic array wastes the rest of a partial tile). Ops
        without matmuls return getFlops().
      }], "int64_t", "getPaddedFlops", (ins "int64_t":$tile), [{}], [{
        return $_op.getFlops();
      }]>,
    InterfaceMethod<"Number of parameters (weights and biases) the op owns.",
      "int64_t", "getParameterCount", (ins), [{}], [{ return 0; }]>,
    InterfaceMethod<"Bytes of the parameters the op owns.",
      "int64_t", "getParameterBytes", (ins), [{}], [{
        int64_t count = $_op.getParameterCount();
        if (count == 0 || $_op->getNumResults() == 0)
          return 0;
        return (::loom::Count(count) *
                ::loom::getElementBytes($_op->getResult(0).getType())).get();
      }]>,
    InterfaceMethod<"HBM bytes read: operands and weights.",
      "int64_t", "getBytesRead", (ins), [{}], [{
        return (::loom::Count(::loom::getTensorBytes($_op->getOperandTypes())) +
                $_op.getParameterBytes()).get();
      }]>,
    InterfaceMethod<"HBM bytes written: the results.",
      "int64_t", "getBytesWritten", (ins), [{}], [{
        return ::loom::getTensorBytes($_op->getResultTypes());
      }]>,
    InterfaceMethod<"Bytes of KV cache held after the op runs.",
      "int64_t", "getKVCacheBytes", (ins), [{}], [{ return 0; }]>,
    InterfaceMethod<[{
        Element width in bits the op computes in, which picks the MXU's
        peak (8: int8, e.g. an int8 x int8 matmul; else the bf16 rate).
        By default its first result's.
      }], "unsigned", "getComputeBits", (ins), [{}], [{
        if ($_op->getNumResults() == 0)
          return 16;
        return 8 * ::loom::getElementBytes($_op->getResult(0).getType());
      }]>,
    InterfaceMethod<[{
        How the op's cost scales with a token slice: appends to `terms` its
        figures at the full sequence, each with its law (a kernel in
        proportion to the slice or per sample, causal attention by the
        query/key pairs a slice of `length` after `context` tokens visits, a
        collective, a weight gather; loom/Dialect/Loom/SliceTerm.h). The
        slice cost analysis (LayerSliceCost) evaluates the laws; an op
        without a task of its own appends nothing. By default a collective,
        or one kernel with the op's parameters read by every slice.
      }], "void", "getSliceTerms",
      (ins "const ::loom::CostModel &":$model,
           "::llvm::SmallVectorImpl<::loom::SliceTerm> &":$terms), [{}], [{
        ::loom::getDefaultSliceTerms($_op.getOperation(), model, terms);
      }]>,
  ];

  // Every figure is computed in a saturating ::loom::Count; an op (or a
  // layer, whose figures sum its body's) whose figure reaches
  // ::loom::kCostLimit is refused here rather than priced. After the regions,
  // so that a layer's body is known to be well formed before it is summed.
  let verify = [{ return ::loom::verifyCostRange($_op); }];
  let verifyWithRegions = 1;
}

#endif // LOOM_INTERFACES_TD
