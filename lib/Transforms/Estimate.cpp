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
    FailureOr<TargetAttr> found = requireTarget(module, "loom-estimate");
    if (failed(found))
      return signalPassFailure();
    TargetAttr target = *found;
    TargetDesc desc = target.getDesc();
    CostModel model(desc);
    // A sharded module's collectives run on its tensor-parallel groups.
    int64_t tp = getParallelOrDefault(module).getTp(), stages = 1;
    module.walk([&](func::FuncOp func) {
      if (PipelineAttr pipeline = getPipeline(func))
        stages = pipeline.getStages();
    });
    SmallVector<GroupAxis> axes =
        tensorParallelAxes(desc, target.getTopologyDesc(), tp, stages);
    Builder builder(&getContext());
    module.walk([&](LayerOp layer) {
      double seconds = estimateTime(model, layer, axes);
      layer->setAttr(kTimeAttrName, builder.getF64FloatAttr(seconds * 1e6));
      if (remarks) {
        CostOpInterface cost = layer;
        double compute = model.computeTime(
            layer.getPaddedFlops(model.getTarget().mxuTile), 0);
        layer.emitRemark() << fmt::format(
            "layer {}: {:.1f} us on {} ({:.0f}% of it MXU-bound work); {} "
            "FLOPs, {} bytes moved",
            layer.getIndex(), seconds * 1e6, target.getTopology(),
            100.0 * compute / seconds, cost.getFlops(),
            cost.getBytesRead() + cost.getBytesWritten());
      }
    });
  }
};

} // namespace
