//===- SearchSpace.cpp - the layouts a search tries -----------------------===//

#include "SearchSpace.h"

#include "loom/Analysis/TrainingSchedule.h"
#include "loom/Dialect/Loom/ModuleTarget.h"
#include "loom/Transforms/ShardExperts.h"
#include "loom/Transforms/ShardHeads.h"

#include "mlir/IR/BuiltinOps.h"

#include <set>

using namespace mlir;
using namespace loom;

std::optional<SearchSpace> SearchSpace::build(const PlanRequest &request,
                                              MLIRContext &context) {
  llvm::Expected<TargetAttr> target = materializeTarget(
      &context, request.problem.topology, request.problem.targetFile);
  if (!target) {
    llvm::consumeError(target.takeError());
    return std::nullopt;
  }
  SearchSpace space(request, target->getDesc(), target->getTopologyDesc());
  space.chips = target->getNumChips();
  space.sliceChips = target->getTopologyDesc().sliceChips();
  space.givenSequenceParallel = request.layout.sequenceParallel.value_or(false);
  Captured quiet(context);
  OwningOpRef<ModuleOp> module =
      importModel(request.problem.model, request.problem.import, &context);
  if (!module)
    return std::nullopt;
  ModelAttr model = getModel(*module);
  module->walk([&](LayerOp) { ++space.layers; });
  space.batch = model.getBatch();
  space.diffusion = model.isDiffusion();
  space.training = request.problem.import.training.has_value();
  // A decode step has one token, which no ring splits: no decomposed
  // variants to plan.
  space.decode = model.getMode() == ModelMode::decode;
  space.problem.import.batch = space.batch;
  space.workload = workloadFigures(*module, request.problem.import,
                                   space.target, space.chips);
  space.tensor = space.tensorLayouts(*module);
  // Expert parallelism over the tp group's chips, and (as the request
  // allows) over a group of its own beside it, which splits the batch.
  std::optional<ExpertLayout> epLayout = request.layout.epLayout;
  for (int64_t tp : validTensorParallelDegrees(*module, space.sliceChips,
                                               space.givenSequenceParallel)) {
    SmallVector<ExpertChoice> &layouts = space.expertLayoutsOf[tp];
    if (!epLayout || *epLayout == ExpertLayout::Tensor)
      for (int64_t ep : validExpertParallelDegrees(*module, tp))
        layouts.push_back({ep, false});
    if (!epLayout || *epLayout == ExpertLayout::Data)
      for (int64_t ep : validExpertDataDegrees(*module, tp, space.sliceChips))
        layouts.push_back({ep, true});
  }
  space.sequence =
      searchedSequenceDegrees(*module, space.sliceChips, space.target.hbmBytes);
  return space;
}

