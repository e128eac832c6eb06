

// expected-error @+1 {{loom-check-memory needs a target: run loom-set-target first (e.g. --loom-set-target=topology=v5e-16), or import with --target}}
module {
}
