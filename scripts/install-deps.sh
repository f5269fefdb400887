#!/usr/bin/env bash
# Installs the Debian 12 packages silt needs to build, test and read its outputs back.
# Idempotent: packages already installed are skipped (apt-get is not even called then).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  nlohmann-json3-dev libcli11-dev libfmt-dev libgtest-dev
  libpng-dev zlib1g-dev libgdal-dev gdal-bin
  libfreetype-dev fonts-dejavu-core  # text on PNG outputs (colour bars, times, legends)
  libopenmpi-dev openmpi-bin
  python3 python3-numpy python3-gdal python3-vtk9
  python3-dev python3-venv python3-pytest python3-matplotlib  # the Python package and its tests
  clang-format
  clang libclang-rt-14-dev  # scripts/fuzz.sh: libFuzzer, ASan, UBSan
  libcivetweb-dev libjs-three  # the live viewer: HTTP/WebSocket server, three.js for its page
  chromium chromium-driver python3-selenium python3-pil python3-websockets  # the viewer's tests
)

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "install-deps: done"
