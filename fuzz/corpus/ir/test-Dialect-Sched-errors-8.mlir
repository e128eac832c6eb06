

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    %c = sched.compute "x" {flops = 1, bytes = 1, op = "loom.add", layer = 0, slice = 0}
    // expected-error @+1 {{'sched.free' op frees task 0, which is not an earlier alloc task of its chip}}
    %f = sched.free %c
  }
}

