

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    %a = sched.alloc activations 64 "x"
    // expected-error @+1 {{'sched.host_load' op loads back task 0, which is not an earlier host_store task of its chip}}
    %l = sched.host_load %a 64
  }
}

