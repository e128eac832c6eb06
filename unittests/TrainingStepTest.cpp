//===- TrainingStepTest.cpp - a training step lowered and simulated -------===//
//
// - The model states per chip follow ZeRO's accounting (Rajbhandari et
//   al., SC 2020, figure 1): mixed-precision AdamW 16 psi per replica, 4 psi
//   + 12 psi / N at stage 1, 2 psi + 14 psi / N at 2, 16 psi / N at 3.
// - What the lowered step moves over the links follows their section 7:
//   ZeRO-1 and 2 move what data parallelism's all-reduce does
//   (reduce-scatter + all-gather = all-reduce), ZeRO-3 1.5 times (an
//   all-gather of the weights before the forward and the backward pass and
//   a reduce-scatter of the gradients); with M microbatches, ZeRO-2 and 3
//   reduce-scatter every microbatch and ZeRO-3 gathers every microbatch.
// - The simulated peak HBM is the itemised accounting, item for item (an
//   upper bound under ZeRO-2 and 3, reached but for gradient buckets freed
//   early).
// - Under FSDP each weight is gathered before the op that reads it, into a
//   buffer of its own size, prefetched: the gathered buffers live at once
//   hold at most the two largest weight reads' bytes, the gradient buckets
//   two weights' gradients.
// - Data parallelism's gradient all-reduce of a layer runs under the
//   backward pass of the layer before it: only the last layer's is
//   exposed, less the update of the layers reduced before it.
//
//===----------------------------------------------------------------------===//

#include "loom/Analysis/TrainingStep.h"
#include "loom/Conversion/Passes.h"
#include "loom/Dialect/Loom/ModuleTarget.h"
#include "loom/Import/ModelImporter.h"
#include "loom/InitAll.h"
#include "loom/Sim/Simulator.h"

#include "SmallWorkload.h"

#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

#include <gtest/gtest.h>

#include <map>

using namespace mlir;
using namespace loom;

namespace {

class TrainingStepTest : public ::testing::Test {
protected:
  TrainingStepTest() {
    DialectRegistry registry;
    registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    registerAllPasses();
  }

  /// `module` after the textual pass pipeline `pipeline`.
  LogicalResult run(ModuleOp module, StringRef pipeline) {
    PassManager pm(&context);
    if (failed(parsePassPipeline(pipeline, pm)))
      return failure();
    return pm.run(module);
  }

  /// Two layers of a small MLP block whose output is the logits (no
  /// parameters outside the layers), a replica's batch of 4 x 1024 tokens,
  /// on `chips` chips of v5e, each a data-parallel replica.
  OwningOpRef<ModuleOp> twoLayers(bool head = false) {
    std::string layer = R"mlir(
      %L = loom.layer N (%IN) {kind = "mlp"} : (tensor<4x1024x256xbf16>) -> tensor<4x1024x256xbf16> {
      ^bb0(%x: tensor<4x1024x256xbf16>):
        %h = loom.rms_norm %x : tensor<4x1024x256xbf16>
        %u = loom.linear up %h : tensor<4x1024x256xbf16> -> tensor<4x1024x1024xbf16>
        %a = loom.activation gelu %u : tensor<4x1024x1024xbf16>
        %d = loom.linear down %a : tensor<4x1024x1024xbf16> -> tensor<4x1024x256xbf16>
        %s = loom.add %x, %d : tensor<4x1024x256xbf16>, tensor<4x1024x256xbf16>
        loom.yield %s : tensor<4x1024x256xbf16>
      })mlir";
    auto block = [&](StringRef name, int index, StringRef in) {
      std::string text = layer;
      auto replace = [&](StringRef from, StringRef to) {
        size_t at = text.find(from.str());
        text.replace(at, from.size(), to.str());
      };
      replace("%L", name);
      replace(" N ", " " + std::to_string(index) + " ");
      replace("%IN", in);
      return text;
    };
    std::string text =
        "func.func @mlp(%ids: tensor<4x1024x256xbf16>) -> "
        "tensor<4x1024x256xbf16> {" +
        block("%0", 0, "%ids") + block("%1", 1, "%0") +
        "\n return %1 : tensor<4x1024x256xbf16>\n}";
    if (head) {
      // An LM head of 256 x 2048 outside the layers.
      text = "func.func @mlp(%ids: tensor<4x1024x256xbf16>) -> "
             "tensor<4x1024x2048xbf16> {" +
             block("%0", 0, "%ids") + block("%1", 1, "%0") +
             "\n %2 = loom.linear lm_head %1 : tensor<4x1024x256xbf16> -> "
             "tensor<4x1024x2048xbf16>\n return %2 : "
             "tensor<4x1024x2048xbf16>\n}";
    }
    return parseSourceString<ModuleOp>(text, &context);
  }

