

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

