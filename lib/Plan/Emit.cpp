//===- Emit.cpp - a plan as the config keys of a TPU runtime --------------===//
//
// Key names come from the runtimes' own config files, listed with their
// source in docs/runtimes/ (test/Plan/emit-*.test checks every key written
// against those lists):
// - MaxText: src/maxtext/configs/base.yml, whose children (such as
//   inference/inference_jetstream.yml) inherit it through `base_config`;
// - MaxDiffusion: src/maxdiffusion/configs/base_flux_dev.yml,
//   base_flux_schnell.yml, base_wan_14b.yml and base_wan_1_3b.yml, the
//   pipelines it has for models Loom plans.
//
//===----------------------------------------------------------------------===//

#include "loom/Plan/Emit.h"

#include "Evaluate.h"

#include "loom/Hardware/DeviceMesh.h"
#include "loom/Plan/Report.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <fmt/format.h>

#include <algorithm>

using namespace llvm;
using namespace loom;

std::optional<Runtime> loom::parseRuntime(StringRef name) {
  if (name == "maxtext")
    return Runtime::MaxText;
  if (name == "maxdiffusion")
    return Runtime::MaxDiffusion;
  return std::nullopt;
}

namespace {

/// The target and topology a plan ran on (bundled, or its target file).
std::optional<std::pair<TargetDesc, TopologyDesc>>
planTopology(const PlanProblem &r) {
  if (r.targetFile.empty()) {
    auto [target, topology] = lookupTopology(r.topology);
    if (!target || !topology)
      return std::nullopt;
    return std::make_pair(*target, *topology);
  }
  Expected<TargetDesc> target = loadTargetFile(r.targetFile);
  if (!target) {
    consumeError(target.takeError());
    return std::nullopt;
  }
  const TopologyDesc *topology = target->findTopology(r.topology);
  if (!topology)
    return std::nullopt;
  return std::make_pair(*target, *topology);
}

} // namespace

std::optional<std::string> loom::runtimeTensorPlacement(
    StringRef targetName, ArrayRef<int64_t> shape, int64_t tp) {
  if (shape.size() != 2 || tp <= 1)
    return std::nullopt;
  int64_t rows = shape[0], cols = shape[1], chips = rows * cols;
  auto place = [](int64_t r, int64_t c, bool byColumns = false) {
    return fmt::format("{}x{}, tp {}x{}{} inside sp", r, c, r, c,
                       byColumns ? " by columns" : "");
  };
  // jax/_src/mesh_utils.py's v5e handler (_v5e_create_device_mesh, JAX
  // 0.4.32 on): a ring order of the whole slice, which a mesh of shape
  // (data, tensor) then cuts into runs of tp. On v5e-4 (0, 1, 3, 2) and on
  // v5e-8 (0, 1, 2, 3, 7, 6, 5, 4): row 0 along, row 1 back (JAX's x runs
  // along Loom's columns); on v5e-16 its ring only when tensor is all 16.
  if (targetName == "tpu-v5e") {
    if ((chips == 4 && rows == 2 && cols == 2) ||
        (chips == 8 && rows == 2 && cols == 4)) {
      if (tp == chips)
        return place(rows, cols);
      if (cols % tp == 0)
        return place(1, tp);
      return std::nullopt;
    }
    if (chips == 16 && rows == 4 && cols == 4 && tp == 16)
      return place(4, 4);
  }
  // The generic torus assignment (_create_device_mesh_for_nd_torus): the
  // tensor axis, MaxText's innermost, takes the physical axes whose sizes
  // multiply to tp, as many as it can, x before y: both (the devices y
  // fastest: down each column), or a whole row (x) or column (y). Anything
  // else needs allow_split_physical_axes, which Loom does not model.
  if (tp == chips)
    return place(rows, cols, /*byColumns=*/rows > 1 && cols > 1);
  if (tp == cols)
    return place(1, cols);
  if (tp == rows)
    return place(rows, 1);
  return std::nullopt;
}

