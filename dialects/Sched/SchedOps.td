//===- SchedOps.td - the sched dialect's ops ----------------*- tablegen -*-===//

#ifndef SCHED_OPS_TD
#define SCHED_OPS_TD

include "Sched/SchedDialect.td"
include "Common/Enums.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"
include "mlir/IR/RegionKindInterface.td"

def Sched_TokenType : TypeDef<Sched_Dialect, "Token"> {
  let mnemonic = "token";
  let summary = "Completion of a task";
}

// The enums are shared with the loom dialect, the schedule file and the
// cost model (Common/Enums.td); the sched dialect stores them as its own
// attributes, printed as the bare keyword (`sched.collective all_reduce`).
// An EnumAttr prints a space before its keyword, so the ops' formats start
// with `` to print one space, not two.
class Sched_EnumAttr<EnumInfo enumInfo, string name>
    : EnumAttr<Sched_Dialect, enumInfo, name> {
  let cppNamespace = "::loom::sched";
}
def Sched_CollectiveKindAttr : Sched_EnumAttr<Loom_CollectiveKind, "collective">;
def Sched_MemoryKindAttr : Sched_EnumAttr<Loom_MemoryKind, "memory">;

// The loom dialect's #loom.target (its ODS is not included, so that its
// enums are not generated again here).
def Sched_TargetAttr : Attr<CPred<"::llvm::isa<::loom::TargetAttr>($_self)">,
                            "#loom.target"> {
  let storageType = "::loom::TargetAttr";
  let returnType = "::loom::TargetAttr";
  let convertFromStorage = "$_self";
}

class Sched_Op<string mnemonic, list<Trait> traits = []>
    : Op<Sched_Dialect, mnemonic, traits>;

def Sched_ProgramOp : Sched_Op<"program", [NoTerminator, SingleBlock,
    IsolatedFromAbove]> {
  let summary = "The programs of all chips of a slice";
  let description = [{
    Holds one `sched.chip` per chip with work. Verifies the program as a
    whole with the schedule checker that the schedule file reader and
    loom-sim share (loom/Schedule/Check.h): chip ids and peers inside the
    target's topology, every send matched by one receive of the same bytes,
    every collective present on each chip of its group with the same kind,
    group and bytes, each allocation freed at most once, each host store
    loaded back at most once with its bytes (and only on a target that gives
    the host link's figures), and no cycle through dependencies, messages,
    collectives and each chip's in-order TensorCore.

    ```mlir
    sched.program {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
      sched.chip 0 {
        %w = sched.alloc weights 1048576 "layer0"
        %c = sched.compute "layer0.q" {bytes = 4096, flops = 65536, layer = 0, op = "loom.linear", slice = 0}
        %s = sched.send to 1 deps(%c) {bytes = 4096, tag = 0}
      }
      ...
    }
    ```
  }];
  let arguments = (ins Sched_TargetAttr:$target);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "attr-dict-with-keyword $body";
  let hasRegionVerifier = 1;
}

def Sched_ChipOp : Sched_Op<"chip", [NoTerminator, SingleBlock,
    HasParent<"ProgramOp">]> {
  let summary = "What one chip runs, in order";
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$id);
  let regions = (region SizedRegion<1>:$body);
  let assemblyFormat = "$id attr-dict-with-keyword $body";
}

class Sched_TaskOp<string mnemonic, list<Trait> traits = []>
    : Sched_Op<mnemonic, !listconcat(traits, [HasParent<"ChipOp">])> {
  let results = (outs Sched_TokenType:$done);
}

def Sched_ComputeOp : Sched_TaskOp<"compute"> {
  let summary = "Work on the TensorCore";
  let description = [{
    `flops` and HBM `bytes` of one loom `op` of `layer` (-1 outside the
    layers) on `slice` (a token slice or a PipeFusion patch; `step` for
    diffusion steps). Compute tasks of a chip run one at a time, in order.
    `bits` is the element width it computes in: 8 runs at the MXU's int8
    rate (int8 x int8 matmuls), otherwise the bf16 rate. `vector_ops` is
    its elementwise work on the vector unit (VPU), priced beside the MXU's
    FLOPs; `steps` the kernel's grid steps (flash attention's blocks), each
    paying the target's kernel step.
  }];
  let arguments = (ins StrAttr:$name, Variadic<Sched_TokenType>:$deps,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$flops,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$bytes,
                       StrAttr:$op,
                       ConfinedAttr<I64Attr, [IntMinValue<-1>]>:$layer,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$slice,
                       DefaultValuedAttr<ConfinedAttr<I64Attr, [IntNonNegative]>,
                                         "0">:$step,
                       DefaultValuedAttr<ConfinedAttr<I64Attr, [IntPositive]>,
                                         "16">:$bits,
                       DefaultValuedAttr<ConfinedAttr<I64Attr, [IntNonNegative]>,
                                         "0">:$vector_ops,
                       DefaultValuedAttr<ConfinedAttr<I64Attr, [IntPositive]>,
                                         "1">:$steps);
  let assemblyFormat = "$name (`deps` `(` $deps^ `)`)? attr-dict";
}

