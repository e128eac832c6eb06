//===- Passes.h - Loom conversions ------------------------------*- C++ -*-===//

#ifndef LOOM_CONVERSION_PASSES_H
#define LOOM_CONVERSION_PASSES_H

#include "loom/Analysis/LayerSliceCost.h"
#include "loom/Analysis/ModelAnalysis.h"
#include "loom/Dialect/Sched/SchedOps.h"
#include "loom/Schedule/Schedule.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace loom {

#define GEN_PASS_DECL
#include "loom/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "loom/Conversion/Passes.h.inc"

/// Lowers `module` (a planned loom model) to a sched.program in place. The
/// C++ entry point of convert-loom-to-sched; it loads the sched dialect
/// into the module's context. `interleave` units of a stage run zipped;
/// with `decompose`, tensor-parallel collective matmuls run as ring steps
/// (docs/overlap.md); with `scatterHandover`, a stage boundary whose
/// activations every tp rank holds whole is handed over scattered and
/// all-gathered (Narayanan et al., SC'21, section 4.1).
mlir::LogicalResult lowerToSchedule(mlir::ModuleOp module,
                                    int64_t interleave = 1,
                                    bool decompose = false,
                                    bool scatterHandover = false);
/// The same with the module's analysis, when the caller has one.
mlir::LogicalResult lowerToSchedule(mlir::ModuleOp module,
                                    ModelAnalysis &analysis,
                                    int64_t interleave = 1,
                                    bool decompose = false,
                                    bool scatterHandover = false);

/// The program convert-loom-to-sched would build, as a schedule file,
/// without building it as IR and leaving `module` as it is: what the
/// planner simulates (a large program's IR takes several times the
/// seconds and memory of its schedule). Failure after an error on `module`.
/// A denoising pipeline's program records where each chip's share of each
/// step begins (`Schedule::stepStarts`); `stepLimit` above 0 lowers only
/// the first that many steps, the last of them ending the program as the
/// plan's last step does (what the simulator's repetition proof runs;
/// docs/planning.md).
mlir::FailureOr<schedule::Schedule>
lowerToScheduleFile(mlir::ModuleOp module, int64_t interleave = 1,
                    bool decompose = false, bool scatterHandover = false,
                    int64_t stepLimit = 0);
mlir::FailureOr<schedule::Schedule>
lowerToScheduleFile(mlir::ModuleOp module, ModelAnalysis &analysis,
                    int64_t interleave = 1, bool decompose = false,
                    bool scatterHandover = false, int64_t stepLimit = 0);

/// The program of one serving iteration of `module` (planned on one stage
/// of one slice): `sequences`, each a prompt chunk or a decode token after
/// its context and one of the module's batch, run together as an engine's
/// batch runs them, every token-wise kernel and collective once over all
/// their tokens and each causal attention one kernel over all of them
/// (LayerSliceCost::forEachBatchWork). convert-loom-to-sched's
/// serving-batch. Failure after an error on `module`.
mlir::FailureOr<schedule::Schedule>
lowerBatchToScheduleFile(mlir::ModuleOp module,
                         llvm::ArrayRef<SequenceSlice> sequences);
mlir::FailureOr<schedule::Schedule>
lowerBatchToScheduleFile(mlir::ModuleOp module, ModelAnalysis &analysis,
                         llvm::ArrayRef<SequenceSlice> sequences);

} // namespace loom

#endif // LOOM_CONVERSION_PASSES_H
