#!/usr/bin/env bash
# Installs what is missing (scripts/install-deps.sh test), builds, and runs the test suite that
# needs no GPU (labels unit, verification, mpi), the Python package's tests and a short fuzz run.
# On a machine with a GPU, `ctest --test-dir build -L gpu` runs the GPU tests.
#   SILT_ENABLE_CUDA=ON|OFF|AUTO  the CUDA backend; default: ON on a fresh build/ (CI compiles it
#                                 without a GPU), else build/'s own choice (the quickstart's is
#                                 kept, so nothing is compiled twice)
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh test
cmake_args=(-DSILT_BUILD_TESTS=ON -DSILT_BUILD_BENCH=ON)
if [ -n "${SILT_ENABLE_CUDA:-}" ]; then
  cmake_args+=("-DSILT_ENABLE_CUDA=$SILT_ENABLE_CUDA")
elif [ ! -f build/CMakeCache.txt ]; then
  cmake_args+=(-DSILT_ENABLE_CUDA=ON)
fi
# The Python package (docs/python.md) is built in the same tree as the CLI and the tests
# (pyproject.toml's build-dir): a venv over Debian's python3 (NumPy, pytest and matplotlib from
# Debian) holds the build's tools (scikit-build-core, nanobind: PyPI), so the module builds with
# the rest and `pip install --no-build-isolation .` compiles nothing again. SILT_PYTHON_TESTS=0
# skips it.
python_tests=${SILT_PYTHON_TESTS:-1}
venv=build/python-venv
if [ "$python_tests" != 0 ]; then
  [ -x $venv/bin/python ] || /usr/bin/python3 -m venv --system-site-packages $venv
  $venv/bin/python -c "import nanobind, scikit_build_core" 2>/dev/null ||
    $venv/bin/pip install --quiet --disable-pip-version-check "scikit-build-core>=0.10" "nanobind>=2.5"
  cmake_args+=(-DSILT_BUILD_PYTHON=ON "-DPython_EXECUTABLE=$PWD/$venv/bin/python")
fi
scripts/build.sh "${cmake_args[@]}"
if [ "$python_tests" != 0 ]; then
  start=$(date +%s%N)
  $venv/bin/pip install --quiet --disable-pip-version-check --no-build-isolation .
  echo "test: pip install . took $(( ($(date +%s%N) - start) / 1000000 )) ms"
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Threads sleep at barriers instead of spinning: CI runs two test programs at once on two cores.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
ctest --test-dir build -LE gpu --output-on-failure -j 2 --timeout 900
if [ "$python_tests" != 0 ]; then
  SILT_CLI="$PWD/build/apps/silt/silt" OMP_NUM_THREADS=2 MPLBACKEND=Agg \
    $venv/bin/python -m pytest -q -p no:cacheprovider tests/python
fi
# A short fuzz run of the readers with ASan/UBSan (docs/fuzzing.md): 20 s per target, about three
# minutes with its build. SILT_FUZZ_SECONDS=0 skips it.
fuzz_seconds=${SILT_FUZZ_SECONDS:-20}
if [ "$fuzz_seconds" != 0 ]; then
  scripts/fuzz.sh "$fuzz_seconds"
fi
