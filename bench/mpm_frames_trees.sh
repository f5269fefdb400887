#!/usr/bin/env bash
# One MPM scene with `silt run` of several trees (built by bench/build_trees.sh, e.g. under .snap/),
# ROUNDS times interleaved, outputs off: per run the steps, rebuilds, mean active blocks and
# stepping seconds summed from the frame lines, and the finished line. Tells whether a slower run
# takes more steps or rebuilds, or the same ones slower (the fountain's +21%, issue 35). Prints
# numbers, asserts nothing.
#   bash bench/mpm_frames_trees.sh SCENE ROUNDS TREE...   (extra `silt run` arguments in SILT_ARGS;
#   SILT_BACKEND=cpu for a smoke run here)
set -uo pipefail
cd "$(dirname "$0")/.."
scene=$1
rounds=$2
shift 2
for r in $(seq 1 "$rounds"); do
  for t in "$@"; do
    log=$(mktemp)
    "$t/build-gpu/apps/silt/silt" run "$scene" --backend ${SILT_BACKEND:-cuda} --set 'outputs.formats=[]' \
      --set outputs.png=false ${SILT_ARGS:-} --overwrite --out /tmp/silt-mpm-frames > "$log" 2>&1
    awk -v tree="$t" -v round="$r" '
      /^frame / {
        for (i = 1; i <= NF; ++i) {
          if ($i == "steps") { s = $(i + 1); steps += s }
          if ($i == "ms/step") ms += s * $(i - 1) / 1000
          if ($i == "blocks") { blocks += $(i + 1); n += 1 }
          if ($i == "rebuilds") rebuilds += $(i + 1)
        }
      }
      /^finished/ { fin = $0 }
      END {
        printf "round %d %s: frames %d steps %d rebuilds %d mean blocks %.0f stepping %.3f s | %s\n",
          round, tree, n, steps, rebuilds, n ? blocks / n : 0, ms, fin
      }' "$log"
    rm -f "$log"
  done
done
