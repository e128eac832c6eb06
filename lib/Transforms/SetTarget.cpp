//===- SetTarget.cpp - put a target with its figures on a module ----------===//

#include "loom/Dialect/Loom/ModuleTarget.h"
#include "loom/Transforms/Passes.h"

namespace loom {
#define GEN_PASS_DEF_SETTARGET
#include "loom/Transforms/Passes.h.inc"
} // namespace loom

using namespace mlir;
using namespace loom;

namespace {

struct SetTargetPass : public loom::impl::SetTargetBase<SetTargetPass> {
  using SetTargetBase::SetTargetBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (topology.empty()) {
      module.emitError() << "loom-set-target needs a topology, e.g. "
                            "--loom-set-target=topology=v5e-16";
      return signalPassFailure();
    }
    llvm::Expected<TargetAttr> target =
        materializeTarget(&getContext(), topology, file);
    if (!target) {
      module.emitError() << "loom-set-target: "
                         << llvm::toString(target.takeError());
      return signalPassFailure();
    }
    TargetAttr current = getTarget(module);
    if (current && current != *target && getParallel(module)) {
      module.emitError() << "loom-set-target: the module is already planned "
                            "for topology "
                         << current.getTopology() << " of "
                         << current.getName()
                         << "; re-plan from the imported model for "
                         << target->getTopology();
      return signalPassFailure();
    }
    module->setAttr(kTargetAttrName, *target);
  }
};

} // namespace
