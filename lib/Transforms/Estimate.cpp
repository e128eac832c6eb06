//===- Estimate.cpp - per-layer time on the module's target ---------------===//

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Dialect/Loom/ModelCost.h"
#include "loom/Dialect/Loom/ModuleTarget.h"
#include "loom/Hardware/CostModel.h"
#include "loom/Transforms/Passes.h"
#include "loom/Transforms/PipelineCost.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

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
    // A sharded module's collectives run on its tensor-parallel groups.
    int64_t tp = 1, stages = 1;
    if (auto attr = module->getAttrOfType<IntegerAttr>("loom.tp"))
      tp = attr.getInt();
    module.walk([&](func::FuncOp func) {
      if (auto pipeline = func->getAttrOfType<PipelineAttr>("loom.pipeline"))
        stages = pipeline.getStages();
    });
    SmallVector<GroupAxis> axes = tensorParallelAxes(
        *target.getTargetDesc(), *target.getTopology(), tp, stages);
    Builder builder(&getContext());
    module.walk([&](LayerOp layer) {
      double seconds = estimateTime(model, layer, axes);
      layer->setAttr("loom.time_us", builder.getF64FloatAttr(seconds * 1e6));
      if (remarks) {
        CostOpInterface cost = layer;
        double compute = model.computeTime(
            layer.getPaddedFlops(model.getTarget().mxuTile), 0);
        layer.emitRemark() << fmt::format(
            "layer {}: {:.1f} us on {} ({:.0f}% of it MXU-bound work); {} "
            "FLOPs, {} bytes moved",
            layer.getIndex(), seconds * 1e6, target.getTopology()->name,
            100.0 * compute / seconds, cost.getFlops(),
            cost.getBytesRead() + cost.getBytesWritten());
      }
    });
  }
};

} // namespace
