//===- Report.cpp - loom-plan's report of a plan or a search --------------===//

#include "loom/Plan/Report.h"

#include "loom/Sim/Report.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

using namespace llvm;
using namespace loom;

namespace {

double meanMFU(const sim::SimResult &r) {
  double flops = 0;
  for (const auto &chip : r.chips)
    flops += chip.flops;
  return r.chips.empty() || r.makespan <= 0
             ? 0
             : flops / r.chips.size() / (r.makespan * r.peakFlops);
}

double meanExposed(const sim::SimResult &r) {
  double exposed = 0;
  for (const auto &chip : r.chips)
    exposed += chip.exposedComm;
  return r.chips.empty() ? 0 : exposed / r.chips.size();
}

} // namespace

PlanEfficiency loom::getEfficiency(const PlanOutcome &p) {
  PlanEfficiency e;
  if (!p.simulated) {
    e.efficiency = p.predicted > 0 ? p.ideal / p.predicted : 0;
    return e;
  }
  const sim::SimResult &s = *p.simulated;
  double all = s.makespan * p.chips;
  if (all <= 0)
    return e;
  double compute = 0, exposed = 0, flops = 0;
  for (const auto &chip : s.chips) {
    compute += chip.computeBusy;
    exposed += chip.exposedComm;
    flops += chip.flops;
  }
  // Chip-seconds: each simulated chip's run is compute, exposed
  // communication and idle; the ideal is the part of the compute a perfect
  // split would keep, the chips the schedule never uses are all "other".
  // The host's program dispatch, before any task starts, is no stage's
  // waiting: it counts as "other".
  double idle = (s.makespan - s.dispatch) * s.chips.size() - compute - exposed;
  e.measured = true;
  e.efficiency = p.ideal / s.makespan;
  e.bubble = std::max(0.0, idle) / all;
  e.exposed = exposed / all;
  // The recomputed forward ops' share of the chips' compute, by FLOPs.
  if (flops > 0)
    e.recompute = std::min(1.0, p.recomputeFlopsPerChip *
                                    double(s.chips.size()) / flops) *
                  compute / all;
  e.other = 1 - e.efficiency - e.bubble - e.exposed - e.recompute;
  e.unusedChips = double(p.chips - int64_t(s.chips.size())) / p.chips;
  return e;
}

/// The default block order, left out of plan names.
static constexpr StringLiteral kStagesInsideReplicas = ", stages inside replicas";

/// A training step's own dimensions: ", fsdp 16 (ZeRO-3), remat full" (on
/// several stages first ", 1f1b schedule").
static std::string trainingName(const PlanOutcome &p) {
  if (!p.training)
    return "";
  const ParallelLayout &l = p.layout;
  return fmt::format("{}{}, remat {}",
                     l.stages > 1
                         ? ", " + formatDimension(l.schedule) + " schedule"
                         : std::string(),
                     l.fsdp > 1 ? fmt::format(", fsdp {} (ZeRO-{})", l.fsdp,
                                              l.zero)
                                : std::string(),
                     formatDimension(l.remat));
}

std::string loom::planName(const PlanOutcome &p) {
  return fmt::format("tp {}{}{} x {} stage{} x dp {}{}{}{}{}{}{}{}{}{}", p.layout.tp,
                     p.layout.isTwoD()
                         ? fmt::format(" (2-D {} x {})", p.layout.tpX,
                                       p.layout.tp / p.layout.tpX)
                     : p.layout.isWeightGathered() ? std::string(" (weight-gathered)")
                     : p.layout.kvBatch > 1
                         ? fmt::format(" (KV cache by batch over {})",
                                       p.layout.kvBatch)
                         : "",
                     p.layout.sp > 1
                         ? fmt::format(" x sp {}{}", p.layout.sp,
                                       p.layout.spMode == SequenceMode::Ring ? " (ring)"
                                                                  : "")
                         : "",
                     p.layout.stages, p.layout.stages == 1 ? "" : "s",
                     p.layout.dataParallel,
                     p.layout.sequenceParallel ? " + sp" : "",
                     p.layout.ep > 1
                         ? fmt::format(p.layout.hasExpertGroup() ? " (ep {} beside tp)"
                                                        : " (ep {})",
                                       p.layout.ep)
                         : "",
                     p.layout.microbatches > 1
                         ? fmt::format(", {} microbatches",
                                       p.layout.microbatches)
                         : "",
                     p.layout.virtualStages > 1
                         ? fmt::format(", {} virtual stages",
                                       p.layout.virtualStages)
                         : "",
                     p.layout.interleave > 1
                         ? fmt::format(", {} interleaved", p.layout.interleave)
                         : "",
                     p.layout.decompose ? ", collective matmuls" : "",
                     p.layout.scatterHandover ? ", scattered handovers" : "",
                     p.defaultPlacement
                         ? ""
                         : fmt::format(", placed {}",
                                       StringRef(p.placement)
                                           .drop_back(
                                               StringRef(p.placement).ends_with(
                                                   kStagesInsideReplicas)
                                                   ? kStagesInsideReplicas.size()
                                                   : 0)
                                           .str()),
                     trainingName(p));
}

