#!/usr/bin/env bash
# The paper's table (bench/paper_table.py --parts) with two trees on the GPU machine: builds the
# `silt` target of each (a directory made by `git archive COMMIT`, e.g. under .snap/, or `.`) in
# parallel with the flags of device_run.sh into TREE/build-trees, then runs every case with one
# part and two parts on GPU 0 with both binaries, alternated ROUNDS times (the before/after of a
# change in one call). Prints numbers, asserts nothing; results to record go to bench/results/.
#   bash bench/paper_table_trees.sh ROUNDS BASE_TREE NEW_TREE      (PAPER_CASES, default all)
# e.g. issue 33's two parts on one GPU (.snap/base = git archive b6f6ed3, carried as .snap):
#   bash bench/paper_table_trees.sh 2 .snap/base .
set -uo pipefail
cd "$(dirname "$0")/.."
ROUNDS=$1
BASE=$2
NEW=$3
TREE_BUILD=build-trees
source bench/build_trees.sh
build_trees "$BASE" "$NEW"
python3 bench/paper_table.py --silt "$NEW/build-trees/apps/silt/silt" \
  --base "$BASE/build-trees/apps/silt/silt" --repeat "$ROUNDS" --parts \
  ${PAPER_CASES:+--cases "$PAPER_CASES"} 2>&1 | tee "$OUT/paper-table-trees.md"
