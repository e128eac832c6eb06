// RUN: loom-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK: module attributes {loom.target = #loom.target<"tpu-v5e", shape = [16, 16]>}
module attributes {loom.target = #loom.target<"tpu-v5e", shape = [16, 16]>} {
}

