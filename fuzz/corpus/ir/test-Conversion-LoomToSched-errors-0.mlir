// What convert-loom-to-sched refuses, each at the op or module that caused
// it; and the malformed plans the verifier keeps from it.
// RUN: loom-opt %s -split-input-file -verify-diagnostics --convert-loom-to-sched

// expected-error @+1 {{convert-loom-to-sched needs a target: run loom-set-target first (e.g. --loom-set-target=topology=v5e-16), or import with --target}}
module {
}