def Sched_SendOp : Sched_TaskOp<"send"> {
  let summary = "Send bytes to a peer chip";
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$to,
                       Variadic<Sched_TokenType>:$deps,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$bytes,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$tag);
  let assemblyFormat = "`to` $to (`deps` `(` $deps^ `)`)? attr-dict";
}

def Sched_RecvOp : Sched_TaskOp<"recv"> {
  let summary = "Receive bytes from a peer chip";
  let description = [{ Done when the matching send's bytes have arrived. }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$from,
                       Variadic<Sched_TokenType>:$deps,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$bytes,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$tag);
  let assemblyFormat = "`from` $from (`deps` `(` $deps^ `)`)? attr-dict";
}

def Sched_CollectiveStartOp : Sched_TaskOp<"collective_start"> {
  let summary = "Start this chip's part in a collective over a group";
  let description = [{
    An asynchronous collective: it starts when `deps` are done and every
    chip of `group` has started it, and runs on the ICI links beside the
    TensorCore, which goes on with the compute tasks after it. Its token
    is done when the collective is; the `sched.collective_done` that takes
    it is where its result is there for the tasks that use it (as XLA's
    all-reduce-start / all-reduce-done).

    `bytes` as the cost model counts them: the whole gathered array for an
    all-gather, the reduced input for a reduce-scatter or all-reduce, the
    bytes each chip holds for an all-to-all. Every chip of `group` has a
    collective with the same `tag`.
  }];
  let arguments = (ins Sched_CollectiveKindAttr:$kind,
                       Variadic<Sched_TokenType>:$deps,
                       DenseI64ArrayAttr:$group,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$bytes,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$tag);
  let assemblyFormat = "`` $kind (`deps` `(` $deps^ `)`)? attr-dict";
}

def Sched_CollectiveDoneOp : Sched_TaskOp<"collective_done"> {
  let summary = "The end of an asynchronous collective";
  let description = [{
    Done when the `sched.collective_start` whose token it takes (a use, so
    a dependency) and `deps` are done; it takes no time and does not hold
    the TensorCore. Each start has exactly one done, on its chip.
  }];
  let arguments = (ins Sched_TokenType:$start,
                       Variadic<Sched_TokenType>:$deps);
  let assemblyFormat = "$start (`deps` `(` $deps^ `)`)? attr-dict";
}

def Sched_AllocOp : Sched_TaskOp<"alloc"> {
  let summary = "Reserve HBM";
  let arguments = (ins Sched_MemoryKindAttr:$what,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$bytes,
                       StrAttr:$name, Variadic<Sched_TokenType>:$deps);
  let assemblyFormat = "`` $what $bytes $name (`deps` `(` $deps^ `)`)? attr-dict";
}

def Sched_FreeOp : Sched_TaskOp<"free"> {
  let summary = "Release an allocation";
  let description = [{
    Runs after the `sched.alloc` whose token it frees (a use, so a
    dependency) and after `deps`; each allocation is freed at most once.
  }];
  let arguments = (ins Sched_TokenType:$allocation,
                       Variadic<Sched_TokenType>:$deps);
  let assemblyFormat = "$allocation (`deps` `(` $deps^ `)`)? attr-dict";
}

def Sched_HostStoreOp : Sched_TaskOp<"host_store"> {
  let summary = "Copy bytes from HBM to the host's memory";
  let description = [{
    Offloads `bytes` (saved activations, say) over the chip's link to its
    host, on the chip's host DMA engine that copies to the host: transfers
    run one at a time, in the order they became ready, beside the
    TensorCore. The bytes are in the host's memory from when it is done
    until the `sched.host_load` that takes its token is. `name` (optional)
    names the bytes in traces.

    ```mlir
    %s = sched.host_store 4194304 "layer0.qkv" deps(%c)
    %l = sched.host_load %s 4194304 "layer0.qkv" deps(%b)
    ```
  }];
  let arguments = (ins ConfinedAttr<I64Attr, [IntNonNegative]>:$bytes,
                       DefaultValuedStrAttr<StrAttr, "">:$name,
                       Variadic<Sched_TokenType>:$deps);
  let assemblyFormat = "$bytes ($name^)? (`deps` `(` $deps^ `)`)? attr-dict";
}

def Sched_HostLoadOp : Sched_TaskOp<"host_load"> {
  let summary = "Copy a host store's bytes back to HBM";
  let description = [{
    Runs after the `sched.host_store` whose token it takes (a use, so a
    dependency) and after `deps`, on the chip's host DMA engine that copies
    from the host, and frees the store's bytes in the host's memory when it
    is done. `bytes` are the store's; each store is loaded back at most
    once.
  }];
  let arguments = (ins Sched_TokenType:$store,
                       ConfinedAttr<I64Attr, [IntNonNegative]>:$bytes,
                       DefaultValuedStrAttr<StrAttr, "">:$name,
                       Variadic<Sched_TokenType>:$deps);
  let assemblyFormat =
      "$store $bytes ($name^)? (`deps` `(` $deps^ `)`)? attr-dict";
}

#endif // SCHED_OPS_TD
