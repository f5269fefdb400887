#!/usr/bin/env bash
# Issue 34's 20 G target in one GPU call, by bench/variants_gpu.sh: builds `silt` and the SWE test
# programs whose CUDA runs cover the MUSCL-Hancock kernel, runs those `ctest -L gpu` tests and
# times `silt bench swe --sizes 64M --muscl-hancock` in float32 and float64 for the tree as it is
# ("main") and for each PATCH applied in turn (its tests too). A patch of the tree before a change
# (`git diff NEW OLD -- files > old.patch`, carried under .snap/) times the old kernel in the same
# call. Stops starting variants LAST seconds into the call (default 420). Prints numbers, asserts
# nothing.
#   bash bench/hancock_variants_gpu.sh [PATCH...]
#   e.g. bash bench/hancock_variants_gpu.sh .snap/hancock-pre.patch .snap/hancock-variant.patch
cd "$(dirname "$0")/.." || exit 1
TARGETS="swe_hancock_test swe_order2_test swe_multi_test swe_solver_test" \
  TESTS="swe_hancock|swe_order2|swe_multi|swe_solver_test|swe_cross|swe_boundary_lines|swe_dry_inflow" \
  BENCH='for p in float32 float64; do
    timeout 40 {silt} bench swe --backend cuda --sizes 64M --precision $p --muscl-hancock 2>&1 |
      grep -E "^ +67108864"; done' \
  ROUNDS=${ROUNDS:-1} LAST=${LAST:-420} exec bash bench/variants_gpu.sh "$@"
