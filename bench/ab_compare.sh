#!/usr/bin/env bash
# A/B speed check on the GPU machine: builds the tree in OLD_DIR (a `git archive` of an earlier
# commit) next to build-gpu (this tree, built by device_run.sh), then runs the same benchmarks
# with each build in turn, ROUNDS times, old and new interleaved, and prints every figure. Prints
# numbers, asserts nothing. Results to record go to bench/results/.
#   bash bench/ab_compare.sh OLD_DIR [ROUNDS]      (AB_SWE=0: the MPM cases only; AB_MPM=0: the
#                                                   shallow-water cases only, old build `silt` alone)
# AB_SWE_SIZES: the sizes of `silt bench swe` (default 16M,64M).
set -uo pipefail
cd "$(dirname "$0")/.."
OLD=$1
ROUNDS=${2:-2}
OUT=${OUT:-/tmp/silt-out}
PFX=/tmp/silt-deps
export LD_LIBRARY_PATH=$PFX/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
targets="silt mpm_bench"
[ "${AB_MPM:-1}" = 0 ] && targets=silt
cmake -S "$OLD" -B /tmp/ab-old -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$PFX/usr \
  -DSILT_ENABLE_GDAL=OFF -DSILT_ENABLE_MPI=OFF > "$OUT/ab-old-build.log" 2>&1 &&
  cmake --build /tmp/ab-old -j "$(nproc)" --target $targets >> "$OUT/ab-old-build.log" 2>&1 ||
  { echo "old build failed"; tail -20 "$OUT/ab-old-build.log"; exit 1; }
run_set() {  # $1: build dir
  if [ "${AB_MPM:-1}" != 0 ]; then
    "$1/bench/mpm_bench" --backend cuda --case cube
    "$1/bench/mpm_bench" --backend cuda --case sand --sizes 55K,1M,12.6M
  fi
  [ "${AB_SWE:-1}" = 0 ] ||
    "$1/apps/silt/silt" bench swe --backend cuda --sizes "${AB_SWE_SIZES:-16M,64M}"
}
for r in $(seq 1 "$ROUNDS"); do
  for side in old new; do
    dir=/tmp/ab-old
    [ $side = new ] && dir=build-gpu
    echo "== round $r, $side"
    run_set $dir 2>&1 | grep -E "particles:|float(32|64)"
  done
done 2>&1 | tee "$OUT/ab-compare.txt"
