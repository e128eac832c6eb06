//===- LoomAttributes.h - the names of loom's discardable attributes -*- C++ -*-===//
//
// Every `loom.*` attribute a pass hands to a later one is named here, once,
// with its typed accessor (as Shardy's constants.h does). The dialect's
// verifier rejects any other `loom.*` name, and each value's type and
// placement (see docs/design.md, "The IR contract").
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_DIALECT_LOOM_LOOMATTRIBUTES_H
#define LOOM_DIALECT_LOOM_LOOMATTRIBUTES_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

namespace loom {

/// On the module: #loom.target, the hardware it is planned for.
inline constexpr llvm::StringLiteral kTargetAttrName = "loom.target";
/// On the module: #loom.model, what loom-import knew of the model.
inline constexpr llvm::StringLiteral kModelAttrName = "loom.model";
/// On the module: #loom.parallel, the tp / dp / sp layout of the plan.
inline constexpr llvm::StringLiteral kParallelAttrName = "loom.parallel";
/// On the module: #loom.placement, which chips each group occupies.
inline constexpr llvm::StringLiteral kPlacementAttrName = "loom.placement";
/// The device group of Ulysses sequence parallelism's collectives
/// (loom-shard-sequence); tensor parallelism's is "tp".
inline constexpr llvm::StringLiteral kSequenceGroup = "sp";
/// The device group of expert parallelism's all-to-alls when the ep chips
/// are a group of their own beside tp (#loom.parallel's ep_data); laid out
/// as "sp" is, so the two are never in one plan.
inline constexpr llvm::StringLiteral kExpertGroup = "ep";
/// Whether `group` is the stage's group beside tp ("sp" or "ep").
inline bool isBesideGroup(llvm::StringRef group) {
  return group == kSequenceGroup || group == kExpertGroup;
}
/// The sub-groups of a 2-D tensor-parallel group (#loom.parallel's tp_x):
/// the chips of one column of its block (rows x: d_model's shards) and of
/// one row (columns y: the heads' and d_ff's shards).
inline constexpr llvm::StringLiteral kTensorXGroup = "tp_x";
inline constexpr llvm::StringLiteral kTensorYGroup = "tp_y";
/// The chips of a tensor-parallel group that hold one KV head and split its
/// cache by batch (#loom.parallel's kv_batch): kv_batch consecutive tensor
/// ranks.
inline constexpr llvm::StringLiteral kKVGroup = "kv";
/// On the model function: #loom.pipeline, its stages and slices.
inline constexpr llvm::StringLiteral kPipelineAttrName = "loom.pipeline";
/// On a loom op: #loom.split, how loom-shard-heads split it.
inline constexpr llvm::StringLiteral kSplitAttrName = "loom.split";
/// On a loom.layer: f64, loom-estimate's microseconds for it.
inline constexpr llvm::StringLiteral kTimeAttrName = "loom.time_us";
/// On a forward op copied into a loom.layer_grad (unit): its results were
/// kept from the forward pass (it runs nothing there), or it runs again
/// before the backward pass (rematerialisation).
inline constexpr llvm::StringLiteral kKeptAttrName = "loom.kept";
inline constexpr llvm::StringLiteral kRecomputeAttrName = "loom.recompute";
/// On a kept op (unit): its results wait for the backward pass in host
/// memory, not in HBM (activation offload).
inline constexpr llvm::StringLiteral kOffloadedAttrName = "loom.offloaded";
/// On a model function's argument: the input's name (a string).
inline constexpr llvm::StringLiteral kArgNameAttrName = "loom.name";

/// Every operation attribute above, for the verifier's unknown-name error.
inline constexpr llvm::StringLiteral kOperationAttrNames[] = {
    kTargetAttrName, kModelAttrName,    kParallelAttrName,
    kPipelineAttrName, kSplitAttrName, kTimeAttrName,
    kPlacementAttrName, kKeptAttrName, kRecomputeAttrName,
    kOffloadedAttrName};

} // namespace loom

#endif // LOOM_DIALECT_LOOM_LOOMATTRIBUTES_H
