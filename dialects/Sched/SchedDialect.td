//===- SchedDialect.td - the sched dialect ------------------*- tablegen -*-===//

#ifndef SCHED_DIALECT_TD
#define SCHED_DIALECT_TD

include "mlir/IR/OpBase.td"

def Sched_Dialect : Dialect {
  let name = "sched";
  let cppNamespace = "::loom::sched";
  let summary = "Per-chip task programs: what each chip of a slice runs";
  let description = [{
    The lowering of a planned loom model: a `sched.program` holds one
    `sched.chip` per chip that has work, each an ordered list of tasks with
    explicit dependencies. A task is compute (FLOPs and HBM bytes, and the
    loom op and layer it came from), a send or receive of a message (peer
    chip, bytes, tag), a collective over a group of chips, or an allocation
    or release of HBM. Within a chip, dependencies are SSA uses of the
    `!sched.token` a task yields; between chips, a send is matched with the
    receive of the same (sender, receiver, tag), and a collective with the
    collectives of the same tag on the group's other chips.

    `loom-translate --sched-to-json` writes a program as the versioned JSON
    document that loom-sim executes (docs/schedule-format.md).
  }];
  let useDefaultTypePrinterParser = 1;
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::loom::LoomDialect"];
}

#endif // SCHED_DIALECT_TD
