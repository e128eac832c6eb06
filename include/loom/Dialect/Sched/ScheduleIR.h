//===- ScheduleIR.h - sched programs to and from schedule files -*- C++ -*-===//

#ifndef LOOM_DIALECT_SCHED_SCHEDULEIR_H
#define LOOM_DIALECT_SCHED_SCHEDULEIR_H

#include "loom/Dialect/Sched/SchedOps.h"
#include "loom/Schedule/Schedule.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

namespace loom::sched {

/// The schedule file of `program`: a chip's tasks in program order, a
/// dependency as the index of the task that yields it.
schedule::Schedule exportSchedule(ProgramOp program);

/// The sched.program of a parsed schedule, verified (unmatched messages,
/// inconsistent collectives, cycles and chips outside the target are errors
/// at `loc`). Null after emitting the error.
mlir::OwningOpRef<mlir::ModuleOp>
importSchedule(const schedule::Schedule &schedule, mlir::MLIRContext *context,
               mlir::Location loc);

} // namespace loom::sched

#endif // LOOM_DIALECT_SCHED_SCHEDULEIR_H