/// 1-D layouts at every valid degree, then 2-D weight-stationary blocks
/// (Pope et al. 2023) of every tp that tiles the slice, as --tp-layout
/// allows; and weight-gathered for a batched prefill of a causal model (it
/// moves weights instead of activations, which pays only when batch x
/// tokens is large; Pope et al. 2023, section 3.2.3) over each group that
/// divides the batch and tiles the slice. MoE layers are not gathered.
/// With more chips than KV heads, a decode step's 1-D layouts also with
/// each KV head's cache split by batch over the chips holding it (kv-batch,
/// docs/serving.md: two all-to-alls of one token a sequence against a
/// cache read and held 1 / kv-batch as large), or only so when --kv-batch
/// is given.
SmallVector<TensorChoice> SearchSpace::tensorLayouts(ModuleOp module) const {
  std::optional<TensorLayout> kind = given.tpLayout;
  bool sp = givenSequenceParallel;
  bool moe = false;
  module->walk([&](MoEExpertsOp) { moe = true; });
  bool oneD = !kind || *kind == TensorLayout::OneD;
  bool twoD = (!kind || *kind == TensorLayout::TwoD) && !decode;
  bool gathered = (!kind || *kind == TensorLayout::WeightGathered) && !sp &&
                  !decode && !diffusion && !moe && batch > 1;
  SmallVector<TensorChoice> layouts;
  int64_t kvBatch = given.kvBatch.value_or(1);
  if (oneD && kvBatch == 1)
    for (int64_t tp : validTensorParallelDegrees(module, sliceChips, sp))
      layouts.push_back({tp, 1, false});
  int64_t kvHeads = fewestKvHeads(module);
  if (oneD && !sp && !training && kvHeads > 0 && (decode || kvBatch > 1))
    for (int64_t tp : validTensorParallelDegrees(module, sliceChips, sp)) {
      int64_t holders = kvHeadHolders(kvHeads, tp);
      int64_t z = given.kvBatch ? kvBatch : holders;
      if (z > 1 && holders % z == 0 && batch % z == 0)
        layouts.push_back({tp, 1, false, false, z});
    }
  if (twoD)
    for (int64_t tp = 4; tp <= sliceChips; ++tp)
      if (sliceChips % tp == 0)
        for (int64_t x : validTensorRows(module, topology, tp, sp))
          if (!given.tpX || *given.tpX <= 1 || x == *given.tpX)
            layouts.push_back(
                {tp, x, false,
                 !sp && llvm::is_contained(
                            validTensorRows(module, topology, tp,
                                            /*sequenceParallel=*/true),
                            x)});
  if (gathered)
    for (int64_t tp = 2; tp <= sliceChips && tp <= batch; ++tp)
      if (sliceChips % tp == 0 && batch % tp == 0)
        layouts.push_back({tp, 1, true});
  return layouts;
}

/// Every stage count up to the layers whose tp x stages divides the
/// topology (the lowering lays replicas out only then).
SmallVector<int64_t> SearchSpace::stageCounts(int64_t tp) const {
  SmallVector<int64_t> counts;
  if (given.tp && tp != *given.tp)
    return counts;
  for (int64_t stages = 1; stages <= layers; ++stages)
    if (tiles(tp, stages) && (!given.stages || stages == *given.stages))
      counts.push_back(stages);
  return counts;
}

/// Data parallelism splits the batch: every degree up to the batch and
/// the chips left (the ones that do not divide it are refused later, with
/// the chips a stage of the group beside tp takes).
SmallVector<int64_t> SearchSpace::dataParallelDegrees(int64_t tp,
                                                      int64_t stages) const {
  SmallVector<int64_t> degrees;
  for (int64_t dp = 1; dp <= batch && dp <= chips / (tp * stages); ++dp)
    degrees.push_back(dp);
  return degrees;
}

/// A 2-D block and a weight-gathered group run alone in their stage: no
/// ep; the others, every expert layout of their tp.
ArrayRef<ExpertChoice> SearchSpace::expertLayouts(const TensorChoice &t) const {
  static const ExpertChoice kNone[] = {{1, false}};
  if (t.tpX > 1 || t.gathered)
    return kNone;
  auto found = expertLayoutsOf.find(t.tp);
  return found == expertLayoutsOf.end() ? ArrayRef<ExpertChoice>()
                                        : ArrayRef(found->second);
}

/// Without overlap, and with two units interleaved (docs/overlap.md):
/// TeraPipe's or PipeFusion's units paired on a pipeline, two micro-batches
/// of the sequence on one stage. And with the collective matmuls
/// decomposed (interleave 1, tp >= 2): in the all-reduce form (its
/// reduce-scatter half under the matmul, the partials splitting the output
/// columns) and in Megatron's sequence-parallel form (all-gather and
/// reduce-scatter under matmuls, the partials splitting the rows).
ArrayRef<OverlapChoice> SearchSpace::overlaps() const {
  static const OverlapChoice kOverlaps[] = {
      {1, false, false}, {2, false, false}, {1, true, false}, {1, true, true}};
  return kOverlaps;
}

