//===- ShardZero.cpp - ZeRO / FSDP over the data-parallel replicas --------===//
//
// Records on #loom.parallel how a training step's data-parallel replicas
// split its model states (fsdp, zero). What the split costs is built by the
// lowering (the gathers and reduce-scatters) and counted by
// loom-check-memory (TrainingStep.h's trainingMemory).
//
//===----------------------------------------------------------------------===//

#include "loom/Analysis/TrainingStep.h"
#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Transforms/Passes.h"

namespace loom {
#define GEN_PASS_DEF_SHARDZERO
#include "loom/Transforms/Passes.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;

namespace {

struct ShardZeroPass : public loom::impl::ShardZeroBase<ShardZeroPass> {
  using ShardZeroBase::ShardZeroBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    auto fail = [&](Operation *at) {
      signalPassFailure();
      return at->emitError() << "loom-shard-zero: ";
    };
    bool training = llvm::any_of(module.getOps<func::FuncOp>(),
                                 [](func::FuncOp f) {
                                   return isTrainingStep(f);
                                 });
    if (!training) {
      fail(module) << "has no training step whose model states to split: "
                      "run loom-derive-training-step first";
      return;
    }
    ParallelAttr parallel = getParallelOrDefault(module);
    if (parallel.getZero() != 0) {
      fail(module) << "the model states are split already (fsdp "
                   << parallel.getFsdp() << ", zero " << parallel.getZero()
                   << ")";
      return;
    }
    if (stage < 1 || stage > 3) {
      fail(module) << "stage " << int64_t(stage)
                   << " is not a ZeRO stage (valid: 1 optimizer state, 2 "
                      "and gradients, 3 and weights)";
      return;
    }
    int64_t dp = parallel.getDp();
    int64_t group = fsdp == 0 ? dp : int64_t(fsdp);
    if (group < 2 || dp % group != 0) {
      fail(module) << "fsdp " << group << " must be at least 2 and divide dp "
                   << dp
                   << " (the module's data-parallel replicas, which "
                      "loom-partition-layers sets with data-parallel=N)";
      return;
    }
    module->setAttr(kParallelAttrName,
                    ParallelAttr::get(module.getContext(), parallel.getTp(),
                                      dp, parallel.getSequenceParallel(),
                                      parallel.getEp(), parallel.getSp(),
                                      parallel.getTpX(),
                                      parallel.getWeightGathered(),
                                      parallel.getEpData(), group, stage,
                                      parallel.getKvBatch()));
  }
};

} // namespace
