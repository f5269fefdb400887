#!/usr/bin/env bash
# Configures and builds silt into build/. Arguments go to CMake's configure step, which is skipped
# when build/ was configured with the same arguments before (ninja re-runs CMake by itself when a
# CMake file changed), so that a second run does no work it need not do.
# SILT_TARGETS="silt ..." builds only those targets (default: all).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then
  export PATH=/usr/local/cuda/bin:$PATH
fi
args=(-G Ninja -DCMAKE_BUILD_TYPE=Release "$@")
stamp=build/.silt-configure-args
# The stamp holds only while the cache still has every -D value: `pip install .` with build
# isolation (README's venv) configures build/ afresh, with the tests off by default.
cache_has_args() {
  local a kv name
  for a in "${args[@]}"; do
    case $a in
      -D*=*)
        kv=${a#-D}
        name=${kv%%=*}
        name=${name%%:*}  # -DNAME:TYPE=value
        [ "$(sed -n "s/^${name}:[A-Z]*=//p" build/CMakeCache.txt)" = "${kv#*=}" ] || return 1
        ;;
    esac
  done
}
if [ -f build/build.ninja ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${args[*]}" ] &&
  cache_has_args; then
  echo "build: build/ is configured with these arguments (${*:-none}); building"
else
  cmake -S . -B build "${args[@]}"
  printf '%s' "${args[*]}" > "$stamp"
fi
# shellcheck disable=SC2086
cmake --build build -j "$(nproc)" ${SILT_TARGETS:+--target $SILT_TARGETS}
# `pip install .` builds the Python package silt (docs/python.md) in this same tree
# (pyproject.toml): the module python/src/ over the libraries built here.