/// Microbatches of a batched prefill's sequences (#loom.pipeline): on a
/// pipeline only (one stage has no bubble for them to fill), of causal
/// models' token slices (a DiT's batch runs in its patches), each count
/// that divides the replica's batch up to twice the stages (past that a
/// unit's weight reads outgrow the bubble it saves: the bubble of K stages
/// and M microbatches is (K - 1) / (M n + K - 1) of the run, n the slices).
SmallVector<int64_t> SearchSpace::microbatchCounts(int64_t stages,
                                                   int64_t share) const {
  if (given.microbatches)
    return {*given.microbatches};
  SmallVector<int64_t> counts{1};
  if (diffusion || stages == 1)
    return counts;
  for (int64_t m = 2; m <= share && m <= 2 * stages; ++m)
    if (share % m == 0)
      counts.push_back(m);
  return counts;
}

/// Interleaved stages (token slices of a prefill on a pipeline): v = 1, 2,
/// 4, ... while the stages' chunks divide the layers. Each cuts the bubble
/// to 1/v at v times the handovers; a decode step (one token a sequence)
/// and a DiT's patches (which stream across steps) are not interleaved.
SmallVector<int64_t> SearchSpace::virtualStageCounts(int64_t stages,
                                                     int64_t interleave) const {
  if (given.virtualStages)
    return *given.virtualStages > 1 && interleave > 1
               ? SmallVector<int64_t>{}
               : SmallVector<int64_t>{*given.virtualStages};
  SmallVector<int64_t> counts{1};
  if (diffusion || decode || stages == 1 || interleave > 1)
    return counts;
  for (int64_t v = 2; stages * v <= layers; v *= 2)
    if (layers % (stages * v) == 0)
      counts.push_back(v);
  return counts;
}

/// The placements of a stage of tp x sp chips: the default rule's, then
/// each other one whose groups sit on axes the cost model prices
/// differently (the same sorted axes, stride and wrap of both groups and
/// the same block up to a square topology's transpose price the same:
/// pruned). Stages stay inside replicas: a replica's blocks never talk to
/// another's, so a stage's replicas side by side only lengthen the
/// stage-to-stage hop.
const std::vector<Placement> &
SearchSpace::placements(int64_t tp, int64_t sp, int64_t stages,
                        bool expertGroup) {
  auto [it, fresh] = placementCache.try_emplace({tp, sp, stages, expertGroup});
  if (!fresh)
    return it->second;
  std::vector<Placement> &found = it->second;
  found.push_back(Placement{});
  if (topology.shape.size() != 2)
    return found;
  MeshShape shape{chips / (tp * sp * stages), stages, tp, sp};
  shape.expertGroup = expertGroup;
  auto signature = [&](const DeviceMesh &mesh) {
    auto sorted = [](ArrayRef<GroupAxis> axes) {
      SmallVector<GroupAxis> list(axes);
      llvm::sort(list);
      return list;
    };
    ChipCoord block = mesh.getPlacement().block;
    if (topology.shape[0] == topology.shape[1] && block[0] > block[1])
      std::swap(block[0], block[1]);
    return std::make_tuple(block, sorted(mesh.tensorParallelAxes()),
                           sorted(mesh.sequenceParallelAxes()));
  };
  auto byRule = DeviceMesh::build(target, topology, shape);
  if (!byRule) {
    llvm::consumeError(byRule.takeError());
    return found;
  }
  std::set<decltype(signature(*byRule))> seen{signature(*byRule)};
  for (const Placement &p : DeviceMesh::placements(topology, shape)) {
    auto mesh = DeviceMesh::build(target, topology, shape, p);
    if (!mesh) {
      llvm::consumeError(mesh.takeError());
      continue;
    }
    if (seen.insert(signature(*mesh)).second)
      found.push_back(p);
  }
  return found;
}

