

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    %a = sched.alloc weights 64 "w"
    %f = sched.free %a
    // expected-error @+1 {{'sched.free' op task 0 was already freed by task 1}}
    %g = sched.free %a deps(%f)
  }
}

