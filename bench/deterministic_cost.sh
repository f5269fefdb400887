#!/usr/bin/env bash
# The cost of the deterministic mode (performance.deterministic: fixed-point P2G sums, issue 38):
# ms per step with the mode off and on, ROUNDS times interleaved, for the 370K fixed-corotated
# cube, falling sand at 1M and 12.6M (mpm_bench) and the fountain scene (silt run, frames without
# files), and a markdown table of the medians with the ratio on/off. Prints numbers, asserts
# nothing; record the table under bench/results/.
#   bash bench/deterministic_cost.sh [BUILD_DIR] [BACKEND] [ROUNDS]
#     defaults: build-gpu cuda 3; on the CPU: bash bench/deterministic_cost.sh build cpu 1
#   DET_SIZES: the sand sizes (default 1M,12.6M on cuda, 55K on cpu)
#   DET_FOUNTAIN: the fountain's --set options (default run.end_time=1.6, the paper table's)
#   OUT: where the table and raw logs go (default /tmp/silt-out/deterministic_cost)
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-gpu}
BACKEND=${2:-cuda}
ROUNDS=${3:-3}
OUT=${OUT:-/tmp/silt-out/deterministic_cost}
if [ "$BACKEND" = cpu ]; then SIZES=${DET_SIZES:-55K}; else SIZES=${DET_SIZES:-1M,12.6M}; fi
FOUNTAIN=${DET_FOUNTAIN:-run.end_time=1.6}
mkdir -p "$OUT"
RAW="$OUT/raw.txt"
: > "$RAW"
# One line per measurement into RAW: "case mode ms_per_step".
bench_case() {  # $1 mode (off|on)
  "$BUILD/bench/mpm_bench" --backend "$BACKEND" --case cube --deterministic "$1" > "$OUT/cube-$1.log" 2>&1
  awk -v m="$1" '/particles: .* ms\/step/ { for (i = 1; i <= NF; ++i) if ($(i+1) == "ms/step") print "cube", m, $i }' \
    "$OUT/cube-$1.log" >> "$RAW"
  "$BUILD/bench/mpm_bench" --backend "$BACKEND" --case sand --sizes "$SIZES" --deterministic "$1" \
    > "$OUT/sand-$1.log" 2>&1
  awk -v m="$1" '/^\[b\] falling sand/ { size = $4 } /particle-steps\/s/ { for (i = 1; i <= NF; ++i) if ($(i+1) == "ms/step") print "sand_" size, m, $i }' \
    "$OUT/sand-$1.log" >> "$RAW"
  local flag=""
  [ "$1" = on ] && flag=--deterministic
  local sets=()
  for s in $FOUNTAIN; do sets+=(--set "$s"); done
  rm -rf "$OUT/fountain-run"
  "$BUILD/apps/silt/silt" run scenes/mpm_fountain.json --backend "$BACKEND" --out "$OUT/fountain-run" \
    --set 'outputs.formats=[]' --set outputs.png=false "${sets[@]}" $flag > "$OUT/fountain-$1.log" 2>&1
  # Steps-weighted mean of the frames' ms/step.
  awk -v m="$1" '/^frame .* steps .* ms\/step/ { for (i = 1; i <= NF; ++i) { if ($i == "steps") n = $(i+1); if ($(i+1) == "ms/step") t = $i } s += n * t; c += n }
                 END { if (c > 0) print "fountain", m, s / c }' "$OUT/fountain-$1.log" >> "$RAW"
}
for r in $(seq 1 "$ROUNDS"); do
  bench_case off
  bench_case on
done
TABLE="$OUT/table.md"
{
  echo "| case | off: ms/step | on: ms/step | on / off |"
  echo "|---|---:|---:|---:|"
  awk '{ v[$1 " " $2] = v[$1 " " $2] " " $3; cases[$1] = 1 }
       function median(s,   a, n, i, j, t) {
         n = split(s, a, " ")
         for (i = 1; i <= n; ++i) for (j = i + 1; j <= n; ++j) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
         return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
       }
       END { for (c in cases) { off = median(v[c " off"]); on = median(v[c " on"])
               printf "| %s | %.4f | %.4f | %.3f |\n", c, off, on, (off > 0 ? on / off : 0) } }' "$RAW" | sort
} > "$TABLE"
echo "deterministic cost on $BACKEND ($ROUNDS rounds, medians; raw: $RAW)"
cat "$TABLE"