/// With virtual stages every unit goes from the last stage back to the
/// first, so a placement whose stage blocks close a ring (`stages in
/// ring`) is tried beside each one whose snake of blocks does not: when
/// its handovers round the cycle cross fewer hops than the snake's.
std::optional<Placement>
SearchSpace::stagesInRing(const Placement &placement, int64_t tp, int64_t sp,
                          int64_t stages, int64_t tpX, bool expertGroup) {
  auto [it, fresh] = ringCache.try_emplace(
      {tp, sp, stages, tpX, expertGroup, formatDimension(placement)});
  if (!fresh || topology.shape.size() != 2)
    return it->second;
  MeshShape shape{chips / (tp * sp * stages), stages, tp, sp};
  shape.expertGroup = expertGroup;
  if (tpX > 1 && sp == 1)
    shape.tensorRows = tpX;
  auto snake = DeviceMesh::build(target, topology, shape, placement);
  if (!snake) {
    llvm::consumeError(snake.takeError());
    return it->second;
  }
  Placement ring = snake->getPlacement();
  ring.stagesRing = true;
  auto closed = DeviceMesh::build(target, topology, shape, ring);
  if (!closed) {
    llvm::consumeError(closed.takeError());
    return it->second;
  }
  int64_t snakeHops = 0, ringHops = 0;
  for (int64_t s = 0; s < stages; ++s) {
    snakeHops += snake->stageHops(s);
    ringHops += closed->stageHops(s);
  }
  if (ringHops < snakeHops)
    it->second = ring;
  return it->second;
}

void SearchSpace::addVariants(const TensorChoice &t, int64_t stages,
                              int64_t dp, const ExpertChoice &e, int64_t sp,
                              bool ring, Candidates &out) {
  int64_t beside = e.data ? e.ep : sp;
  // (A cache split by batch: over each replica's whole sequences, beside
  // no sequence parallelism.)
  if (t.kvBatch > 1 && (sp > 1 || e.data || (batch / dp) % t.kvBatch != 0))
    return;
  for (auto [interleave, decompose, megatronSp] : overlaps()) {
    // (With --sequence-parallel every variant has it.)
    if (megatronSp && givenSequenceParallel)
      continue;
    for (int64_t microbatches : microbatchCounts(stages, batch / dp))
      for (int64_t virtualStages : virtualStageCounts(stages, interleave)) {
        if (given.interleave && interleave != *given.interleave)
          continue;
        if ((given.decompose && decompose != *given.decompose) ||
            (decompose && (t.tp < 2 || decode)))
          continue;
        // (2-D sub-groups are not decomposed; their residual is split over
        // d_model, not the sequence.)
        if (t.tpX > 1 && (decompose || megatronSp))
          continue;
        // (A weight-gathered stage runs its units one after another, each
        // layer's gather prefetched: one microbatch, no zipped units, no
        // virtual stages, no decomposed collectives.)
        if (t.gathered && (interleave > 1 || decompose || megatronSp ||
                           microbatches > 1 || virtualStages > 1))
          continue;
        if (t.kvBatch > 1 && (megatronSp || microbatches > 1))
          continue;
        // (A scatter/gather handover asked for runs only where every tp
        // rank holds the boundary whole; unasked, each candidate that can
        // takes it where the cost model prefers it.)
        bool splitBoundary = givenSequenceParallel || megatronSp ||
                             t.rowsSequenceParallel || t.tpX > 1 ||
                             t.gathered;
        bool scatter = given.scatterHandover.value_or(false);
        if (scatter && (t.tp < 2 || stages < 2 || splitBoundary))
          continue;
        ParallelLayout candidate;
        candidate.tp = t.tp;
        candidate.tpX = t.tpX;
        candidate.kvBatch = t.kvBatch;
        candidate.tpLayout = t.gathered   ? TensorLayout::WeightGathered
                             : t.tpX > 1 ? TensorLayout::TwoD
                                         : TensorLayout::OneD;
        candidate.ep = e.ep;
        candidate.epLayout = e.data ? ExpertLayout::Data : ExpertLayout::Tensor;
        candidate.sp = sp;
        candidate.spMode = ring ? SequenceMode::Ring : SequenceMode::Ulysses;
        candidate.sequenceParallel =
            givenSequenceParallel || megatronSp || t.rowsSequenceParallel;
        candidate.stages = stages;
        candidate.virtualStages = virtualStages;
        candidate.dataParallel = dp;
        candidate.microbatches = microbatches;
        candidate.interleave = interleave;
        if (interleave > 1 && stages == 1)
          candidate.slices = SliceSpec::count(interleave);
        candidate.decompose = decompose;
        candidate.scatterHandover = scatter;
        // With tp and sp both above 1, each placement that prices
        // differently (docs/placement.md).
        std::vector<Placement> placed =
            given.placement || t.tp == 1 || beside == 1
                ? std::vector<Placement>{given.placement.value_or(Placement{})}
                : placements(t.tp, beside, stages, e.data);
        if (virtualStages > 1 && !given.placement)
          for (size_t i = 0, n = placed.size(); i < n; ++i)
            if (std::optional<Placement> closed = stagesInRing(
                    placed[i], t.tp, beside, stages, t.tpX, e.data))
              placed.push_back(*closed);
        // An expert group of its own is planned first with the first
        // placement alone; the others refine the best of them.
        if (e.data && placed.size() > 1) {
          out.refinements.emplace_back(
              out.layouts.size(),
              std::vector<Placement>(placed.begin() + 1, placed.end()));
          placed.resize(1);
        }
        for (const Placement &placement : placed) {
          candidate.placement = placement;
          out.layouts.push_back(candidate);
        }
      }
  }
}

