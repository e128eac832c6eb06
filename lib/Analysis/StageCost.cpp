//===- StageCost.cpp - what slices of a layer and a stage cost ------------===//

#include "loom/Analysis/StageCost.h"

#include "loom/Dialect/Loom/ModelCost.h"


using namespace mlir;
using namespace loom;

static bool isTokenTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 3;
}

LayerSliceCost::LayerSliceCost(LayerOp layer, const CostModel &model,
                               ArrayRef<GroupAxis> tpAxes, int64_t tokens)
    : model(model), axes(tpAxes.begin(), tpAxes.end()), tokens(tokens) {
  for (Operation &op : layer.getBody().front())
    addOp(op);
}

LayerSliceCost::LayerSliceCost(ArrayRef<Operation *> ops, const CostModel &model,
                               ArrayRef<GroupAxis> tpAxes, int64_t tokens)
    : model(model), axes(tpAxes.begin(), tpAxes.end()), tokens(tokens) {
  for (Operation *op : ops)
    addOp(*op);
}

void LayerSliceCost::addOp(Operation &op) {
  auto cost = dyn_cast<CostOpInterface>(op);
  if (!cost || isa<YieldOp, LocalShardOp, LayerOp>(op))
    return;
  int64_t tile = model.getTarget().mxuTile;
  Term term;
  term.kind = Term::Kind::Compute;
  term.op = &op;
  term.elementBits = cost.getComputeBits();
  double moved = cost.getBytesRead() + cost.getBytesWritten();
  if (auto collective = dyn_cast<CollectiveOpInterface>(op)) {
    term.kind = Term::Kind::Collective;
    term.collective = collective.getCollectiveKind();
    (isTokenTensor(op.getOperand(0).getType())
         ? term.tokenBytes
         : term.fixedBytes) = collective.getCollectiveBytes();
    terms.push_back(term);
    return;
  }
  if (auto attn = dyn_cast<AttentionOp>(op); attn && attn.getCausal()) {
    // Per pair at the full sequence, then rescaled by the pairs a slice
    // visits; the K/V of the context is read from the cache.
    term.kind = Term::Kind::CausalAttention;
    term.pairFlops =
        double(cost.getPaddedFlops(tile)) / double(attn.getScorePairs());
    auto kType = cast<RankedTensorType>(attn.getK().getType());
    double kvPerToken = double(getNumElements(kType)) / kType.getDimSize(1);
    term.contextBytes = 2.0 * kvPerToken * attn.getKVElementBytes();
    term.cached = attn.getCached();
    term.window = attn.getWindow().value_or(0);
    term.tokenBytes = getTensorBytes(op.getOperandTypes()) +
                      getTensorBytes(op.getResultTypes());
    terms.push_back(term);
    return;
  }
  term.flops = cost.getPaddedFlops(tile);
  term.fixedBytes = cost.getParameterBytes();
  // Routed experts: only the weights of the experts a pass touches are read.
  if (isa<MoEExpertsOp>(op))
    term.fixedBytes = cost.getBytesRead() -
                      double(getTensorBytes(op.getOperandTypes()));
  if (!llvm::any_of(op.getResultTypes(), isTokenTensor)) {
    // Per-sample work (adaLN vectors, embedders): every slice repeats it.
    term.fixedBytes = moved;
    term.scales = false;
  } else if (auto attn = dyn_cast<AttentionOp>(op)) {
    // Full (DiT) or cross attention: a slice's queries meet all keys, whose
    // K/V are read whole.
    double kv = getTensorBytes(attn.getK().getType()) +
                getTensorBytes(attn.getV().getType());
    term.fixedBytes = kv;
    term.tokenBytes = moved - kv;
  } else {
    term.tokenBytes = moved - term.fixedBytes;
  }
  terms.push_back(term);
}

void LayerSliceCost::forEachWork(
    int64_t length, int64_t context,
    llvm::function_ref<void(const SliceWork &)> fn) const {
  double fraction = double(length) / double(tokens);
  for (const Term &term : terms) {
    SliceWork work;
    work.op = term.op;
    work.elementBits = term.elementBits;
    switch (term.kind) {
    case Term::Kind::Collective:
      work.collective = true;
      work.kind = term.collective;
      work.bytes = term.fixedBytes + term.tokenBytes * fraction;
      break;
    case Term::Kind::CausalAttention: {
      // The slice sees the cached tokens and the sequence before it.
      // A local (windowed) layer sees at most the window of them.
      int64_t before = term.cached + context;
      double pairs =
          AttentionOp::countCausalPairs(length, before, term.window);
      double seen = term.window ? std::min(before, term.window) : before;
      work.flops = term.pairFlops * pairs;
      work.bytes = term.tokenBytes * fraction + term.contextBytes * seen;
      break;
    }
    case Term::Kind::Compute:
      work.flops = term.scales ? term.flops * fraction : term.flops;
      work.bytes = term.fixedBytes + term.tokenBytes * fraction;
      break;
    }
    fn(work);
  }
}

