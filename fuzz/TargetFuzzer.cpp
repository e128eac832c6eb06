//===- TargetFuzzer.cpp - fuzzes the target description loader -----------===//
//
// The input is a target file (targets/README.md); parseTargetDesc either
// refuses it or returns figures the cost model can use: finite and
// positive, and slices no larger than their pod.
//
//===----------------------------------------------------------------------===//

#include "FuzzSupport.h"

#include "loom/Target/TargetDesc.h"

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
  if (target->mxuTile < 1 || target->maxChips < 1 || target->slices.empty())
    fuzzInvariantFailed("a loaded target lacks its MXU, pod or slices");
  for (const loom::SliceDesc &slice : target->slices) {
    int64_t chips = slice.numChips();
    if (chips < 1 || chips > target->maxChips)
      fuzzInvariantFailed("a loaded slice does not fit its pod", slice.name);
    for (unsigned axis = 0; axis < slice.shape.size(); ++axis)
      (void)target->axisWraps(slice.shape, axis);
    if (target->findSlice(slice.name) == nullptr ||
        target->findSlice(llvm::ArrayRef<int64_t>(slice.shape)) == nullptr)
      fuzzInvariantFailed("a loaded slice cannot be found", slice.name);
  }
  (void)target->listSlices();
  return 0;
}