namespace {

bool isDiffusion(const PlanOutcome &p) {
  return p.imported.mode == ImportOptions::Mode::Diffusion;
}

/// The MaxDiffusion config that runs the plan's model, or "" when it has
/// none.
StringRef maxDiffusionConfig(const PlanOutcome &p) {
  if (p.family == "flux")
    return StringRef(p.modelName).contains("schnell")
               ? "base_flux_schnell.yml"
               : "base_flux_dev.yml";
  if (p.family == "wan")
    return StringRef(p.modelName).contains("1-3b") ? "base_wan_1_3b.yml"
                                                   : "base_wan_14b.yml";
  return "";
}

/// The image or video size of a DiT workload.
std::pair<int64_t, int64_t> imageSize(const PlanOutcome &p) {
  const ImportOptions &w = p.imported;
  if (w.height && w.width && *w.height && *w.width)
    return {*w.height, *w.width};
  int64_t side = w.resolution.value_or(0);
  return {side, side};
}

int64_t usedChips(const PlanOutcome &p) {
  return p.layout.chipsPerStage() * p.layout.stages * p.layout.dataParallel;
}

std::string ms(double seconds) { return fmt::format("{:.3f} ms", seconds * 1e3); }

/// The plan's time: simulated when it was, predicted otherwise.
std::string timeOf(const PlanOutcome &p) {
  return p.simulated ? "simulated " + ms(p.simulated->makespan)
                     : "predicted " + ms(p.predicted) + " (too large to simulate)";
}

double bestTime(const PlanOutcome &p) {
  return p.simulated ? p.simulated->makespan : p.predicted;
}

/// A YAML number for a batch per device (MaxText and MaxDiffusion read
/// floats): the shortest decimal that reads back as `value`.
std::string yamlNumber(double value) {
  for (int digits = 1; digits <= 17; ++digits) {
    std::string text = fmt::format("{:.{}g}", value, digits);
    if (std::stod(text) == value) {
      if (text.find_first_of(".e") == std::string::npos)
        text += ".0";
      return text;
    }
  }
  return fmt::format("{}", value);
}

/// Of `layouts` for `problem`: each planned and predicted, then the best
/// by prediction that works, simulated; none, with the first refusal in
/// `reasons`, when none does.
std::optional<PlanOutcome> bestOf(const PlanProblem &problem,
                                  ArrayRef<ParallelLayout> layouts,
                                  mlir::MLIRContext &context,
                                  std::string &reasons) {
  PlanOptions rank;
  rank.simulate = Simulation::Never;
  std::vector<PlanOutcome> fits;
  auto refused = [&](const PlanOutcome &outcome) {
    if (reasons.empty())
      reasons = planName(outcome) + ": " + outcome.failure;
  };
  for (const ParallelLayout &l : layouts) {
    PlanOutcome outcome = planAndSimulate(problem, l, context, rank);
    if (outcome.failure.empty())
      fits.push_back(std::move(outcome));
    else
      refused(outcome);
  }
  std::stable_sort(fits.begin(), fits.end(),
                   [](const PlanOutcome &a, const PlanOutcome &b) {
                     return a.predicted < b.predicted;
                   });
  for (const PlanOutcome &fit : fits) {
    PlanOutcome outcome =
        planAndSimulate(fit.problem, fit.layout, context, PlanOptions());
    if (outcome.failure.empty())
      return outcome;
    refused(outcome);
  }
  return std::nullopt;
}

/// MaxText's remat_policy of a Loom policy (src/maxtext/configs/base.yml's
/// list), or none: MaxText has no policy that keeps everything (its `none`
/// is no RematPolicy of types.py) or Korthikanti et al.'s selective one.
std::optional<StringRef> maxTextRemat(RematPolicy policy) {
  if (policy == RematPolicy::None || policy == RematPolicy::Selective)
    return std::nullopt;
  return spellingOf(policy);
}

/// The placement jax's create_device_mesh gives a tensor axis of `tp`
/// chips on `shape` (runtimeTensorPlacement), parsed; none when it lays
/// none out.
Expected<std::optional<Placement>>
jaxTensorPlacement(const PlanOutcome &plan, ArrayRef<int64_t> shape,
                   int64_t tp) {
  std::optional<std::string> chips =
      runtimeTensorPlacement(plan.targetName, shape, tp);
  if (!chips)
    return std::optional<Placement>();
  Expected<Placement> parsed = parsePlacement(*chips);
  if (!parsed)
    return parsed.takeError();
  return std::optional<Placement>(*parsed);
}

/// The best training layout MaxText can run of `plan`'s step: its tp,
/// microbatches and replicas, the states split as ZeRO-3 over the same
/// fsdp replicas (or not at all), each remat policy MaxText names, a bf16
/// master copy dropped; the best by prediction that works, simulated.
Expected<PlanOutcome> bestExpressibleTraining(const PlanOutcome &plan,
                                              mlir::MLIRContext &context) {
  PlanProblem problem = plan.problem;
  if (problem.import.training->masterType == "bf16")
    problem.import.training->masterType = "none";
  // The chips jax's create_device_mesh gives the tensor axis.
  Placement placement;
  auto placed = planTopology(plan.problem);
  if (placed && plan.layout.tp > 1) {
    Expected<std::optional<Placement>> jax =
        jaxTensorPlacement(plan, placed->second.shape, plan.layout.tp);
    if (!jax)
      return jax.takeError();
    if (!*jax)
      return createStringError(
          inconvertibleErrorCode(),
          fmt::format("jax's mesh_utils.create_device_mesh lays no tensor "
                      "axis of {} chips out on {}",
                      plan.layout.tp, plan.problem.topology));
    placement = **jax;
  }
  std::vector<ParallelLayout> layouts;
  for (int64_t fsdp : {plan.layout.fsdp, int64_t(1)})
    for (const EnumSpelling<RematPolicy> &policy :
         enumSpellings(RematPolicy())) {
      if (!maxTextRemat(policy.value))
        continue;
      ParallelLayout l = plan.layout;
      l.fsdp = fsdp;
      l.zero = 3;
      l.remat = policy.value;
      l.placement = placement;
      // Its pipeline streams whole microbatches.
      l.slices = SliceSpec::count(1);
      // MaxText's pipelines: GPipe, or circular round virtual stages, each
      // chunk of as many layers (num_layers_per_pipeline_stage).
      if (l.stages > 1) {
        if (plan.layers % (l.stages * l.virtualStages) != 0)
          l.virtualStages = 1;
        if (plan.layers % l.stages != 0)
          continue;
        l.schedule = l.virtualStages > 1 ? PipelineSchedule::Circular
                                         : PipelineSchedule::GPipe;
      }
      layouts.push_back(l);
    }
  std::string reasons;
  if (std::optional<PlanOutcome> best =
          bestOf(problem, layouts, context, reasons))
    return std::move(*best);
  return createStringError(
      inconvertibleErrorCode(),
      fmt::format("no training layout MaxText can express (ZeRO-3 or no "
                  "split, one of its remat policies) fits {} on {} at tp {} "
                  "and {} microbatches{}",
                  plan.modelName, plan.problem.topology, plan.layout.tp,
                  plan.layout.microbatches,
                  reasons.empty() ? "" : " (first refusal: " + reasons + ")"));
}

/// The best layout the runtime can run of `plan`'s workload on the same
/// target: one stage, one slice (or patch), every chip in the tensor- and
/// data-parallel degrees; the cost model ranks every such layout and
/// planAndSimulate simulates the best that works.
Expected<PlanOutcome> bestExpressible(Runtime runtime, const PlanOutcome &plan,
                                      mlir::MLIRContext &context) {
  ParallelLayout base = plan.layout;
  base.stages = 1;
  base.slices = SliceSpec::count(1);
  // (Each layout its own placement: the rule.)
  base.placement = Placement{};
  base.sp = 1;
  base.microbatches = 1;
  base.virtualStages = 1;
  base.decompose = false;
  // (One stage: no boundary to hand over.)
  base.scatterHandover = false;
  base.tpX = 1;
  if (base.isTwoD())
    base.tpLayout = TensorLayout::OneD;
  // MaxText's expert axis is a group of its own beside tensor (its
  // base.yml shards `activation_batch_attn` over it and the experts,
  // `exp`, over it alone): the data layout. Over the tp group's chips
  // expert parallelism has no key.
  if (!base.hasExpertGroup())
    base.ep = 1;
  int64_t besideTp = base.hasExpertGroup() ? base.ep : 1;
  if (runtime == Runtime::MaxDiffusion) {
    base.sequenceParallel = false;
    if (base.isWeightGathered())
      base.tpLayout = TensorLayout::OneD;
  }
  int64_t batch = plan.imported.batch.value_or(1);
  std::vector<ParallelLayout> layouts;
  auto placed = planTopology(plan.problem);
  for (int64_t tp = 1; tp <= plan.chips; ++tp) {
    if (plan.chips % (tp * besideTp) != 0 ||
        batch % (plan.chips / tp) != 0)
      continue;
    ParallelLayout candidate = base;
    candidate.tp = tp;
    candidate.dataParallel = plan.chips / (tp * besideTp);
    // The chips jax's create_device_mesh gives the tensor axis (without a
    // group beside it); a degree it cannot lay out is no candidate.
    if (placed && tp > 1 && besideTp == 1) {
      Expected<std::optional<Placement>> jax =
          jaxTensorPlacement(plan, placed->second.shape, tp);
      if (!jax)
        return jax.takeError();
      if (!*jax)
        continue;
      candidate.placement = **jax;
    }
    layouts.push_back(candidate);
  }
  std::string reasons;
  if (std::optional<PlanOutcome> best =
          bestOf(plan.problem, layouts, context, reasons))
    return std::move(*best);
  return createStringError(
      inconvertibleErrorCode(),
      fmt::format("no layout {} can express (one stage, one {}, the tensor- "
                  "and data-parallel degrees using all {} chips{}) fits {} "
                  "on {}{}",
                  runtime == Runtime::MaxText ? "MaxText" : "MaxDiffusion",
                  plan.patches ? "patch" : "slice", plan.chips,
                  batch == 1 ? ", the batch of 1 allowing no data parallelism"
                             : "",
                  plan.modelName, plan.problem.topology,
                  reasons.empty() ? "" : " (first refusal: " + reasons + ")"));
}

void writeHeader(Runtime runtime, const PlanOutcome &plan,
                 const PlanOutcome &keys, ArrayRef<std::string> lost,
                 StringRef configFile, raw_ostream &os) {
  bool maxText = runtime == Runtime::MaxText;
  os << fmt::format("# {} config written by loom-plan: {} on {} ({}, {} "
                    "chips)\n",
                    maxText ? "MaxText / JetStream" : "MaxDiffusion",
                    plan.modelName, plan.problem.topology, plan.targetName,
                    plan.chips);
  if (maxText)
    os << fmt::format(
        "# Keys of src/maxtext/configs/base.yml (AI-Hypercomputer/maxtext), "
        "inherited through\n# base_config: save this file in "
        "src/maxtext/configs/ and give it as the config,\n# or pass each "
        "key as key=value after {}.\n",
        plan.training ? "base.yml (to the trainer)"
                      : "inference/inference_jetstream.yml");
  else
    os << fmt::format(
        "# Keys of src/maxdiffusion/configs/{} (AI-Hypercomputer/"
        "maxdiffusion):\n# pass each as key=value after that config.\n",
        configFile);
  os << fmt::format("# Loom's plan: {}, {} {}: {}.\n", planName(plan),
                    plan.sliceLengths.size(),
                    plan.patches ? (plan.sliceLengths.size() == 1 ? "patch"
                                                                  : "patches")
                                 : (plan.sliceLengths.size() == 1 ? "slice"
                                                                  : "slices"),
                    timeOf(plan));
  if (lost.empty()) {
    os << fmt::format("# {} expresses all of it; nothing is lost.\n",
                      maxText ? "MaxText" : "MaxDiffusion");
    return;
  }
  os << fmt::format("# {} cannot express:\n",
                    maxText ? "MaxText" : "MaxDiffusion");
  for (const std::string &what : lost)
    os << "#   - " << what << "\n";
  double full = bestTime(plan), restricted = bestTime(keys);
  os << fmt::format("# These keys are the best plan it can run, as Loom "
                    "plans it: {}, one {}: {}\n#   ({:+.1f}% against Loom's "
                    "plan).\n",
                    planName(keys), keys.patches ? "patch" : "slice",
                    timeOf(keys), 100 * (restricted - full) / full);
}

/// On several slices, what the dcn_* keys span.
void writeSlices(const PlanOutcome &keys, raw_ostream &os) {
  if (keys.slices > 1)
    os << fmt::format("# {} slices of {} chips joined by the data-center "
                      "network (MaxText's num_slices)\n",
                      keys.slices, keys.sliceChips);
}

void writeMaxText(const PlanOutcome &plan, const PlanOutcome &keys,
                  ArrayRef<std::string> lost, raw_ostream &os) {
  writeHeader(Runtime::MaxText, plan, keys, lost, "", os);
  const ParallelLayout &r = keys.layout;
  const ImportOptions &w = keys.imported;
  bool decode = w.mode == ImportOptions::Mode::Decode;
  int64_t seq = w.seqLen.value_or(0);
  os << "base_config: \"inference/inference_jetstream.yml\"\n";
  if (r.isWeightGathered())
    os << "# weight-gathered is MaxText's fsdp axis: the batch split over "
          "it, each layer's\n# weights (stored split over it) all-gathered "
          "before the layer\n";
  if (r.sequenceParallel)
    os << "# Megatron sequence parallelism is MaxText's tensor_sequence axis: "
          "heads and MLP\n# split as on the tensor axis, the norms' "
          "activations split along the sequence.\n";
  // On several slices, the dcn_* axes are the slices (writeMaxTextTraining).
  DcnDegrees dcn = keys.dcn();
  writeSlices(keys, os);
  for (auto [key, value] :
       {std::pair<StringRef, int64_t>{"ici_data_parallelism",
                                      r.dataParallel / dcn.dataParallel},
        {"ici_fsdp_parallelism", r.isWeightGathered() ? r.tp : 1},
        {"ici_tensor_parallelism",
         r.sequenceParallel || r.isWeightGathered() ? 1 : r.tp},
        {"ici_tensor_sequence_parallelism", r.sequenceParallel ? r.tp : 1},
        {"ici_sequence_parallelism", 1},
        {"ici_context_parallelism", 1},
        {"ici_expert_parallelism", r.hasExpertGroup() ? r.ep : 1},
        {"ici_autoregressive_parallelism", 1},
        {"ici_pipeline_parallelism", r.stages / dcn.pipeline}})
    os << key << ": " << value << "\n";
  if (keys.slices > 1)
    os << "dcn_data_parallelism: " << dcn.dataParallel
       << "\ndcn_pipeline_parallelism: " << dcn.pipeline << "\n";
  os << fmt::format("# the batch of {} over {} chips\n",
                    w.batch.value_or(1), keys.chips);
  os << "per_device_batch_size: "
     << yamlNumber(double(w.batch.value_or(1)) / keys.chips) << "\n";
  if (decode) {
    os << fmt::format("# one new token after {} cached ones\n", seq);
    os << "max_prefill_predict_length: " << seq << "\n";
    os << "max_target_length: " << seq + 1 << "\n";
  } else {
    os << fmt::format("# a prompt of {} tokens; Loom priced the prefill: "
                      "raise max_target_length by the\n# tokens to generate "
                      "(the KV cache grows with it)\n",
                      seq);
    os << "max_prefill_predict_length: " << seq << "\n";
    os << "max_target_length: " << seq << "\n";
  }
  using P = ImportOptions::Precision;
  const ImportOptions &given = plan.problem.import;
  bool int8Weights = given.weights == P::Int8,
       int8Kv = given.kvCache == P::Int8,
       int8Activations = given.activations == P::Int8;
  os << fmt::format("# the plan's precision: weights {}, KV cache {}, "
                    "activations {}\n",
                    stringifyPrecision(given.weights).str(),
                    stringifyPrecision(given.kvCache).str(),
                    stringifyPrecision(given.activations).str());
  if (int8Weights && !int8Activations)
    os << "# MaxText's \"int8\" quantizes the matmuls' activations too; int8 "
          "weights alone are its\n# \"intmp\" with a quant_cfg_path, which "
          "Loom does not write\n";
  os << "dtype: \"bfloat16\"\n";
  os << "weight_dtype: \"bfloat16\"\n";
  os << "quantization: \"" << (int8Weights ? "int8" : "") << "\"\n";
  os << "quantize_kvcache: " << (int8Kv ? "true" : "false") << "\n";
  if (int8Kv)
    os << "kv_quant_dtype: \"int8\"\n";
}

/// A training step's keys (src/maxtext/configs/base.yml): the mesh, the
/// batch per device of one microbatch (MaxText's global batch is
/// per_device_batch_size x devices x gradient_accumulation_steps), the
/// remat policy, the optimizer and the types of its states.
void writeMaxTextTraining(const PlanOutcome &plan, const PlanOutcome &keys,
                          ArrayRef<std::string> lost, raw_ostream &os) {
  writeHeader(Runtime::MaxText, plan, keys, lost, "", os);
  const ParallelLayout &r = keys.layout;
  const ImportOptions &w = keys.imported;
  const TrainingSettings &t = *keys.problem.import.training;
  os << "base_config: \"base.yml\"\n";
  if (r.sequenceParallel)
    os << "# Megatron sequence parallelism is MaxText's tensor_sequence axis: "
          "heads and MLP\n# split as on the tensor axis, the norms' "
          "activations split along the sequence.\n";
  // Each group of fsdp replicas is MaxText's fsdp axis; the groups holding
  // the same shard are its data axis. On several slices the replicas of
  // one slice are the ici_* axes' and the slices the dcn_* axes': a
  // shard group spanning slices is dcn_fsdp, the rest dcn_data; a
  // replica's stages spanning slices are dcn_pipeline.
  DcnDegrees dcn = keys.dcn();
  int64_t sliceReplicas = r.dataParallel / dcn.dataParallel;
  int64_t iciFsdp = std::min(r.fsdp, sliceReplicas),
          dcnFsdp = r.fsdp / iciFsdp;
  writeSlices(keys, os);
  for (auto [key, value] :
       {std::pair<StringRef, int64_t>{"ici_data_parallelism",
                                      sliceReplicas / iciFsdp},
        {"ici_fsdp_parallelism", iciFsdp},
        {"ici_tensor_parallelism", r.sequenceParallel ? 1 : r.tp},
        {"ici_tensor_sequence_parallelism", r.sequenceParallel ? r.tp : 1},
        {"ici_sequence_parallelism", 1},
        {"ici_context_parallelism", 1},
        {"ici_expert_parallelism", r.hasExpertGroup() ? r.ep : 1},
        {"ici_pipeline_parallelism", r.stages / dcn.pipeline},
        {"dcn_data_parallelism", dcn.dataParallel / dcnFsdp},
        {"dcn_fsdp_parallelism", dcnFsdp},
        {"dcn_pipeline_parallelism", dcn.pipeline}})
    os << key << ": " << value << "\n";
  int64_t batch = w.batch.value_or(1);
  if (r.stages > 1) {
    // The pipeline streams the step's microbatches through the stages
    // (MaxText's num_pipeline_microbatches, a multiple of the stages): the
    // batch per device is the step's, none accumulated.
    os << fmt::format("# {} sequences a step over {} chips, {} microbatches "
                      "through {} stages{}\n",
                      batch, keys.chips, r.microbatches, r.stages,
                      r.schedule == PipelineSchedule::Circular
                          ? fmt::format(" {} times round", r.virtualStages)
                          : std::string());
    os << "per_device_batch_size: "
       << yamlNumber(double(batch) / double(keys.chips)) << "\n";
    os << "gradient_accumulation_steps: 1\n";
    os << "num_pipeline_microbatches: " << r.microbatches << "\n";
    os << "num_layers_per_pipeline_stage: "
       << keys.layers / std::max<int64_t>(r.stages * r.virtualStages, 1)
       << "\n";
    os << "num_pipeline_repeats: "
       << (r.schedule == PipelineSchedule::Circular ? r.virtualStages : 1)
       << "\n";
  } else {
    os << fmt::format("# {} sequences a step over {} chips, in {} "
                      "microbatch{} accumulated\n",
                      batch, keys.chips, r.microbatches,
                      r.microbatches == 1 ? "" : "es");
    os << "per_device_batch_size: "
       << yamlNumber(double(batch) / double(keys.chips * r.microbatches))
       << "\n";
    os << "gradient_accumulation_steps: " << r.microbatches << "\n";
  }
  os << "max_target_length: " << w.seqLen.value_or(0) << "\n";
  os << "remat_policy: \"" << maxTextRemat(r.remat).value_or("full")
     << "\"\n";
  os << "opt_type: \"" << t.optimizer << "\"\n";
  // weight_dtype is the stored (master) weights' type; the matmuls run in
  // dtype; mu_dtype the first moment's (nu follows weight_dtype in optax).
  auto yamlType = [](StringRef type) {
    return type == "f32" ? "float32" : "bfloat16";
  };
  os << "dtype: \"bfloat16\"\n";
  os << "weight_dtype: \"" << yamlType(t.masterType) << "\"\n";
  os << "mu_dtype: \"" << yamlType(t.stateType) << "\"\n";
  using P = ImportOptions::Precision;
  bool int8 = plan.problem.import.weights == P::Int8 &&
              plan.problem.import.activations == P::Int8;
  os << "quantization: \"" << (int8 ? "int8" : "") << "\"\n";
}

void writeMaxDiffusion(const PlanOutcome &plan, const PlanOutcome &keys,
                       ArrayRef<std::string> lost, raw_ostream &os) {
  StringRef configFile = maxDiffusionConfig(plan);
  writeHeader(Runtime::MaxDiffusion, plan, keys, lost, configFile, os);
  bool bundled = StringRef(plan.problem.model) == plan.modelName &&
                 !StringRef(plan.problem.model).ends_with(".json");
  if (!bundled)
    os << "# set pretrained_model_name_or_path to your checkpoint\n";
  const ParallelLayout &r = keys.layout;
  const ImportOptions &w = keys.imported;
  bool wan = plan.family == "wan";
  for (auto [key, value] :
       {std::pair<StringRef, int64_t>{"ici_data_parallelism", r.dataParallel},
        {"ici_fsdp_parallelism", 1},
        {"ici_context_parallelism", 1},
        {"ici_tensor_parallelism", r.tp}})
    os << key << ": " << value << "\n";
  int64_t batch = w.batch.value_or(1), prompts = batch;
  if (wan) {
    // MaxDiffusion's Wan pipeline doubles the batch itself for
    // classifier-free guidance; Loom's batch counts both halves.
    bool guided = batch % 2 == 0;
    prompts = guided ? batch / 2 : batch;
    os << fmt::format("# Loom's batch of {} is {} prompt{}{}\n", batch,
                      prompts, prompts == 1 ? "" : "s",
                      guided ? " with classifier-free guidance" : "");
    os << "do_classifier_free_guidance: " << (guided ? "True" : "False")
       << "\n";
  }
  os << "per_device_batch_size: " << yamlNumber(double(prompts) / keys.chips)
     << "\n";
  auto [height, width] = imageSize(keys);
  if (wan) {
    os << "height: " << height << "\n";
    os << "width: " << width << "\n";
    os << "num_frames: " << w.frames.value_or(1) << "\n";
  } else {
    os << "resolution: " << height << "\n";
  }
  os << "num_inference_steps: " << w.steps.value_or(1) << "\n";
  if (w.textLen)
    os << "max_sequence_length: " << *w.textLen << "\n";
  os << "# the plan's precision: bf16 weights and activations\n";
  os << "weights_dtype: 'bfloat16'\n";
  os << "activations_dtype: 'bfloat16'\n";
  os << "quantization: ''\n";
}

} // namespace

