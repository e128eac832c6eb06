//===- ChipPrograms.h - the per-chip programs being built -------*- C++ -*-===//
//
// Private to lib/Conversion/LoomToSched: the schedule the lowering builds,
// its chips on the device mesh, and the tasks of one op's work on the ranks
// of a stage, which the lowering of a forward pass (LoomToSched.cpp) and of
// a training step (TrainingLowering.cpp) both emit.
//
//===----------------------------------------------------------------------===//

#ifndef LOOM_LIB_CONVERSION_LOOMTOSCHED_CHIPPROGRAMS_H
#define LOOM_LIB_CONVERSION_LOOMTOSCHED_CHIPPROGRAMS_H

#include "loom/Analysis/ModelAnalysis.h"
#include "loom/Analysis/StageCost.h"
#include "loom/Dialect/Loom/ModuleTarget.h"
#include "loom/Hardware/DeviceMesh.h"
#include "loom/Schedule/Schedule.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <cmath>
#include <map>
#include <optional>
#include <string>

namespace loom::lowering {

namespace file = loom::schedule;

inline int64_t toInt(double value) {
  return static_cast<int64_t>(std::llround(value));
}

/// "layer3.linear.q": where a compute task came from.
std::string taskName(llvm::StringRef where, mlir::Operation *op);

/// One work unit flowing through the pipeline: a token slice, or a patch of
/// a denoising step.
struct Unit {
  /// The slice or patch; a slice of a later microbatch counts on from the
  /// slices of the ones before it (the n-th slice the pipeline runs).
  int64_t index;
  int64_t step;    ///< diffusion step (0 for tokens)
  int64_t length;  ///< tokens
  int64_t context; ///< tokens before it that it attends to causally
};

/// Each rank's task, by its index in its chip's program.
using Tasks = llvm::SmallVector<int64_t, 8>;
/// No task: a dependency that is not there.
constexpr int64_t kNoTask = -1;

/// The dependencies among `tasks` that are there, in order.
llvm::SmallVector<int64_t, 2> depsOf(llvm::ArrayRef<int64_t> tasks);

file::Task allocTask(MemoryKind what, int64_t bytes, std::string name,
                     llvm::ArrayRef<int64_t> deps);

/// A send (to `peer`, after `dep`) or a receive (from `peer`).
file::Task messageTask(file::TaskKind kind, int64_t peer, int64_t dep,
                       int64_t bytes, int64_t tag);

/// One op's work on one unit, and where it came from.
struct Item {
  std::string where;
  int64_t layer;
  SliceWork work;
};

/// The programs of a planned module's chips as they are built: the chips
/// of its groups on the device mesh, and the tasks of one op's work on the
/// ranks of a stage. A lowering derives from it.
class ChipPrograms {
protected:
  ChipPrograms(mlir::ModuleOp module, TargetAttr target, ModelView view,
               const CostModel &model)
      : module(module), target(target), view(std::move(view)), model(model) {}

  /// Reads the module's groups and pipeline and lays them out on the
  /// target's chips; fails with an error on the module when they do not
  /// tile it.
  mlir::LogicalResult setUp();

  int64_t chipId(int64_t d, int64_t s, int64_t r) const {
    return mesh->chipId(mesh->chip(d, s, r));
  }
  int64_t microbatches() const {
    return pipeline ? pipeline.getMicrobatches() : 1;
  }

  /// Starts the schedule with every chip of the plan, in id order, so the
  /// program reads and serialises stably.
  void addChips();

  /// The program of rank r of replica d's stage s.
  std::vector<file::Task> &programOf(int64_t d, int64_t s, int64_t r) {
    return out.chips[slot.find(chipId(d, s, r))->second].tasks;
  }

  /// Appends the task `fn(rank)` to every rank of (d, s); returns their
  /// indices.
  template <typename Fn>
  Tasks onRanks(int64_t d, int64_t s, Fn fn) {
    Tasks done;
    for (int64_t r = 0; r < ranks; ++r) {
      std::vector<file::Task> &tasks = programOf(d, s, r);
      tasks.push_back(fn(r));
      done.push_back(tasks.size() - 1);
    }
    return done;
  }

  /// The done of each rank's collective started at `starts[r]` (of (d, s)):
  /// the point where its result is there for the tasks that use it.
  Tasks collectiveDone(int64_t d, int64_t s, llvm::ArrayRef<int64_t> starts) {
    return onRanks(d, s, [&](int64_t r) {
      file::Task t;
      t.kind = file::TaskKind::CollectiveDone;
      t.start = starts[r];
      return t;
    });
  }

  /// Adds `extra[r]` to the dependencies of task `tasks[r]` on each rank.
  void addDeps(int64_t d, int64_t s, llvm::ArrayRef<int64_t> tasks,
               llvm::ArrayRef<int64_t> extra);

  /// The task of `item` on `unit` on every rank of (d, s), after `last`;
  /// returns the new last tokens.
  Tasks emitItem(int64_t d, int64_t s, const Item &item, const Unit &unit,
                 llvm::ArrayRef<int64_t> last);

  /// The list of `chips`, shared with every collective over them.
  file::ChipGroup sharedGroup(llvm::ArrayRef<int64_t> chips);

  /// An all-gather of `bytes` over each tp group of stage `s`, each rank's
  /// start after `after`; returns the ranks' done tasks.
  Tasks tensorParallelAllGather(int64_t d, int64_t s,
                                llvm::ArrayRef<int64_t> after, double bytes);

  mlir::ModuleOp module;
  TargetAttr target;
  ModelView view;
  const CostModel &model;
  // A stage's ranks: tp x sp chips (r = u * tp + t).
  int64_t tp = 1, sp = 1, ranks = 1, dp = 1, stages = 1, tokens = 0,
          nextTag = 0;
  /// The chips of one slice (all of them on one slice).
  int64_t sliceChips = 1;
  /// The pipeline's chunks: stages x virtual stages.
  int64_t chunks = 1;
  PipelineAttr pipeline;
  std::optional<DeviceMesh> mesh;
  /// The schedule being built, and each chip's place in it by chip id.
  file::Schedule out;
  llvm::DenseMap<int64_t, size_t> slot;
  /// The collectives' groups made so far, each once.
  std::map<std::vector<int64_t>, file::ChipGroup> groups;

private:
  /// A matmul and its collective as ring steps (docs/overlap.md).
  template <typename ComputeFn>
  Tasks emitDecomposed(int64_t d, int64_t s, const Item &item,
                       const Unit &unit, llvm::ArrayRef<int64_t> last,
                       ComputeFn compute);
  /// Ring attention's blocks and K/V messages.
  Tasks emitRing(int64_t d, int64_t s, const Item &item, const Unit &unit,
                 const std::string &name, llvm::ArrayRef<int64_t> last);
};

/// The program of `module`'s training step, as a schedule
/// (TrainingLowering.cpp); failure after an error on the module, among them
/// the options the training lowering does not build.
mlir::FailureOr<file::Schedule>
lowerTrainingStep(mlir::ModuleOp module, TargetAttr target, ModelView view,
                  const CostModel &model, int64_t interleave, bool decompose,
                  bool scatterHandover);

} // namespace loom::lowering

#endif // LOOM_LIB_CONVERSION_LOOMTOSCHED_CHIPPROGRAMS_H
