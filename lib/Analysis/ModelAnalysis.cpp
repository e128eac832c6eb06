//===- ModelAnalysis.cpp - a planned module as the passes read it ---------===//

#include "loom/Analysis/ModelAnalysis.h"

#include "loom/Dialect/Loom/ModelCost.h"
#include "loom/Dialect/Loom/ModuleTarget.h"
#include "loom/Hardware/DeviceMesh.h"

using namespace mlir;
using namespace loom;

StageGroupAxes loom::stageGroupAxes(const TargetDesc &target,
                                    const TopologyDesc &topology, int64_t tp,
                                    int64_t sp, int64_t stages, int64_t tpX,
                                    const Placement &placement,
                                    bool expertGroup) {
  int64_t used = tp * sp * stages;
  if (topology.shape.size() == 2 && used > 0 &&
      topology.numChips() % used == 0) {
    MeshShape shape{topology.numChips() / used, stages, tp, sp};
    shape.expertGroup = expertGroup;
    if (tpX > 1 && sp <= 1)
      shape.tensorRows = tpX;
    if (auto mesh = DeviceMesh::build(target, topology, shape, placement)) {
      SmallVector<GroupAxis> tensor(mesh->tensorParallelAxes());
      // A 2-D group's sub-groups run on one axis each, even on a line.
      if (tpX > 1 && sp <= 1 && tensor.size() != 2)
        tensor = {{tpX, false}, {tp / tpX, false}};
      return {tensor, SmallVector<GroupAxis>(mesh->sequenceParallelAxes())};
    } else {
      llvm::consumeError(mesh.takeError());
    }
  }
  if (tpX > 1 && sp <= 1)
    return {{{tpX, false}, {tp / tpX, false}}, {}};
  // No mesh: each group a line.
  auto line = [](int64_t degree) -> SmallVector<GroupAxis> {
    if (degree <= 1)
      return {};
    return {{degree, false}};
  };
  return {line(tp), line(sp)};
}

