//===- Remat.cpp - what the forward pass keeps for the backward -----------===//
//
// Rematerialisation policies over the forward ops a loom.layer_grad holds:
// each is kept (its results stay in HBM from the forward pass to the
// backward) or recomputed (it runs again before the backward ops).
//
//===----------------------------------------------------------------------===//

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Transforms/Passes.h"

namespace loom {
#define GEN_PASS_DEF_REMAT
#include "loom/Transforms/Passes.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;

namespace {

enum class Policy { None, Selective, Full };

struct RematPass : public loom::impl::RematBase<RematPass> {
  using RematBase::RematBase;

  void runOnOperation() override {
    std::optional<Policy> chosen =
        llvm::StringSwitch<std::optional<Policy>>(policy)
            .Case("none", Policy::None)
            .Case("selective", Policy::Selective)
            .Case("full", Policy::Full)
            .Default(std::nullopt);
    if (!chosen) {
      getOperation().emitError() << "unknown rematerialisation policy '"
                                 << policy
                                 << "' (valid: none, selective, full)";
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
    bool recompute = policy == Policy::Full || isa<AllGatherOp>(op);
    op.removeAttr(recompute ? kKeptAttrName : kRecomputeAttrName);
    op.setAttr(recompute ? kRecomputeAttrName : kKeptAttrName, unit);
    if (auto attention = dyn_cast<AttentionOp>(op))
      attention.setRecomputeScores(policy == Policy::Selective);
  }
};

} // namespace
