#!/usr/bin/env bash
# The issue's MPM ensemble target (issue 37): 256 members of a 32K-particle sand column at >= 50 %
# of the particle-step rate of one 8M-particle run, on one GPU. Runs
#   1. one column of the same scene at dx = BIG_DX (1e-4 m: ~8M particles) for END s, and reports
#      particles / (ms per step) of its frames after the first (silt run's frame lines), and its
#      particle-steps over the whole process's wall;
#   2. the sweep scenes/column_sweep_gpu_ensemble.json over scenes/mpm_column_sweep_2d.json at
#      dx = DX (1/640 m: 32,768 particles a column) once for each K in KS (--members-at-once K:
#      members in flight on the device, each its own solver; K = 1 is one after another), and
#      reports sum(steps x particles) / wall seconds of the whole ensemble run and its ratio to 1.
# Usage: bench/ensemble_mpm_gpu.sh [build dir] [backend] [DX] [BIG_DX] [END] [KS]
#   (MEMBER_END: the members' run.end_time too, for a shorter sweep; MEMBER_ARGS: more options for
#   the sweep's silt run, e.g. "--set performance.cuda_graphs=false")
#   (on a CPU for a smoke test: bench/ensemble_mpm_gpu.sh build cpu 0.02 0.0025 0.1 "1 2")
set -euo pipefail
build=${1:-build-gpu}
backend=${2:-cuda}
dx=${3:-0.0015625}
big_dx=${4:-0.0001}
end=${5:-0.05}
ks=${6:-"8 32"}
silt=$build/apps/silt/silt
scene=scenes/mpm_column_sweep_2d.json
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
t0=$(date +%s.%N)
"$silt" run $scene --backend "$backend" --set domain.dx=$big_dx --set run.end_time=$end \
  --set run.fps=100 --out "$out/big" 2>&1 | tee "$out/big.log" | grep -E "^silt run: MPM" || true
# The large run as a user sees it too: its particle-steps over the whole process's wall.
big_wall=$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.3f", a - b }')
for k in $ks; do
  t0=$(date +%s.%N)
  "$silt" run $scene --backend "$backend" --set domain.dx=$dx --members-at-once "$k" \
    --ensemble scenes/column_sweep_gpu_ensemble.json ${MEMBER_END:+--set run.end_time=$MEMBER_END} ${MEMBER_ARGS:-} \
    --out "$out/sweep$k" 2>&1 | tee "$out/sweep$k.log" |
    grep -E "members at once|member after another|lowered|device blocks|member pool|ensemble phases" || true
  wall=$(awk -v a="$(date +%s.%N)" -v b="$t0" 'BEGIN { printf "%.3f", a - b }')
  /usr/bin/python3 - "$out/sweep$k/measures.csv" "$wall" "$out/big.log" "$k" "$big_wall" <<'PY'
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
wall = float(sys.argv[2])
ps = sum(int(r["steps"]) * int(r["particles"]) for r in rows)
ens = ps / wall
line = (f"ensemble K = {sys.argv[4]}: {len(rows)} members, {ps:.4g} particle-steps in {wall:.1f} s: "
        f"{ens:.4g} particle-steps/s")
rates, big_ps = [], 0
for l in open(sys.argv[3]):
    m = re.search(r"frame +(\d+) .*particles +(\d+) +steps +(\d+) +([0-9.]+) ms/step", l)
    if m:
        big_ps += int(m.group(2)) * int(m.group(3))
        if int(m.group(1)) > 1:
            rates.append(int(m.group(2)) / (float(m.group(4)) * 1e-3))
if rates:
    rates.sort()
    big = rates[len(rates) // 2]
    line += (f"; one large run: median {big:.4g} particle-steps/s over {len(rates)} frames; "
             f"ensemble / large = {ens / big:.2f} (target >= 0.50)")
    whole = big_ps / float(sys.argv[5])
    line += f"; against the whole large silt run ({whole:.4g}/s): {ens / whole:.2f}"
print(line)
# Where the wall goes: a member's own wall (set-up and frames, members.csv/measures.csv wall_s;
# its solver's teardown not included) and what the K workers spend outside their members.
ws = sorted(float(r["wall_s"]) for r in rows)
outside = float(sys.argv[2]) - sum(ws) / int(sys.argv[4])
print(f"  member wall: median {ws[len(ws) // 2]:.3f} s, min {ws[0]:.3f}, max {ws[-1]:.3f}; "
      f"wall minus members' sum / K: {outside:.2f} s")
PY
  /usr/bin/python3 bench/member_times.py "$out/sweep$k.log" "$k"
done
