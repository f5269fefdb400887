#!/usr/bin/env bash
# The paper's table (bench/paper_table.py --parts) with two trees on the GPU machine: builds the
# `silt` target of each (a directory made by `git archive COMMIT`, e.g. under .snap/, or `.`) in
# parallel with the flags of device_run.sh into TREE/build-trees, then runs every case with one
# part and two parts on GPU 0 with both binaries, alternated ROUNDS times (the before/after of a
# change in one call). Prints numbers, asserts nothing; results to record go to bench/results/.
#   bash bench/paper_table_trees.sh ROUNDS BASE_TREE NEW_TREE      (PAPER_CASES, default all)
# e.g. issue 33's two parts on one GPU (.snap/base = git archive b6f6ed3, carried as .snap):
#   bash bench/paper_table_trees.sh 2 .snap/base .
set -uo pipefail
cd "$(dirname "$0")/.."
ROUNDS=$1
BASE=$2
NEW=$3
OUT=${OUT:-/tmp/silt-out}
PFX=/tmp/silt-deps
mkdir -p "$OUT" $PFX
for f in .deps/*.deb; do dpkg -x "$f" $PFX; done
export LD_LIBRARY_PATH=$PFX/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
jobs=$(( $(nproc) / 2 ))
[ $jobs -lt 1 ] && jobs=1
for t in "$BASE" "$NEW"; do
  (cmake -S "$t" -B "$t/build-trees" -G Ninja -DCMAKE_BUILD_TYPE=Release \
     -DCMAKE_PREFIX_PATH=$PFX/usr -DSILT_ENABLE_GDAL=OFF -DSILT_ENABLE_MPI=OFF \
     -DSILT_BUILD_TESTS=OFF -DSILT_BUILD_BENCH=OFF &&
     cmake --build "$t/build-trees" -j $jobs --target silt) > "$OUT/build-$(basename "$(realpath "$t")").log" 2>&1 ||
    echo "build of $t failed" &
done
wait
python3 bench/paper_table.py --silt "$NEW/build-trees/apps/silt/silt" \
  --base "$BASE/build-trees/apps/silt/silt" --repeat "$ROUNDS" --parts \
  ${PAPER_CASES:+--cases "$PAPER_CASES"} 2>&1 | tee "$OUT/paper-table-trees.md"