  /// The two-layer step on v5e-4 as 4 data-parallel replicas with
  /// `microbatches`, ZeRO `stage` over all of them (0: none) and `remat`.
  OwningOpRef<ModuleOp> step(int64_t stage, int64_t microbatches = 1,
                             StringRef remat = "none", bool head = false) {
    OwningOpRef<ModuleOp> module = twoLayers(head);
    if (!module)
      return {};
    std::string pipeline =
        "loom-set-target{topology=v5e-4},"
        "loom-partition-layers{data-parallel=4},"
        "loom-split-tokens{slices=1 microbatches=" +
        std::to_string(microbatches) +
        "},loom-derive-training-step,loom-remat{policy=" + remat.str() + "}";
    if (stage > 0)
      pipeline += ",loom-shard-zero{stage=" + std::to_string(stage) + "}";
    if (failed(run(*module, pipeline)))
      return {};
    return module;
  }

  static sim::SimResult simulate(ModuleOp module) {
    FailureOr<schedule::Schedule> schedule =
        lowerToScheduleFile(module, /*interleave=*/1, /*decompose=*/false);
    EXPECT_TRUE(succeeded(schedule));
    if (failed(schedule))
      return {};
    TargetDesc target = cantFail(schedule::getScheduleTarget(*schedule));
    auto result = sim::simulate(target, *schedule, /*recordTrace=*/true);
    EXPECT_TRUE(bool(result));
    if (!result) {
      llvm::consumeError(result.takeError());
      return {};
    }
    EXPECT_EQ(result->failure, "");
    return std::move(*result);
  }

  static double linkBytes(const sim::SimResult &result) {
    double bytes = 0;
    for (const sim::LinkStats &link : result.links)
      bytes += link.bytes;
    return bytes;
  }

  /// The training step of `module` as the lowering reads it.
  static FailureOr<TrainingView> viewOf(ModuleOp module) {
    for (func::FuncOp func : module.getOps<func::FuncOp>())
      if (isTrainingStep(func))
        return getTrainingView(func, "test");
    return failure();
  }

  static TrainingMemory memoryOf(ModuleOp module, int64_t microbatches) {
    FailureOr<TrainingView> view = viewOf(module);
    EXPECT_TRUE(succeeded(view));
    if (failed(view))
      return {};
    return trainingMemory(*view, getZeroSplit(module), microbatches);
  }

  /// The bytes of the two largest gradients one op makes: the most the
  /// gradient buckets hold at once.
  static double twoLargestGradients(ModuleOp module) {
    double first = 0, second = 0;
    module->walk([&](GradOp grad) {
      double bytes = double(getParameterUse(grad).gradient) * 2;
      if (bytes > first)
        std::swap(first, bytes);
      second = std::max(second, bytes);
    });
    return first + second;
  }

  MLIRContext context;
};

TEST_F(TrainingStepTest, ModelStatesFollowZeRO) {
  ImportOptions options;
  options.seqLen = 128;
  options.batch = 8;
  OwningOpRef<ModuleOp> module = importModel("llama-7b", options, &context);
  ASSERT_TRUE(module);
  ASSERT_TRUE(succeeded(run(*module, "loom-derive-training-step")));
  FailureOr<TrainingView> view = viewOf(*module);
  ASSERT_TRUE(succeeded(view));
  double psi = 0;
  for (OptimizerUpdateOp update : view->updates)
    psi += double(update.getParameters());
  EXPECT_GT(psi, 6e9);
  const double n = 8;
  struct Case {
    int64_t fsdp, stage;
    double bytes;
  } cases[] = {{1, 0, 16 * psi},
               {8, 1, 4 * psi + 12 * psi / n},
               {8, 2, 2 * psi + 14 * psi / n},
               {8, 3, 16 * psi / n}};
  for (const Case &c : cases) {
    SCOPED_TRACE("ZeRO stage " + std::to_string(c.stage));
    ModelStateBytes states;
    for (OptimizerUpdateOp update : view->updates)
      states += modelStateBytes(update, {c.fsdp, c.stage});
    EXPECT_DOUBLE_EQ(states.total(), c.bytes);
  }
}

