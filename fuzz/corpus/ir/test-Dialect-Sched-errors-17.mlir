

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    %s = sched.host_store 64 "x"
    %l = sched.host_load %s 64 "x"
    // expected-error @+1 {{'sched.host_load' op task 0 was already loaded back by task 1}}
    %m = sched.host_load %s 64 "x" deps(%l)
  }
}

