

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 1 {
    // expected-error @+1 {{'sched.recv' op has no matching sched.send on chip 0 (tag 3)}}
    %r = sched.recv from 0 {bytes = 64, tag = 3}
  }
}

