

// The schedule file's ranges (docs/schedule-format.md): a layer is -1 or
// more, a slice and a step 0 or more, so the writer never emits a file the
// reader refuses.
sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    // expected-error @+1 {{attribute 'layer' failed to satisfy constraint: 64-bit signless integer attribute whose minimum value is -1}}
    %c = sched.compute "x" {flops = 1, bytes = 1, op = "loom.add", layer = -5, slice = 0}
  }
}

