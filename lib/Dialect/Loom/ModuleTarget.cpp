//===- ModuleTarget.cpp - the target a module is planned for --------------===//

#include "loom/Dialect/Loom/ModuleTarget.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace loom;

FailureOr<TargetAttr> loom::requireTarget(ModuleOp module, StringRef passName) {
  if (TargetAttr target = getTarget(module))
    return target;
  module.emitError() << passName
                     << " needs a target: run loom-set-target first (e.g. "
                        "--loom-set-target=topology=v5e-16), or import with "
                        "--target";
  return failure();
}

llvm::Expected<TargetAttr> loom::materializeTarget(MLIRContext *context,
                                                   StringRef topology,
                                                   StringRef targetFile) {
  context->getOrLoadDialect<LoomDialect>();
  auto fail = [](const llvm::Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  };
  // Several slices, "4xv5e-256": parseTopology reads the count and checks
  // the target's DCN figures.
  auto severalSlices = [&](const TargetDesc &desc) -> llvm::Expected<TargetAttr> {
    llvm::Expected<TopologyDesc> slices = parseTopology(desc, topology);
    if (!slices)
      return slices.takeError();
    return TargetAttr::get(context, desc, *slices);
  };
  bool counted = !topology.empty() && llvm::isDigit(topology.front());
  if (targetFile.empty()) {
    if (counted) {
      auto [desc, found] = lookupTopology(topology.split('x').second);
      if (desc)
        return severalSlices(*desc);
    }
    auto [desc, found] = lookupTopology(topology);
    if (!desc)
      return fail("unknown topology '" + topology + "'; tpu-v5e has: " +
                  lookupTarget("tpu-v5e")->listTopologies() +
                  " (tpu-v5p's are listed in targets/tpu-v5p.json)");
    return TargetAttr::get(context, *desc, *found);
  }
  llvm::Expected<TargetDesc> desc = loadTargetFile(targetFile);
  if (!desc)
    return desc.takeError();
  if (counted)
    return severalSlices(*desc);
  const TopologyDesc *found = desc->findTopology(topology);
  if (!found)
    return fail("target '" + desc->name + "' (" + targetFile +
                ") has no topology '" + topology +
                "'; valid: " + desc->listTopologies());
  return TargetAttr::get(context, *desc, *found);
}