LayerFootprint loom::layerFootprint(LayerOp layer, bool staleKV) {
  LayerFootprint footprint;
  CostOpInterface cost = layer;
  footprint.weights = cost.getParameterBytes();
  footprint.kvCache = cost.getKVCacheBytes();
  if (auto gather = dyn_cast<GatherWeightsOp>(layer.getBody().front().front())) {
    footprint.gathered = double(gather.getBytes());
    footprint.weights = footprint.gathered / double(gather.getGroupSize());
  }
  for (Operation &op : layer.getBody().front()) {
    if (isa<YieldOp>(op))
      continue;
    footprint.workingSet += getTensorBytes(op.getResultTypes());
    // A ring attention holds the K/V block in hand and the one arriving.
    if (auto ring = dyn_cast<RingAttentionOp>(op))
      footprint.workingSet += 2.0 * double(ring.getBlockBytes());
    if (auto joint = dyn_cast<JointAttentionOp>(op))
      footprint.workingSet += 2.0 * double(joint.getRingBlockBytes());
    if (!staleKV)
      continue;
    if (auto attn = dyn_cast<AttentionOp>(op); attn && !attn.getCross())
      footprint.kvCache += getTensorBytes(attn.getK().getType()) +
                           getTensorBytes(attn.getV().getType());
    // A ring's chip keeps its own block (the stale K/V of its tokens).
    if (auto ring = dyn_cast<RingAttentionOp>(op))
      footprint.kvCache += double(ring.getBlockBytes());
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
  // Stages, schedules and reports name layers by index, in model order.
  for (auto [i, layer] : llvm::enumerate(view.layers))
    if (layer.getIndex() != i)
      return layer.emitOpError()
             << "has index " << layer.getIndex() << " but is layer #" << i
             << " of the model; " << passName
             << " needs layers numbered 0, 1, ... in order";
  if (ModelAttr model = getModel(module))
    view.diffusion = model.isDiffusion();
  view.tp = getParallelOrDefault(module).getTp();
  view.tpX = getParallelOrDefault(module).getTpX();
  view.kvBatch = getParallelOrDefault(module).getKvBatch();
  view.sp = getParallelOrDefault(module).getBesideDegree();
  view.expertGroup = getParallelOrDefault(module).getEpData();
  // The passes lay out and price tp chips per stage; what sharding wrote on
  // the ops must say the same (and sp for the sequence group's ops).
  Operation *wrong = nullptr;
  int64_t found = 0, expected = view.tp;
  bool sequenceGroup = false, expertGroup = false;
  // A 2-D group (tp_x x tp_y): ops split over tp_y as the 1-D layout is
  // over tp, and d_model over tp_x.
  int64_t tpY = view.tp / view.tpX;
  auto expectedOf = [&](StringRef group) {
    return group == kTensorXGroup   ? view.tpX
           : group == kTensorYGroup ? tpY
           : group == kKVGroup      ? view.kvBatch
                                    : view.tp;
  };
  view.func.walk([&](Operation *op) {
    expected = view.tp;
    sequenceGroup = expertGroup = false;
    if (auto split = op->getAttrOfType<SplitAttr>(kSplitAttrName)) {
      found = (Count(split.getParts()) * split.getReplicas()).get();
      if (view.tpX > 1) {
        expected = tpY;
        // A norm's scale: d_model over tp_x alone.
        if (found == 1 && split.getXParts() == view.tpX)
          expected = 1;
        if (split.getXParts() != 1 && split.getXParts() != view.tpX)
          found = split.getXParts(), expected = view.tpX;
      }
    } else if (auto collective = dyn_cast<CollectiveOpInterface>(op)) {
      found = collective.getGroupSize();
      sequenceGroup = isBesideGroup(collective.getGroup());
      expertGroup = collective.getGroup() == kExpertGroup;
      expected = expectedOf(collective.getGroup());
    } else if (auto shard = dyn_cast<LocalShardOp>(op)) {
      found = shard.getGroupSize();
      sequenceGroup = isBesideGroup(shard.getGroup());
      expertGroup = shard.getGroup() == kExpertGroup;
      expected = expectedOf(shard.getGroup());
    } else {
      return WalkResult::advance();
    }
    // (The group beside tp is sp's or ep's, never both: the op's own
    // group must be the module's.)
    if (sequenceGroup)
      expected = expertGroup == view.expertGroup ? view.sp : 1;
    if (found == expected)
      return WalkResult::advance();
    wrong = op;
    return WalkResult::interrupt();
  });
  if (wrong)
    return wrong->emitOpError()
           << "is sharded " << found << " ways, but the module's "
           << (!sequenceGroup ? "tensor parallelism (loom.parallel's tp) is "
               : expertGroup
                   ? "expert-parallel group of its own (loom.parallel's ep "
                     "with ep_data) is "
                   : "sequence parallelism (loom.parallel's sp) is ")
           << expected << "; " << passName
           << " needs them to agree";
  return view;
}

ModelAnalysis::ModelAnalysis(Operation *op) : module(dyn_cast<ModuleOp>(op)) {
  if (module)
    target = loom::getTarget(module);
  if (!target)
    return;
  desc = std::make_unique<TargetDesc>(target.getDesc());
  model = std::make_unique<CostModel>(*desc);
}

LogicalResult ModelAnalysis::requireTarget(StringRef passName) {
  if (target)
    return success();
  if (!module)
    return failure();
  return loom::requireTarget(module, passName);
}

LogicalResult ModelAnalysis::requireModel(StringRef passName) {
  if (failed(requireTarget(passName)))
    return failure();
  if (view)
    return success();
  FailureOr<ModelView> found = getModelView(module, *model, passName);
  if (failed(found))
    return failure();
  view = std::move(*found);
  return success();
}

SmallVector<GroupAxis>
ModelAnalysis::getTensorParallelAxes(int64_t stages) const {
  ParallelAttr parallel = getParallelOrDefault(module);
  return stageGroupAxes(*desc, target.getTopologyDesc(), parallel.getTp(),
                        parallel.getBesideDegree(), stages, parallel.getTpX(),
                        getPlacementOrDefault(module), parallel.getEpData())
      .tensor;
}

SmallVector<GroupAxis>
ModelAnalysis::getSequenceParallelAxes(int64_t stages) const {
  ParallelAttr parallel = getParallelOrDefault(module);
  return stageGroupAxes(*desc, target.getTopologyDesc(), parallel.getTp(),
                        parallel.getBesideDegree(), stages, parallel.getTpX(),
                        getPlacementOrDefault(module), parallel.getEpData())
      .sequence;
}
