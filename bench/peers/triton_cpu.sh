#!/usr/bin/env bash
# Side by side on this machine: silt's CPU backend and TRITON's OpenMP build (ORNL's flood model,
# https://code.ornl.gov/hydro/triton; Morales-Hernandez et al., Environ. Model. Softw. 2021) on the
# same dam break, bench/peers/dam_break_512.json: 512 x 512 cells of 1 m, flat bed, 0.1 m of water
# with a 2 m block over the central 128 m x 128 m, Manning 0.03, CFL 0.45, 10 s, float64 (TRITON's
# value_t), walls, one output at the end. TRITON is not part of silt and is never copied into it:
# pass the path of your own copy (a clone of the repository above or of a public mirror).
#
#   bench/peers/triton_cpu.sh TRITON_DIR [SILT] [THREADS] [WORK]
#     SILT     the silt binary (default: build/apps/silt/silt)
#     THREADS  OpenMP threads for both (default 2)
#     WORK     scratch folder for TRITON's build, its inputs and both outputs (default: a mktemp dir)
#
# TRITON is built as its makefile.hpc builds the OpenMP version (mpic++ -fopenmp -DACTIVE_OMP=1 -O3
# -std=c++17), into WORK (the copy is left untouched; an optional prebuilt binary: TRITON_BIN). Each code is run REPEAT times (default 3),
# alternating, and the wall time of every run is printed with its step count and cell-updates/s
# (wall time includes reading inputs and writing the one output; TRITON also reports its own
# compute time). Prints numbers; asserts nothing. Needs mpic++ (Debian: openmpi-bin,
# libopenmpi-dev) and python3.
set -euo pipefail

triton_dir=${1:?usage: $0 TRITON_DIR [SILT] [THREADS] [WORK]}
silt=${2:-build/apps/silt/silt}
threads=${3:-2}
work=${4:-$(mktemp -d /tmp/silt-triton.XXXXXX)}
repeat=${REPEAT:-3}
here=$(cd "$(dirname "$0")" && pwd)
scene=$here/dam_break_512.json
[[ -f $triton_dir/src/main.cpp ]] || { echo "$0: no src/main.cpp in '$triton_dir' (a TRITON copy)" >&2; exit 2; }
[[ -x $silt ]] || { echo "$0: '$silt' is not an executable silt binary" >&2; exit 2; }
command -v mpic++ > /dev/null || { echo "$0: mpic++ not found (apt-get install libopenmpi-dev)" >&2; exit 2; }
mkdir -p "$work/triton" "$work/silt"

# TRITON's inputs: an ESRI ASCII DEM (6 header lines) and the initial depth as a bare matrix, rows
# from the north. The block is symmetric, so the row order does not matter.
python3 - "$work/triton" <<'PY'
import sys
d = sys.argv[1]
n, lo, hi = 512, 192, 320
with open(f"{d}/dem.asc", "w") as f:
    f.write(f"ncols {n}\nnrows {n}\nxllcorner 0\nyllcorner 0\ncellsize 1\nNODATA_value -9999\n")
    row = " ".join(["0"] * n) + "\n"
    f.write(row * n)
with open(f"{d}/h.in", "w") as f:
    for j in range(n):
        f.write(" ".join("2.0" if lo <= i < hi and lo <= j < hi else "0.1" for i in range(n)) + "\n")
PY
cat > "$work/triton/case.cfg" <<CFG
# silt bench/peers/triton_cpu.sh: dam break, 512 x 512, 10 s
input_option=SEQ
input_format=ASC
output_format=ASC
output_option=SEQ
dem_filename=$work/triton/dem.asc
h_infile=$work/triton/h.in
num_sources=0
num_runoffs=0
num_extbc=0
time_series_flag=0
const_mann=0.03
courant=0.45
hextra=0.00001
time_increment_fixed=0
time_step=0.01
sim_start_time=0
sim_duration=10
print_interval=10
print_option=h
open_boundaries=0
gpu_direct_flag=0
domain_decomposition=static
factor_interval_domain_decomposition=1
CFG

echo "building TRITON (OpenMP) from $triton_dir into $work/triton"
# output.h uses its operator<< for Matrix::matrix before declaring it, which g++ >= 11 rejects
# (two-phase lookup finds no declaration); a forced-included forward declaration fixes that without
# touching the copy.
cat > "$work/triton/declare.h" <<'H'
#include <ostream>
namespace Matrix { template <class T> class matrix; }
namespace Output { template <typename T> std::ostream& operator<<(std::ostream&, Matrix::matrix<T>&); }
H
if [[ -n ${TRITON_BIN:-} ]]; then
  cp "$TRITON_BIN" "$work/triton/triton"
else
  mpic++ -Wall -fopenmp -DACTIVE_OMP=1 -O3 -include "$work/triton/declare.h" -o "$work/triton/triton" \
    "$triton_dir/src/main.cpp" --std=c++17 > "$work/triton/build.log" 2>&1 ||
    { grep -m 20 error "$work/triton/build.log" >&2; exit 1; }
fi

cells=$((512 * 512))
rate() { python3 -c "import sys; c,s,t=map(float,sys.argv[1:]); print(f'{c*s/t/1e6:.2f}')" "$@"; }
echo "machine: $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg); $threads OpenMP threads"
echo "silt: $("$silt" --version 2>/dev/null | head -1 || echo "$silt")"
printf '%-22s %4s %8s %8s %14s\n' code run steps wall_s "M cell-upd/s"
for r in $(seq 1 "$repeat"); do
  # TRITON writes into output/ next to its binary.
  rm -rf "$work/triton/output"
  t0=$(date +%s.%N)
  (cd "$work/triton" && OMP_NUM_THREADS=$threads ./triton case.cfg "$threads" > run.log 2>&1)
  t1=$(date +%s.%N)
  steps=$(grep -aoE 'it: [0-9]+' "$work/triton/run.log" | tail -1 | cut -d' ' -f2 || true)
  steps=${steps:-0}
  wall=$(python3 -c "print(f'{$t1 - $t0:.3f}')")
  printf '%-22s %4s %8s %8s %14s\n' "TRITON OpenMP f64" "$r" "$steps" "$wall" "$(rate $cells "$steps" "$wall")"
  for prec in float64 float32; do
    t0=$(date +%s.%N)
    OMP_NUM_THREADS=$threads "$silt" run "$scene" --out "$work/silt/$prec" --overwrite \
      --set physics.precision=$prec > "$work/silt/$prec.log" 2>&1
    t1=$(date +%s.%N)
    steps=$(grep -aoE '[0-9]+ steps in' "$work/silt/$prec.log" | tail -1 | cut -d' ' -f1 || true)
    steps=${steps:-0}
    wall=$(python3 -c "print(f'{$t1 - $t0:.3f}')")
    printf '%-22s %4s %8s %8s %14s\n' "silt cpu $prec" "$r" "$steps" "$wall" "$(rate $cells "$steps" "$wall")"
  done
done
echo "TRITON's own timers (last run): $(find "$work/triton/output" -path '*performance*' -type f | head -1)"
find "$work/triton/output" -path '*performance*' -type f -exec cat {} \; 2>/dev/null | tail -5
echo "work folder: $work"
