

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    %s = sched.send to 1 {bytes = 64, tag = 0}
  }
  sched.chip 1 {
    // expected-error @+1 {{'sched.recv' op receives 32 bytes but the send carries 64}}
    %r = sched.recv from 0 {bytes = 32, tag = 0}
  }
}