TEST_F(TrainingStepTest, ZeroMovesWhatZeRODerives) {
  // Per chip, a ring all-reduce over N moves 2 (N - 1) / N of the
  // gradients, a reduce-scatter or all-gather (N - 1) / N: ZeRO-1 and 2
  // one of each (1x data parallelism), ZeRO-3 two gathers and one
  // reduce-scatter (1.5x), Rajbhandari et al., section 7.2.
  sim::SimResult dataParallel = simulate(*step(0));
  double base = linkBytes(dataParallel);
  ASSERT_GT(base, 0);
  struct Case {
    int64_t stage, microbatches;
    double ratio;
  } cases[] = {{1, 1, 1.0}, {2, 1, 1.0}, {3, 1, 1.5},
               // Data parallelism and ZeRO-1 reduce once per step.
               {0, 2, 1.0}, {1, 2, 1.0},
               // ZeRO-2: a reduce-scatter per microbatch, one all-gather.
               {2, 2, 1.5},
               // ZeRO-3: two gathers and a reduce-scatter per microbatch.
               {3, 2, 3.0}};
  for (const Case &c : cases) {
    SCOPED_TRACE("ZeRO stage " + std::to_string(c.stage) + ", " +
                 std::to_string(c.microbatches) + " microbatches");
    OwningOpRef<ModuleOp> module = step(c.stage, c.microbatches);
    ASSERT_TRUE(module);
    EXPECT_NEAR(linkBytes(simulate(*module)) / base, c.ratio, 1e-9);
  }
}

TEST_F(TrainingStepTest, SimulatedPeakMemoryIsTheItemisedAccounting) {
  for (int64_t stage : {0, 1, 2, 3})
    for (int64_t microbatches : {1, 2})
      for (StringRef remat : {"none", "full"}) {
        SCOPED_TRACE("ZeRO stage " + std::to_string(stage) + ", " +
                     std::to_string(microbatches) + " microbatches, remat " +
                     remat.str());
        OwningOpRef<ModuleOp> module = step(stage, microbatches, remat);
        ASSERT_TRUE(module);
        TrainingMemory memory = memoryOf(*module, microbatches);
        EXPECT_GT(memory.activations, 0);
        EXPECT_EQ(memory.recompute > 0, remat == "full");
        EXPECT_EQ(memory.buffers > 0, stage >= 2);
        sim::SimResult result = simulate(*module);
        ASSERT_FALSE(result.chips.empty());
        // Exact but for the gradient buckets under ZeRO-2 and 3 (at most
        // two at once), which the accounting holds until the next fills
        // and the lowering frees as soon as their reduce-scatter is done.
        double slack = stage >= 2 ? twoLargestGradients(*module) : 0;
        for (const sim::ChipStats &chip : result.chips) {
          EXPECT_LE(chip.peakHbm, memory.total() + 16);
          EXPECT_GE(chip.peakHbm, memory.total() - slack - 16);
        }
      }
}

