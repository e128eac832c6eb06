#!/usr/bin/env bash
# Two builds' searches side by side: for a fixed set of searches (the
# slowest LLM, MoE and DiT searches of bench/search.sh, a small one and a
# batched one that tries data parallelism), the CPU seconds (user + sys)
# and peak RSS of each build's loom-plan, run alternately three times on
# one search thread (CPU time is steadier than wall time on a busy machine),
# the median of each and their ratio, and whether both print the same
# report (after a wording that changed: "busiest stage idle" was
# "pipeline bubble" on the predicted line).
# Usage: bench/search_compare.sh BASE-BUILD-DIR [NEW-BUILD-DIR]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
base=${1:?usage: bench/search_compare.sh BASE-BUILD-DIR [NEW-BUILD-DIR]}/bin/loom-plan
new=${2:-$here/../build}/bin/loom-plan
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cases=(
  "--model llama-65b --target v5e-256"
  "--model gpt3-175b --target v5e-256"
  "--model qwen3-30b-a3b --target v5e-256"
  "--model mixtral-8x7b --target v5e-256"
  "--model sd3-medium --target v5e-128"
  "--model llama-7b --target v5e-8"
  "--model dit-xl-2 --target v5e-64"
  "--model llama-65b --target v5e-64 --batch 64"
)
run() { # loom-plan, arguments...: "cpu-seconds peak-MB report-hash"
  /usr/bin/time -f "%U %S %M" -o "$tmp/time" "$@" --search-threads 1 \
    > "$tmp/out" 2>&1 || true
  local hash
  hash=$(sed 's/busiest stage idle/pipeline bubble/' "$tmp/out" | md5sum | cut -c1-8)
  awk -v h="$hash" '{printf "%.2f %d %s\n", $1 + $2, $3 / 1024, h}' "$tmp/time"
}
printf "%-45s %7s %7s %6s %8s %7s %s\n" search "base s" "new s" ratio \
  "base MB" "new MB" "same report"
for c in "${cases[@]}"; do
  b=() n=()
  for _ in 1 2 3; do
    read -r s bm bh < <(run "$base" $c); b+=("$s")
    read -r s nm nh < <(run "$new" $c); n+=("$s")
  done
  mb=$(printf "%s\n" "${b[@]}" | sort -n | sed -n 2p)
  mn=$(printf "%s\n" "${n[@]}" | sort -n | sed -n 2p)
  printf "%-45s %7s %7s %6.2f %8s %7s %s\n" "$c" "$mb" "$mn" \
    "$(echo "$mn / $mb" | bc -l)" "$bm" "$nm" "$([ "$bh" = "$nh" ] && echo yes || echo no)"
done