/// Every degree that divides the replicas, from none (1) to all of them:
/// fewer replicas per group hold more of the states each but gather and
/// reduce over a shorter ring (hybrid sharding), which pays when the
/// replicas' links are slow.
SmallVector<int64_t> SearchSpace::fsdpDegrees(int64_t dp) const {
  if (given.fsdp)
    return {*given.fsdp};
  SmallVector<int64_t> degrees;
  for (int64_t f = 1; f <= dp; ++f)
    if (dp % f == 0)
      degrees.push_back(f);
  return degrees;
}

/// Without a split, none; with one, each stage: ZeRO-1 and 2 keep every
/// weight on every chip and gather none, ZeRO-3 gathers each weight before
/// each use for the least memory.
SmallVector<int64_t> SearchSpace::zeroStages(int64_t fsdp) const {
  if (fsdp == 1)
    return {given.zero.value_or(layoutDimensions().zero.defaultValue)};
  if (given.zero)
    return {*given.zero};
  return {1, 2, 3};
}

/// Every policy: each trades memory for recomputation differently (the
/// search keeps those that fit and ranks them by time). Those that offload
/// to host memory only on a target with host link figures.
SmallVector<RematPolicy> SearchSpace::rematPolicies() const {
  if (given.remat)
    return {*given.remat};
  bool host = target.hostBandwidth > 0 && target.hostBytes > 0;
  SmallVector<RematPolicy> policies;
  for (const EnumSpelling<RematPolicy> &s : enumSpellings(RematPolicy()))
    if (host || !offloads(s.value))
      policies.push_back(s.value);
  return policies;
}

/// Gradient accumulation: each count that divides the replica's sequences,
/// up to 8 (each microbatch keeps 1/M of the activations; more pay each
/// layer's FSDP gathers and fixed kernel costs again for no memory they
/// need).
SmallVector<int64_t> SearchSpace::accumulationCounts(int64_t share) const {
  if (given.microbatches)
    return {*given.microbatches};
  SmallVector<int64_t> counts;
  for (int64_t m = 1; m <= share && m <= 8; m *= 2)
    if (share % m == 0)
      counts.push_back(m);
  return counts;
}

/// A training step's pipeline stages: one, and each power of two whose
/// stages each hold a layer and whose replicas each run at least as many
/// microbatches as stages (what 1F1B and the schedules after it need).
SmallVector<int64_t> SearchSpace::trainingStageCounts(int64_t tp) const {
  if (given.stages)
    return {*given.stages};
  SmallVector<int64_t> counts;
  for (int64_t p = 1; p <= layers && chips % (tp * p) == 0; p *= 2) {
    int64_t dp = chips / (tp * p);
    if (tiles(tp, p) && (p == 1 || (batch % dp == 0 && batch / dp >= p)))
      counts.push_back(p);
  }
  return counts;
}

