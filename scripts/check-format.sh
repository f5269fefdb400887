#!/usr/bin/env bash
# Fails when a C++/CUDA source in the tree is not formatted by the checked-in .clang-format.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang-format >/dev/null || { echo "clang-format not installed"; exit 1; }
bad=0
while IFS= read -r f; do
  if ! clang-format --dry-run -Werror "$f" >/dev/null 2>&1; then
    echo "not formatted: $f"
    bad=1
  fi
done < <(git ls-files -- '*.cpp' '*.hpp' '*.cu' '*.cuh' 2>/dev/null || find src apps tests bench -name '*.[ch]pp')
[ $bad -eq 0 ] && echo "format: ok"
exit $bad
