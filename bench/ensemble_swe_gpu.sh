#!/usr/bin/env bash
# The issue's flood ensemble target (issue 37): 64 members of a 1M-cell flood at >= 80 % of the
# cell-update rate of one 64M-cell run, on one GPU; 64 members one after another is the baseline.
# Runs
#   1. the ensemble scenes/dam_break_1m_ensemble.json over scenes/dam_break_1m.json (float64,
#      NX x NX cells) once for each K in KS (--members-at-once K; K = 1 is one after another), and
#      reports sum(steps) x cells / wall seconds of the whole ensemble run (scene parsing, set-up,
#      statistics and files included);
#   2. `silt bench swe --sizes BIG --precision float64` (one run, the same solver, kernels only)
#      and its M cell-upd/s, and one whole `silt run` of the scene at BIG_NX^2 cells (default
#      8000^2 = 64M; its process wall, as the ensemble's);
# and prints each K's rate over both. Prints numbers, asserts nothing.
# BATCH (default "default"): the --batch-members modes each K runs with, "on", "off" or both
# ("on off": the members of a GPU stepping together, one launch of the tile kernel a step, against
# members in flight each alone; docs/ensembles.md); "default": the run's own (on, on CUDA).
# CONNECTIONS (default "default"): the CUDA_DEVICE_MAX_CONNECTIONS values each K runs with
# ("default": unset, CUDA's 8), e.g. "default 32 4".
# Usage: bench/ensemble_swe_gpu.sh [build dir] [backend] [KS] [BIG] [NX] [DEVICES]
#   on a GPU:   bash bench/ensemble_swe_gpu.sh build-gpu cuda "1 4 8 16" 64M
#   batched or not: BATCH="on off" bash bench/ensemble_swe_gpu.sh build-gpu cuda "8 16" 64M
#   two GPUs:   bash bench/ensemble_swe_gpu.sh build-gpu cuda "16" 64M 1000 0,1
#   CPU smoke:  BIG_NX=256 bash bench/ensemble_swe_gpu.sh build cpu "1 2" 64K 100
set -euo pipefail
build=${1:-build-gpu}
backend=${2:-cuda}
ks=${3:-"1 8 16"}
big=${4:-64M}
nx=${5:-1000}
devices=${6:-0}
silt=$build/apps/silt/silt
dx=$(awk -v n="$nx" 'BEGIN { printf "%.10g", 1000 / n }')
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
"$silt" bench swe --backend "$backend" --devices "$devices" --sizes "$big" \
  --precision float64 2>&1 | tee "$out/big.log"
# The same large grid as a user runs it: one `silt run` of the member's scene at BIG_NX^2 cells
# (the same 1000 m basin; end time cut so that it takes about a member's steps), timed as a whole
# process like the ensemble (CUDA start, set-up, frames, files).
big_nx=${BIG_NX:-8000}
big_dx=$(awk -v n="$big_nx" 'BEGIN { printf "%.10g", 1000 / n }')
big_end=$(awk -v n="$big_nx" -v m="$nx" 'BEGIN { printf "%.10g", 60 * m / n }')
t0=$(date +%s.%N)
"$silt" run scenes/dam_break_1m.json --backend "$backend" --devices "$devices" \
  --set grid.nx=$big_nx --set grid.ny=$big_nx --set grid.dx=$big_dx \
  --set run.end_time=$big_end --set run.output_interval=$big_end --out "$out/big_run" \
  > "$out/big_run.log" 2>&1
big_wall=$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.3f", a - b }')
big_steps=$(grep -oE "[0-9]+ steps in" "$out/big_run.log" | tail -1 | cut -d' ' -f1)
big_run_rate=$(awk -v s="${big_steps:-0}" -v n="$big_nx" -v w="$big_wall" \
  'BEGIN { printf "%.6g", s * n * n / w }')
echo "one silt run of ${big_nx}^2 cells: ${big_steps:-?} steps in $big_wall s (whole process):" \
  "$(awk -v r="$big_run_rate" 'BEGIN { printf "%.1f", r / 1e6 }') M cell-upd/s"
for conn in ${CONNECTIONS:-default}; do
if [ "$conn" = default ]; then unset CUDA_DEVICE_MAX_CONNECTIONS; else export CUDA_DEVICE_MAX_CONNECTIONS=$conn; fi
[ "$conn" = default ] || echo "CUDA_DEVICE_MAX_CONNECTIONS=$conn"
for k in $ks; do
for mode in ${BATCH:-default}; do
  batch=()
  label=$k
  if [ "$mode" != default ]; then
    batch=(--batch-members "$mode")
    label="$k, --batch-members $mode"
  fi
  rm -rf "$out/k$k"
  t0=$(date +%s.%N)
  "$silt" run scenes/dam_break_1m.json --backend "$backend" --devices "$devices" \
    --set grid.nx=$nx --set grid.ny=$nx --set grid.dx=$dx \
    --ensemble scenes/dam_break_1m_ensemble.json --members-at-once "$k" "${batch[@]}" \
    --out "$out/k$k" 2>&1 | tee "$out/k$k.log" |
    grep -E "members at once|member after another|lowered|device blocks|member pool|members batched|members not batched|ensemble phases" || true
  wall=$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.3f", a - b }')
  /usr/bin/python3 - "$out/k$k/members.csv" "$wall" "$out/big.log" "$nx" "$label" "$big_run_rate" <<'PY'
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
wall, cells, k = float(sys.argv[2]), int(sys.argv[4]) ** 2, sys.argv[5]  # k: "K[, mode]"
updates = sum(int(r["steps"]) for r in rows) * cells
rate = updates / wall
line = (f"ensemble K = {k}: {len(rows)} members of {cells} cells, {updates:.4g} cell-updates "
        f"in {wall:.2f} s: {rate / 1e6:.1f} M cell-upd/s")
big, unit = None, 1e6
for l in open(sys.argv[3]):
    f = l.split()
    if "cell-upd/s" in f:  # the header names the rate's unit: "M cell-upd/s" or "G cell-upd/s"
        unit = {"M": 1e6, "G": 1e9}[f[f.index("cell-upd/s") - 1]]
    if len(f) >= 5 and f[0].isdigit() and f[1] == "float64":
        big = float(f[4]) * unit
if big:
    line += f"; one large run {big / 1e6:.1f} M cell-upd/s; ensemble / large = {rate / big:.2f} (target >= 0.80)"
if float(sys.argv[6]) > 0:
    line += f"; against the whole large silt run: {rate / float(sys.argv[6]):.2f}"
print(line)
# Where the wall goes: a member's own wall (set-up and frames, members.csv/measures.csv wall_s;
# its solver's teardown not included) and what the K workers spend outside their members.
ws = sorted(float(r["wall_s"]) for r in rows)
outside = float(sys.argv[2]) - sum(ws) / int(k.split(",")[0])
print(f"  member wall: median {ws[len(ws) // 2]:.3f} s, min {ws[0]:.3f}, max {ws[-1]:.3f}; "
      f"wall minus members' sum / K: {outside:.2f} s")
PY
  /usr/bin/python3 bench/member_times.py "$out/k$k.log" "$k"
done
done
done
