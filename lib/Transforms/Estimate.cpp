//===- Estimate.cpp - per-layer time on the module's target ---------------===//

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Dialect/Loom/ModelCost.h"
#include "loom/Hardware/CostModel.h"
#include "loom/Transforms/Passes.h"
#include "loom/Analysis/StageCost.h"

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
    ModelAnalysis &analysis = getAnalysis<ModelAnalysis>();
    if (failed(analysis.requireTarget("loom-estimate")))
      return signalPassFailure();
    // Only loom.time_us changes, which the analysis does not hold.
    markAnalysesPreserved<ModelAnalysis>();
    TargetAttr target = analysis.getTarget();
    const CostModel &model = analysis.getCostModel();
    // A sharded module's collectives run on its tensor-parallel groups.
    int64_t stages = 1;
    module.walk([&](func::FuncOp func) {
      if (PipelineAttr pipeline = getPipeline(func))
        stages = pipeline.getStages();
    });
    SmallVector<GroupAxis> axes = analysis.getTensorParallelAxes(stages);
    // Ulysses' all-to-alls run on the sequence-parallel groups' axes, which
    // LayerSliceCost tells apart from tp's (at the full sequence it agrees
    // with estimateTime).
    SmallVector<GroupAxis> spAxes = analysis.getSequenceParallelAxes(stages);
    Builder builder(&getContext());
    module.walk([&](LayerOp layer) {
      double seconds =
          spAxes.empty()
              ? estimateTime(model, layer, axes)
              : LayerSliceCost(layer, model, axes,
                               getPipelineTokens(layer->getParentOp()), spAxes)
                    .seconds(getPipelineTokens(layer->getParentOp()), 0);
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
