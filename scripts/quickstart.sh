#!/usr/bin/env bash
# Installs what is missing, builds, and runs silt's main job on its embedded default scene (a dam
# break) on the GPU when there is one, else on the CPU. Ends with the path of what it wrote. Run
# again, it replaces its own earlier output (--overwrite removes only the files silt writes).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh
exec build/apps/silt/silt run --backend auto --overwrite "$@"
