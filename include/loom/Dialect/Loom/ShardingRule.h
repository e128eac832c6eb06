//===- ShardingRule.h - how loom ops split over a tp group ------*- C++ -*-===//
//
// The vocabulary of ShardingRuleOpInterface. Under tensor parallelism every
// tensor value has a layout in the group:
//   Full    every chip holds all of it;
//   Seq     split along the sequence (dim 1) under sequence parallelism;
//   Feature split along its last dimension (whole heads, or a slice of an
//           MLP's width, or of the vocabulary);
//   Partial every chip holds a partial sum of it (after a row split).
// An op's rule asks the ShardingRewriter for its operands in the layouts it
// needs; the rewriter inserts the collective (or local cut) that converts
// one layout into another, once per value and layout.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_DIALECT_LOOM_SHARDINGRULE_H
#define LOOM_DIALECT_LOOM_SHARDINGRULE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"

#include <optional>
#include <string>

namespace loom {

enum class Layout { Full, Seq, Feature, Partial };

/// A K or V projection that feeds an attention with fewer KV heads than
/// the group has chips: split `kvHeads` ways, each piece replicated.
struct KVReplication {
  int64_t kvHeads, headDim;
};

/// What an op's sharding rule may ask of the driver (loom-shard-heads).
class ShardingRewriter {
public:
  virtual ~ShardingRewriter();

  /// Chips in the tensor-parallel group, and whether activations between
  /// the matmuls are split along the sequence.
  virtual int64_t getDegree() const = 0;
  virtual bool isSequenceParallel() const = 0;

  virtual Layout getLayout(mlir::Value value) const = 0;
  /// Gives `value` `layout` and, when given, the local `type`.
  virtual void setLayout(mlir::Value value, Layout layout,
                         mlir::Type type = {}) = 0;

  /// `operand` of `user` in a layout: summed (all-reduce, or reduce-scatter
  /// under sequence parallelism), whole on every chip, sequence-split, or
  /// split by features into `parts` pieces. Returns the converted value,
  /// which replaces `operand` in `user`.
  virtual mlir::Value reduce(mlir::Operation *user, mlir::Value partial) = 0;
  virtual mlir::Value toFull(mlir::Operation *user, mlir::Value operand) = 0;
  virtual mlir::Value toSeq(mlir::Operation *user, mlir::Value operand) = 0;
  virtual mlir::Value toFeature(mlir::Operation *user, mlir::Value operand,
                                int64_t parts) = 0;
  /// Brings a token-wise op's operands to one layout and returns it.
  virtual Layout unify(mlir::Operation *op) = 0;
  /// Every chip needs all of `value`, made Feature by its producer: an
  /// all-gather right after it replaces its uses.
  virtual void gatherAfter(mlir::Value value) = 0;
  /// Rewrites the ops of a region's block in order.
  virtual void shardBlock(mlir::Block &block) = 0;
  /// Whether `linear` is a K or V projection replicated over the group.
  virtual std::optional<KVReplication>
  getKVReplication(mlir::Operation *linear) const = 0;
};

/// The rule of an op without its own: a `TokenWise` op keeps its operands'
/// common layout; any other is replicated (operands and results whole).
void applyDefaultShardingRule(mlir::Operation *op, ShardingRewriter &rewriter);

/// The trait of ops that work token by token (see TokenWise in
/// ShardingRuleOpInterface.td).
template <typename ConcreteType>
class TokenWise : public mlir::OpTrait::TraitBase<ConcreteType, TokenWise> {};

} // namespace loom

#include "loom/Dialect/Loom/ShardingRuleOpInterface.h.inc"

#endif // LOOM_DIALECT_LOOM_SHARDINGRULE_H
