//===- TrainingPipelineTest.cpp - a pipelined training step simulated -----===//
//
// A training step on several pipeline stages, lowered in each schedule's
// order (convert-loom-to-sched) and simulated (loom-sim), held to the
// schedule's own play of that order (runSchedule, TrainingSchedule.h):
// - with each virtual stage's F, B and W times read off the simulated
//   tasks and the transfer off the simulated messages, the simulated
//   step's pipeline part (first pass to last, the optimizer's updates
//   after it left out) is runSchedule's makespan, within 1e-6;
// - with those times equal on every stage and no transfer, the order's
//   bubble is the closed form: (p - 1) / m for GPipe and 1F1B (Narayanan
//   et al., SC 2021, section 2.2.1), (p - 1)(T_F + T_B - T_W) of time for
//   ZB-H1 (Qi et al., ICLR 2024, section 2.1), (p - 1)(T_F + T_B - 2 T_W)
//   between overlapping steps for ZB-H2 (the same paper's Table 2); the
//   simulated step's is that and what the last stage's loss and the
//   transfers add, ZB-H1's makespan is below 1F1B's and ZB-H2's below
//   ZB-H1's;
// - each stage's simulated peak HBM is its model states plus
//   runSchedule's peakInFlight x one microbatch's kept activations, and
//   so is loom-check-memory's accounting of the stage
//   (stageTrainingMemory).
//
//===----------------------------------------------------------------------===//

#include "loom/Analysis/TrainingSchedule.h"
#include "loom/Analysis/TrainingStep.h"
#include "loom/Conversion/Passes.h"
#include "loom/InitAll.h"
#include "loom/Sim/Simulator.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <gtest/gtest.h>

#include <limits>
#include <map>
#include <tuple>

using namespace mlir;
using namespace loom;

namespace {

struct Plan {
  int64_t layers, batch, stages, virtualStages, microbatches;
  PipelineSchedule schedule;
};

/// What a simulated step's tasks say of its passes.
struct Measured {
  /// Per virtual stage: the seconds of microbatch 0's F, B and W tasks,
  /// and the transfer (a message's send start to its receive's end).
  std::vector<PassTimes> times;
  /// The pipeline part: the first compute task's start to the last's end,
  /// the optimizer's updates left out.
  double start = std::numeric_limits<double>::infinity(), end = 0;
  /// Each chip's stage, and the stages' busiest work (seconds of compute
  /// but the updates).
  std::map<int64_t, int64_t> stageOf;
  double busiest = 0;
};

class TrainingPipelineTest : public ::testing::Test {
protected:
  TrainingPipelineTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    registerAllPasses();
  }

