#!/usr/bin/env bash
# Variants of the tree in one GPU call, from one build dir (build-gpu, device_run.sh's flags).
# Builds `silt` and TARGETS for the tree as it is ("main") and copies `silt` aside; then for each
# PATCH in turn: touches the files it changes, applies it, rebuilds `silt`, TARGETS and VTARGETS
# (targets that only the variants have, e.g. a test a patch adds), runs `ctest -L gpu -R
# "$TESTS"` when TESTS is set (main's too, unless TESTS_MAIN=0), copies `silt` aside, takes the
# patch off and touches the files again. Then ROUNDS rounds (default 2) of BENCH, main and each
# variant alternating.
# BENCH: a command line, run with bash; {silt} is replaced by the variant's binary, {build} by a
# folder that holds it as apps/silt/silt (what bench/swe_real_run.sh takes as its build dir).
# A variant or a round not begun LAST seconds into the call (default 480) is skipped; BENCH_ONLY=1
# then runs the rounds alone on the same warm machine, from the binaries kept in $BINS.
# The touching: the device machine copies the tree with its files' own times, which are older
# than the objects a patch of an earlier call left in build-gpu; without it ninja relinks those.
# Prints numbers, asserts nothing; logs in $OUT (build-NAME.txt, ctest-NAME.txt).
#   TARGETS="swe_batch_test" VTARGETS="swe_dry_skip_test" TESTS="swe_batch|swe_dry_skip" \
#   BENCH='{silt} bench swe --backend cuda --sizes 64M --precision float64' \
#     bash bench/variants_gpu.sh bench/variants/dry-skip.patch bench/variants/dry-gate.patch
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
OUT=${OUT:-/tmp/silt-out}
BINS=${BINS:-/tmp/silt-variants}
mkdir -p "$OUT" "$BINS"
export LD_LIBRARY_PATH=/tmp/silt-deps/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
export NCCL_NVLS_ENABLE=0

# A variant is one patch or a stack A.patch+B.patch, applied in that order, all or none.
touch_files() {  # the files a variant's patches change, as they are now
  local part
  for part in ${1//+/ }; do
    grep '^+++ b/' "$part" | sed 's|^+++ b/||' | while read -r f; do [ -f "$f" ] && touch "$f"; done
  done
}
apply_variant() {  # apply_variant V: 0 when every part applied; else none stays applied
  local parts=(${1//+/ }) done_parts=() part k
  for part in "${parts[@]}"; do
    if ! patch -p1 -s -N --dry-run < "$part" > /dev/null; then
      for ((k = ${#done_parts[@]} - 1; k >= 0; k--)); do
        patch -R -p1 -s --no-backup-if-mismatch < "${done_parts[k]}"
      done
      return 1
    fi
    patch -p1 -s --no-backup-if-mismatch < "$part"
    done_parts+=("$part")
  done
}
revert_variant() {  # revert_variant V: its parts taken off in reverse order
  local parts=(${1//+/ }) k
  for ((k = ${#parts[@]} - 1; k >= 0; k--)); do
    patch -R -p1 -s --no-backup-if-mismatch < "${parts[k]}"
  done
}
keep() {  # keep NAME: this build's silt under $BINS/NAME/apps/silt
  mkdir -p "$BINS/$1/apps/silt" && cp build-gpu/apps/silt/silt "$BINS/$1/apps/silt/silt"
}
tests() {  # tests NAME (TESTS_MAIN=0: not for main)
  [ -n "${TESTS:-}" ] || return 0
  [ "$1" = main ] && [ "${TESTS_MAIN:-1}" = 0 ] && return 0
  (cd build-gpu && timeout 300 ctest -L gpu --timeout 200 --output-on-failure -R "$TESTS") \
    > "$OUT/ctest-$1.txt" 2>&1
  grep -E "Test +#|tests passed" "$OUT/ctest-$1.txt" | sed "s|^|$1: |"
}

variant_name() {  # variant_name V: A+B for A.patch+B.patch
  local part
  for part in ${1//+/ }; do basename "$part" .patch; done | paste -sd+
}
# BENCH_ONLY=1: no build and no test, BENCH's rounds over the binaries an earlier call of this
# script left in $BINS on this (warm) machine, main's and each named variant's that it holds.
if [ "${BENCH_ONLY:-0}" = 1 ]; then
  names=(main)
  for p in "$@"; do
    name=$(variant_name "$p")
    if [ -x "$BINS/$name/apps/silt/silt" ]; then names+=("$name"); else echo "$name: not built"; fi
  done
fi

build_variants() {  # main and each variant: built, tested, kept in $BINS (names: those built)
  for p in "$@"; do touch_files "$p"; done
  BUILD_TARGETS="silt ${TARGETS:-}" bash bench/device_run.sh build > "$OUT/build-main.txt" 2>&1
  tail -1 "$OUT/build-main.txt"
  echo "[$SECONDS s] main built"
  keep main
  tests main
  names=(main)
  for p in "$@"; do
    name=$(variant_name "$p")
    if [ "$SECONDS" -gt "${LAST:-480}" ]; then echo "$name skipped at $SECONDS s"; continue; fi
    touch_files "$p"
    if apply_variant "$p"; then
      if cmake --build build-gpu --target silt ${TARGETS:-} ${VTARGETS:-} \
        > "$OUT/build-$name.txt" 2>&1; then
        keep "$name"
        names+=("$name")
        tests "$name"
      else
        echo "$name: build failed (build-$name.txt)"
        tail -20 "$OUT/build-$name.txt"
      fi
      revert_variant "$p"
      touch_files "$p"
    else
      echo "$name: does not apply"
    fi
    echo "[$SECONDS s] $name done"
  done
  # The tree as it was, for a later call on this machine.
  if [ $# -gt 0 ]; then
    cmake --build build-gpu --target silt ${TARGETS:-} > "$OUT/build-main-again.txt" 2>&1
  fi
}
[ "${BENCH_ONLY:-0}" = 1 ] || build_variants "$@"

[ -n "${BENCH:-}" ] || exit 0
for r in $(seq 1 "${ROUNDS:-2}"); do
  for name in "${names[@]}"; do
    if [ "$SECONDS" -gt "${LAST:-480}" ]; then echo "round $r of $name skipped at $SECONDS s"; continue; fi
    cmd=${BENCH//\{silt\}/$BINS/$name/apps/silt/silt}
    cmd=${cmd//\{build\}/$BINS/$name}
    echo "== $name, round $r"
    bash -c "$cmd" 2>&1 | tail -n "${BENCH_LINES:-3}"
  done
done
echo "[$SECONDS s] done"
