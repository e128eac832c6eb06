// RUN: loom-opt %s -split-input-file -verify-diagnostics

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    // expected-error @+1 {{'sched.send' op chip 1 never receives tag 7 from chip 0}}
    %s = sched.send to 1 {bytes = 64, tag = 7}
  }
  sched.chip 1 {
  }
}

// -----

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 1 {
    // expected-error @+1 {{'sched.recv' op chip 0 never sends tag 3 to chip 1}}
    %r = sched.recv from 0 {bytes = 64, tag = 3}
  }
}

// -----

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    %s = sched.send to 1 {bytes = 64, tag = 0}
  }
  sched.chip 1 {
    // expected-error @+1 {{'sched.recv' op receives 32 bytes but the send carries 64}}
    %r = sched.recv from 0 {bytes = 32, tag = 0}
  }
}

// -----

// Each chip waits for the other's message before sending its own.
// expected-error @+1 {{'sched.program' op has a dependency cycle; blocked tasks: chip 0 task 0 (recv from 1, tag 1); chip 0 task 1 (send to 1, tag 0); chip 1 task 0 (recv from 0, tag 0); chip 1 task 1 (send to 0, tag 1)}}
sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    %r = sched.recv from 1 {bytes = 8, tag = 1}
    %s = sched.send to 1 deps(%r) {bytes = 8, tag = 0}
  }
  sched.chip 1 {
    %r = sched.recv from 0 {bytes = 8, tag = 0}
    %s = sched.send to 0 deps(%r) {bytes = 8, tag = 1}
  }
}

// -----

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  // expected-error @+1 {{'sched.chip' op chip 4 is outside v5e-4, which has 4 chips}}
  sched.chip 4 {
  }
}

// -----

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    // expected-error @+1 {{'sched.collective_start' op collective tag 5: chip 1 of its group has no task with this tag}}
    %r = sched.collective_start all_reduce {group = array<i64: 0, 1>, bytes = 64, tag = 5}
    %rd = sched.collective_done %r
  }
}

// -----

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    %r = sched.collective_start all_reduce {group = array<i64: 0, 1>, bytes = 64, tag = 5}
    %rd = sched.collective_done %r
  }
  sched.chip 1 {
    // expected-error @+1 {{'sched.collective_start' op disagrees with chip 0 on the kind, group or bytes of collective tag 5}}
    %r = sched.collective_start all_reduce {group = array<i64: 0, 1>, bytes = 32, tag = 5}
    %rd = sched.collective_done %r
  }
}

// -----

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    // expected-error @+1 {{'sched.collective_start' op group member 9 is outside v5e-4, which has 4 chips}}
    %r = sched.collective_start all_gather {group = array<i64: 0, 9>, bytes = 64, tag = 5}
    %rd = sched.collective_done %r
  }
}

// -----

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    %c = sched.compute "x" {flops = 1, bytes = 1, op = "loom.add", layer = 0, slice = 0}
    // expected-error @+1 {{'sched.free' op frees task 0, which is not an earlier alloc task of its chip}}
    %f = sched.free %c
  }
}

// -----

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    // expected-error @+1 {{'sched.send' op peer chip 0 must be another chip of v5e-4}}
    %s = sched.send to 0 {bytes = 1, tag = 0}
  }
}

// -----

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    %a = sched.alloc weights 64 "w"
    %f = sched.free %a
    // expected-error @+1 {{'sched.free' op task 0 was already freed by task 1}}
    %g = sched.free %a deps(%f)
  }
}

// -----

// The schedule file's ranges (docs/schedule-format.md): a layer is -1 or
// more, a slice and a step 0 or more, so the writer never emits a file the
// reader refuses.
sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    // expected-error @+1 {{attribute 'layer' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is -1}}
    %c = sched.compute "x" {flops = 1, bytes = 1, op = "loom.add", layer = -5, slice = 0}
  }
}

// -----

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    // expected-error @+1 {{attribute 'step' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
    %c = sched.compute "x" {flops = 1, bytes = 1, op = "loom.add", layer = 0, slice = 0, step = -1}
  }
}

// -----

// A collective's done ends an earlier collective_start of its chip, once;
// every start has its done (docs/schedule-format.md, version 2).
sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    %c = sched.compute "x" {flops = 1, bytes = 1, op = "loom.add", layer = 0, slice = 0}
    // expected-error @+1 {{'sched.collective_done' op ends task 0, which is not an earlier collective_start task of its chip}}
    %d = sched.collective_done %c
  }
}

// -----

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    %r = sched.collective_start all_reduce {group = array<i64: 0, 1>, bytes = 64, tag = 5}
    %d = sched.collective_done %r
    // expected-error @+1 {{'sched.collective_done' op task 0 was already done by task 1}}
    %e = sched.collective_done %r deps(%d)
  }
  sched.chip 1 {
    %r = sched.collective_start all_reduce {group = array<i64: 0, 1>, bytes = 64, tag = 5}
    %d = sched.collective_done %r
  }
}

// -----

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    // expected-error @+1 {{'sched.collective_start' op collective_start has no collective_done: every start of an asynchronous collective needs one}}
    %r = sched.collective_start all_reduce {group = array<i64: 0, 1>, bytes = 64, tag = 5}
  }
  sched.chip 1 {
    %r = sched.collective_start all_reduce {group = array<i64: 0, 1>, bytes = 64, tag = 5}
    %d = sched.collective_done %r
  }
}

// -----

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    %a = sched.alloc activations 64 "x"
    // expected-error @+1 {{'sched.host_load' op loads back task 0, which is not an earlier host_store task of its chip}}
    %l = sched.host_load %a 64
  }
}

// -----

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    %s = sched.host_store 64 "x"
    %l = sched.host_load %s 64 "x"
    // expected-error @+1 {{'sched.host_load' op task 0 was already loaded back by task 1}}
    %m = sched.host_load %s 64 "x" deps(%l)
  }
}

// -----

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    %s = sched.host_store 64
    // expected-error @+1 {{'sched.host_load' op loads 32 bytes back but its host_store (task 0) stored 64}}
    %l = sched.host_load %s 32
  }
}

// -----

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    // expected-error @+1 {{'sched.host_store' op attribute 'bytes' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
    %s = sched.host_store -8
  }
}

// -----

// Figures of a target that gives no host link: no host transfer can run.
sched.program attributes {target = #loom.target<"my-chip", shape = [2, 2], wrap_axes = [], chip = #loom.chip<peak_bf16 = 1.97e+14, peak_int8 = 3.94e+14, mxu_tile = 128, mxu_efficiency = 0.9, hbm_capacity = 1.6e+10, hbm_bandwidth = 8.192e+11, hbm_efficiency = 0.9>, ici = #loom.ici<link_bandwidth = 4.5e+10, hop_latency = 1.0e-06>>} {
  sched.chip 0 {
    // expected-error @+1 {{'sched.host_store' op host_store moves data over the chip's host link, but the target gives no host link figures (host_bandwidth and host_memory)}}
    %s = sched.host_store 64 "x"
    %l = sched.host_load %s 64 "x"
  }
}