/// The precision the user chose (Loom never changes it).
static std::string precisionName(const ImportOptions &o) {
  return fmt::format(
      "weights {}, KV cache {}, activations {}{}",
      stringifyPrecision(o.weights).str(), stringifyPrecision(o.kvCache).str(),
      stringifyPrecision(o.activations).str(),
      o.attention == ImportOptions::AttentionKernel::Materialized
          ? "; attention as einsums, scores in HBM"
      : o.attention == ImportOptions::AttentionKernel::JetStreamPyTorch
          ? "; attention as jetstream-pytorch's einsums, scores in HBM, "
            "a decode query run as 2 rows"
          : "") +
         (o.training ? fmt::format("; a training step: {}, master weights "
                                   "{}, optimizer state {}",
                                   o.training->optimizer,
                                   o.training->masterType,
                                   o.training->stateType)
                     : std::string());
}

void loom::printPlan(const PlanOutcome &p, bool searched, raw_ostream &os) {
  const ParallelLayout &r = p.layout;
  os << fmt::format("Loom plan for {} on {} ({}, {} chips)\n", p.modelName,
                    p.problem.topology, p.targetName, p.chips);
  os << "  figures:    " << sim::describeCalibration(p.calibration) << "\n";
  bool one = p.sliceLengths.size() == 1;
  int64_t sequences =
      p.imported.batch.value_or(1) / (r.dataParallel * r.microbatches);
  os << fmt::format(
      "  plan:       {}, {} layers; {} {} of {} {} in all{}{}{}; {}\n",
      planName(p), p.layers, p.sliceLengths.size(),
      // (Token slices, not the slices of a multislice topology.)
      p.patches ? (one ? "patch" : "patches")
                : (one ? "token slice" : "token slices"),
      p.tokens, p.tokens == 1 ? "token" : "tokens",
      r.microbatches > 1
          ? fmt::format(" for each of {} microbatches of {} {}",
                        r.microbatches,
                        sequences, sequences == 1 ? "sequence" : "sequences")
          : "",
      p.patches && !p.training
          ? fmt::format(", {} steps ({} warm-up)", p.steps, p.warmup)
          : "",
      // Weight-gathered: each chip runs its share of the replica's batch.
      r.isWeightGathered()
          ? fmt::format(", {} of the {} sequences a chip",
                        p.imported.batch.value_or(1) / (r.dataParallel * r.tp),
                        p.imported.batch.value_or(1))
          : "",
      precisionName(p.problem.import));
  // Which chips each group occupies (docs/placement.md).
  if (!p.placement.empty())
    os << fmt::format("  placement:  {} ({})\n", p.placement,
                      p.defaultPlacement ? "the default rule" : "chosen");
  if (p.slices > 1) {
    DcnDegrees dcn = p.dcn();
    std::string over =
        dcn.pipeline > 1
            ? fmt::format("each replica's stages over {} slices ({} a "
                          "slice), {} handed "
                          "over the DCN{}",
                          dcn.pipeline, r.stages / dcn.pipeline,
                          p.training ? "activations and their gradients"
                                     : "activations",
                          dcn.dataParallel > 1
                              ? fmt::format("; {} replicas over the DCN",
                                            dcn.dataParallel)
                              : "")
            : fmt::format("data parallelism over the DCN ({} replicas a "
                          "slice){}",
                          r.dataParallel / p.slices,
                          p.training ? "; gradients reduce-scattered over "
                                       "ICI, all-reduced over the DCN, "
                                       "all-gathered over ICI"
                                     : "");
    os << fmt::format("  dcn:        {} slices of {} chips: {}\n", p.slices,
                      p.sliceChips, over);
  }
  int64_t used = r.chipsPerStage() * r.stages * r.dataParallel;
  if (used < p.chips)
    os << fmt::format("  idle chips: {} of {}{}\n", p.chips - used, p.chips,
                      searched ? " (no plan that uses them all is faster)"
                               : ": raise --tp, --stages or "
                                 "--data-parallel, or let --search choose");
  os << "  slices:     ["
     << join(map_range(p.sliceLengths,
                       [](int64_t l) { return std::to_string(l); }),
             ", ")
     << "]\n";
  if (p.experts > 0) {
    // Which experts each chip of a tensor-parallel group holds, so that a
    // replicated expert shows.
    int64_t replicas = p.expertReplicas, per = p.expertsPerChip;
    os << fmt::format("  experts:    {} routed per MoE layer; ep {}: {} per "
                      "chip{}, {:.2f} GB of expert weights per chip ({})\n",
                      p.experts, r.ep, per,
                      replicas > 1 ? fmt::format(", each split over {} chips",
                                                 replicas)
                                   : "",
                      p.expertBytesPerChip / 1e9,
                      p.expertStage == 0
                          ? std::string("first stage")
                          : fmt::format("stage {}, the first with experts",
                                        p.expertStage));
    if (r.ep == 1)
      os << "              every chip holds a 1/" << r.tp
         << " slice of every expert\n";
    else if (r.hasExpertGroup())
      // The group beside tp: stage rank u * tp + t holds ep rank u's
      // experts, 1/tp of each.
      for (int64_t u = 0; u < r.ep; ++u)
        os << fmt::format("              ep rank {:>3} ({}): experts {}-{}\n",
                          u,
                          r.tp == 1 ? fmt::format("stage rank {}", u)
                                    : fmt::format("stage ranks {}-{}",
                                                  u * r.tp,
                                                  u * r.tp + r.tp - 1),
                          u * per, u * per + per - 1);
    else
      for (int64_t rank = 0; rank < r.tp; ++rank) {
        int64_t first = (rank / replicas) * per;
        os << fmt::format("              rank {:>3}: experts {}-{}\n", rank,
                          first, first + per - 1);
      }
  }
  os << "  memory per chip:\n";
  for (const std::string &line : p.memory)
    os << "    " << line << "\n";
  os << fmt::format("  predicted:  {:.3f} ms (cost model; busiest stage idle "
                    "{:.1f}%)\n",
                    p.predicted * 1e3, 100 * p.bubble);
  if (const auto &b = p.sliceBaselines)
    os << fmt::format("  token slices: TeraPipe's {} against {} equal slices, "
                      "predicted {:.3f} ms ({:.2f}x), and the whole sequence, "
                      "{:.3f} ms ({:.2f}x)\n",
                      p.sliceLengths.size(), b->equalSlices, b->equal * 1e3,
                      b->equal / p.predicted, b->whole * 1e3,
                      b->whole / p.predicted);
  if (!p.simulated && p.unproven) {
    // Over the tasks a generated program may have, or its steps not alike
    // (finishUnproven).
    os << fmt::format("  simulated:  no: its first {} steps did not repeat "
                      "and its whole program has about {:.1f} million tasks, "
                      "{}\n",
                      repetitionSteps(p), p.estimatedTasks / 1e6,
                      p.estimatedTasks > kProgramBudget
                          ? fmt::format("over the {:.0f} million Loom "
                                        "simulates",
                                        kProgramBudget / 1e6)
                          : std::string("whose steps are not alike enough "
                                        "to be generated from them"));
  } else if (!p.simulated) {
    // A training step of one microbatch is as small as its chips make it.
    const char *fewer = !p.training                  ? "; fewer slices or steps"
                        : p.layout.microbatches > 1 ? "; fewer microbatches"
                                                    : nullptr;
    os << fmt::format("  simulated:  no: its program has about {:.1f} million "
                      "tasks, over the {:.0f} million Loom simulates{}\n",
                      p.simulatedTasks / 1e6, simulationBudget(p) / 1e6,
                      fewer ? fewer + std::string(" shrink it") : "");
  } else {
    const sim::SimResult &s = *p.simulated;
    os << fmt::format("  simulated:  {:.3f} ms ({:+.1f}% against the "
                      "prediction)\n",
                      s.makespan * 1e3,
                      100 * (s.makespan - p.predicted) / p.predicted);
    if (s.stepsRun > 0)
      os << fmt::format("              by repetition: {} of its {} steps "
                        "run; from step {} {} {:.3f} ms later\n",
                        s.stepsRun, s.programSteps, s.repeatedFrom,
                        s.periodSteps == 1
                            ? std::string("each step repeats the one before,")
                            : fmt::format("every {} steps repeat the {} "
                                          "before,",
                                          s.periodSteps, s.periodSteps),
                        s.period * 1e3);
    if (s.generatedFrom > 0)
      os << fmt::format("              every task of its {} steps, generated "
                        "from its first {} (which did not repeat)\n",
                        s.programSteps, s.generatedFrom);
    if (s.replicas > 1)
      os << fmt::format("              one replica run for its {}: they run "
                        "alike, on links of their own\n",
                        s.replicas);
    if (p.training)
      os << fmt::format("  step:       {:.0f} tokens/s per chip{}; MFU {:.1f}% "
                        "(3 x the forward pass's FLOPs, MaxText's count); "
                        "HFU {:.1f}% (every FLOP run, recompute included)\n",
                        p.stepTokens() / s.makespan / p.chips,
                        p.patches ? fmt::format(" ({:.2f} images/s)",
                                                p.stepSequences / s.makespan /
                                                    p.chips)
                                  : std::string(),
                        100 * p.ideal / s.makespan, 100 * meanMFU(s));
    else
      os << fmt::format("  MFU:        {:.1f}% mean over {} chip{}\n",
                        100 * meanMFU(s), s.chips.size(),
                        s.chips.size() == 1 ? "" : "s");
    os << fmt::format("  exposed communication: {:.3f} ms per chip ({:.1f}% "
                      "of the run)\n",
                      meanExposed(s) * 1e3,
                      100 * meanExposed(s) / std::max(s.makespan, 1e-30));
  }
  PlanEfficiency e = getEfficiency(p);
  os << fmt::format("  efficiency: {:.1f}% of the ideal {:.3f} ms ({} over "
                    "{} chip{})",
                    100 * e.efficiency, p.ideal * 1e3,
                    p.training ? "the step's model FLOPs at peak"
                               : "the model's one-chip time",
                    p.chips, p.chips == 1 ? "" : "s");
  if (!e.measured)
    os << ", predicted\n";
  else
    os << fmt::format("; the rest: pipeline bubble {:.1f}%, exposed "
                      "communication {:.1f}%,{} other {:.1f}%{}\n",
                      100 * e.bubble, 100 * e.exposed,
                      p.training ? fmt::format(" recompute {:.1f}%,",
                                               100 * e.recompute)
                                 : std::string(),
                      100 * e.other,
                      e.unusedChips > 0
                          ? fmt::format(" ({:.1f}% idle chips)",
                                        100 * e.unusedChips)
                          : "");
  os << fmt::format(
      "  lower bound: {:.3f} ms ({} of the whole topology); plan "
      "at {:.2f}x\n",
      p.roofline * 1e3, p.rooflineIsMemory ? "HBM bandwidth" : "peak FLOPs",
      (p.simulated ? p.simulated->makespan : p.predicted) / p.roofline);
}

