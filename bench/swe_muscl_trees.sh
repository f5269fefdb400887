#!/usr/bin/env bash
# Issue 34's muscl tile variants in one GPU call: builds the `silt` target of each tree
# (directories made by `git archive BRANCH`, e.g. under .snap/) in parallel with the flags of
# device_run.sh (bench/build_trees.sh), then runs the muscl bench (16M and 64M cells, float32
# and float64, tile kernels) with each build in turn, ROUNDS times, the trees interleaved; in the
# first round also the first order at 64M float32 (the reference of the target). ROUNDS 0 only
# builds (a call of its own when the builds and the runs do not fit one call's time). Each case
# times MUSCL_STEPS steps (default 200: 64M cells 2-6 s on an H200). MUSCL_TESTS=1 also builds
# and runs, per tree, the CUDA variants of the tests that compare the tiles with the plain phases
# (swe_order2_test, swe_solver_test: pass/fail lines). Prints numbers, asserts nothing; results
# to record go to bench/results/.
#   bash bench/swe_muscl_trees.sh ROUNDS TREE...    e.g. 2 .snap/main .snap/tile16 .snap/occ4
set -uo pipefail
cd "$(dirname "$0")/.."
ROUNDS=$1
shift
STEPS=${MUSCL_STEPS:-200}
source bench/build_trees.sh
build_trees "$@"
if [ "${MUSCL_TESTS:-0}" = 1 ]; then
  for t in "$@"; do
    b="$t/$TREE_BUILD"
    echo "== tests, $t"
    (cmake "$b" -DSILT_BUILD_TESTS=ON &&
      cmake --build "$b" -j "$(nproc)" --target swe_order2_test swe_solver_test) \
      > "$OUT/tests-build-$(basename "$(realpath "$t")").log" 2>&1 || echo "test build of $t failed"
    "$b/tests/verification/swe_order2_test" --backend=cuda 2>&1 | grep -E "^\[  (PASSED|FAILED) "
    "$b/tests/unit/swe_solver_test" --backend=cuda 2>&1 | grep -E "^\[  (PASSED|FAILED) "
  done 2>&1 | tee "$OUT/swe-muscl-trees-tests.txt"
fi
for r in $(seq 1 "$ROUNDS"); do
  for t in "$@"; do
    echo "== round $r, $t"
    silt="$t/$TREE_BUILD/apps/silt/silt"
    [ "$r" = 1 ] && "$silt" bench swe --backend cuda --sizes 64M --precision float32 \
      --steps "$STEPS" 2>&1 | grep -E "^ +[0-9]" | sed "s/^/first order: /"
    "$silt" bench swe --backend cuda --muscl --sizes 16M,64M --precision float32,float64 \
      --steps "$STEPS" 2>&1 | grep -E "scheme|^ +[0-9]"
  done
done 2>&1 | tee "$OUT/swe-muscl-trees.txt"