double LayerSliceCost::seconds(int64_t length, int64_t context) const {
  double total = 0;
  forEachWork(length, context, [&](const SliceWork &work) {
    total += work.collective
                 ? model.collectiveTime(work.kind, axes, work.bytes)
                 : model.taskTime(work.flops, work.bytes, work.elementBits);
  });
  return total;
}

StageSliceCost::StageSliceCost(ArrayRef<LayerOp> layers, const CostModel &model,
                               ArrayRef<GroupAxis> axes, int64_t tokens,
                               int64_t stages)
    : stageLayers(stages), boundaryBytes(std::max<int64_t>(stages - 1, 0)),
      tokens(tokens), hopLatency(model.getTarget().hopLatency),
      linkBandwidth(model.linkEfficiency(/*ring=*/false) *
                    model.getTarget().linkBandwidth) {
  for (LayerOp layer : layers) {
    int64_t stage = LayerOp(layer).getStage().value_or(0);
    stageLayers[stage].emplace_back(layer, model, axes, tokens);
    // Layers are in order, so a stage's last layer writes last.
    if (stage + 1 < stages)
      boundaryBytes[stage] = getTensorBytes(layer->getResultTypes());
  }
  if (layers.empty())
    return;
  SmallVector<Operation *> before, after;
  for (Operation &op : *layers.front()->getBlock()) {
    if (isa<LayerOp>(op))
      continue;
    (op.isBeforeInBlock(layers.front()) ? before : after).push_back(&op);
  }
  prologue.emplace(before, model, axes, tokens);
  epilogue.emplace(after, model, axes, tokens);
}

double StageSliceCost::transferSeconds(int64_t stage, int64_t length) const {
  if (stage == 0)
    return hopLatency;
  return hopLatency +
         boundaryBytes[stage - 1] * length / tokens / linkBandwidth;
}

double StageSliceCost::stageSeconds(int64_t stage, int64_t length,
                                    int64_t context) const {
  double total = 0;
  for (const LayerSliceCost &layer : stageLayers[stage])
    total += layer.seconds(length, context);
  if (stage == 0 && prologue)
    total += prologue->seconds(length, context);
  if (stage + 1 == getStages() && epilogue)
    total += epilogue->seconds(length, context);
  return total;
}

double StageSliceCost::operator()(int64_t length, int64_t context) const {
  double slowest = 0;
  for (int64_t s = 0; s < getStages(); ++s)
    slowest = std::max(slowest, stageSeconds(s, length, context));
  return slowest;
}

PipelinePrediction loom::playPipeline(ArrayRef<PipelineUnit> units,
                                      int64_t steps, int64_t warmup) {
  PipelinePrediction prediction;
  if (units.empty())
    return prediction;
  int64_t stages = units.front().work.size();
  SmallVector<double> free(stages, 0.0), busy(stages, 0.0);
  // When each unit of the previous step left the last stage.
  SmallVector<double> left(units.size(), 0.0), leaving(units.size(), 0.0);
  for (int64_t step = 0; step < steps; ++step) {
    for (auto [i, unit] : llvm::enumerate(units)) {
      double arrived = 0;
      if (step > 0 && stages > 1) {
        // Back from the last stage; during warm-up, all of the last step.
        bool barrier = step - 1 < warmup;
        arrived = (barrier ? *llvm::max_element(left) : left[i]) +
                  unit.handover[0];
      }
      for (int64_t s = 0; s < stages; ++s) {
        if (s > 0)
          arrived += unit.handover[s];
        double start = std::max(arrived, free[s]);
        free[s] = arrived = start + unit.work[s];
        busy[s] += unit.work[s];
      }
      leaving[i] = arrived;
    }
    std::swap(left, leaving);
  }
  prediction.seconds = free[stages - 1];
  if (prediction.seconds > 0)
    prediction.bubble = 1 - *llvm::max_element(busy) / prediction.seconds;
  return prediction;
}

PipelinePrediction loom::predictPipeline(
    const StageSliceCost &cost, PipelineAttr pipeline,
    llvm::function_ref<double(int64_t stage, int64_t length)> transfer) {
  bool patches = pipeline.getMode() == PipelineMode::patches;
  // Patches see no earlier context; slices see the ones before them.
  SmallVector<PipelineUnit> units;
  int64_t context = 0;
  for (auto [i, length] : llvm::enumerate(pipeline.getSlices())) {
    // Equal patches cost the same: price the first only.
    if (patches && i > 0 && length == pipeline.getSlices()[i - 1]) {
      units.push_back(units.back());
      continue;
    }
    PipelineUnit &unit = units.emplace_back();
    for (int64_t s = 0; s < cost.getStages(); ++s) {
      unit.work.push_back(
          cost.stageSeconds(s, length, patches ? 0 : context));
      unit.handover.push_back(transfer ? transfer(s, length)
                                       : cost.transferSeconds(s, length));
    }
    context += length;
  }
  if (!patches)
    return playPipeline(units, 1, 0);
  return playPipeline(units, std::max<int64_t>(pipeline.getSteps(), 1),
                      pipeline.getWarmup());
}