// Under FSDP each op that reads weights has them all-gathered just before
// it, into a buffer of their own: per layer and pass, one gather per weight
// (the norm's scale, up's and down's matrices), each the op's whole
// weights, which the op waits for.
TEST_F(TrainingStepTest, FsdpGathersEachWeightJustBeforeItsOp) {
  const int64_t matrix = 256 * 1024 * 2, scale = 256 * 2;
  for (StringRef remat : {"none", "full"}) {
    SCOPED_TRACE("remat " + remat.str());
    OwningOpRef<ModuleOp> module = step(3, 1, remat);
    ASSERT_TRUE(module);
    FailureOr<schedule::Schedule> schedule =
        lowerToScheduleFile(*module, /*interleave=*/1, /*decompose=*/false);
    ASSERT_TRUE(succeeded(schedule));
    const std::vector<schedule::Task> &tasks = schedule->chips.front().tasks;
    std::map<std::string, int64_t> gathered;
    for (size_t i = 0; i < tasks.size(); ++i) {
      const schedule::Task &alloc = tasks[i];
      StringRef name(alloc.name);
      if (alloc.kind != schedule::TaskKind::Alloc ||
          !name.consume_back(".gathered_weights"))
        continue;
      EXPECT_EQ(alloc.what, MemoryKind::Buffers);
      gathered[name.str()] = alloc.bytes;
      // The gather into it, its done, then the op that reads it.
      ASSERT_LT(i + 3, tasks.size());
      const schedule::Task &start = tasks[i + 1], &done = tasks[i + 2],
                           &op = tasks[i + 3];
      EXPECT_EQ(start.kind, schedule::TaskKind::Collective);
      EXPECT_EQ(start.collective, CollectiveKind::AllGather);
      EXPECT_EQ(start.bytes, alloc.bytes);
      EXPECT_EQ(start.group.size(), 4u);
      EXPECT_EQ(done.kind, schedule::TaskKind::CollectiveDone);
      EXPECT_EQ(op.kind, schedule::TaskKind::Compute);
      EXPECT_TRUE(StringRef(op.name).starts_with(name));
      EXPECT_TRUE(llvm::is_contained(op.deps, int64_t(i + 2)));
    }
    std::map<std::string, int64_t> expected;
    for (std::string layer : {"layer0", "layer1"}) {
      // The forward pass, the recomputed ops (remat full) and the
      // gradients' input parts (dX = dY W^T).
      expected[layer + ".rms_norm"] = scale;
      expected[layer + ".linear.up"] = matrix;
      expected[layer + ".linear.down"] = matrix;
      if (remat == "full") {
        expected[layer + ".backward.rms_norm"] = scale;
        expected[layer + ".backward.linear.up"] = matrix;
        expected[layer + ".backward.linear.down"] = matrix;
      }
      expected[layer + ".backward.grad.input.rms_norm"] = scale;
      expected[layer + ".backward.grad.input.linear.up"] = matrix;
      expected[layer + ".backward.grad.input.linear.down"] = matrix;
    }
    EXPECT_EQ(gathered, expected);
  }
}

// What a schedule holds at its peak of the allocations named with
// `suffix` alone (every other allocation emptied), simulated.
static double simulatedPeakOf(schedule::Schedule schedule, StringRef suffix) {
  for (schedule::Chip &chip : schedule.chips)
    for (schedule::Task &task : chip.tasks)
      if (task.kind == schedule::TaskKind::Alloc &&
          !StringRef(task.name).ends_with(suffix))
        task.bytes = 0;
  TargetDesc target = cantFail(schedule::getScheduleTarget(schedule));
  auto result = sim::simulate(target, schedule, /*recordTrace=*/false);
  EXPECT_TRUE(bool(result));
  if (!result) {
    llvm::consumeError(result.takeError());
    return 0;
  }
  return result->chips.front().peakHbm;
}

// The buffers are weight-sized: the gathered copies live at once are the
// weights of the op running and of the next op that reads weights, at most
// up's and down's matrices, 2 x 256 x 1024 x 2 B (not two layers', 2 x
// 526848 B); the gradient buckets at most two matrices' gradients. And the
// accounting holds what the lowering allocates: at its peak (the first
// layer's backward pass, at the norm's gradient) the norm's gathered scale,
// layer 0's down matrix prefetched and up's and down's gradients in their
// buckets, 3 x 524288 + 512 B.
TEST_F(TrainingStepTest, FsdpBuffersAreWeightSized) {
  const double matrix = 256 * 1024 * 2, scale = 256 * 2;
  for (int64_t microbatches : {1, 2})
    for (StringRef remat : {"none", "full"}) {
      SCOPED_TRACE(std::to_string(microbatches) + " microbatches, remat " +
                   remat.str());
      OwningOpRef<ModuleOp> module = step(3, microbatches, remat);
      ASSERT_TRUE(module);
      FailureOr<schedule::Schedule> schedule =
          lowerToScheduleFile(*module, /*interleave=*/1, /*decompose=*/false);
      ASSERT_TRUE(succeeded(schedule));
      EXPECT_EQ(simulatedPeakOf(*schedule, ".gathered_weights"), 2 * matrix);
      double buckets = simulatedPeakOf(*schedule, ".gradient_bucket");
      EXPECT_GE(buckets, matrix);
      EXPECT_LE(buckets, 2 * matrix);
    }
  OwningOpRef<ModuleOp> module = step(3);
  ASSERT_TRUE(module);
  EXPECT_EQ(memoryOf(*module, 1).buffers, 3 * matrix + scale);
}