  /// `layers` MLP blocks (norm, 256 -> 4096 -> 256, residual add) over
  /// `batch` sequences of 1024 tokens, planned on v5e-4 as `plan` says,
  /// derived into a training step. (Wide enough that a forward pass
  /// outlasts the hand-over of its result, so that the messages of one
  /// link do not overlap and each takes the same time.)
  OwningOpRef<ModuleOp> step(const Plan &plan) {
    std::string type =
        "tensor<" + std::to_string(plan.batch) + "x1024x256xbf16>";
    std::string wide =
        "tensor<" + std::to_string(plan.batch) + "x1024x4096xbf16>";
    std::string text = "func.func @mlp(%x: " + type + ") -> " + type + " {\n";
    std::string in = "%x";
    for (int64_t i = 0; i < plan.layers; ++i) {
      std::string out = "%l" + std::to_string(i);
      text += out + " = loom.layer " + std::to_string(i) + " (" + in +
              ") {kind = \"mlp\"} : (" + type + ") -> " + type +
              " {\n^bb0(%in: " + type + "):\n" +
              "  %h = loom.rms_norm %in : " + type + "\n" +
              "  %u = loom.linear up %h : " + type + " -> " + wide + "\n" +
              "  %a = loom.activation gelu %u : " + wide + "\n" +
              "  %d = loom.linear down %a : " + wide + " -> " + type + "\n" +
              "  %s = loom.add %in, %d : " + type + ", " + type + "\n" +
              "  loom.yield %s : " + type + "\n}\n";
      in = out;
    }
    text += "return " + in + " : " + type + "\n}";
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context);
    if (!module)
      return {};
    std::string pipeline =
        "loom-set-target{topology=v5e-4},loom-partition-layers{stages=" +
        std::to_string(plan.stages) +
        " virtual-stages=" + std::to_string(plan.virtualStages) +
        "},loom-split-tokens{slices=1 microbatches=" +
        std::to_string(plan.microbatches) +
        " schedule=" + scheduleName(plan.schedule).str() +
        "},loom-derive-training-step";
    PassManager pm(&context);
    if (failed(parsePassPipeline(pipeline, pm)) || failed(pm.run(*module)))
      return {};
    return module;
  }

  static FailureOr<TrainingView> viewOf(ModuleOp module) {
    for (func::FuncOp func : module.getOps<func::FuncOp>())
      if (isTrainingStep(func))
        return getTrainingView(func, "test");
    return failure();
  }

  /// Reads the passes' times off the simulated tasks of `schedule`.
  static Measured measure(const schedule::Schedule &schedule,
                          const sim::SimResult &result, const Plan &plan,
                          const std::map<int64_t, int64_t> &chunkOf) {
    int64_t chunks = plan.stages * plan.virtualStages;
    Measured m;
    m.times.assign(chunks, PassTimes{0, 0, 0, 0});
    std::map<int64_t, size_t> slot;
    for (auto [i, chip] : llvm::enumerate(schedule.chips)) {
      slot[chip.id] = i;
      for (const schedule::Task &task : chip.tasks)
        if (task.kind == schedule::TaskKind::Compute && task.layer >= 0)
          m.stageOf[chip.id] = chunkOf.at(task.layer) % plan.stages;
    }
    std::map<int64_t, double> busy;
    // Per (sender, receiver, tag), its send's start and receive's end.
    std::map<std::tuple<int64_t, int64_t, int64_t>, std::pair<double, double>>
        messages;
    for (const sim::TraceEvent &event : result.trace) {
      const schedule::Task &task =
          schedule.chips[slot.at(event.chip)].tasks[event.task];
      if (task.kind == schedule::TaskKind::Send)
        messages[{event.chip, task.peer, task.tag}].first = event.start;
      if (task.kind == schedule::TaskKind::Recv)
        messages[{task.peer, event.chip, task.tag}].second = event.end;
      if (task.kind != schedule::TaskKind::Compute ||
          StringRef(task.name).ends_with("optimizer_update"))
        continue;
      double seconds = event.end - event.start;
      m.start = std::min(m.start, event.start);
      m.end = std::max(m.end, event.end);
      busy[event.chip] += seconds;
      if (task.slice != 0)
        continue;
      StringRef name(task.name);
      int64_t chunk = task.layer >= 0 ? chunkOf.at(task.layer)
                      : name.starts_with("epilogue") ? chunks - 1
                                                     : 0;
      PassTimes &times = m.times[chunk];
      if (!name.contains(".backward"))
        times.forward += seconds;
      else if (name.contains("grad.weight"))
        times.weight += seconds;
      else
        times.backward += seconds;
    }
    for (auto &[chip, seconds] : busy)
      m.busiest = std::max(m.busiest, seconds);
    // The first message's time: every message carries the same bytes one
    // hop.
    double transfer = 0;
    for (auto &[key, times] : messages)
      if (times.first > 0 && times.second > 0) {
        transfer = times.second - times.first;
        break;
      }
    for (PassTimes &times : m.times)
      times.transfer = transfer;
    return m;
  }

  /// The step of `plan` lowered and simulated; its measured passes and
  /// runSchedule's play of its order with them.
  struct Run {
    Measured measured;
    ScheduleRun played;
    sim::SimResult result;
  };
  Run run(const Plan &plan) {
    Run out;
    OwningOpRef<ModuleOp> module = step(plan);
    EXPECT_TRUE(module);
    if (!module)
      return out;
    std::map<int64_t, int64_t> chunkOf;
    module->walk([&](LayerOp layer) {
      chunkOf[layer.getIndex()] = layer.getStage().value_or(0);
    });
    FailureOr<schedule::Schedule> lowered =
        lowerToScheduleFile(*module, /*interleave=*/1, /*decompose=*/false);
    EXPECT_TRUE(succeeded(lowered));
    if (failed(lowered))
      return out;
    TargetDesc target = cantFail(schedule::getScheduleTarget(*lowered));
    auto result = sim::simulate(target, *lowered, /*recordTrace=*/true);
    EXPECT_TRUE(bool(result));
    if (!result) {
      llvm::consumeError(result.takeError());
      return out;
    }
    EXPECT_EQ(result->failure, "");
    out.measured = measure(*lowered, *result, plan, chunkOf);
    llvm::Expected<StageOrders> orders =
        scheduleOrder(plan.schedule, plan.stages, plan.microbatches,
                      plan.virtualStages);
    EXPECT_TRUE(bool(orders));
    if (!orders) {
      llvm::consumeError(orders.takeError());
      return out;
    }
    out.played =
        runSchedule(*orders, plan.virtualStages, out.measured.times);
    out.result = std::move(*result);

    // Each stage's peak HBM: its layers' model states, and peakInFlight
    // microbatches of what its layers (and, on the last stage, the loss)
    // keep. (Interleaved chunks keep unequal bytes: the last has the
    // loss's.)
    FailureOr<TrainingView> view = viewOf(*module);
    EXPECT_TRUE(succeeded(view));
    if (failed(view) || plan.virtualStages > 1)
      return out;
    std::vector<double> states(plan.stages, 0), kept(plan.stages, 0);
    for (OptimizerUpdateOp update : view->updates) {
      std::optional<int64_t> layer = update.getLayer();
      EXPECT_TRUE(layer.has_value()) << "no parameters outside the layers";
      if (layer)
        states[chunkOf[*layer]] += modelStateBytes(update, {}).total();
    }
    double share = 1.0 / double(plan.microbatches);
    for (LayerGradOp grad : view->layerGrads)
      kept[chunkOf[grad.getIndex()]] += double(grad.getKeptBytes()) * share;
    kept.back() += keptOutsideLayers(view->backwardEpilogue) * share;
    kept.front() += keptOutsideLayers(view->backwardPrologue) * share;
    PipelineAttr pipeline = getPipeline(view->func);
    for (const sim::ChipStats &chip : out.result.chips) {
      int64_t s = out.measured.stageOf.at(chip.id);
      double expected =
          states[s] + double(out.played.peakInFlight[s]) * kept[s];
      EXPECT_NEAR(chip.peakHbm, expected, 8.0)
          << scheduleName(plan.schedule).str() << " stage " << s;
      // loom-check-memory's accounting of the stage is that.
      EXPECT_NEAR(stageTrainingMemory(*view, {}, pipeline, s).total(),
                  expected, 8.0)
          << scheduleName(plan.schedule).str() << " stage " << s;
    }
    return out;
  }

  MLIRContext context;
};

