//===- Estimate.cpp - per-layer time on the module's target ---------------===//

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Dialect/Loom/ModelCost.h"
#include "loom/Dialect/Loom/ModuleTarget.h"
#include "loom/Target/CostModel.h"
#include "loom/Transforms/Passes.h"

#include <fmt/format.h>

namespace loom {
#define GEN_PASS_DEF_ESTIMATE
#include "loom/Transforms/Passes.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;

namespace {

struct EstimatePass : public loom::impl::EstimateBase<EstimatePass> {
  using EstimateBase::EstimateBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<TargetAttr> found =
        getOrSetModuleTarget(module, slice, "loom-estimate");
    if (failed(found))
      return signalPassFailure();
    TargetAttr target = *found;
    CostModel model(*target.getTargetDesc());
    Builder builder(&getContext());
    module.walk([&](LayerOp layer) {
      double seconds = estimateTime(model, layer);
      layer->setAttr("loom.time_us", builder.getF64FloatAttr(seconds * 1e6));
      if (remarks) {
        CostOpInterface cost = layer;
        double compute = model.computeTime(
            layer.getPaddedFlops(model.getTarget().mxuTile), 0);
        layer.emitRemark() << fmt::format(
            "layer {}: {:.1f} us on {} ({:.0f}% of it MXU-bound work); {} "
            "FLOPs, {} bytes moved",
            layer.getIndex(), seconds * 1e6, target.getSlice()->name,
            100.0 * compute / seconds, cost.getFlops(),
            cost.getBytesRead() + cost.getBytesWritten());
      }
    });
  }
};

} // namespace