// The gathered buffers may hold the bytes of the two largest weight reads:
// here the head's (256 x 2048 x 2 B), read by the forward pass and again,
// right after, by its gradient's input part, 4 x 524288 B. So a projection
// after a norm is gathered before the norm runs, under the ops before it:
// layer 1's up projection while layer 0's runs, the buffers holding more
// than two weights but never more than the budget. (One read ahead, it
// would start as layer 1's norm does, after layer 0's down.)
TEST_F(TrainingStepTest, FsdpPrefetchesWithinTheTwoLargestWeights) {
  const double matrix = 256 * 1024 * 2;
  OwningOpRef<ModuleOp> module = step(3, 1, "none", /*head=*/true);
  ASSERT_TRUE(module);
  FailureOr<TrainingView> view = viewOf(*module);
  ASSERT_TRUE(succeeded(view));
  EXPECT_EQ(fsdpGatherBudget(*view), 4 * matrix);
  FailureOr<schedule::Schedule> schedule =
      lowerToScheduleFile(*module, /*interleave=*/1, /*decompose=*/false);
  ASSERT_TRUE(succeeded(schedule));
  double gathered = simulatedPeakOf(*schedule, ".gathered_weights");
  EXPECT_LE(gathered, 4 * matrix);
  TargetDesc target = cantFail(schedule::getScheduleTarget(*schedule));
  auto result = sim::simulate(target, *schedule, /*recordTrace=*/true);
  ASSERT_TRUE(bool(result));
  const std::vector<schedule::Task> &tasks = schedule->chips.front().tasks;
  double upGather = -1, downEnd = -1, norm1Start = -1;
  for (const sim::TraceEvent &event : result->trace) {
    if (event.chip != 0)
      continue;
    const schedule::Task &task = tasks[event.task];
    StringRef name(task.name);
    if (task.kind == schedule::TaskKind::Collective && event.task > 0 &&
        tasks[event.task - 1].name == "layer1.linear.up.gathered_weights")
      upGather = event.start;
    if (name.starts_with("layer0.linear.down"))
      downEnd = event.end;
    if (name == "layer1.rms_norm")
      norm1Start = event.start;
  }
  ASSERT_GE(upGather, 0);
  ASSERT_GE(norm1Start, 0);
  EXPECT_LT(upGather, downEnd);
  EXPECT_LT(upGather, norm1Start);
  // The accounting holds it.
  EXPECT_LE(result->chips.front().peakHbm, memoryOf(*module, 1).total() + 16);
}

// Every bundled model's training step (a small workload of its kind, on
// one chip, and split over two replicas with FSDP: each weight gathered
// before the ops that read it, the DiT's conditioning and a tied LM head's
// table too) lowers and runs: to its end within the itemised memory, or to
// the HBM overflow the accounting foresaw.
// Activation offload: each layer's offloaded values go to the host after
// its forward pass (a host_store per chip) and come back (a host_load of
// that store, the same bytes) before its backward pass; the host holds
// what the accounting says, HBM no more than it says.
TEST_F(TrainingStepTest, OffloadedActivationsGoToTheHostAndBack) {
  for (int64_t microbatches : {1, 2}) {
    SCOPED_TRACE(std::to_string(microbatches) + " microbatches");
    OwningOpRef<ModuleOp> module = step(3, microbatches, "minimal_offloaded");
    ASSERT_TRUE(module);
    TrainingMemory memory = memoryOf(*module, microbatches);
    // up's and down's outputs of both layers, 1/microbatches of the batch.
    double perLayer = 4.0 * 1024 * (1024 + 256) * 2 / double(microbatches);
    EXPECT_DOUBLE_EQ(memory.host, 2 * perLayer);
    FailureOr<schedule::Schedule> schedule =
        lowerToScheduleFile(*module, /*interleave=*/1, /*decompose=*/false);
    ASSERT_TRUE(succeeded(schedule));
    for (const schedule::Chip &chip : schedule->chips) {
      int64_t stores = 0, loads = 0;
      for (const schedule::Task &task : chip.tasks) {
        if (task.kind == schedule::TaskKind::HostStore) {
          ++stores;
          EXPECT_DOUBLE_EQ(double(task.bytes), perLayer);
        }
        if (task.kind != schedule::TaskKind::HostLoad)
          continue;
        ++loads;
        const schedule::Task &stored = chip.tasks[task.store];
        EXPECT_EQ(stored.kind, schedule::TaskKind::HostStore);
        EXPECT_EQ(stored.bytes, task.bytes);
      }
      EXPECT_EQ(stores, 2 * microbatches);
      EXPECT_EQ(loads, 2 * microbatches);
    }
    sim::SimResult result = simulate(*module);
    ASSERT_FALSE(result.chips.empty());
    double slack = twoLargestGradients(*module);
    for (const sim::ChipStats &chip : result.chips) {
      EXPECT_NEAR(chip.peakHost, memory.host, 16);
      EXPECT_LE(chip.peakHbm, memory.total() + 16);
      EXPECT_GE(chip.peakHbm, memory.total() - slack - perLayer - 16);
    }
  }
}

