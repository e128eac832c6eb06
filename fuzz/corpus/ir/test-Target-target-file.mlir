// A user's target file: loom-set-target materializes one of its topologies
// as a self-contained #loom.target, which later tools parse with no flag.
// RUN: loom-opt --loom-set-target="topology=my-2x2 file=%S/Inputs/my-tpu.json" %s | FileCheck %s
// RUN: loom-opt --loom-set-target="topology=my-2x2 file=%S/Inputs/my-tpu.json" %s | loom-opt | FileCheck %s
// RUN: loom-import llama-7b --seq 64 --target my-2x2 --target-file %S/Inputs/my-tpu.json | loom-opt --loom-shard-heads=tp=2 --loom-estimate | FileCheck %s --check-prefix=PLANNED
// RUN: not loom-opt --loom-set-target="topology=my-2x2 file=%S/Inputs/zero-peak.json" %s 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not loom-opt --loom-set-target="topology=my-2x2 file=%S/Inputs/unknown-key.json" %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not loom-opt --loom-set-target="topology=my-2x2 file=%S/Inputs/missing-key.json" %s 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not loom-opt --loom-set-target="topology=my-2x2 file=%S/Inputs/no-such-file.json" %s 2>&1 | FileCheck %s --check-prefix=NOFILE
// RUN: not loom-opt --loom-set-target="topology=v5e-16 file=%S/Inputs/my-tpu.json" %s 2>&1 | FileCheck %s --check-prefix=NOTOPOLOGY

// CHECK: loom.target = #loom.target<"my-tpu", topology = "my-2x2", shape = [2, 2], wrap_axes = [], chip = #loom.chip<
// PLANNED: loom.parallel = #loom.parallel<tp = 2>, loom.target = #loom.target<"my-tpu", topology = "my-2x2"
// PLANNED: loom.time_us
// ZERO: error: loom-set-target: {{.*}}zero-peak.json: $.chip.peak_bf16.value: must be positive, got 0
// UNKNOWN: error: loom-set-target: {{.*}}unknown-key.json: $.chip.turbo: unknown key
// MISSING: error: loom-set-target: {{.*}}missing-key.json: $.efficiency.mxu_fraction: missing required key
// NOFILE: error: loom-set-target: cannot read target file '{{.*}}no-such-file.json'
// NOTOPOLOGY: error: loom-set-target: target 'my-tpu' ({{.*}}my-tpu.json) has no topology 'v5e-16'; valid: my-2x2 (2x2)
module {
}
