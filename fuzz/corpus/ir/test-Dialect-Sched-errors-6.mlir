

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

