#!/usr/bin/env bash
# Installs what is missing, builds, and runs the test suite that needs no GPU (labels unit,
# verification, mpi). On a machine with a GPU, `ctest --test-dir build -L gpu` runs the GPU tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# Threads sleep at barriers instead of spinning: CI runs two test programs at once on two cores.
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-passive}
ctest --test-dir build -LE gpu --output-on-failure -j 2 --timeout 900
# The Python package (docs/python.md): `pip install .` into a venv over Debian's python3 (NumPy,
# pytest and matplotlib from Debian; pip fetches scikit-build-core and nanobind), CPU-only, then its
# tests and the examples of docs/python.md. SILT_PYTHON_TESTS=0 skips it.
if [ "${SILT_PYTHON_TESTS:-1}" != 0 ]; then
  venv=build/python-venv
  [ -x $venv/bin/python ] || /usr/bin/python3 -m venv --system-site-packages $venv
  SILT_ENABLE_CUDA=OFF CMAKE_BUILD_PARALLEL_LEVEL=${CMAKE_BUILD_PARALLEL_LEVEL:-2} \
    $venv/bin/pip install --quiet --disable-pip-version-check .
  SILT_CLI="$PWD/build/apps/silt/silt" OMP_NUM_THREADS=2 MPLBACKEND=Agg \
    $venv/bin/python -m pytest -q -p no:cacheprovider tests/python
fi
# A short fuzz run of the readers with ASan/UBSan (docs/fuzzing.md): 20 s per target, about three
# minutes with its build. SILT_FUZZ_SECONDS=0 skips it.
fuzz_seconds=${SILT_FUZZ_SECONDS:-20}
if [ "$fuzz_seconds" != 0 ]; then
  scripts/fuzz.sh "$fuzz_seconds"
fi
