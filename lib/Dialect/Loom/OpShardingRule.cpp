//===- OpShardingRule.cpp - each loom op's sharding rule as data ----------===//
//
// The data of ShardingRuleOpInterface::getShardingRule: which factors
// (batch, sequence, heads, d_model, ...) each dimension of an op's operands
// and results is made of, after Shardy's OpShardingRuleAttr, and its
// printer. Each op's rule is in ShardingRules.cpp.
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Loom/LoomOps.h"

using namespace mlir;
using namespace loom;

StringRef loom::stringifyFactorKind(FactorKind kind) {
  switch (kind) {
  case FactorKind::Batch:
    return "batch";
  case FactorKind::Sequence:
    return "sequence";
  case FactorKind::Context:
    return "context";
  case FactorKind::Heads:
    return "heads";
  case FactorKind::KVHeads:
    return "kv_heads";
  case FactorKind::HeadDim:
    return "head_dim";
  case FactorKind::HeadFeatures:
    return "head_features";
  case FactorKind::Model:
    return "d_model";
  case FactorKind::FF:
    return "d_ff";
  case FactorKind::Vocab:
    return "vocab";
  case FactorKind::Experts:
    return "experts";
  case FactorKind::ExpertGroups:
    return "expert_groups";
  case FactorKind::Latent:
    return "latent";
  case FactorKind::Cached:
    return "cached";
  case FactorKind::Features:
    return "features";
  }
  return "unknown";
}

unsigned OpShardingRule::addFactor(FactorKind kind, int64_t size,
                                   bool reduction) {
  factors.push_back({kind, size, reduction});
  return factors.size() - 1;
}

std::optional<unsigned> OpShardingRule::find(FactorKind kind) const {
  for (auto [i, factor] : llvm::enumerate(factors))
    if (factor.kind == kind)
      return i;
  return std::nullopt;
}

int64_t OpShardingRule::sizeOf(FactorKind kind) const {
  std::optional<unsigned> i = find(kind);
  return i ? factors[*i].size : 0;
}

bool OpShardingRule::reduces(FactorKind kind) const {
  return llvm::any_of(factors, [&](const Factor &factor) {
    return factor.kind == kind && factor.reduction;
  });
}

/// Whether a tensor's `dims` hold a factor of `kind`.
static bool holds(const OpShardingRule &rule, const OpShardingRule::Dims &dims,
                  FactorKind kind) {
  return llvm::any_of(dims, [&](ArrayRef<unsigned> dim) {
    return llvm::any_of(
        dim, [&](unsigned f) { return rule.factors[f].kind == kind; });
  });
}

bool OpShardingRule::operandHas(unsigned i, FactorKind kind) const {
  return holds(*this, operands[i], kind);
}

bool OpShardingRule::resultHas(unsigned i, FactorKind kind) const {
  return holds(*this, results[i], kind);
}

SmallVector<unsigned> OpShardingRule::operandsWith(FactorKind kind) const {
  SmallVector<unsigned> found;
  for (unsigned i = 0, e = operands.size(); i < e; ++i)
    if (operandHas(i, kind))
      found.push_back(i);
  return found;
}

bool OpShardingRule::isAttention() const {
  return has(FactorKind::Heads) &&
         (reduces(FactorKind::Sequence) || reduces(FactorKind::Context) ||
          reduces(FactorKind::Cached));
}

bool OpShardingRule::headsSplitKeys() const {
  // The keys are the operands with a reduction token factor.
  for (unsigned i = 0, e = operands.size(); i < e; ++i) {
    bool keys = llvm::any_of(operands[i], [&](ArrayRef<unsigned> dim) {
      return llvm::any_of(dim, [&](unsigned f) {
        return factors[f].reduction &&
               (factors[f].kind == FactorKind::Sequence ||
                factors[f].kind == FactorKind::Context);
      });
    });
    if (keys &&
        (operandHas(i, FactorKind::Heads) || operandHas(i, FactorKind::KVHeads)))
      return true;
  }
  return false;
}

void OpShardingRule::print(raw_ostream &os) const {
  // Factors are named i, j, k, ... as Shardy prints them (z_1, z_2, ...
  // past z).
  auto name = [](unsigned f) {
    return f < 18 ? std::string(1, char('i' + f))
                  : "z_" + std::to_string(f - 17);
  };
  auto printTensors = [&](ArrayRef<Dims> tensors) {
    os << '(';
    llvm::interleaveComma(tensors, os, [&](const Dims &dims) {
      os << '[';
      llvm::interleaveComma(dims, os, [&](ArrayRef<unsigned> dim) {
        if (dim.empty())
          os << '-';
        llvm::interleave(dim, os, [&](unsigned f) { os << name(f); }, "*");
      });
      os << ']';
    });
    os << ')';
  };
  printTensors(operands);
  os << "->";
  printTensors(results);
  os << " {";
  llvm::interleaveComma(llvm::enumerate(factors), os, [&](auto indexed) {
    const Factor &factor = indexed.value();
    os << name(indexed.index()) << '=' << factor.size << ' '
       << stringifyFactorKind(factor.kind);
    if (factor.reduction)
      os << " reduction";
  });
  os << '}';
}
