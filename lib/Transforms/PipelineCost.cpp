//===- PipelineCost.cpp - what slices of a layer cost ---------------------===//

#include "loom/Transforms/PipelineCost.h"

#include "loom/Dialect/Loom/ModelCost.h"
#include "loom/Target/DeviceMesh.h"


using namespace mlir;
using namespace loom;

static bool isTokenTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && tensor.getRank() == 3;
}

LayerSliceCost::LayerSliceCost(LayerOp layer, const CostModel &model,
                               ArrayRef<GroupAxis> tpAxes, int64_t tokens)
    : model(model), axes(tpAxes.begin(), tpAxes.end()), tokens(tokens) {
  int64_t tile = model.getTarget().mxuTile;
  for (Operation &op : layer.getBody().front()) {
    auto cost = dyn_cast<CostOpInterface>(op);
    if (!cost || isa<YieldOp, LocalShardOp>(op))
      continue;
    Term term;
    term.kind = Term::Kind::Compute;
    if (op.getNumResults() > 0)
      term.elementBits = 8 * getElementBytes(op.getResult(0).getType());
    double moved = cost.getBytesRead() + cost.getBytesWritten();
    if (std::optional<CollectiveWork> work = getCollectiveWork(&op)) {
      term.kind = Term::Kind::Collective;
      term.collective = work->kind;
      (isTokenTensor(op.getOperand(0).getType()) ? term.tokenBytes
                                                 : term.fixedBytes) = work->bytes;
      terms.push_back(term);
      continue;
    }
    if (auto attn = dyn_cast<AttentionOp>(op); attn && attn.getCausal()) {
      // Per pair at the full sequence, then rescaled by the pairs a slice
      // visits; the K/V of the context is read from the cache.
      term.kind = Term::Kind::CausalAttention;
      term.pairFlops =
          double(cost.getPaddedFlops(tile)) / double(attn.getScorePairs());
      int64_t batchTimesKV = getNumElements(attn.getK().getType()) /
                             cast<RankedTensorType>(attn.getK().getType()).getDimSize(1);
      term.contextBytes = 2.0 * batchTimesKV * getElementBytes(attn.getK().getType());
      term.tokenBytes = getTensorBytes(op.getOperandTypes()) +
                        getTensorBytes(op.getResultTypes());
      terms.push_back(term);
      continue;
    }
    term.flops = cost.getPaddedFlops(tile);
    term.fixedBytes = cost.getParameterBytes();
    bool tokenWise = llvm::any_of(op.getResultTypes(), isTokenTensor);
    if (!tokenWise) {
      // Per-sample work (adaLN vectors): every slice repeats it.
      term.fixedBytes = moved;
      term.flops = -term.flops; // marks "does not scale"
    } else {
      term.tokenBytes = moved - term.fixedBytes;
      if (auto attn = dyn_cast<AttentionOp>(op)) {
        // Full (DiT) or cross attention: a slice's queries meet all keys,
        // whose K/V are read whole.
        double kv = getTensorBytes(attn.getK().getType()) +
                    getTensorBytes(attn.getV().getType());
        term.fixedBytes = kv;
        term.tokenBytes = moved - kv;
      }
    }
    terms.push_back(term);
  }
}

double LayerSliceCost::seconds(int64_t length, int64_t context) const {
  double fraction = double(length) / double(tokens);
  double total = 0;
  for (const Term &term : terms) {
    switch (term.kind) {
    case Term::Kind::Collective:
      total += model.collectiveTime(term.collective, axes,
                                    term.fixedBytes + term.tokenBytes * fraction);
      break;
    case Term::Kind::CausalAttention: {
      double pairs = double(length) * context + double(length) * (length + 1) / 2;
      total += model.computeTime(term.pairFlops * pairs,
                                 term.tokenBytes * fraction +
                                     term.contextBytes * context,
                                 term.elementBits);
      break;
    }
    case Term::Kind::Compute: {
      double flops = term.flops < 0 ? -term.flops : term.flops * fraction;
      total += model.computeTime(flops,
                                 term.fixedBytes + term.tokenBytes * fraction,
                                 term.elementBits);
      break;
    }
    }
  }
  return total;
}

SmallVector<GroupAxis> loom::tensorParallelAxes(const TargetDesc &target,
                                                const SliceDesc &slice,
                                                int64_t tp, int64_t stages) {
  if (tp <= 1)
    return {};
  int64_t used = tp * stages;
  if (slice.shape.size() == 2 && slice.numChips() % used == 0) {
    MeshShape shape{slice.numChips() / used, stages, tp};
    if (auto mesh = DeviceMesh::build(target, slice, shape))
      return SmallVector<GroupAxis>(mesh->tensorParallelAxes());
    else
      llvm::consumeError(mesh.takeError());
  }
  return {{tp, false}};
}

LayerFootprint loom::layerFootprint(LayerOp layer, bool patches) {
  LayerFootprint footprint;
  CostOpInterface cost = layer;
  footprint.weights = cost.getParameterBytes();
  footprint.kvCache = cost.getKVCacheBytes();
  for (Operation &op : layer.getBody().front()) {
    if (isa<YieldOp>(op))
      continue;
    footprint.workingSet += getTensorBytes(op.getResultTypes());
    if (!patches)
      continue;
    if (auto attn = dyn_cast<AttentionOp>(op); attn && !attn.getCross())
      footprint.kvCache += getTensorBytes(attn.getK().getType()) +
                           getTensorBytes(attn.getV().getType());
    if (auto joint = dyn_cast<JointAttentionOp>(op))
      footprint.kvCache +=
          getTensorBytes(joint.getKImg().getType()) +
          getTensorBytes(joint.getVImg().getType()) +
          getTensorBytes(joint.getKTxt().getType()) +
          getTensorBytes(joint.getVTxt().getType());
  }
  return footprint;
}

FailureOr<ModelView> loom::getModelView(ModuleOp module, const CostModel &model,
                                        StringRef passName) {
  ModelView view;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal())
      continue;
    bool hasLayers = false;
    for (Operation &op : func.getBody().front()) {
      if (auto layer = dyn_cast<LayerOp>(op)) {
        view.layers.push_back(layer);
        hasLayers = true;
        continue;
      }
      auto cost = dyn_cast<CostOpInterface>(op);
      if (!cost)
        continue;
      bool before = view.layers.empty();
      (before ? view.prologueWeights : view.epilogueWeights) +=
          cost.getParameterBytes();
      (before ? view.prologueSeconds : view.epilogueSeconds) +=
          estimateTime(model, cost);
    }
    if (hasLayers) {
      view.func = func;
      break;
    }
    view = ModelView();
  }
  if (!view.func)
    return module.emitError() << passName
                              << " found no model function with loom.layer ops";
  if (auto info = module->getAttrOfType<DictionaryAttr>("loom.model"))
    if (auto mode = info.getAs<StringAttr>("mode"))
      view.diffusion = mode.getValue() == "diffusion";
  if (auto tp = module->getAttrOfType<IntegerAttr>("loom.tp"))
    view.tp = tp.getInt();
  return view;
}
