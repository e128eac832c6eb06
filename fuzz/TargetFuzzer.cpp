//===- TargetFuzzer.cpp - fuzzes the target description loader -----------===//
//
// The input is a target file (targets/README.md); parseTargetDesc either
// refuses it or returns figures the cost model can use: finite and
// positive, and topologies no larger than their pod.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "loom/Hardware/TargetDesc.h"

#include <cmath>

using namespace loom::fuzz;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  llvm::Expected<loom::TargetDesc> target =
      loom::parseTargetDesc(asText(data, size), "fuzz.json");
  if (!target) {
    llvm::consumeError(target.takeError());
    return 0;
  }
  for (double figure :
       {target->peakFlopsBf16, target->peakOpsInt8, target->flopEfficiency,
        target->hbmBytes, target->hbmBandwidth, target->hbmEfficiency,
        target->linkBandwidth, target->hopLatency})
    if (!std::isfinite(figure) || figure <= 0)
      fuzzInvariantFailed("a loaded figure is not finite and positive",
                          std::to_string(figure));
  if (target->mxuTile < 1 || target->maxChips < 1 || target->topologies.empty())
    fuzzInvariantFailed("a loaded target lacks its MXU, pod or topologies");
  for (const loom::TopologyDesc &topology : target->topologies) {
    int64_t chips = topology.numChips();
    if (chips < 1 || chips > target->maxChips)
      fuzzInvariantFailed("a loaded topology does not fit its pod", topology.name);
    for (unsigned axis = 0; axis < topology.shape.size(); ++axis)
      (void)target->axisWraps(topology.shape, axis);
    if (target->findTopology(topology.name) == nullptr ||
        target->findTopology(llvm::ArrayRef<int64_t>(topology.shape)) == nullptr)
      fuzzInvariantFailed("a loaded topology cannot be found", topology.name);
  }
  (void)target->listTopologies();
  return 0;
}