std::string loom::checkRuntimeModel(Runtime runtime, const PlanOutcome &p) {
  const std::optional<TrainingSettings> &training = p.problem.import.training;
  if (runtime == Runtime::MaxText) {
    if (isDiffusion(p))
      return fmt::format("--emit maxtext: {} is a diffusion transformer; "
                         "MaxText runs decoder LLMs (use --emit "
                         "maxdiffusion)",
                         p.modelName);
    // (MaxText's optimizers.get_optimizer: adamw, adam_pax, sgd, muon.)
    if (training && training->optimizer == "adafactor")
      return "--emit maxtext: MaxText's opt_type has no adafactor (adamw, "
             "adam_pax, sgd or muon); plan with --optimizer adamw or sgd";
    return "";
  }
  if (training)
    return "--emit maxdiffusion writes MaxDiffusion's inference keys; Loom "
           "does not map a training step onto them";
  if (!isDiffusion(p))
    return fmt::format("--emit maxdiffusion: {} is a decoder LLM; "
                       "MaxDiffusion runs diffusion models (use --emit "
                       "maxtext)",
                       p.modelName);
  if (maxDiffusionConfig(p).empty())
    return fmt::format("--emit maxdiffusion: MaxDiffusion has no pipeline "
                       "for {} (family {}); of the models Loom plans it runs "
                       "Flux.1 (base_flux_*.yml) and Wan 2.1 "
                       "(base_wan_*.yml)",
                       p.modelName, p.family);
  const ImportOptions &given = p.problem.import;
  if (given.weights != ImportOptions::Precision::BF16 ||
      given.kvCache != ImportOptions::Precision::BF16 ||
      given.activations != ImportOptions::Precision::BF16)
    return "--emit maxdiffusion: the plan is not all bf16; MaxDiffusion "
           "quantizes through qwix (use_qwix_quantization), which Loom does "
           "not map: plan it in bf16";
  auto [height, width] = imageSize(p);
  if (p.family == "flux" && height != width)
    return fmt::format("--emit maxdiffusion: MaxDiffusion's Flux configs "
                       "take one square `resolution`; the plan's {}x{} "
                       "cannot be set",
                       width, height);
  return "";
}

