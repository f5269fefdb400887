#!/usr/bin/env bash
# CPU cost of an ensemble against its members' solo runs (issue 37, "members over threads at no
# loss against solo runs"), for any scene and ensemble file: per round, the ensemble with members
# at once (run.parallel "members": one thread each), the ensemble with members one after another
# (run.parallel "cells": every thread each), and every member as its own solo `silt run`
# process (its exact values from the ensemble's resolved_ensemble.json) one after another, each
# writing the scene's own outputs (the ensembles write their statistics only). Prints walls.
# Usage: bench/ensemble_cpu.sh SCENE ENSEMBLE [build dir] [rounds] [--set ... for every run]
#   bash bench/ensemble_cpu.sh scenes/rain_plane.json scenes/rain_plane_ensemble.json build 2
#   bash bench/ensemble_cpu.sh scenes/mpm_column_sweep_2d.json scenes/column_sweep_ensemble.json \
#     build 2 --set domain.dx=0.01
set -euo pipefail
scene=$1
ensemble=$2
build=${3:-build}
rounds=${4:-2}
shift $(( $# < 4 ? $# : 4 ))
sets=("$@" -q)
silt=$build/apps/silt/silt
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
/usr/bin/python3 - "$ensemble" "$tmp" <<'PY'
import json, sys
text = "\n".join(l for l in open(sys.argv[1]).read().splitlines() if not l.strip().startswith("//"))
e = json.loads(text)
e.setdefault("run", {})["parallel"] = "members"
e["run"].pop("members_at_once", None)  # the CPU default: one member per OpenMP thread
json.dump(e, open(sys.argv[2] + "/members.json", "w"))
e["run"]["parallel"] = "cells"
json.dump(e, open(sys.argv[2] + "/cells.json", "w"))
PY
wall() { local t0; t0=$(date +%s.%N); "$@" >/dev/null; awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.3f\n", a - b }'; }
for r in $(seq "$rounds"); do
  m=$(wall "$silt" run "$scene" "${sets[@]}" --ensemble "$tmp/members.json" --out "$tmp/m" --overwrite)
  c=$(wall "$silt" run "$scene" "${sets[@]}" --ensemble "$tmp/cells.json" --out "$tmp/c" --overwrite)
  # Each member's --set list, one line of NUL-free arguments per member.
  /usr/bin/python3 -c '
import json, shlex, sys
for m in json.load(open(sys.argv[1]))["provenance"]["members"]:
    print(" ".join("--set " + shlex.quote(s) for s in m["set"]))' "$tmp/m/resolved_ensemble.json" \
    > "$tmp/solo_sets"
  n=$(wc -l < "$tmp/solo_sets")
  t0=$(date +%s.%N)
  while IFS= read -r line; do
    eval "member=($line)"
    "$silt" run "$scene" "${sets[@]}" "${member[@]}" --out "$tmp/solo" --overwrite >/dev/null
  done < "$tmp/solo_sets"
  s=$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.3f", a - b }')
  echo "round $r: ensemble members at once ${m} s, ensemble one after another ${c} s, $n solo runs ${s} s"
done
