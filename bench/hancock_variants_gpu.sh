#!/usr/bin/env bash
# Issue 34's 20 G target in one GPU call: builds `silt` and the SWE test programs whose CUDA runs
# cover the MUSCL-Hancock kernel (device_run.sh's flags, build-gpu), runs those `ctest -L gpu`
# tests, times `silt bench swe --sizes 64M --muscl-hancock` in float32 and float64 for the tree as
# it is ("head"), then for each PATCH in turn: applies it, rebuilds only `silt` (~45 s: the
# variants touch the tile kernel's files), times it, and takes it back off. A patch of the tree
# before a change (`git diff NEW OLD -- files > old.patch`, carried under .snap/) times the old
# kernel in the same call. Stops starting variants LAST seconds into the call (default 420).
# Prints numbers, asserts nothing.
#   bash bench/hancock_variants_gpu.sh [PATCH...]
#   e.g. bash bench/hancock_variants_gpu.sh .snap/hancock-pre.patch .snap/hancock-variant.patch
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/silt-out}
mkdir -p "$OUT"
TESTS="swe_hancock_test swe_order2_test swe_multi_test swe_solver_test"
BUILD_TARGETS="silt $TESTS" bash bench/device_run.sh build > "$OUT/hancock-build.txt" 2>&1
tail -1 "$OUT/hancock-build.txt"
echo "built at $SECONDS s"
export LD_LIBRARY_PATH=/tmp/silt-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0
silt=build-gpu/apps/silt/silt
(cd build-gpu && timeout 60 ctest -L gpu --timeout 50 \
  -R "swe_hancock|swe_order2|swe_multi|swe_solver_test|swe_cross|swe_boundary_lines|swe_dry_inflow" \
  > "$OUT/hancock-ctest.txt" 2>&1)
grep -E "Test +#|tests passed|Failed|Not Run" "$OUT/hancock-ctest.txt"
timed() {
  local p
  for p in float32 float64; do
    timeout 40 "$silt" bench swe --backend cuda --sizes 64M --precision $p --muscl-hancock 2>&1 |
      grep -E "^ +67108864" | sed "s|^|$1 |"
  done
}
timed head
for patch in "$@"; do
  if [ "$SECONDS" -gt "${LAST:-420}" ]; then echo "$patch skipped at $SECONDS s"; continue; fi
  name=$(basename "$patch" .patch)
  patch -p1 -s < "$patch" &&
    cmake --build build-gpu --target silt > "$OUT/hancock-build-$name.txt" 2>&1 && timed "$name"
  patch -R -p1 -s < "$patch"
  echo "$name done at $SECONDS s"
done
