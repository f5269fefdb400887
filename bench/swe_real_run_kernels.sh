#!/usr/bin/env bash
# The masked real-terrain run of bench/swe_real_run.sh (issue 34 item 7: 15 G cell-updates/s per
# active cell at 2M active cells in float64) kernel by kernel: one run as the bench makes it (its
# scene and DEM in OUT), then ncu over a window of its launches (the solver steps with plain
# launches, no graphs): per NVTX label and block size, the launches, device time and mean grid
# (bench/ncu_kernel_table.py), and the sum per step against the step's wall from the run's frames.
# With FULL=1 also `ncu --set full` on LAUNCHES launches of the tile kernel (fused_update_kernel).
# Prints numbers, asserts nothing.
#   bash bench/swe_real_run_kernels.sh [BUILD_DIR] [DX_M] [END_S]   (defaults build-gpu 12.5 400)
#   NCU_SKIP, NCU_COUNT: the launch window (default 20000, 3000)
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-gpu}
DX=${2:-12.5}
END=${3:-400}
export OUT=${OUT:-/tmp/silt-out/swe_real_run}
bash bench/swe_real_run.sh "$BUILD" cuda "$DX" "$END"
scene="$OUT/scene_${DX}m.json"
csv="$OUT/ncu_${DX}m.csv"
timeout 300 ncu --clock-control none --metrics gpu__time_duration.sum --nvtx \
  --print-nvtx-rename kernel --launch-skip "${NCU_SKIP:-20000}" --launch-count "${NCU_COUNT:-3000}" \
  --csv --print-units base "$BUILD/apps/silt/silt" run "$scene" --backend cuda --overwrite \
  --out "$OUT/ncu_run" > "$csv" 2>&1
python3 bench/ncu_kernel_table.py "$csv" "$OUT/kernels_${DX}m.csv"
if [ "${FULL:-0}" = 1 ]; then
  timeout 300 ncu --set full --kernel-name regex:fused_update_kernel --launch-skip 200 \
    --launch-count "${LAUNCHES:-3}" "$BUILD/apps/silt/silt" run "$scene" --backend cuda \
    --overwrite --out "$OUT/ncu_full_run" > "$OUT/ncu_full_${DX}m.txt" 2>&1
  grep -E "Duration|Memory Throughput|DRAM Throughput|Achieved Occupancy|Registers Per|Issue Slots Busy|Executed Ipc|L1/TEX Hit|L2 Hit|Warp Cycles Per Issued|Stall" \
    "$OUT/ncu_full_${DX}m.txt" | head -60
fi
