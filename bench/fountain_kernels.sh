#!/usr/bin/env bash
# The fountain's step at several trees, kernel by kernel (issue 35: +22% a step on the GPU at the
# same steps, rebuilds and blocks). Per tree (each built by bench/build_trees.sh, with the scene key
# performance.cuda_graphs and, for the graph dump, bench/variants/graph-dot.patch):
#   1. stepping with the frame graphs and with plain launches (bench/mpm_frames_trees.sh);
#   2. ncu over a window of plain launches (the same kernels in the same order): per NVTX label and
#      block size, the launches, device time and mean grid (bench/ncu_kernel_table.py);
#   3. the last frame graph of a short run, as Graphviz (graph-<tree>.dot, SILT_GRAPH_DOT).
# Prints numbers, asserts nothing.
#   source bench/build_trees.sh; build_trees TREE...; bash bench/fountain_kernels.sh TREE...
#   (NCU_SKIP, NCU_COUNT: the launch window)
set -uo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-/tmp/silt-out}
mkdir -p "$OUT"
scene=scenes/mpm_fountain.json
plain="--set performance.cuda_graphs=false"
echo "== stepping: graphs, then plain launches"
bash bench/mpm_frames_trees.sh $scene 1 "$@"
SILT_ARGS="$plain" bash bench/mpm_frames_trees.sh $scene 1 "$@"
for t in "$@"; do
  name=$(basename "$(realpath "$t")")
  silt="$t/build-gpu/apps/silt/silt"
  echo "== ncu, $t: launches ${NCU_SKIP:-20000}..+${NCU_COUNT:-4000}, plain"
  timeout 150 ncu --clock-control none --metrics gpu__time_duration.sum --nvtx \
    --print-nvtx-rename kernel --launch-skip "${NCU_SKIP:-20000}" --launch-count "${NCU_COUNT:-4000}" \
    --csv --print-units base "$silt" run $scene --backend cuda $plain --set 'outputs.formats=[]' \
    --set outputs.png=false --overwrite --out /tmp/silt-fountain-ncu > "$OUT/ncu-$name.csv" 2>&1
  python3 bench/ncu_kernel_table.py "$OUT/ncu-$name.csv" "$OUT/kernels-$name.csv"
  echo "== graph dump, $t (0.5 s)"
  SILT_GRAPH_DOT="$OUT/graph-$name.dot" "$silt" run $scene --backend cuda --set run.end_time=0.5 \
    --set 'outputs.formats=[]' --set outputs.png=false --overwrite --out /tmp/silt-fountain-dot \
    > /dev/null 2>&1
  [ -f "$OUT/graph-$name.dot" ] &&
    echo "nodes $(grep -c 'label=' "$OUT/graph-$name.dot"), kernels $(grep -c 'KERNEL\|kernel' "$OUT/graph-$name.dot"), memsets $(grep -ci 'memset' "$OUT/graph-$name.dot"), memcpys $(grep -ci 'memcpy' "$OUT/graph-$name.dot")"
done
