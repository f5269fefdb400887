#!/usr/bin/env bash
# The flood ensemble against one 64M-cell run of the same scene (issue 37's target), on a GPU:
# the 64 members of scenes/dam_break_1m_ensemble.json (1M cells each, float64, Manning 0 to
# 0.063, max_depth folded into the tile kernel) and one `silt run` of the same scene at 8000^2
# cells with the members' middle roughness (0.0315) and the same field (max_depth), so that both
# do the same work per cell-update (friction, the maximum's load). Per tree: ROUNDS rounds of each
# whole process (its wall, the ensemble's teardown stamped by bench/exit_times.c), then one run of
# each under bench/gpu_busy.c (kernels' union and per-kernel sums: the kernels' rate), then
# `silt bench swe --sizes 64M --precision float64` (the bench's rate, no maximum).
# Prints numbers, asserts nothing; logs and gpu_busy's tables in $OUT.
#   bash bench/ensemble_same_work.sh BUILD_DIR   (BUILD_DIR holds apps/silt/silt)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
silt=${1:-build-gpu}/apps/silt/silt
OUT=${OUT:-/tmp/silt-out}
mkdir -p "$OUT"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
C=/usr/local/cuda/targets/x86_64-linux
gcc -O2 -shared -fPIC bench/exit_times.c -o "$work/libexittimes.so" -ldl
gcc -O2 -shared -fPIC bench/gpu_busy.c -o "$work/libgpubusy.so" -I$C/include -L$C/lib -lcupti
ens=(scenes/dam_break_1m.json --backend cuda --set grid.nx=1000 --set grid.ny=1000
  --set grid.dx=1 --ensemble scenes/dam_break_1m_ensemble.json --members-at-once 16
  --batch-members off)
big=(scenes/dam_break_1m.json --backend cuda --set grid.nx=8000 --set grid.ny=8000
  --set grid.dx=0.125 --set run.end_time=7.5 --set run.output_interval=7.5 --set manning=0.0315)
timed() {  # timed NAME COMMAND...: one whole process, its wall and its last lines (the
  # preloads go on COMMAND through env, so that date and awk here run without them)
  local name=$1 t0 t1
  shift
  t0=$(date +%s.%N)
  "$@" --out "$work/$name" > "$OUT/$name.log" 2>&1
  t1=$(date +%s.%N)
  echo "$name: wall $(awk -v a="$t1" -v b="$t0" 'BEGIN { printf "%.3f", a - b }') s (ended $t1)"
  grep -E "^finished|ensemble phases" "$OUT/$name.log" | tail -n 2
  grep "^exit_times" "$OUT/$name.log" | tail -n 6
}
for r in $(seq 1 "${ROUNDS:-2}"); do
  timed "ens$r" env LD_PRELOAD="$work/libexittimes.so" "$silt" run "${ens[@]}"
  timed "big$r" "$silt" run "${big[@]}"
done
for name in ens big; do
  args=("${ens[@]}")
  [ "$name" = big ] && args=("${big[@]}")
  timed "busy-$name" env CUDA_INJECTION64_PATH="$work/libgpubusy.so" \
    LD_LIBRARY_PATH="$C/lib:${LD_LIBRARY_PATH:-}" GPU_BUSY="$OUT/busy-$name.txt" \
    GPU_BUSY_BUCKET_MS=100 "$silt" run "${args[@]}"
  grep -E "^gpu busy|^kernel " "$OUT/busy-$name.txt" | head -n 8
done
"$silt" bench swe --backend cuda --sizes 64M --precision float64 2>&1 | tail -n 3
