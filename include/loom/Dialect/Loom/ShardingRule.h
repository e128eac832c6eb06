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
// Beside that callback every op states its rule as data, an OpShardingRule
// (after Shardy's OpShardingRuleAttr): the factors its tensors' dimensions
// are made of (batch, sequence, heads, d_model, ...) and which dimension of
// which operand and result each one maps. The drivers read it to decide
// what an op is (an attention over the sequence, the KV heads a projection
// feeds) instead of asking for its class.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_DIALECT_LOOM_SHARDINGRULE_H
#define LOOM_DIALECT_LOOM_SHARDINGRULE_H

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Support/raw_ostream.h"

#include <optional>
#include <string>

namespace loom {

enum class Layout { Full, Seq, Feature, Partial };

/// What a factor of an op's tensors is.
enum class FactorKind {
  Batch,       ///< the batch's sequences (or samples)
  Sequence,    ///< the tokens of the model's sequence
  Context,     ///< tokens of another sequence (cross-attention's text)
  Heads,       ///< attention (query) heads
  KVHeads,     ///< key/value heads (grouped-query attention)
  HeadDim,     ///< the features of one head
  HeadFeatures,///< a projection's heads x head_dim, split by whole heads
  Model,       ///< d_model, the residual stream's width
  FF,          ///< an MLP's hidden width (d_ff)
  Vocab,       ///< a vocabulary
  Experts,     ///< a mixture of experts' experts
  ExpertGroups,///< a dispatch buffer's row groups, one per chip of experts
  Latent,      ///< a compressed K/V shared by every head (MLA's latent)
  Cached,      ///< earlier tokens whose K/V a cache holds
  Features,    ///< a token-wise op's last dimension, whatever it holds
};
llvm::StringRef stringifyFactorKind(FactorKind kind);

/// How an op's tensors are made of factors (Shardy's OpShardingRuleAttr):
/// each dimension of each operand and result is the product of a list of
/// factors, major first (a projection's [B, S, heads * head_dim]); a
/// dimension with none is not split. A reduction factor is in operands
/// only: every result element needs all of it (the keys an attention
/// sums over). A factor in no dimension is one of the op's own weights or
/// state: the experts a router scores, the tokens a KV cache holds.
struct OpShardingRule {
  struct Factor {
    FactorKind kind;
    int64_t size;
    bool reduction = false;
  };
  using Dims = llvm::SmallVector<llvm::SmallVector<unsigned, 2>, 4>;

  llvm::SmallVector<Factor, 6> factors;
  llvm::SmallVector<Dims, 3> operands, results;

  /// Adds a factor and returns its index.
  unsigned addFactor(FactorKind kind, int64_t size, bool reduction = false);
  /// The first factor of `kind`, if any.
  std::optional<unsigned> find(FactorKind kind) const;
  bool has(FactorKind kind) const { return find(kind).has_value(); }
  /// The size of the first factor of `kind`; 0 when there is none.
  int64_t sizeOf(FactorKind kind) const;
  /// Whether a reduction factor of `kind` exists (an attention over it).
  bool reduces(FactorKind kind) const;
  /// The operands with a dimension made of a factor of `kind`.
  llvm::SmallVector<unsigned> operandsWith(FactorKind kind) const;
  /// Whether operand `i` has a dimension made of a factor of `kind`.
  bool operandHas(unsigned i, FactorKind kind) const;
  /// Whether result `i` has a dimension made of a factor of `kind`.
  bool resultHas(unsigned i, FactorKind kind) const;
  /// An attention: heads, and keys summed over (the sequence's, another
  /// sequence's or a cache's).
  bool isAttention() const;
  /// Whether an attention's keys are split with its heads (by KV heads or
  /// heads); a latent shared by every head (MLA) is not.
  bool headsSplitKeys() const;
  /// Shardy's notation with the factors' kinds:
  ///   ([i, j, k*l], ...)->([i, j, k*l]) {i=2 batch, ..., m=8 sequence
  ///   reduction}
  void print(llvm::raw_ostream &os) const;
};

inline llvm::raw_ostream &operator<<(llvm::raw_ostream &os,
                                     const OpShardingRule &rule) {
  rule.print(os);
  return os;
}

/// The rule of an op without its own: a `TokenWise` op maps its token
/// tensors' dimensions to one batch, sequence and features factor; any
/// other has no factors (replicated).
OpShardingRule getDefaultShardingRule(mlir::Operation *op);

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

/// What an op's batch split may ask of the driver (loom-split-batch).
class BatchSplitter {
public:
  virtual ~BatchSplitter();

  /// The data-parallel replicas the batch is split over.
  virtual int64_t getReplicas() const = 0;
  /// `op`'s rule on its types before the split began (its operands may be
  /// split already; the rule's dimensions are the imported module's).
  virtual const OpShardingRule &getRule(mlir::Operation *op) = 0;
  /// Whether the split changed `value`'s type (it carries the batch).
  virtual bool isSplit(mlir::Value value) const = 0;
  /// Gives `value` its replica's type (which marks it split).
  virtual void setType(mlir::Value value, mlir::Type type) = 0;
  /// Splits the ops of a region's block in order; its arguments must have
  /// their types already.
  virtual mlir::LogicalResult splitBlock(mlir::Block &block) = 0;
};

/// The batch split of an op by its rule: each result dimension made of a
/// batch factor is divided by the replicas. Fails at the op when a batch
/// factor does not divide, when a split operand feeds an op whose rule maps
/// no batch to a tensor result, or when an operand its rule says carries the
/// batch was not split.
mlir::LogicalResult splitBatchByRule(mlir::Operation *op,
                                     BatchSplitter &splitter);

/// The trait of ops that work token by token (see TokenWise in
/// ShardingRuleOpInterface.td).
template <typename ConcreteType>
class TokenWise : public mlir::OpTrait::TraitBase<ConcreteType, TokenWise> {};

} // namespace loom

#include "loom/Dialect/Loom/ShardingRuleOpInterface.h.inc"

#endif // LOOM_DIALECT_LOOM_SHARDINGRULE_H
