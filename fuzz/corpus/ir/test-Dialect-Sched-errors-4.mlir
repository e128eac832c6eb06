

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  // expected-error @+1 {{'sched.chip' op chip 4 is outside v5e-4, which has 4 chips}}
  sched.chip 4 {
  }
}

