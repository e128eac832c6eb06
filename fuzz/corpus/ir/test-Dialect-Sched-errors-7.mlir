

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    // expected-error @+1 {{'sched.collective_start' op group member 9 is outside v5e-4, which has 4 chips}}
    %r = sched.collective_start all_gather {group = array<i64: 0, 9>, bytes = 64, tag = 5}
    %rd = sched.collective_done %r
  }
}

