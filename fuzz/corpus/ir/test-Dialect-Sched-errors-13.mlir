

// A collective's done ends an earlier collective_start of its chip, once;
// every start has its done (docs/schedule-format.md, version 2).
sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    %c = sched.compute "x" {flops = 1, bytes = 1, op = "loom.add", layer = 0, slice = 0}
    // expected-error @+1 {{'sched.collective_done' op ends task 0, which is not an earlier collective_start task of its chip}}
    %d = sched.collective_done %c
  }
}

