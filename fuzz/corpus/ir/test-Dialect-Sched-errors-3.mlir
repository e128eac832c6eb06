

// Each chip waits for the other's message before sending its own.
// expected-error @+1 {{'sched.program' op has a dependency cycle; blocked tasks: chip 0 task 0 (recv from 1, tag 1); chip 0 task 1 (send to 1, tag 0); chip 1 task 0 (recv from 0, tag 0); chip 1 task 1 (send to 0, tag 1)}}
sched.program attributes {target = #loom.target<"tpu-v5e", shape = [2, 2]>} {
  sched.chip 0 {
    %r = sched.recv from 1 {bytes = 8, tag = 1}
    %s = sched.send to 1 deps(%r) {bytes = 8, tag = 0}
  }
  sched.chip 1 {
    %r = sched.recv from 0 {bytes = 8, tag = 0}
    %s = sched.send to 0 deps(%r) {bytes = 8, tag = 1}
  }
}

