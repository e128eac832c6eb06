//===- CollectiveMatmul.cpp - decomposed collective matmuls ---------------===//

#include "loom/Analysis/CollectiveMatmul.h"

#include <cmath>

using namespace mlir;
using namespace loom;

DecomposedParts loom::decomposeParts(const SliceWork &work) {
  DecomposedParts parts;
  double n = double(work.ring);
  auto addPartial = [&](const SliceWork &whole) {
    SliceWork &partial = parts.partials.emplace_back();
    partial.op = whole.op;
    partial.elementBits = whole.elementBits;
    partial.fused = whole.fused;
    // 1/n of the rows: of the FLOPs, the vector work and the token
    // traffic; every partial reads the weights again.
    partial.flops = whole.flops / n;
    partial.vectorOps = whole.vectorOps / n;
    partial.fixedBytes = whole.fixedBytes;
    partial.bytes = whole.fixedBytes + (whole.bytes - whole.fixedBytes) / n;
    // An all-reduce's reduce-scatter half may scatter any dimension, since
    // its all-gather half gathers it back: the output columns, so the
    // weights are read once in all and the input by every partial.
    if (work.decomposed == Decomposed::AllReduce)
      partial.bytes = whole.inputBytes + (whole.bytes - whole.inputBytes) / n;
    partial.steps = std::max<int64_t>(std::llround(whole.steps / n), 1);
  };
  addPartial(work);
  for (const SliceWork &also : work.alsoGathered)
    addPartial(also);
  double block = work.collectiveBytes / n;
  // A received partial sum added to the chip's own: both read, one written.
  SliceWork &accumulate = parts.accumulate;
  accumulate.op = work.collectiveOp;
  accumulate.bytes = 3 * block;
  accumulate.vectorOps = block / double(work.collectiveElementBytes);
  parts.bothWays = work.ring > 2;
  parts.messageBytes = parts.bothWays ? block / 2 : block;
  return parts;
}

double loom::decomposedSeconds(const CostModel &model, const SliceWork &work,
                               ArrayRef<GroupAxis> axes) {
  DecomposedParts parts = decomposeParts(work);
  const TargetDesc &target = model.getTarget();
  auto timeOf = [&](const SliceWork &w) {
    return model.taskTime(w.flops, w.bytes, w.elementBits, w.vectorOps,
                          double(w.steps));
  };
  double p = 0;
  for (const SliceWork &partial : parts.partials)
    p += timeOf(partial);
  // One hop to a ring neighbour (the lowering refuses a ring that is not).
  double t = target.hopLatency +
             parts.messageBytes /
                 (model.linkEfficiency(/*ring=*/false) * target.linkBandwidth);
  int64_t n = work.ring;
  if (work.decomposed == Decomposed::AllGather) {
    // Partial k needs the block that arrives at k t.
    double core = p;
    for (int64_t k = 1; k < n; ++k)
      core = std::max(core, double(k) * t) + p;
    return core;
  }
  double a = timeOf(parts.accumulate);
  double core = p, arrive = p + t;
  for (int64_t k = 1; k < n; ++k) {
    core = std::max(core + p, arrive) + a;
    arrive = core + t;
  }
  if (work.decomposed == Decomposed::AllReduce)
    core += model.collectiveTime(CollectiveKind::AllGather, axes,
                                 work.collectiveBytes);
  return core;
}
