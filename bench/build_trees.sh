# Sourced by the *_trees.sh benches: builds the `silt` target of every tree given (directories
# made by `git archive COMMIT`, e.g. under .snap/, or `.`) into TREE/$TREE_BUILD (default
# build-gpu), in parallel, with device_run.sh's flags and the -dev packages of .deps/ unpacked
# under /tmp/silt-deps; each build's log in $OUT/build-<tree>.log. Run from the repository root.
#   source bench/build_trees.sh; build_trees TREE...
OUT=${OUT:-/tmp/silt-out}
PFX=/tmp/silt-deps
TREE_BUILD=${TREE_BUILD:-build-gpu}
mkdir -p "$OUT" $PFX
for f in .deps/*.deb; do dpkg -x "$f" $PFX; done
export LD_LIBRARY_PATH=$PFX/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}

build_trees() {
  local jobs=$(( $(nproc) / $# )) t
  [ $jobs -lt 1 ] && jobs=1
  for t in "$@"; do
    (cmake -S "$t" -B "$t/$TREE_BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release \
       -DCMAKE_PREFIX_PATH=$PFX/usr -DSILT_ENABLE_GDAL=OFF -DSILT_ENABLE_MPI=OFF \
       -DSILT_BUILD_TESTS=OFF -DSILT_BUILD_BENCH=OFF &&
       cmake --build "$t/$TREE_BUILD" -j $jobs --target silt) \
      > "$OUT/build-$(basename "$(realpath "$t")").log" 2>&1 || echo "build of $t failed" &
  done
  wait
}
