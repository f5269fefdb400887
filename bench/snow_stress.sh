#!/usr/bin/env bash
# Runs one scene many times and counts how each run ended (the paper-parameter snow blew up or
# stalled in 11 of 18 runs at 357d22a): a run that can fail now and then is judged by many runs.
#   bash bench/snow_stress.sh SILT N [SCENE] [TIMEOUT_S] [extra silt run args...]
# Prints one line per run (exit status, steps, wall seconds, the error if any) and a summary.
set -uo pipefail
silt=$1 n=$2 scene=${3:-scenes/mpm_snow_paper.json} limit=${4:-120}
shift 4 2>/dev/null || shift $#
ok=0 failed=0 stalled=0
tmp=$(mktemp -d)
for i in $(seq 1 "$n"); do
  start=$(date +%s%N)
  timeout "$limit" "$silt" run "$scene" --backend cuda --out "$tmp/run" --overwrite "$@" \
    > "$tmp/log" 2>&1
  rc=$?
  wall_ms=$((($(date +%s%N) - start) / 1000000))
  steps=$(grep -oE '[0-9]+ steps in' "$tmp/log" | grep -oE '^[0-9]+')
  err=$(grep -m1 "error" "$tmp/log"; grep -m1 -oE "steps in [0-9.]+ s wall \([0-9]+ steps/s\)" "$tmp/log")
  case $rc in
    0) ok=$((ok + 1)) ;;
    124) stalled=$((stalled + 1)) ;;
    *) failed=$((failed + 1)) ;;
  esac
  printf 'run %2d rc %3d steps %6s wall %6d ms %s\n' "$i" "$rc" "${steps:--}" "$wall_ms" "$err"
done
echo "summary: $n runs, $ok finished, $failed failed, $stalled stalled (killed after ${limit} s)"
rm -rf "$tmp"