// The host link's time shows in the step only when it is slower than the
// compute it runs under: with a link ten thousand times v5e's the step
// takes what the same step with its values kept in HBM (minimal) takes;
// this narrow MLP's values take longer to copy than its layers to compute,
// so at v5e's link the copies show, at most all of them one after another,
// and more on a slower link.
TEST_F(TrainingStepTest, AHostLinkHidesUnderComputeUnlessItIsSlow) {
  OwningOpRef<ModuleOp> offloaded = step(3, 1, "minimal_offloaded");
  OwningOpRef<ModuleOp> inHbm = step(3, 1, "minimal");
  ASSERT_TRUE(offloaded && inHbm);
  double hbm = simulate(*inHbm).makespan;
  FailureOr<schedule::Schedule> schedule =
      lowerToScheduleFile(*offloaded, 1, false);
  ASSERT_TRUE(succeeded(schedule));
  TargetDesc target = cantFail(schedule::getScheduleTarget(*schedule));
  auto at = [&](double bandwidth) {
    TargetDesc t = target;
    t.hostBandwidth = bandwidth;
    auto result = sim::simulate(t, *schedule, /*recordTrace=*/false);
    EXPECT_TRUE(bool(result));
    return result ? result->makespan : 0.0;
  };
  double bandwidth = target.hostBandwidth;
  double fast = at(bandwidth * 1e4), v5e = at(bandwidth),
         slow = at(bandwidth / 10);
  EXPECT_NEAR(fast, hbm, 1e-3 * hbm);
  double perLayer = 4.0 * 1024 * (1024 + 256) * 2;
  EXPECT_GT(v5e, hbm * 1.1);
  EXPECT_LE(v5e, hbm + 4 * perLayer / bandwidth);
  EXPECT_GT(slow, v5e + perLayer / (bandwidth / 10));
}

TEST_F(TrainingStepTest, EveryBundledModelsStepLowersAndRuns) {
  for (const BundledModel &bundled : getBundledModels())
    for (bool fsdp : {false, true}) {
      SCOPED_TRACE(bundled.name.str() + (fsdp ? ", FSDP" : ""));
      OwningOpRef<ModuleOp> module =
          test::importSmallWorkload(bundled.name, context);
      ASSERT_TRUE(module);
      std::string pipeline =
          fsdp ? "loom-set-target{topology=v5e-4},"
                 "loom-derive-training-step,loom-remat{policy=selective},"
                 "loom-partition-layers{data-parallel=2},loom-shard-zero"
               : "loom-set-target{topology=v5e-1},"
                 "loom-derive-training-step,loom-remat{policy=selective}";
      ASSERT_TRUE(succeeded(run(*module, pipeline)));
      TrainingMemory memory = memoryOf(*module, 1);
      FailureOr<schedule::Schedule> schedule =
          lowerToScheduleFile(*module, /*interleave=*/1, /*decompose=*/false);
      ASSERT_TRUE(succeeded(schedule));
      TargetDesc target = cantFail(schedule::getScheduleTarget(*schedule));
      auto result = sim::simulate(target, *schedule, /*recordTrace=*/false);
      ASSERT_TRUE(bool(result));
      if (memory.total() <= target.hbmBytes) {
        EXPECT_EQ(result->failure, "");
        for (const sim::ChipStats &chip : result->chips)
          EXPECT_LE(chip.peakHbm, memory.total() + 16);
      } else {
        EXPECT_NE(result->failure.find("HBM overflow"), std::string::npos);
      }
    }
}

