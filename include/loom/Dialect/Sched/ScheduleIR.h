//===- ScheduleIR.h - sched programs to and from schedule files -*- C++ -*-===//

#ifndef LOOM_DIALECT_SCHED_SCHEDULEIR_H
#define LOOM_DIALECT_SCHED_SCHEDULEIR_H

#include "loom/Dialect/Sched/SchedOps.h"
#include "loom/Schedule/Check.h"
#include "loom/Schedule/Schedule.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace loom::sched {

/// The schedule file of `program`: a chip's tasks in program order, a
/// dependency as the index of the task that yields it, a free's token as
/// its `alloc`. With `ops`, also the op of each task of each chip.
schedule::Schedule
exportSchedule(ProgramOp program,
               std::vector<std::vector<mlir::Operation *>> *ops = nullptr);

/// A schedule of no chips for `target`: its name, shape and figures.
schedule::Schedule emptySchedule(TargetAttr target);

/// Builds the sched.program of `schedule` (on `target`) at `b`, every op at
/// `loc`; the schedule must be one schedule::checkSchedule accepts (its
/// indices are not checked again).
ProgramOp buildProgram(mlir::OpBuilder &b, mlir::Location loc,
                       TargetAttr target, const schedule::Schedule &schedule);

/// The chips of `target`'s topology, for schedule::checkSchedule.
schedule::Machine getMachine(TargetAttr target);

/// The sched.program of a parsed schedule, after schedule::checkSchedule on
/// its target (an error at `loc` names the JSON path of the first problem).
/// Null after emitting the error.
mlir::OwningOpRef<mlir::ModuleOp>
importSchedule(const schedule::Schedule &schedule, mlir::MLIRContext *context,
               mlir::Location loc);

} // namespace loom::sched

#endif // LOOM_DIALECT_SCHED_SCHEDULEIR_H