/// The schedules a pipelined step tries: 1F1B, ZB-H1, ZB-H2 (with 2p - 1
/// microbatches or more) and interleaved 1F1B (two chunks a stage, when
/// each stage has two layers). GPipe is pruned:
/// 1F1B has its bubble, (p - 1) / m, with at most p microbatches' values
/// in flight rather than all m (Narayanan et al., SC 2021, 2.2.1); so is
/// MaxText's circular pipeline, whose bubble (p - 1) / (r m + p - 1) is
/// interleaved 1F1B's for r = v with every microbatch's values held.
SmallVector<std::pair<PipelineSchedule, int64_t>>
SearchSpace::pipelineSchedules(int64_t stages) const {
  if (stages == 1)
    return {{given.schedule.value_or(PipelineSchedule::GPipe),
             given.virtualStages.value_or(1)}};
  if (given.schedule)
    return {{*given.schedule, given.virtualStages.value_or(
                                  runsChunks(*given.schedule) ? 2 : 1)}};
  SmallVector<std::pair<PipelineSchedule, int64_t>> schedules;
  if (!given.virtualStages || *given.virtualStages == 1) {
    schedules.push_back({PipelineSchedule::OneFOneB, 1});
    schedules.push_back({PipelineSchedule::ZeroBubbleH1, 1});
    schedules.push_back({PipelineSchedule::ZeroBubbleH2, 1});
  }
  int64_t v = given.virtualStages.value_or(2);
  if (v > 1 && layers >= v * stages)
    schedules.push_back({PipelineSchedule::Interleaved, v});
  return schedules;
}

/// A pipelined replica's microbatches: twice and four times the stages,
/// where they divide the replica's sequences. More microbatches shrink the
/// bubble but run smaller kernels, each with its fixed costs, and pay each
/// microbatch's FSDP gathers again. As many as the stages only when no
/// more divide: 1F1B's bubble, (p - 1) / p of the work, is twice 2p's, and
/// its p microbatches in flight hold twice the activations of 2p's
/// half-size ones.
SmallVector<int64_t> SearchSpace::pipelineMicrobatches(int64_t stages,
                                                       int64_t share) const {
  if (given.microbatches)
    return {*given.microbatches};
  SmallVector<int64_t> counts;
  for (int64_t m = 2 * stages; m <= share && m <= 4 * stages; m *= 2)
    if (share % m == 0)
      counts.push_back(m);
  if (counts.empty() && share % stages == 0)
    counts.push_back(stages);
  return counts;
}

/// A training step: 1-D tensor parallelism over every valid degree, on
/// one stage or a pipeline (trainingStageCounts), data parallelism over
/// the rest of the chips (a replica's chips idle would only slow the
/// step), with every split of the states, remat policy and microbatch
/// count the rules above allow, each at the rule's placement; the other
/// placements of the tp group refine the best of them. A pipelined step
/// tries the states split over none or all of its replicas and
/// Korthikanti et al.'s selective and full recomputation (its memory is
/// mostly set by its stages and schedule; selective is none wherever
/// attention runs as flash kernels, which keep no scores).
Candidates SearchSpace::trainingCandidates() {
  Candidates out;
  for (const TensorChoice &t : tensor) {
    if (t.tpX > 1 || t.gathered || (given.tp && t.tp != *given.tp))
      continue;
    for (int64_t stages : trainingStageCounts(t.tp)) {
      int64_t dp = chips / (t.tp * stages);
      if (chips % (t.tp * stages) != 0 || batch % dp != 0 ||
          (given.dataParallel && dp != *given.dataParallel))
        continue;
      addTrainingVariants(t, stages, dp, out);
    }
  }
  return out;
}

