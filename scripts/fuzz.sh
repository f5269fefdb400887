#!/usr/bin/env bash
# Builds the libFuzzer targets of the readers (tests/fuzz: scene JSON of both solvers, ESRI ASCII,
# CSV series, OBJ) with clang, AddressSanitizer and UndefinedBehaviorSanitizer, and runs each for
# SECONDS on its seed corpus. CI runs it short (scripts/test.sh); docs/fuzzing.md has the long run.
#   scripts/fuzz.sh [SECONDS per target, default 20] [BUILD_DIR, default build-fuzz]
# Inputs found to crash, leak, hang or use too much memory are written to BUILD_DIR/findings/ and
# the script fails naming them; new interesting inputs go to BUILD_DIR/corpus/ (not the repo).
set -euo pipefail
cd "$(dirname "$0")/.."
secs=${1:-20}
build=${2:-build-fuzz}
cxx=${SILT_FUZZ_CXX:-clang++}
cmake -S . -B "$build" -G Ninja -DSILT_FUZZ=ON -DCMAKE_CXX_COMPILER="$cxx" \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" --target silt_fuzz
if [ "$secs" = 0 ]; then exit 0; fi  # build only (libFuzzer reads 0 as "no time limit")
mkdir -p "$build/findings"
failed=()
for t in swe_scene mpm_scene raster_ascii series_csv obj_mesh; do
  mkdir -p "$build/corpus/$t"
  seeds=("tests/fuzz/corpus/$t")
  extra=()
  case $t in
    swe_scene | mpm_scene)
      seeds+=(scenes)
      extra=(-dict=tests/fuzz/scene.dict)
      ;;
    raster_ascii | series_csv) seeds+=(scenes/data) ;;
  esac
  echo "fuzz: $t for ${secs}s"
  if ! "$build/tests/fuzz/fuzz_$t" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$build/findings/$t-" "${extra[@]}" \
    "$build/corpus/$t" "${seeds[@]}" >"$build/fuzz_$t.log" 2>&1; then
    failed+=("$t")
    tail -40 "$build/fuzz_$t.log"
  fi
  grep -E "^stat::number_of_executed_units|^stat::peak_rss_mb" "$build/fuzz_$t.log" | tr '\n' ' '
  echo
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz: findings in ${failed[*]}: $(ls "$build/findings")" >&2
  exit 1
fi
echo "fuzz: no findings"