void loom::writePlanJSON(const PlanOutcome &p, json::OStream &j) {
  j.object([&] {
    j.attribute("model", p.modelName);
    j.attribute("topology", p.problem.topology);
    j.attribute("target_file", p.calibration.file);
    j.attributeObject("calibration", [&] {
      j.attribute("name", p.calibration.name);
      j.attribute("version", p.calibration.version);
    });
    writeLayoutJSON(p.resolvedLayout(), j, /*onlyChanged=*/false);
    if (p.slices > 1) {
      // MaxText's names for the slices and the degrees over the DCN
      // (`slices` is the layout's token slices).
      DcnDegrees dcn = p.dcn();
      j.attribute("num_slices", p.slices);
      j.attribute("dcn_data_parallelism", dcn.dataParallel);
      j.attribute("dcn_pipeline_parallelism", dcn.pipeline);
    }
    if (p.experts > 0) {
      j.attribute("experts_per_chip", p.expertsPerChip);
      j.attribute("expert_bytes_per_chip", p.expertBytesPerChip);
    }
    j.attribute("tokens", p.tokens);
    j.attribute("predicted_s", p.predicted);
    j.attribute("stage_idle", p.bubble);
    j.attribute("roofline_s", p.roofline);
    j.attribute("ideal_s", p.ideal);
    PlanEfficiency e = getEfficiency(p);
    j.attribute("efficiency", e.efficiency);
    if (e.measured)
      j.attributeObject("loss", [&] {
        j.attribute("bubble", e.bubble);
        j.attribute("exposed_comm", e.exposed);
        j.attribute("other", e.other);
        j.attribute("unused_chips", e.unusedChips);
        if (p.training)
          j.attribute("recompute", e.recompute);
      });
    if (p.training)
      j.attributeObject("training", [&] {
        for (const TrainingSettingField &field : kTrainingSettingFields)
          j.attribute(field.key, (*p.problem.import.training).*field.member);
        j.attribute("step_sequences", p.stepSequences);
        j.attribute("step_tokens", p.stepTokens());
        j.attribute("model_flops", p.modelFlops);
        j.attribute("recompute_flops_per_chip", p.recomputeFlopsPerChip);
        j.attribute("predicted_optimizer_s", p.predictedOptimizer);
        j.attribute("predicted_exposed_s", p.predictedExposed);
        if (const auto &b = p.sliceBaselines)
          j.attributeObject("token_slices", [&] {
            j.attribute("equal_slices", b->equalSlices);
            j.attribute("equal_predicted_s", b->equal);
            j.attribute("whole_predicted_s", b->whole);
          });
        if (p.simulated) {
          double time = p.simulated->makespan;
          j.attribute("tokens_per_s_per_chip",
                      p.stepTokens() / time / double(p.chips));
          j.attribute("mfu", p.ideal / time);
          j.attribute("hfu", meanMFU(*p.simulated));
        }
      });
    if (p.simulated) {
      j.attribute("simulated_s", p.simulated->makespan);
      j.attribute("mfu", meanMFU(*p.simulated));
      j.attribute("exposed_comm_s", meanExposed(*p.simulated));
    }
    j.attributeObject("precision", [&] {
      j.attribute("weights", stringifyPrecision(p.problem.import.weights));
      j.attribute("kv_cache", stringifyPrecision(p.problem.import.kvCache));
      j.attribute("activations",
                  stringifyPrecision(p.problem.import.activations));
    });
    j.attribute("attention",
                stringifyAttentionKernel(p.problem.import.attention));
    j.attributeArray("memory", [&] {
      for (const std::string &line : p.memory)
        j.value(line);
    });
    if (!p.placement.empty())
      j.attribute("default_placement", p.defaultPlacement);
  });
}

