//===- ShardingRuleOpInterface.td - tensor-parallel rules ----*- tablegen -*-===//

#ifndef LOOM_SHARDINGRULEOPINTERFACE_TD
#define LOOM_SHARDINGRULEOPINTERFACE_TD

include "mlir/IR/OpBase.td"

// Marks an op that works token by token (norms, RoPE, activations, residual
// adds, modulation): its operands are brought to one layout, and its result
// has it. A trait, so that the interface's default rule can tell.
def Loom_TokenWise : NativeOpTrait<"TokenWise"> {
  let cppNamespace = "::loom";
}

def ShardingRuleOpInterface : OpInterface<"ShardingRuleOpInterface"> {
  let cppNamespace = "::loom";
  let description = [{
    How an op splits across a tensor-parallel group of `tp` chips (after
    Shardy's ShardingRuleOpInterface): whether it can, and, given the
    layouts of its operands (whole, sequence-split, feature-split or
    partial sums; see loom/Dialect/Loom/ShardingRule.h), which layouts it
    needs them in and which its results get. loom-shard-heads is a generic
    driver over this interface: a new op joins tensor parallelism by
    implementing it. The default rule replicates: every operand whole, every
    result whole (patchify, timestep embedding, tiny projections); a
    `TokenWise` op keeps its operands' common layout.
  }];

  let methods = [
    InterfaceMethod<[{
        The op's rule as data (Shardy's getShardingRule): the factors of its
        operands' and results' dimensions (loom/Dialect/Loom/ShardingRule.h).
        Every driver reads it; by default getDefaultShardingRule.
      }], "::loom::OpShardingRule", "getShardingRule", (ins), [{}], [{
        return ::loom::getDefaultShardingRule($_op.getOperation());
      }]>,
    InterfaceMethod<[{
        Why the op cannot be split `tp` ways (with sequence parallelism when
        `sequenceParallel`), in words for a diagnostic; empty when it can.
      }], "std::string", "whyNotShardable",
      (ins "int64_t":$tp, "bool":$sequenceParallel), [{}], [{
        return std::string();
      }]>,
    InterfaceMethod<[{
        Rewrites the op into what one chip of the group runs: asks
        `rewriter` for its operands in the layouts it needs (which inserts
        the collectives that convert them), sets its local types and its
        results' layouts, and records its `loom.split`.
      }], "void", "applyShardingRule", (ins "::loom::ShardingRewriter &":$rewriter),
      [{}], [{
        ::loom::applyDefaultShardingRule($_op, rewriter);
      }]>,
    InterfaceMethod<[{
        Rewrites the op into what one of `splitter.getReplicas()`
        data-parallel replicas runs (loom-split-batch), its operands already
        split: every result dimension made of a batch factor of its rule
        divided by the replicas. An op whose batch is folded into another
        dimension, or counted in an attribute (a mixture of experts' tokens
        and dispatch rows), or that holds a region, recomputes them itself.
        Fails with a diagnostic at the op when it cannot be split.
        By default ::loom::splitBatchByRule.
      }], "::mlir::LogicalResult", "splitBatch",
      (ins "::loom::BatchSplitter &":$splitter), [{}], [{
        return ::loom::splitBatchByRule($_op.getOperation(), splitter);
      }]>,
  ];
}

#endif // LOOM_SHARDINGRULEOPINTERFACE_TD
