//===- SequenceSearch.cpp - which sequence-parallel degrees to search -----===//

#include "loom/Plan/SequenceSearch.h"

#include "loom/Dialect/Loom/LoomOps.h"
#include "loom/Transforms/ShardSequence.h"

#include <numeric>

using namespace mlir;
using namespace loom;

SequenceDegrees loom::searchedSequenceDegrees(ModuleOp module, int64_t chips,
                                              double hbmBytes) {
  SequenceDegrees degrees;
  int64_t heads = 0;
  module.walk([&](CostOpInterface op) {
    if (!isa<LayerOp>(op.getOperation()))
      degrees.weightBytes += double(op.getParameterBytes());
  });
  module.walk([&](LayerOp layer) {
    ++degrees.layers;
    layer.walk([&](Operation *op) {
      if (auto attn = dyn_cast<AttentionOp>(op)) {
        if (!attn.getCross())
          heads = std::gcd(heads, std::gcd(int64_t(attn.getHeads()),
                                           int64_t(attn.getKvHeads())));
      } else if (auto joint = dyn_cast<JointAttentionOp>(op)) {
        heads = std::gcd(heads, int64_t(joint.getHeads()));
      }
    });
  });
  degrees.heads = std::max<int64_t>(heads, 1);
  degrees.chips = chips;
  degrees.hbmBytes = hbmBytes;
  degrees.valid.clear();
  for (int64_t sp : validSequenceParallelDegrees(module, chips))
    if (chips % sp == 0 && degrees.weightsCanFit(1, sp))
      degrees.valid.push_back(sp);
  degrees.ring.clear();
  for (int64_t sp : validSequenceParallelDegrees(module, chips, "ring"))
    if (chips % sp == 0 && degrees.weightsCanFit(1, sp))
      degrees.ring.push_back(sp);
  return degrees;
}

bool SequenceDegrees::weightsCanFit(int64_t tp, int64_t sp) const {
  if (sp == 1 || hbmBytes <= 0 || layers == 0)
    return true;
  // sp replicates the weights: they split only over tp and the stages, at
  // most one a layer and one a group of the chips left, and no cut of
  // whole layers beats the even share.
  int64_t stages = std::min<int64_t>(layers, chips / (tp * sp));
  return weightBytes / double(tp * std::max<int64_t>(stages, 1)) <= hbmBytes;
}

SmallVector<std::pair<int64_t, bool>>
SequenceDegrees::withModes(int64_t tp, const LayoutRequest &given) const {
  SmallVector<std::pair<int64_t, bool>> chosen;
  bool ringMode = given.spMode.value_or(SequenceMode::Ulysses) ==
                  SequenceMode::Ring;
  bool fixedRing = given.sp && *given.sp > 1 && ringMode;
  if (!fixedRing)
    for (int64_t sp : forTp(tp, given))
      chosen.push_back({sp, false});
  if (given.sp) {
    if (fixedRing)
      chosen.push_back({*given.sp, true});
    return chosen;
  }
  if (given.spMode && ringMode) {
    // --sp-mode ring: every sp > 1 as a ring.
    llvm::erase_if(chosen, [](auto pair) { return pair.first > 1; });
    if (tp == 1 || given.tp)
      for (int64_t sp : ring)
        if (sp > 1)
          chosen.push_back({sp, true});
    return chosen;
  }
  if (given.spMode || (tp > 1 && !given.tp))
    return chosen;
  for (int64_t sp : ring)
    if (sp > 1 && (heads % (tp * sp) != 0))
      chosen.push_back({sp, true});
  return chosen;
}

SmallVector<int64_t> SequenceDegrees::forTp(int64_t tp,
                                            const LayoutRequest &given) const {
  if (given.sp)
    return {*given.sp};
  // Both split the heads; Ulysses' four all-to-alls move 1/sp of the
  // activations where tensor parallelism's two all-reduces move all of
  // them, so sp > 1 is searched without tp (loom-plan --tp N --sp M plans
  // the mix by hand).
  if (tp > 1 && !given.tp)
    return {1};
  SmallVector<int64_t> chosen;
  for (int64_t sp : valid)
    if (sp == 1 || (heads % (tp * sp) == 0 && weightsCanFit(tp, sp)))
      chosen.push_back(sp);
  return chosen;
}
