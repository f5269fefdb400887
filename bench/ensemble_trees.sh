#!/usr/bin/env bash
# Issue 37's ensemble throughput of several commits in one GPU call: builds the `silt` target of
# each tree (directories made by `git archive COMMIT`, e.g. under .snap/) in parallel with the
# flags of frame_rate_trees.sh, then runs bench/ensemble_swe_gpu.sh (64 x 1M cells, float64, one
# K per entry of KS) with each build in turn, ROUNDS times, the trees interleaved; with
# ENSEMBLE_MPM=1 also bench/ensemble_mpm_gpu.sh (256 x 32K particles, one K per entry of
# ENSEMBLE_MPM_KS, default 8). Each ensemble line
# comes with its member walls, the wall outside them, and the device blocks the members reused
# (trees from before the block cache print no such line), and once per tree the 1M-cell grid
# alone (`silt bench swe --sizes 1M`: one member's kernels, no set-up). Prints numbers, asserts
# nothing.
#   bash bench/ensemble_trees.sh ROUNDS KS TREE...     e.g. 1 "1 8" .snap/before .snap/after
set -uo pipefail
cd "$(dirname "$0")/.."
ROUNDS=$1
KS=$2
shift 2
source bench/build_trees.sh
build_trees "$@"
for r in $(seq 1 "$ROUNDS"); do
  for t in "$@"; do
    echo "== round $r, $t"
    # One member's grid alone, kernels only: the floor of a member's wall.
    [ "$r" = 1 ] && "$t/build-gpu/apps/silt/silt" bench swe --backend cuda --sizes 1M \
      --precision float64 2>&1 | grep -E "cell-upd|float64"
    bash bench/ensemble_swe_gpu.sh "$t/build-gpu" cuda "$KS" 64M 2>&1 |
      grep -E "^ensemble|^one silt run|member wall|device blocks|lowered|member pool"
    if [ "${ENSEMBLE_MPM:-0}" = 1 ]; then
      bash bench/ensemble_mpm_gpu.sh "$t/build-gpu" cuda 0.0015625 0.0001 0.05 "${ENSEMBLE_MPM_KS:-8}" 2>&1 |
        grep -E "^ensemble|^one silt run|member wall|device blocks|lowered|member pool"
    fi
  done
done 2>&1 | tee "$OUT/ensemble-trees.txt"
