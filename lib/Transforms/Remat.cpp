//===- Remat.cpp - what the forward pass keeps for the backward -----------===//
//
// Rematerialisation policies over the forward ops a loom.layer_grad holds:
// each is kept (its results stay in HBM from the forward pass to the
// backward, or, offloaded, in host memory) or recomputed (it runs again
// before the backward ops).
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Transforms/ParallelLayout.h"
#include "loom/Transforms/Passes.h"

namespace loom {
#define GEN_PASS_DEF_REMAT
#include "loom/Transforms/Passes.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;

namespace {

using Policy = RematPolicy;

/// MaxText's names for what loom ops compute.
enum class Saved { QkvProj, OutProj, MlpWi, MlpWo, Context, OtherDot, None };
Saved savedName(Operation &op) {
  if (isa<AttentionOp, JointAttentionOp, RingAttentionOp, LatentAttentionOp>(
          op))
    return Saved::Context;
  auto linear = dyn_cast<LinearOp>(op);
  if (!linear)
    return isa<PatchifyOp, MoEExpertsOp>(op) ? Saved::OtherDot : Saved::None;
  switch (linear.getRole()) {
  case LinearRole::q:
  case LinearRole::k:
  case LinearRole::v:
  case LinearRole::qkv:
  case LinearRole::q_down:
  case LinearRole::kv_down:
    return Saved::QkvProj;
  case LinearRole::o:
    return Saved::OutProj;
  case LinearRole::gate:
  case LinearRole::up:
  case LinearRole::fc1:
    return Saved::MlpWi;
  case LinearRole::down:
  case LinearRole::fc2:
    return Saved::MlpWo;
  default:
    return Saved::OtherDot;
  }
}

/// Whether a named MaxText policy saves `op`'s results.
bool saves(Policy policy, Operation &op) {
  Saved name = savedName(op);
  switch (policy) {
  case Policy::Minimal:
  case Policy::MinimalOffloaded:
    return name != Saved::Context && name != Saved::None;
  case Policy::SaveDotWithContextExceptMlp:
    return name == Saved::QkvProj || name == Saved::OutProj ||
           name == Saved::Context;
  case Policy::SaveDotExceptMlpwi:
    return name == Saved::QkvProj || name == Saved::OutProj ||
           name == Saved::MlpWo;
  case Policy::SaveDotExceptMlp:
    return name == Saved::QkvProj || name == Saved::OutProj;
  case Policy::SaveQkvProj:
  case Policy::QkvProjOffloaded:
    return name == Saved::QkvProj;
  case Policy::None:
  case Policy::Selective:
    return true;
  case Policy::Full:
    return false;
  }
  return false;
}

struct RematPass : public loom::impl::RematBase<RematPass> {
  using RematBase::RematBase;

  void runOnOperation() override {
    std::optional<Policy> chosen = parseSpelling<Policy>(policy);
    if (!chosen) {
      getOperation().emitError() << "unknown rematerialisation policy '"
                                 << policy << "' (valid: "
                                 << validSpellings<Policy>() << ")";
      return signalPassFailure();
    }
    bool any = false;
    getOperation().walk([&](LayerGradOp layer) {
      any = true;
      for (Operation &op : layer.getBody().front()) {
        if (!op.hasAttr(kKeptAttrName) && !op.hasAttr(kRecomputeAttrName))
          continue; // a backward op
        mark(op, *chosen);
      }
    });
    if (!any) {
      getOperation().emitError()
          << "has no backward pass to rematerialise: run "
             "loom-derive-training-step first";
      return signalPassFailure();
    }
  }

  static void mark(Operation &op, Policy policy) {
    UnitAttr unit = UnitAttr::get(op.getContext());
    bool recompute = isAlwaysRecomputed(&op) || !saves(policy, op);
    op.removeAttr(recompute ? kKeptAttrName : kRecomputeAttrName);
    op.setAttr(recompute ? kRecomputeAttrName : kKeptAttrName, unit);
    op.removeAttr(kOffloadedAttrName);
    if (!recompute && offloads(policy))
      op.setAttr(kOffloadedAttrName, unit);
    if (auto attention = dyn_cast<AttentionOp>(op))
      attention.setRecomputeScores(policy == Policy::Selective);
  }
};

} // namespace
