//===- ModuleTarget.cpp - the target a module is planned for --------------===//

#include "loom/Dialect/Loom/ModuleTarget.h"

using namespace mlir;
using namespace loom;

FailureOr<TargetAttr> loom::getOrSetModuleTarget(ModuleOp module,
                                                 StringRef slice,
                                                 StringRef passName) {
  auto target = module->getAttrOfType<TargetAttr>("loom.target");
  if (!target && slice.empty()) {
    module.emitError() << passName
                       << " needs a target: add 'loom.target = "
                          "#loom.target<\"tpu-v5e\", shape = [2, 2]>' to the "
                          "module, import with --target, or pass "
                          "slice=<name>";
    return failure();
  }
  if (slice.empty())
    return target;
  auto [desc, topologyDesc] = lookupTopology(slice);
  if (!desc) {
    module.emitError() << passName << ": unknown slice '" << slice
                       << "'; tpu-v5e has: "
                       << lookupTarget("tpu-v5e")->listTopologies();
    return failure();
  }
  if (target) {
    // slice= only fills in a missing target; it may not contradict one.
    const TopologyDesc *own = target.getTopology();
    if (desc->name != target.getName() || !own ||
        own->shape != topologyDesc->shape) {
      module.emitError() << passName << ": slice=" << slice
                         << " contradicts the module's loom.target "
                         << target;
      return failure();
    }
    return target;
  }
  target = TargetAttr::get(module.getContext(), desc->name, topologyDesc->shape);
  module->setAttr("loom.target", target);
  return target;
}
