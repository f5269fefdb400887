#!/usr/bin/env bash
# What the flood ensemble's process spends after its last exit handler (issue 37: 0.31-0.41 s
# against 0.13-0.17 s for a 64M-cell run of the same work on an H100, not the block caches:
# bench/results/ensemble-teardown-2026-12-07c-h100.md): the same scene's ensemble with 16
# members one at a time (K = 1) and 8 at once, and 64 members 8 at once, and the 64M run, each
# stamped by bench/exit_times.c. The end growing from 16 to 64 members points at what members
# leave behind; from K = 1 to 8, at the worker threads. Prints numbers, asserts nothing.
#   bash bench/ensemble_end.sh SILT [ROUNDS]
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
silt=${1:?usage: bash bench/ensemble_end.sh SILT [ROUNDS]}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
gcc -O2 -shared -fPIC bench/exit_times.c -o "$work/libexittimes.so" -ldl
sed 's/"count": 64/"count": 16/' scenes/dam_break_1m_ensemble.json > "$work/ens16.json"
grid=(--backend cuda --set grid.nx=1000 --set grid.ny=1000 --set grid.dx=1)
big=(--backend cuda --set grid.nx=8000 --set grid.ny=8000 --set grid.dx=0.125
  --set run.end_time=7.5 --set run.output_interval=7.5 --set manning=0.0315)
one() {  # one NAME ARGS...: a whole process, its wall and its end after the last exit handler
  local name=$1 t0 t1 last
  shift
  t0=$(date +%s.%N)
  LD_PRELOAD="$work/libexittimes.so" "$silt" run scenes/dam_break_1m.json "$@" \
    --out "$work/$name" > "$work/$name.log" 2>&1
  t1=$(date +%s.%N)
  last=$(awk '/^exit_times .* last exit handler/ {print $2}' "$work/$name.log" | tail -n 1)
  awk -v n="$name" -v a="$t0" -v b="$t1" -v l="${last:-0}" \
    'BEGIN { printf "%-12s wall %.3f s, after the last exit handler %.3f s\n", n, b - a, (l > 0 ? b - l : -1) }'
  grep -E "^ensemble phases|^device blocks" "$work/$name.log" | sed 's/^/    /'
}
for r in $(seq 1 "${2:-1}"); do
  one "m16-k1-$r" "${grid[@]}" --ensemble "$work/ens16.json" --members-at-once 1
  one "m16-k8-$r" "${grid[@]}" --ensemble "$work/ens16.json" --members-at-once 8
  one "m64-k8-$r" "${grid[@]}" --ensemble scenes/dam_break_1m_ensemble.json --members-at-once 8
  one "big-$r" "${big[@]}"
done