void loom::printSearchTable(const SearchResult &search, raw_ostream &os) {
  const std::vector<PlanOutcome> &plans = search.ranked;
  int64_t simulatedCount = count_if(
      plans, [](const PlanOutcome &p) { return p.simulated.has_value(); });
  os << fmt::format("{} plan{} for {} on {} fit{} ({} rejected: too little "
                    "memory or invalid degrees); {} simulated (the best "
                    "predicted within the simulation budget), ranked by "
                    "simulated time where there is one, plans too large "
                    "to simulate last:\n",
                    plans.size(), plans.size() == 1 ? "" : "s",
                    plans.front().modelName, plans.front().problem.topology,
                    plans.size() == 1 ? "s" : "", search.rejected,
                    simulatedCount);
  os << "figures: " << sim::describeCalibration(plans.front().calibration)
     << "\n";
  // The plan column is as wide as its longest name (an interleaved plan's
  // is longer).
  size_t width = 26;
  for (const PlanOutcome &p : plans)
    width = std::max(width, planName(p).size());
  // A training step's efficiency is its MFU (model FLOPs), and the FLOPs
  // its chips run, recompute included, its HFU.
  bool training = plans.front().training;
  os << fmt::format("{:>4}  {:<{}} {:>7} {:>13} {:>13} {:>7} {:>11} {:>8}\n",
                    "rank", "plan", width, "slices", "predicted ms",
                    "simulated ms", training ? "HFU" : "MFU",
                    training ? "MFU" : "efficiency", "x bound");
  for (auto [i, p] : enumerate(plans)) {
    double time = p.simulated ? p.simulated->makespan : p.predicted;
    os << fmt::format(
        "{:>4}  {:<{}} {:>7} {:>13.3f} {:>13} {:>7} {:>11} {:>8.2f}\n", i + 1,
        planName(p), width, p.sliceLengths.size(), p.predicted * 1e3,
        p.simulated ? fmt::format("{:.3f}", p.simulated->makespan * 1e3)
                    : std::string("-"),
        p.simulated ? fmt::format("{:.1f}%", 100 * meanMFU(*p.simulated))
                    : std::string("-"),
        fmt::format("{:.1f}%", 100 * getEfficiency(p).efficiency),
        time / p.roofline);
  }
  // A plan ranked after the simulated ones for want of a simulation that
  // predicts faster than the winner runs.
  const PlanOutcome &winner = plans.front();
  if (!winner.simulated)
    return;
  for (auto [i, p] : enumerate(plans))
    if (beyondSimulator(p) && p.predicted < winner.simulated->makespan) {
      os << fmt::format("note: rank {} predicts {:.3f} ms, faster than rank "
                        "1 simulates, but the simulator cannot run it (its "
                        "program has about {:.1f} million tasks); a plan "
                        "the simulator cannot run ranks after those it "
                        "ran\n",
                        i + 1, p.predicted * 1e3, p.estimatedTasks / 1e6);
      break;
    }
}

