//===- SchedDialect.cpp - the sched dialect -------------------------------===//

#include "loom/Dialect/Sched/SchedOps.h"

#include "loom/Dialect/Sched/ScheduleIR.h"
#include "loom/Schedule/Check.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace loom;
using namespace loom::sched;

#include "loom/Dialect/Sched/SchedDialect.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "loom/Dialect/Sched/SchedAttrs.cpp.inc"

#define GET_TYPEDEF_CLASSES
#include "loom/Dialect/Sched/SchedTypes.cpp.inc"

void SchedDialect::initialize() {
  addOperations<
#define GET_OP_LIST
#include "loom/Dialect/Sched/SchedOps.cpp.inc"
      >();
  addTypes<
#define GET_TYPEDEF_LIST
#include "loom/Dialect/Sched/SchedTypes.cpp.inc"
      >();
  addAttributes<
#define GET_ATTRDEF_LIST
#include "loom/Dialect/Sched/SchedAttrs.cpp.inc"
      >();
}

// The schedule checker shared with the file reader and the simulator, run
// on the schedule this program describes; problems are reported at the op.
LogicalResult ProgramOp::verifyRegions() {
  SmallVector<ChipOp> chips;
  for (Operation &op : getBody().front()) {
    auto chip = dyn_cast<ChipOp>(op);
    if (!chip)
      return op.emitOpError() << "is not a sched.chip; a program holds chips";
    chips.push_back(chip);
  }
  std::vector<std::vector<Operation *>> taskOps;
  schedule::Schedule described = exportSchedule(*this, &taskOps);
  bool valid = schedule::checkSchedule(
      described, getMachine(getTarget()),
      [&](const schedule::Place &place, const Twine &message) {
        Operation *at = place.chip < 0  ? getOperation()
                        : place.task < 0 ? chips[place.chip].getOperation()
                                         : taskOps[place.chip][place.task];
        at->emitOpError(message);
      });
  return success(valid);
}

#define GET_OP_CLASSES
#include "loom/Dialect/Sched/SchedOps.cpp.inc"