// One pass instance over two modules (as a search's pass managers run):
// the first's #loom.pipeline microbatches do not carry over to the next.
TEST_F(TrainingStepTest, APlanMicrobatchesStayWithItsModule) {
  PassManager pm(&context);
  ASSERT_TRUE(succeeded(parsePassPipeline("loom-derive-training-step", pm)));
  OwningOpRef<ModuleOp> planned = twoLayers();
  ASSERT_TRUE(planned);
  ASSERT_TRUE(succeeded(run(*planned, "loom-set-target{topology=v5e-4},"
                                      "loom-partition-layers,"
                                      "loom-split-tokens{slices=1 "
                                      "microbatches=2}")));
  ASSERT_TRUE(succeeded(pm.run(*planned)));
  // A batch of 3, unplanned: one microbatch, nothing accumulated.
  OwningOpRef<ModuleOp> odd = parseSourceString<ModuleOp>(R"mlir(
    func.func @f(%x: tensor<3x8x64xbf16>) -> tensor<3x8x64xbf16> {
      %0 = loom.layer 0 (%x) : (tensor<3x8x64xbf16>) -> tensor<3x8x64xbf16> {
      ^bb0(%in: tensor<3x8x64xbf16>):
        %u = loom.linear up %in : tensor<3x8x64xbf16> -> tensor<3x8x64xbf16>
        loom.yield %u : tensor<3x8x64xbf16>
      }
      return %0 : tensor<3x8x64xbf16>
    })mlir", &context);
  ASSERT_TRUE(odd);
  ASSERT_TRUE(succeeded(pm.run(*odd)));
  bool accumulates = false;
  odd->walk([&](GradOp grad) { accumulates |= grad.getAccumulate(); });
  EXPECT_FALSE(accumulates);
}

TEST_F(TrainingStepTest, TheGradientAllReduceRunsUnderTheBackwardPass) {
  OwningOpRef<ModuleOp> module = step(0);
  ASSERT_TRUE(module);
  FailureOr<schedule::Schedule> schedule =
      lowerToScheduleFile(*module, 1, false);
  ASSERT_TRUE(succeeded(schedule));
  TargetDesc target = cantFail(schedule::getScheduleTarget(*schedule));
  auto result = sim::simulate(target, *schedule, /*recordTrace=*/true);
  ASSERT_TRUE(bool(result));
  // Chip 0's all-reduces, in the order issued: layer 1's (its backward
  // pass runs first), then layer 0's.
  const schedule::Chip &chip = schedule->chips.front();
  std::vector<sim::TraceEvent> reduces;
  double lastBackwardOfLayer0 = 0, computeSum = 0, update1 = 0;
  for (const sim::TraceEvent &event : result->trace) {
    if (event.chip != 0)
      continue;
    const schedule::Task &task = chip.tasks[event.task];
    if (task.kind == schedule::TaskKind::Collective)
      reduces.push_back(event);
    if (task.kind == schedule::TaskKind::Compute) {
      computeSum += event.end - event.start;
      if (llvm::StringRef(task.name).starts_with("layer0.backward"))
        lastBackwardOfLayer0 = std::max(lastBackwardOfLayer0, event.end);
      if (task.name == "layer1.optimizer_update")
        update1 = event.end - event.start;
    }
  }
  ASSERT_EQ(reduces.size(), 2u);
  const sim::TraceEvent &layer1 = reduces[0], &layer0 = reduces[1];
  EXPECT_EQ(chip.tasks[layer1.task].collective, CollectiveKind::AllReduce);
  // Hidden: layer 1's all-reduce ends before layer 0's backward pass does.
  EXPECT_LT(layer1.end, lastBackwardOfLayer0);
  // Layer 0's starts after the backward pass, beside layer 1's update
  // (whose gradients are reduced already); layer 0's update waits for it.
  EXPECT_GE(layer0.start, lastBackwardOfLayer0);
  ASSERT_GT(update1, 0);
  // The step: the TensorCore's work and what of the last all-reduce layer
  // 1's update does not cover, nothing else.
  double exposed = std::max(0.0, (layer0.end - layer0.start) - update1);
  double step = result->makespan - result->dispatch;
  EXPECT_NEAR(step, computeSum + exposed, 1e-9 * step);
  EXPECT_NEAR(result->chips.front().exposedComm, exposed, 1e-9 * step);
}

} // namespace
