

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    // expected-error @+1 {{'sched.collective_start' op collective tag 5: chip 1 of its group has no task with this tag}}
    %r = sched.collective_start all_reduce {group = array<i64: 0, 1>, bytes = 64, tag = 5}
    %rd = sched.collective_done %r
  }
}

