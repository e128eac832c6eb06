

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 1 {
    // expected-error @+1 {{'sched.recv' op chip 0 never sends tag 3 to chip 1}}
    %r = sched.recv from 0 {bytes = 64, tag = 3}
  }
}