void loom::printReport(const PlanResult &result, bool json, raw_ostream &os) {
  if (result.searched && !result.noneFits) {
    if (json) {
      json::OStream j(os, 2);
      j.array([&] {
        for (const PlanOutcome &p : result.search.ranked)
          writePlanJSON(p, j);
      });
      os << "\n";
      return;
    }
    printSearchTable(result.search, os);
    os << "\nwinner:\n";
  }
  if (!result.ok())
    return;
  if (json) {
    json::OStream j(os, 2);
    writePlanJSON(result.chosen, j);
    os << "\n";
  } else {
    printPlan(result.chosen, result.searched, os);
  }
}

SearchProgress::SearchProgress(raw_ostream &os, std::function<double()> now)
    : os(os), now(now ? std::move(now) : [] {
        return std::chrono::duration<double>(
                   std::chrono::steady_clock::now().time_since_epoch())
            .count();
      }) {
  start = this->now();
}

void SearchProgress::operator()(int64_t done, int64_t total) {
  if (!shown && now() - start < 1.0)
    return;
  shown = true;
  os << fmt::format("\rloom-plan: searching: plans evaluated {} of {}", done,
                    total);
  os.flush();
}

void SearchProgress::finish() {
  if (!shown)
    return;
  // Clear the progress line, so the report starts on a clean one.
  os << "\r" << std::string(60, ' ') << "\r";
  os.flush();
  shown = false;
}

