#!/usr/bin/env bash
# Falling sand at 55K, silt's CPU backend and Taichi's CPU backend in turn on the same machine
# (bench/results/mpm-cpu-2026-12-01-cpu.md). Prints both programs' lines, with the load average
# before each round; take the ratios of one round, not absolute times, on a shared machine. Both
# programs run 5 untimed steps first (Taichi compiles its kernels there) and then 20 timed steps.
#   bench/peers/mpm_sand_side_by_side.sh BUILD_DIR TAICHI_PYTHON [THREADS] [ROUNDS]
# TAICHI_PYTHON: a python with Taichi installed (python3 -m venv V && V/bin/pip install taichi).
set -euo pipefail
build=${1:?build directory with bench/mpm_bench}
python=${2:?python with taichi}
threads=${3:-2}
rounds=${4:-3}
here=$(cd "$(dirname "$0")" && pwd)
export OMP_NUM_THREADS=$threads OMP_WAIT_POLICY=passive
for r in $(seq "$rounds"); do
  echo "round $r, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  "$build/bench/mpm_bench" --backend cpu --case sand --sizes 55K --steps 20 --warmup-steps 5 | sed 's/^/  silt: /'
  "$python" "$here/taichi_sand.py" --threads "$threads" --steps 20 --warmup 5 2>/dev/null |
    grep '^taichi' | sed 's/^/  /'
done
