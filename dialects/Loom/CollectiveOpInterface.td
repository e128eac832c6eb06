//===- CollectiveOpInterface.td - collectives -----------------*- tablegen -*-===//

#ifndef LOOM_COLLECTIVEOPINTERFACE_TD
#define LOOM_COLLECTIVEOPINTERFACE_TD

include "mlir/IR/OpBase.td"

def CollectiveOpInterface : OpInterface<"CollectiveOpInterface"> {
  let cppNamespace = "::loom";
  let description = [{
    A collective over a named device group, as the cost model prices it and
    the lowering schedules it: its kind (the enum the sched dialect and the
    schedule file share), its group and the bytes it moves. Passes ask this
    interface rather than matching each collective op.
  }];

  let methods = [
    InterfaceMethod<"What the collective computes.", "::loom::CollectiveKind",
      "getCollectiveKind">,
    InterfaceMethod<"The name of the device group.", "::llvm::StringRef",
      "getGroup">,
    InterfaceMethod<"Chips in the group.", "int64_t", "getGroupSize">,
    InterfaceMethod<[{
        Bytes as the cost model counts them: the whole gathered array for an
        all-gather, the reduced input for an all-reduce or reduce-scatter,
        the bytes each chip holds for an all-to-all.
      }], "int64_t", "getCollectiveBytes">,
  ];
}

#endif // LOOM_COLLECTIVEOPINTERFACE_TD
