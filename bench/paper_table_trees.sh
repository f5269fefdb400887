#!/usr/bin/env bash
# The paper's table (bench/paper_table.py --parts) with two or more trees on the GPU machine:
# builds the `silt` target of each (a directory made by `git archive COMMIT`, e.g. under .snap/, or
# `.`) in parallel with the flags of device_run.sh into TREE/build-trees, then runs every case with
# one part and two parts on GPU 0 with every binary, alternated ROUNDS times (the before/after of a
# change, or variants, in one call). Prints numbers, asserts nothing; results to record go to
# bench/results/. Two trees are labelled base and new, more by their directory names.
#   bash bench/paper_table_trees.sh ROUNDS BASE_TREE NEW_TREE [MORE_TREES...]
#   PAPER_CASES: the cases (default all); PAPER_PARTS=0: one part only (no --devices 0,0 runs).
# e.g. issue 33's two parts on one GPU (.snap/base = git archive b6f6ed3, carried as .snap):
#   bash bench/paper_table_trees.sh 2 .snap/base .
# or the P2G variants of issue 33 item 6 (docs/NOTES.md, "P2G variants for the next GPU call"):
#   PAPER_CASES=snow,sand,crawl bash bench/paper_table_trees.sh 2 .snap/head .snap/p2g-bps2 \
#     .snap/p2g-smem-w
set -uo pipefail
cd "$(dirname "$0")/.."
if [ $# -lt 3 ]; then
  echo "usage: bash bench/paper_table_trees.sh ROUNDS BASE_TREE NEW_TREE [MORE_TREES...]" >&2
  exit 2
fi
ROUNDS=$1
shift
TREE_BUILD=build-trees
source bench/build_trees.sh
build_trees "$@"
if [ $# -eq 2 ]; then
  TREES=(--base "$1/build-trees/apps/silt/silt" --silt "$2/build-trees/apps/silt/silt")
else
  TREES=()
  for t in "$@"; do
    TREES+=(--tree "$(basename "$(realpath "$t")")=$t/build-trees/apps/silt/silt")
  done
fi
PARTS=--parts
[ "${PAPER_PARTS:-1}" = 0 ] && PARTS=
python3 bench/paper_table.py "${TREES[@]}" --repeat "$ROUNDS" $PARTS \
  ${PAPER_CASES:+--cases "$PAPER_CASES"} 2>&1 | tee "$OUT/paper-table-trees.md"
