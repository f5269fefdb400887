#!/usr/bin/env bash
# Installs what building and running the CLI needs (missing packages only; the optional libraries
# are `scripts/install-deps.sh full`'s, and the build finds them when present), builds the CLI (the
# `silt` target only), runs silt's main job on its embedded default scene (a dam break) on the GPU
# when there is one, else on the CPU, and writes a summary of the run (summary.html: the maximum
# depth map, the gauges, the mass balance, the run's speed); on a GPU also an MPM scene (a snowball
# against a post) with its summary (a strip of its frames). Ends with the path of what it wrote.
# Run again, it replaces its own earlier output (--overwrite removes only the files silt writes)
# and builds nothing that is up to date. Arguments go to `silt run`.
#   SILT_ENABLE_CUDA=ON|OFF  compile the CUDA backend or not (default: only where a GPU is present)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh run
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi

# Which backend, and why. Compiling the CUDA backend (every library source through nvcc) is most
# of a build's time: done only where a GPU can run it, or when asked.
gpu=$( (command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -m1 '^GPU 0') || true)
cmake_args=()
if [ -n "${SILT_ENABLE_CUDA:-}" ]; then
  cuda=$SILT_ENABLE_CUDA
  why="SILT_ENABLE_CUDA=$SILT_ENABLE_CUDA was asked for"
  cmake_args+=("-DSILT_ENABLE_CUDA=$cuda")
elif [ -f build/CMakeCache.txt ]; then
  cuda=$(sed -n 's/^SILT_ENABLE_CUDA:[A-Z]*=//p' build/CMakeCache.txt)
  why="build/ is configured so (SILT_ENABLE_CUDA=$cuda; SILT_ENABLE_CUDA=ON|OFF changes it)"
elif [ -n "$gpu" ]; then
  cuda=ON
  why="a GPU is present (${gpu%% (UUID*})"
  cmake_args+=(-DSILT_ENABLE_CUDA=ON)
else
  cuda=OFF
  why="no GPU found (nvidia-smi -L lists none); SILT_ENABLE_CUDA=ON compiles the CUDA backend anyway"
  cmake_args+=(-DSILT_ENABLE_CUDA=OFF)
fi
if [ ! -f build/CMakeCache.txt ]; then
  # The tests, benchmarks and their dependencies are scripts/test.sh's.
  cmake_args+=(-DSILT_BUILD_TESTS=OFF -DSILT_BUILD_BENCH=OFF)
fi
if [ "$cuda" = ON ] && ! command -v nvcc >/dev/null 2>&1; then
  why="$why, but nvcc is not installed (CPU backend only)"
fi
echo "quickstart: CUDA backend $cuda: $why"
SILT_TARGETS=silt scripts/build.sh "${cmake_args[@]}"

# What this build leaves out: the optional libraries that `install-deps.sh run` does not install.
info=$(build/apps/silt/silt info)
left_out=()
grep -q '^rasters: ESRI ASCII$' <<<"$info" && left_out+=("GeoTIFF/NetCDF rasters (GDAL)")
grep -q '^VDB outputs and mesh colliders: no' <<<"$info" &&
  left_out+=("mesh colliders and VDB outputs (OpenVDB)")
grep -q '^MPI: no' <<<"$info" && left_out+=("runs over several machines (MPI)")
if [ ${#left_out[@]} -gt 0 ]; then
  printf -v list '%s, ' "${left_out[@]}"
  echo "quickstart: this build has no ${list%, }: scripts/install-deps.sh full &&" \
       "cmake build && scripts/quickstart.sh adds them"
fi

# Which backend the run takes (--backend auto: the GPU when the build has CUDA and one is found).
on_gpu=0
if build/apps/silt/silt info 2>/dev/null | grep -q "^CUDA devices: none"; then
  echo "quickstart: the run uses the CPU ($(build/apps/silt/silt info | sed -n 's/^backends: //p')):" \
       "$(build/apps/silt/silt info | sed -n 's/^CUDA devices: none //p')"
else
  on_gpu=1
  echo "quickstart: the run uses the GPU: $(build/apps/silt/silt info | grep -A1 '^CUDA devices' | tail -1)"
fi
# Runs silt and summarises its folder ($1), timing the run as the user waits for it.
run_and_summarise() {
  local out=$1
  shift
  local start wall
  start=$(date +%s%N)
  build/apps/silt/silt run --backend auto --overwrite --out "$out" "$@"
  wall=$(( ($(date +%s%N) - start) / 1000000 ))
  # Debian's python3, which has python3-gdal for GeoTIFF rasters (a python3 earlier on PATH may not)
  /usr/bin/python3 scripts/silt_summary.py "$out" --wall "$((wall / 1000)).$(printf '%03d' $((wall % 1000)))"
}
run_and_summarise silt-out/dam_break "$@"
# On a GPU, the MPM solver too: a snowball thrown at a sticky post (scenes/mpm_snow_obstacle.json,
# a few seconds there; minutes on two CPU cores, so not there).
if [ "$on_gpu" = 1 ] && [ $# -eq 0 ]; then
  run_and_summarise silt-out/snow_obstacle scenes/mpm_snow_obstacle.json
fi
