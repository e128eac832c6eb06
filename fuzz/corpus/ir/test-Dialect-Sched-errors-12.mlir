

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    // expected-error @+1 {{attribute 'step' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
    %c = sched.compute "x" {flops = 1, bytes = 1, op = "loom.add", layer = 0, slice = 0, step = -1}
  }
}

