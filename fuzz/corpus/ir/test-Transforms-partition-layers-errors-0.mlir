// Requests loom-partition-layers refuses, on hand-written models.
// RUN: loom-opt %s -split-input-file -verify-diagnostics --loom-partition-layers=stages=2
// RUN: not loom-opt %s -split-input-file --loom-partition-layers=stages=0 2>&1 | FileCheck %s --check-prefix=ZERO
// RUN: not loom-opt %s -split-input-file "--loom-partition-layers=stages=1 data-parallel=0" 2>&1 | FileCheck %s --check-prefix=ZERODP
// A product past 64 bits saturates rather than wrapping to a count that
// fits (F2).
// RUN: not loom-opt %s -split-input-file "--loom-partition-layers=stages=1 data-parallel=4611686018427387904" 2>&1 | FileCheck %s --check-prefix=HUGEDP
// Replicas of tp x stages chips must tile the topology, or the lowering
// cannot lay them out: refused when the stages are cut, with the counts
// that work.
// RUN: not loom-opt %s -split-input-file --loom-partition-layers=stages=3 2>&1 | FileCheck %s --check-prefix=TILE

// ZERO: error: stages and data-parallel must be at least 1, got 0 and 1
// ZERODP: error: stages and data-parallel must be at least 1, got 1 and 0
// HUGEDP: error: tensor-parallel 2 x stages 1 x data-parallel 4611686018427387904 = 2^63 or more chips, but v5e-4 has 4
// TILE: error: tensor-parallel 1 x stages 3 = 3 chips per replica does not divide v5e-16's 16, which replicas tile; stage counts that do with tp 1: 1, 2, 4, 8, 16

// expected-error @+1 {{loom-partition-layers needs a target: run loom-set-target first (e.g. --loom-set-target=topology=v5e-16), or import with --target}}
module {
}