/// The simulated pipeline is runSchedule's play of the same order.
void expectPlayed(const Plan &plan, const Measured &measured,
                  const ScheduleRun &played) {
  double simulated = measured.end - measured.start;
  EXPECT_NEAR(simulated, played.makespan, 1e-6 * played.makespan)
      << scheduleName(plan.schedule).str() << " on " << plan.stages
      << " stages, " << plan.microbatches << " microbatches";
}

TEST_F(TrainingPipelineTest, EachScheduleRunsAsItsOrderPlays) {
  for (auto [stages, microbatches, layers] :
       {std::tuple<int64_t, int64_t, int64_t>{2, 4, 2}, {4, 8, 4}}) {
    std::map<PipelineSchedule, double> makespan;
    for (PipelineSchedule schedule :
         {PipelineSchedule::GPipe, PipelineSchedule::OneFOneB,
          PipelineSchedule::ZeroBubbleH1, PipelineSchedule::ZeroBubbleH2}) {
      Plan plan{layers, /*batch=*/microbatches, stages, 1, microbatches,
                schedule};
      Run got = run(plan);
      expectPlayed(plan, got.measured, got.played);
      double simulated = got.measured.end - got.measured.start;
      makespan[schedule] = simulated;
      // The closed forms, with stage 0's measured pass times on every
      // stage and no transfer: GPipe's and 1F1B's bubble is (p - 1) / m
      // (Narayanan et al., SC 2021, section 2.2.1); ZB-H1's is smaller
      // (Qi et al., ICLR 2024, section 2.1: (p - 1)(T_F + T_B - T_W) of
      // time with T_B no longer than T_F; here a GELU's gradient makes B
      // twice F, and ZB-H1's bubble lies between that and 1F1B's).
      PassTimes layer = got.measured.times.front();
      layer.transfer = 0;
      llvm::Expected<StageOrders> orders =
          scheduleOrder(schedule, stages, microbatches);
      ASSERT_TRUE(bool(orders));
      ScheduleRun even = runSchedule(*orders, 1, layer);
      double p = double(stages), mb = double(microbatches);
      double published = (p - 1) / mb;
      if (schedule == PipelineSchedule::ZeroBubbleH1) {
        double work = layer.forward + layer.backward + layer.weight;
        EXPECT_LT(even.bubble(), published);
        EXPECT_GT(even.bubble(), (p - 1) *
                                     (layer.forward + layer.backward -
                                      layer.weight) /
                                     (mb * work));
        published = even.bubble();
      } else if (schedule == PipelineSchedule::ZeroBubbleH2) {
        // Between overlapping steps a stage waits (p - 1)(T_F + T_B -
        // 2 T_W) (Qi et al., ICLR 2024, Table 2) when its W passes fit the
        // waits of T_F they fill; here a W is longer than F, so it waits
        // more, still less than ZB-H1's (p - 1)(T_F + T_B - T_W). Within
        // the step the last stage starts (p - 1) T_F late.
        double f = layer.forward, b = layer.backward, w = layer.weight;
        ASSERT_GT(w, f);
        EXPECT_GT(even.period - even.work, (p - 1) * (f + b - 2 * w));
        EXPECT_LT(even.period - even.work, (p - 1) * (f + b - w));
        EXPECT_GE(even.makespan - even.work, (p - 1) * f);
        published = even.bubble();
      } else {
        EXPECT_NEAR(even.bubble(), published, 1e-9)
            << scheduleName(schedule).str();
      }
      // The simulated step's bubble (its busiest stage idle over its work)
      // is that and what the last stage's loss and the hand-overs add.
      const Measured &m = got.measured;
      double bubble = (simulated - m.busiest) / m.busiest;
      EXPECT_GT(bubble, published - 0.02) << scheduleName(schedule).str();
    }
    EXPECT_LT(makespan[PipelineSchedule::ZeroBubbleH1],
              makespan[PipelineSchedule::OneFOneB]);
    EXPECT_LT(makespan[PipelineSchedule::ZeroBubbleH2],
              makespan[PipelineSchedule::ZeroBubbleH1]);
  }
}

TEST_F(TrainingPipelineTest, VirtualStagesRunAsTheirOrderPlays) {
  for (PipelineSchedule schedule :
       {PipelineSchedule::Interleaved, PipelineSchedule::Circular}) {
    Plan plan{4, 4, 2, 2, 4, schedule};
    Run got = run(plan);
    expectPlayed(plan, got.measured, got.played);
  }
}

} // namespace
