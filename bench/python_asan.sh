#!/usr/bin/env bash
# The Python tests under AddressSanitizer and UBSan (issue 35: a segfault seen only on the GPU
# machine). The module silt._silt and the libraries it links are built by CMake in their own tree
# with -fsanitize=address,undefined; the package is laid out from python/silt and that module; then
# tests/python runs on the CPU backend with the compiler's ASan runtime preloaded into the
# interpreter (numpy and pytest come from PYTHON's environment).
#   bash bench/python_asan.sh PYTHON [BUILD_DIR] [pytest arguments ...]
# PYTHON: an interpreter with numpy, pytest and nanobind (its nanobind builds the module).
# BUILD_DIR: default build-asan-py. CMAKE_ARGS: more -D options (-DSILT_ENABLE_CUDA=ON,
# -DCMAKE_PREFIX_PATH=...); the build is kept between calls. JOBS: build jobs (default 2).
# pytest arguments: default the whole of tests/python but the GPU tests.
# Writes $OUT/python-asan-build.txt and $OUT/python-asan-pytest.txt (default OUT /tmp/silt-out);
# exits 0 when the compiler has no ASan runtime (it says so), else with pytest's status.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
PY=${1:?usage: bash bench/python_asan.sh PYTHON [BUILD_DIR] [pytest arguments ...]}
B=${2:-build-asan-py}
shift $(($# >= 2 ? 2 : 1))
OUT=${OUT:-/tmp/silt-out}
mkdir -p "$OUT"
# The tree's compiler once configured (CMake reads CXX only then), else CXX, else g++.
[ -f "$B/CMakeCache.txt" ] && CXX=$(sed -n 's/^CMAKE_CXX_COMPILER:[A-Z]*=//p' "$B/CMakeCache.txt")
CXX=${CXX:-$(command -v g++ || command -v c++)}
export CXX
asan=$("$CXX" -print-file-name=libasan.so 2>/dev/null)
if [ "${asan#/}" = "$asan" ] || [ ! -e "$asan" ]; then
  echo "python-asan: skipped, $CXX has no libasan.so (got '$asan')" | tee "$OUT/python-asan-build.txt"
  exit 0
fi
SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -g"
# PYTHON as an absolute path, its links kept (a venv's python finds its packages by its own path).
PYABS=$(command -v "$PY") || { echo "python-asan: no interpreter '$PY'"; exit 1; }
case "$PYABS" in /*) ;; *) PYABS=$PWD/$PYABS ;; esac
# shellcheck disable=SC2086  # CMAKE_ARGS: options separated by spaces
{
  cmake -S . -B "$B" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_FLAGS="$SAN" -DCMAKE_MODULE_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
    -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" -DSILT_BUILD_PYTHON=ON \
    -DSILT_BUILD_TESTS=OFF -DPython_EXECUTABLE="$PYABS" \
    ${CMAKE_ARGS:-} &&
    cmake --build "$B" -j "${JOBS:-2}" --target _silt
} > "$OUT/python-asan-build.txt" 2>&1
rc=$?
echo "python-asan build rc=$rc ($CXX, $asan)"
if [ $rc -ne 0 ]; then
  grep -E "error|Error" "$OUT/python-asan-build.txt" | head -20
  exit 1
fi
# The package as pip lays it out: python/silt with the module (and silt's loadable modules) in it.
PKG=$B/python-package
rm -rf "$PKG" && mkdir -p "$PKG"
cp -r python/silt "$PKG/"
suffix=$("$PYABS" -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
cp "$B/python/_silt$suffix" "$PKG/silt/" || exit 1
find "$B/apps" -maxdepth 2 -name 'libsilt_*.so' -exec cp {} "$PKG/silt/" \; 2>/dev/null
# The runtime first in the process, and libstdc++ with it (the interpreter does not link it, and
# ASan's __cxa_throw then finds no real one: "CHECK failed ... real___cxa_throw"); PYTHONMALLOC=malloc:
# Python's objects on ASan's heap too.
stdcxx=$("$CXX" -print-file-name=libstdc++.so.6 2>/dev/null)
# protect_shadow_gap=0: the CUDA driver maps memory where ASan's shadow gap would be.
LD_PRELOAD="$asan${stdcxx:+ $stdcxx}" PYTHONPATH="$PWD/$PKG${PYTHONPATH:+:$PYTHONPATH}" PYTHONMALLOC=malloc \
  ASAN_OPTIONS=detect_leaks=0:protect_shadow_gap=0:abort_on_error=1:print_summary=1 \
  UBSAN_OPTIONS=print_stacktrace=1 MPLBACKEND=Agg \
  timeout "${TIMEOUT:-540}" "$PYABS" -m pytest -v -s -rs -p no:cacheprovider \
  "${@:-tests/python}" --ignore=tests/python/test_dlpack_gpu.py \
  > "$OUT/python-asan-pytest.txt" 2>&1
status=$?
grep -E "passed|failed|FAILED|ERROR: AddressSanitizer|runtime error:|SUMMARY" \
  "$OUT/python-asan-pytest.txt" | head -20
echo "python-asan pytest rc=$status (log: $OUT/python-asan-pytest.txt)"
exit $status
