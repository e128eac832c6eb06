

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    %s = sched.host_store 64
    // expected-error @+1 {{'sched.host_load' op loads 32 bytes back but its host_store (task 0) stored 64}}
    %l = sched.host_load %s 32
  }
}