void SearchSpace::addTrainingVariants(const TensorChoice &t, int64_t stages,
                                      int64_t dp, Candidates &out) {
  // Megatron's sequence parallelism keeps 1/tp of the activations
  // between the matmuls (Korthikanti et al.: 34sbh/t rather than
  // 10sbh + 24sbh/t per layer) for the same link traffic.
  SmallVector<bool, 2> sequenceSplits =
      given.sequenceParallel ? SmallVector<bool, 2>{*given.sequenceParallel}
      : t.tp > 1             ? SmallVector<bool, 2>{false, true}
                             : SmallVector<bool, 2>{false};
  // The tp group's other placements (each moves the replicas' rings
  // too) refine the best layouts, as the expert groups' do.
  std::vector<Placement> others;
  if (!given.placement && t.tp > 1) {
    const std::vector<Placement> &placed = placements(t.tp, 1, stages, false);
    if (placed.size() > 1)
      others.assign(placed.begin() + 1, placed.end());
  }
  bool pipelined = stages > 1;
  SmallVector<int64_t> splits = fsdpDegrees(dp);
  if (pipelined && !given.fsdp)
    splits = dp > 1 ? SmallVector<int64_t>{1, dp} : SmallVector<int64_t>{1};
  SmallVector<RematPolicy> policies = rematPolicies();
  if (pipelined && !given.remat)
    policies = {RematPolicy::Selective, RematPolicy::Full};
  SmallVector<int64_t> counts = pipelined
                                    ? pipelineMicrobatches(stages, batch / dp)
                                    : accumulationCounts(batch / dp);
  for (bool sequenceParallel : sequenceSplits)
    for (int64_t fsdp : splits) {
      if (dp % fsdp != 0)
        continue;
      for (int64_t zero : zeroStages(fsdp))
        for (RematPolicy remat : policies)
          for (auto [schedule, v] : pipelineSchedules(stages))
            for (int64_t m : counts) {
              // (ZB-H2 fills its warm-up with 2p - 1 microbatches.)
              if ((v > 1 && m % stages != 0) ||
                  (schedule == PipelineSchedule::ZeroBubbleH2 &&
                   m < 2 * stages - 1))
                continue;
              ParallelLayout candidate;
              candidate.tp = t.tp;
              candidate.stages = stages;
              candidate.schedule = schedule;
              candidate.virtualStages = v;
              candidate.sequenceParallel = sequenceParallel;
              candidate.dataParallel = dp;
              candidate.fsdp = fsdp;
              candidate.zero = zero;
              candidate.remat = remat;
              candidate.microbatches = m;
              candidate.slices = SliceSpec::count(1);
              if (given.placement)
                candidate.placement = *given.placement;
              if (!others.empty())
                out.refinements.emplace_back(out.layouts.size(), others);
              out.layouts.push_back(candidate);
            }
    }
}

Candidates SearchSpace::candidates() {
  if (training)
    return trainingCandidates();
  Candidates out;
  for (const TensorChoice &t : tensor)
    for (int64_t stages : stageCounts(t.tp))
      for (int64_t dp : dataParallelDegrees(t.tp, stages)) {
        if (t.gathered && (batch / dp) % t.tp != 0)
          continue;
        for (const ExpertChoice &e : expertLayouts(t))
          for (auto [sp, ring] : sequence.withModes(t.tp, given)) {
            if ((t.tpX > 1 || t.gathered) && sp > 1)
              continue;
            // An expert-parallel group of its own takes the place beside
            // tp that sp would, and splits each replica's batch.
            if (e.data && (sp > 1 || (batch / dp) % e.ep != 0))
              continue;
            int64_t beside = e.data ? e.ep : sp;
            if (batch % dp != 0 ||
                (given.dataParallel && dp != *given.dataParallel) ||
                (given.ep && e.ep != *given.ep) ||
                !tiles(t.tp * beside, stages) ||
                dp > chips / (t.tp * beside * stages))
              continue;
            addVariants(t, stages, dp, e, sp, ring, out);
          }
      }
  return out;
}
