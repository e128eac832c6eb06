// RUN: loom-opt %s -split-input-file -verify-diagnostics

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    // expected-error @+1 {{'sched.send' op chip 1 never receives tag 7 from chip 0}}
    %s = sched.send to 1 {bytes = 64, tag = 7}
  }
  sched.chip 1 {
  }
}

