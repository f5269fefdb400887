#!/usr/bin/env bash
# Issue 34's MUSCL-Hancock float32 tile kernel under Nsight Compute, one launch per binary after
# the benchmark's warm-up: duration, issue slots, achieved occupancy and its limiters, registers,
# shared memory per block, DRAM and L2, and the warp stall reasons (what keeps it from 20 G).
# For each NAME=SILT pair (e.g. main=/tmp/silt-variants/main/apps/silt/silt), the kernel of
# `SILT bench swe --backend cuda --sizes SIZE --precision float32 --muscl-hancock`. Prints the
# lines that matter; the whole report in $OUT/ncu-hancock-NAME.txt. Asserts nothing.
#   bash bench/ncu_hancock.sh main=build-gpu/apps/silt/silt xreg4=/tmp/silt-variants/...
set -uo pipefail
OUT=${OUT:-/tmp/silt-out}
SIZE=${SIZE:-16M}
mkdir -p "$OUT"
for pair in "$@"; do
  name=${pair%%=*}
  bin=${pair#*=}
  echo "== ncu hancock_tile_kernel: $name ($SIZE, float32)"
  timeout "${NCU_TIMEOUT:-100}" ncu --clock-control none --kernel-name-base demangled -k 'regex:hancock_tile_kernel' \
    --launch-skip 40 --launch-count 1 \
    --section SpeedOfLight --section Occupancy --section LaunchStats --section WarpStateStats \
    --section SchedulerStats --section MemoryWorkloadAnalysis \
    --metrics 'regex:smsp__average_warps_issue_stalled_.*_per_issue_active\.ratio' \
    "$bin" bench swe --backend cuda --sizes "$SIZE" --precision float32 --muscl-hancock \
    > "$OUT/ncu-hancock-$name.txt" 2>&1
  grep -E "Duration|Compute \(SM\) Throughput|Memory Throughput|DRAM Throughput|L2 Hit|Registers Per|Shared Memory Config|Dynamic Shared|Block Limit|Achieved Occupancy|Theoretical Occupancy|Issue Slots|Issued Warp|No Eligible|Active Warps Per|Eligible Warps|Warp Cycles Per Issued|Local Memory Spill" \
    "$OUT/ncu-hancock-$name.txt" | head -40
  # The largest stall reasons: warps stalled per issued instruction, by reason.
  grep -E "smsp__average_warps_issue_stalled_" "$OUT/ncu-hancock-$name.txt" |
    awk '{print $NF, $1}' | sort -rn | head -8
done
