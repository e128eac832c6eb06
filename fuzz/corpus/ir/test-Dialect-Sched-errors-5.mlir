

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    // expected-error @+1 {{'sched.collective' op tag 5 runs on 1 chips but its group has 2}}
    %r = sched.collective all_reduce {group = array<i64: 0, 1>, bytes = 64, tag = 5}
  }
}

