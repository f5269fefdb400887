#!/usr/bin/env bash
# The cost of multi-field contact (scene key `contact`, issue 33): CPU ms per step of
#   jelly_on_sand   scenes/mpm_jelly_on_sand.json (24,100 particles) on the single grid ("off")
#                   and with contact between the cube and the bed ("on"), and
#   bed             a single-body scene (mpm_jelly_on_sand's sand bed alone, 22,400 particles),
#                   with this build ("off") and with BEFORE, a silt binary without the contact
#                   code ("before"), to check that the single grid's step did not change,
# ROUNDS times interleaved, and a markdown table of the medians. Prints numbers, asserts nothing;
# record the table under bench/results/.
#   OMP_WAIT_POLICY=passive bash bench/contact_cost.sh [BUILD_DIR] [ROUNDS]
#     defaults: build 5
#   BEFORE: a silt binary built without the contact code (default: none, no "before" rows)
#   END: the simulated time of each run, s (default 0.1: 6 frames, ~200 steps)
#   OUT: where the table and raw logs go (default /tmp/silt-out/contact_cost)
set -uo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build}
ROUNDS=${2:-5}
BEFORE=${BEFORE:-}
END=${END:-0.1}
OUT=${OUT:-/tmp/silt-out/contact_cost}
mkdir -p "$OUT"
RAW="$OUT/raw.txt"
: > "$RAW"
SCENE=scenes/mpm_jelly_on_sand.json
# One run: $1 case name, $2 mode, $3 silt binary, then --set options. Appends "case mode ms".
run_case() {
  local name=$1 mode=$2 bin=$3
  shift 3
  rm -rf "$OUT/run"
  "$bin" run "$SCENE" --backend cpu --out "$OUT/run" --set 'outputs.formats=[]' \
    --set outputs.png=false --set run.end_time="$END" "$@" > "$OUT/$name-$mode.log" 2>&1
  # Steps-weighted mean of the frames' ms/step.
  awk -v c="$name" -v m="$mode" '/^frame .* steps .* ms\/step/ { for (i = 1; i <= NF; ++i) { if ($i == "steps") n = $(i+1); if ($(i+1) == "ms/step") t = $i } s += n * t; k += n }
       END { if (k > 0) print c, m, s / k }' "$OUT/$name-$mode.log" >> "$RAW"
}
SILT="$BUILD/apps/silt/silt"
BED=(--set 'sources=[{"name":"bed","material":"sand","shape":"box","min":[0,0,0],"max":[0.4,0.14,0.4],"seed":1}]')
for r in $(seq 1 "$ROUNDS"); do
  run_case jelly_on_sand off "$SILT"
  run_case jelly_on_sand on "$SILT" --set 'contact.bodies=["cube","bed"]'
  run_case bed off "$SILT" "${BED[@]}"
  [ -n "$BEFORE" ] && run_case bed before "$BEFORE" "${BED[@]}"
done
TABLE="$OUT/table.md"
{
  echo "| case | mode | ms/step (median) | runs |"
  echo "|---|---|---:|---:|"
  awk '{ v[$1 " " $2] = v[$1 " " $2] " " $3 }
       function median(s,   a, n, i, j, t) {
         n = split(s, a, " ")
         for (i = 1; i <= n; ++i) for (j = i + 1; j <= n; ++j) if (a[j] + 0 < a[i] + 0) { t = a[i]; a[i] = a[j]; a[j] = t }
         return (n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2) " | " n
       }
       END { for (k in v) printf "| %s | %s |\n", k, median(v[k]) }' "$RAW" | sed 's/^| \([^ ]*\) \([^ ]*\) |/| \1 | \2 |/' | sort
} > "$TABLE"
echo "contact cost on the CPU ($ROUNDS rounds, medians; raw: $RAW)"
cat "$TABLE"
