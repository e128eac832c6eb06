

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    // expected-error @+1 {{'sched.send' op peer chip 0 must be another chip of v5e-4}}
    %s = sched.send to 0 {bytes = 1, tag = 0}
  }
}

