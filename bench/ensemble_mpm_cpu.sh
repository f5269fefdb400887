#!/usr/bin/env bash
# CPU cost of an MPM sweep (issue 37, "members over threads at no loss against solo runs"):
# scenes/column_sweep_ensemble.json's 15 columns at dx = 1 cm (800 particles each) as one ensemble with
# members at once (one thread each), as one ensemble with members one after another (every thread
# each), and as 15 solo `silt run` processes one after another; ROUNDS interleaved rounds.
# Usage: bench/ensemble_mpm_cpu.sh [build dir] [rounds]
set -euo pipefail
build=${1:-build}
rounds=${2:-2}
silt=$build/apps/silt/silt
scene=scenes/mpm_column_sweep_2d.json
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
sets=(--set domain.dx=0.01 -q)
/usr/bin/python3 - "$tmp" <<'PY'
import json, re, sys
text = open("scenes/column_sweep_ensemble.json").read()
text = "\n".join(l for l in text.splitlines() if not l.strip().startswith("//"))
e = json.loads(text)
json.dump(e, open(sys.argv[1] + "/members.json", "w"))
e["run"] = {"parallel": "cells"}
json.dump(e, open(sys.argv[1] + "/cells.json", "w"))
PY
wall() { local t0; t0=$(date +%s.%N); "$@" >/dev/null; awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.3f\n", a - b }'; }
for r in $(seq "$rounds"); do
  m=$(wall "$silt" run $scene "${sets[@]}" --ensemble "$tmp/members.json" --out "$tmp/m" --overwrite)
  c=$(wall "$silt" run $scene "${sets[@]}" --ensemble "$tmp/cells.json" --out "$tmp/c" --overwrite)
  t0=$(date +%s.%N)
  for phi in 25 30 35; do
    for box in '[0.2,0.1]' '[0.141421,0.141421]' '[0.1,0.2]' '[0.08165,0.244949]' '[0.070711,0.282843]'; do
      "$silt" run $scene "${sets[@]}" --set "materials[0].friction_angle=$phi" \
        --set "sources[0].max=$box" --out "$tmp/solo" --overwrite >/dev/null
    done
  done
  s=$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.3f", a - b }')
  echo "round $r: ensemble members at once ${m} s, ensemble one after another ${c} s, 15 solo runs ${s} s"
done