/// Whether every chunk of `p`'s pipeline holds the same number of layers
/// (MaxText's num_layers_per_pipeline_stage).
static bool equalStageLayers(const PlanOutcome &p) {
  auto count = [](std::pair<int64_t, int64_t> range) {
    return range.second - range.first + 1;
  };
  for (std::pair<int64_t, int64_t> chunk : p.stageLayers)
    if (count(chunk) != count(p.stageLayers.front()))
      return false;
  return true;
}

std::vector<std::string> loom::inexpressible(Runtime runtime,
                                             const PlanOutcome &p) {
  std::vector<std::string> lost;
  const ParallelLayout &r = p.layout;
  size_t units = p.sliceLengths.size();
  if (runtime == Runtime::MaxText && p.training) {
    if (r.fsdp > 1 && r.zero < 3)
      lost.push_back(fmt::format(
          "ZeRO-{} over {} replicas (the {} split, the weights whole on "
          "every chip): MaxText's fsdp axis splits the weights too, as "
          "ZeRO-3 does",
          r.zero, r.fsdp,
          r.zero == 1 ? "optimizer state" : "optimizer state and gradients"));
    if (!maxTextRemat(r.remat))
      lost.push_back(fmt::format(
          "the remat policy {}: MaxText's remat_policy has no policy that "
          "keeps {}",
          formatDimension(r.remat),
          r.remat == RematPolicy::None
              ? "every value the backward pass reads"
              : "all but attention's score-sized tensors (Korthikanti et "
                "al.'s selective recomputation)"));
    if (p.problem.import.training->masterType == "bf16")
      lost.push_back("a bf16 master copy beside the bf16 weights: MaxText's "
                     "weight_dtype \"bfloat16\" keeps the weights alone "
                     "(Loom's --master-dtype none)");
  }
  if (runtime == Runtime::MaxText && p.training && r.stages > 1) {
    if (r.schedule != PipelineSchedule::GPipe &&
        r.schedule != PipelineSchedule::Circular)
      lost.push_back(fmt::format(
          "the {} pipeline schedule: MaxText's pipeline runs GPipe's order "
          "(all forward passes, then all backward passes), or its circular "
          "form with num_pipeline_repeats; 1F1B, interleaved 1F1B and the "
          "zero-bubble schedules need a program per stage (MPMD), which it "
          "does not have",
          formatDimension(r.schedule)));
    if (!equalStageLayers(p))
      lost.push_back(fmt::format(
          "stages of unequal layer counts ({} layers over {} chunks, cut by "
          "time): MaxText's num_layers_per_pipeline_stage gives every stage "
          "the same count",
          p.layers, r.stages * r.virtualStages));
    if (units > 1)
      lost.push_back(fmt::format(
          "token slices (TeraPipe): each microbatch's {} tokens in {} slices "
          "flowing through the stages, forward and backward; MaxText's "
          "pipeline streams whole microbatches",
          p.tokens, units));
  }
  if (runtime == Runtime::MaxText && !p.training) {
    if (units > 1)
      lost.push_back(fmt::format(
          "token-level pipelining (TeraPipe): the {} tokens in {} slices "
          "flowing through the stages; MaxText has no such pipeline",
          p.tokens, units));
    if (r.stages > 1)
      lost.push_back(fmt::format(
          "{} pipeline stages over {}: MaxText's pipeline "
          "(ici_pipeline_parallelism) streams microbatches of the batch "
          "(num_pipeline_microbatches, a multiple of the stages) through "
          "stages of equal layer counts, which Loom's stages (balanced by "
          "time, each microbatch cut into token slices) are not",
          r.stages,
          r.microbatches > 1
              ? fmt::format("{} microbatches", r.microbatches)
              : std::string("one sequence")));
    // MaxText's circular pipeline has the keys (its config's
    // PipelineParallelism: num_pipeline_repeats, by default num_decoder_layers
    // / (stages x num_layers_per_pipeline_stage)), but over its own
    // microbatch pipeline, which Loom's token slices are not.
    if (r.virtualStages > 1)
      lost.push_back(fmt::format(
          "{} virtual stages (interleaved: each stage holds {} chunks of "
          "layers, the token slices going round the stages {} times); "
          "MaxText's circular pipeline would be num_pipeline_repeats: {} "
          "with num_layers_per_pipeline_stage: {}, but it repeats its "
          "microbatch pipeline, not token slices, and its stages hold "
          "equal layer counts",
          r.virtualStages, r.virtualStages, r.virtualStages, r.virtualStages,
          p.layers / std::max<int64_t>(r.stages * r.virtualStages, 1)));
  } else if (runtime == Runtime::MaxDiffusion) {
    if (r.stages > 1 || units > 1)
      lost.push_back(fmt::format(
          "PipeFusion: {} stage{} with {} patch{} streaming across "
          "denoising steps over stale K/V; MaxDiffusion has no pipeline "
          "parallelism (its mesh axes are data, fsdp, context and tensor)",
          r.stages, r.stages == 1 ? "" : "s", units, units == 1 ? "" : "es"));
    if (r.sequenceParallel)
      lost.push_back("Megatron sequence parallelism (reduce-scatter and "
                     "all-gather around the norms); MaxDiffusion has no "
                     "such axis");
  }
  if (r.sp > 1 && r.spMode == SequenceMode::Ring)
    lost.push_back(fmt::format(
        "ring attention (sp {}: K/V blocks passed around a ring of chips); "
        "Loom does not map it onto the runtime's sequence or context axis",
        r.sp));
  else if (r.sp > 1)
    lost.push_back(fmt::format(
        "Ulysses sequence parallelism (sp {}: all-to-alls trading tokens for "
        "heads around attention); Loom does not map it onto the runtime's "
        "sequence or context axis",
        r.sp));
  if (r.ep > 1 && !r.hasExpertGroup())
    lost.push_back(fmt::format(
        "expert parallelism over the tensor-parallel group's chips (ep {} of "
        "tp {}, each expert's width split {} ways): MaxText's expert axis "
        "(ici_expert_parallelism) is a group of its own beside the tensor "
        "axis that splits the batch too, as --ep-layout=data plans it",
        r.ep, r.tp, r.tp / r.ep));
  if (r.isTwoD())
    lost.push_back(fmt::format(
        "2-D weight-stationary tensor parallelism (a {} x {} block: d_model "
        "split over its rows, heads and d_ff over its columns; Pope et al. "
        "2023): the runtime's ici_tensor_parallelism splits heads and d_ff "
        "over the whole group, and Loom maps no other axis onto d_model",
        r.tpX, r.tp / r.tpX));
  if (r.decompose)
    lost.push_back("collective matmuls decomposed into ring steps under "
                   "partial matmuls (docs/overlap.md): no config key of the "
                   "runtime sets them, and Loom writes no compiler flag");
  if (usedChips(p) < p.chips)
    lost.push_back(fmt::format(
        "{} idle chips: the runtime's ici_* degrees multiply to every chip "
        "of the slice",
        p.chips - usedChips(p)));
  // The ici_* keys give each mesh axis its degree; which chips an axis
  // takes is jax's mesh_utils.create_device_mesh's choice (MaxText's
  // custom_mesh names only two fixed 256-chip orders). With one stage and
  // tp alone, the chips it gives the tensor axis are known
  // (runtimeTensorPlacement): the plan's placement maps when its tp group
  // prices as they do.
  int64_t besideTp = r.hasExpertGroup() ? r.ep : 1;
  auto placed = planTopology(p.problem);
  if (placed && r.stages == 1 && r.sp == 1 && besideTp == 1 && !r.isTwoD() &&
      r.tp > 1 && !p.placement.empty()) {
    std::optional<std::string> runtime = runtimeTensorPlacement(
        p.targetName, placed->second.shape, r.tp);
    auto tensorAxes = [&](StringRef text) -> std::optional<SmallVector<GroupAxis>> {
      Expected<Placement> placement = parsePlacement(text);
      if (!placement) {
        consumeError(placement.takeError());
        return std::nullopt;
      }
      Expected<DeviceMesh> mesh = DeviceMesh::build(
          placed->first, placed->second,
          {p.chips / r.tp, 1, r.tp, 1}, *placement);
      if (!mesh) {
        consumeError(mesh.takeError());
        return std::nullopt;
      }
      SmallVector<GroupAxis> axes(mesh->tensorParallelAxes());
      llvm::sort(axes);
      return axes;
    };
    if (!runtime)
      lost.push_back(fmt::format(
          "tensor parallelism {} on {} ({}x{}): jax's "
          "mesh_utils.create_device_mesh finds no physical axes whose sizes "
          "multiply to {} (MaxText's allow_split_physical_axes splits one; "
          "Loom does not model that split)",
          r.tp, p.problem.topology, placed->second.shape[0], placed->second.shape[1],
          r.tp));
    else if (tensorAxes(*runtime) != tensorAxes(p.placement))
      lost.push_back(fmt::format(
          "the tensor-parallel group's chips: jax's "
          "mesh_utils.create_device_mesh (JAX 0.4.32 on) gives the tensor "
          "axis the chips of placement '{}', not the plan's '{}' (loom-plan "
          "--placement predicts either)",
          *runtime, p.placement));
  } else if (!p.defaultPlacement && !p.placement.empty())
    lost.push_back(fmt::format(
        "the placement {}: the runtime's ici_* keys set each mesh axis's "
        "degree, and jax's mesh_utils.create_device_mesh chooses the chips "
        "each axis takes{}, so a chosen stage block, sub-block or block "
        "order (stages in ring) cannot be set",
        p.placement,
        runtime == Runtime::MaxText
            ? " (custom_mesh offers only the fixed orders hybrid_ring_64x4 "
              "and hybrid_ring_32x8 of 256-chip slices)"
            : ""));
  return lost;
}

