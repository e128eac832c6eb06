

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

