

sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    // expected-error @+1 {{'sched.host_store' op attribute 'bytes' failed to satisfy constraint: 64-bit signless integer attribute whose value is non-negative}}
    %s = sched.host_store -8
  }
}

