// A user's target file, loaded with --target-file, names its own slices.
// RUN: loom-opt --target-file=%S/Inputs/my-tpu.json %s | FileCheck %s
// RUN: not loom-opt %s 2>&1 | FileCheck %s --check-prefix=UNLOADED
// RUN: not loom-opt --target-file=%S/Inputs/zero-peak.json %s 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not loom-opt --target-file=%S/Inputs/unknown-key.json %s 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not loom-opt --target-file=%S/Inputs/missing-key.json %s 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not loom-opt --target-file=%S/Inputs/no-such-file.json %s 2>&1 | FileCheck %s --check-prefix=NOFILE

// CHECK: loom.target = #loom.target<"my-tpu", shape = [2, 2]>
// UNLOADED: error: unknown target 'my-tpu' (known: tpu-v5e, tpu-v5p; --target-file loads another)
// ZERO: error: {{.*}}zero-peak.json: $.chip.peak_bf16.value: must be positive, got 0
// UNKNOWN: error: {{.*}}unknown-key.json: $.chip.turbo: unknown key
// MISSING: error: {{.*}}missing-key.json: $.efficiency.mxu_fraction: missing required key
// NOFILE: error: cannot read target file '{{.*}}no-such-file.json'
module attributes {loom.target = #loom.target<"my-tpu", shape = [2, 2]>} {
}
