#!/usr/bin/env bash
# Paired `silt run` frame rates of several commits on the GPU machine: builds the `silt` target of
# each tree (directories made by `git archive COMMIT`, e.g. under .snap/) in parallel with the
# flags of device_run.sh, then runs bench/frame_rate.py with each build in turn, ROUNDS times,
# the trees interleaved, and prints every line. Prints numbers, asserts nothing; results to record
# go to bench/results/.
#   bash bench/frame_rate_trees.sh ROUNDS TREE...      (FRAME_RATE_CASES, default dam_break)
set -uo pipefail
cd "$(dirname "$0")/.."
ROUNDS=$1
shift
source bench/build_trees.sh
build_trees "$@"
for r in $(seq 1 "$ROUNDS"); do
  for t in "$@"; do
    echo "== round $r, $t"
    python3 bench/frame_rate.py --silt "$t/build-gpu/apps/silt/silt" --backend cuda \
      --cases "${FRAME_RATE_CASES:-dam_break}" --out /tmp/silt-frame-rate-trees 2>&1 |
      grep -E "^\| "
  done
done 2>&1 | tee "$OUT/frame-rate-trees.txt"
