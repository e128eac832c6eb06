# Sourced by the benchmark scripts (with their arguments): the tools'
# folder, a scratch folder removed on exit, and timing helpers.
bin=${1:-$here/../build}/bin
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { sort -n | sed -n 2p; }  # of three numbers on stdin
seconds() { # command...: prints its wall-clock seconds
  local start end
  start=$(date +%s.%N); "$@" >/dev/null; end=$(date +%s.%N)
  echo "$end - $start" | bc -l
}
