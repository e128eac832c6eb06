# Sourced by the benchmark scripts: timing helpers.
median() { sort -n | sed -n 2p; }  # of three numbers on stdin
seconds() { # command...: prints its wall-clock seconds
  local start end
  start=$(date +%s.%N); "$@" >/dev/null; end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}