void loom::printReplay(const SavedPlan &saved, const PlanOutcome &now,
                       raw_ostream &os) {
  auto compare = [](double before, double after) {
    if (before == after)
      return fmt::format("{:.3f} ms, the same", after * 1e3);
    return fmt::format("{:.3f} ms, {:+.2f}% against the file's {:.3f} ms",
                       after * 1e3, 100 * (after - before) / before,
                       before * 1e3);
  };
  if (!saved.predicted) {
    os << "  replayed:   predicted "
       << fmt::format("{:.3f} ms", now.predicted * 1e3)
       << "; the file records no time to compare with (no `result`)\n";
    return;
  }
  os << "  replayed:   predicted " << compare(*saved.predicted, now.predicted);
  if (saved.simulated && now.simulated)
    os << "; simulated " << compare(*saved.simulated, now.simulated->makespan);
  os << "\n";
}

void loom::printFailure(const PlanResult &result, raw_ostream &os) {
  const PlanOutcome &chosen = result.chosen;
  // Neither the target nor the model could be read: no layout is to blame.
  if (chosen.modelName.empty()) {
    os << "loom-plan: error: " << chosen.failure << "\n";
    return;
  }
  if (result.noneFits) {
    os << "loom-plan: error: no plan of " << chosen.problem.model << " fits "
       << chosen.problem.topology
       << (chosen.failure.empty() ? "" : ": " + chosen.failure) << "\n";
    return;
  }
  os << "loom-plan: error: this plan cannot work: " << chosen.failure << "\n";
  if (result.suggestion)
    os << "loom-plan: note: " << planName(*result.suggestion)
       << " fits (predicted "
       << fmt::format("{:.3f}", result.suggestion->predicted * 1e3)
       << " ms); with no --tp, --stages, --data-parallel or --slices, loom-plan "
          "searches all "
       << result.fitting << " that do\n";
}

std::string loom::checkPlanFiles(const PlanResult &result, bool trace,
                                 bool svg,
                                 const sim::TraceFilter &traceFilter) {
  if (!trace && !svg)
    return "";
  const PlanOutcome &plan = result.chosen;
  if (!plan.simulated)
    return "no --trace or --svg: the plan is too large to simulate";
  if (plan.simulated->generatedFrom > 0)
    return "no --trace or --svg: the plan's whole program was simulated "
           "generated from its first steps, which record no trace";
  return trace ? traceFilter.check(sim::inferRoles(plan.schedule), "plan")
               : "";
}
