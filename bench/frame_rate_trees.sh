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
OUT=${OUT:-/tmp/silt-out}
PFX=/tmp/silt-deps
mkdir -p "$OUT" $PFX
for f in .deps/*.deb; do dpkg -x "$f" $PFX; done
export LD_LIBRARY_PATH=$PFX/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
jobs=$(( $(nproc) / $# ))
[ $jobs -lt 1 ] && jobs=1
for t in "$@"; do
  (cmake -S "$t" -B "$t/build-gpu" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$PFX/usr \
     -DSILT_ENABLE_GDAL=OFF -DSILT_ENABLE_MPI=OFF -DSILT_BUILD_TESTS=OFF -DSILT_BUILD_BENCH=OFF &&
     cmake --build "$t/build-gpu" -j $jobs --target silt) > "$OUT/build-$(basename "$t").log" 2>&1 ||
    echo "build of $t failed" &
done
wait
for r in $(seq 1 "$ROUNDS"); do
  for t in "$@"; do
    echo "== round $r, $t"
    python3 bench/frame_rate.py --silt "$t/build-gpu/apps/silt/silt" --backend cuda \
      --cases "${FRAME_RATE_CASES:-dam_break}" --out /tmp/silt-frame-rate-trees 2>&1 |
      grep -E "^\| "
  done
done 2>&1 | tee "$OUT/frame-rate-trees.txt"