std::string loom::checkRuntimeWorkload(Runtime runtime,
                                       const PlanProblem &problem,
                                       mlir::MLIRContext &context) {
  Captured diagnostics(context);
  mlir::OwningOpRef<mlir::ModuleOp> module =
      importModel(problem.model, problem.import, &context);
  if (!module)
    return "";
  WorkloadFigures figures = importedWorkload(*module, problem.import);
  PlanOutcome plan;
  plan.problem = problem;
  plan.modelName = figures.modelName;
  plan.family = figures.family;
  plan.imported = figures.imported;
  return checkRuntimeModel(runtime, plan);
}

Error loom::emitRuntimeConfig(Runtime runtime, const PlanOutcome &plan,
                              mlir::MLIRContext &context, raw_ostream &os) {
  std::string why = checkRuntimeModel(runtime, plan);
  if (!why.empty())
    return createStringError(inconvertibleErrorCode(), why);
  std::vector<std::string> lost = inexpressible(runtime, plan);
  std::optional<PlanOutcome> restricted;
  if (!lost.empty()) {
    Expected<PlanOutcome> best =
        plan.training ? bestExpressibleTraining(plan, context)
                      : bestExpressible(runtime, plan, context);
    if (!best)
      return createStringError(
          inconvertibleErrorCode(),
          fmt::format("--emit {}: {}",
                      runtime == Runtime::MaxText ? "maxtext" : "maxdiffusion",
                      toString(best.takeError())));
    restricted = std::move(*best);
  }
  const PlanOutcome &keys = restricted ? *restricted : plan;
  if (runtime == Runtime::MaxText && plan.training)
    writeMaxTextTraining(plan, keys, lost, os);
  else if (runtime == Runtime::MaxText)
    writeMaxText(plan, keys, lost, os);
  else
    writeMaxDiffusion(plan, keys, lost, os);
  return Error::success();
}
