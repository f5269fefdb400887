#!/usr/bin/env bash
# A masked real-terrain dam break as issue 34 item 7 measured it: float64, gauges every 1 s,
# hazard maxima, outputs minimal (frames at 0 and end_time only, no PNG). Prints the steps, the
# stepping wall time (the frames' ms/step times their steps: set-up and writing left out), the
# end-to-end wall, steps/s and cell-updates/s over all cells and per active cell. Asserts nothing;
# record the lines under bench/results/.
#   bash bench/swe_real_run.sh [BUILD_DIR] [BACKEND] [DX_M] [END_S]
#     defaults: build-gpu cuda 12.5 4000; the issue's two sizes on the GPU:
#       bash bench/swe_real_run.sh build-gpu cuda 12.5 4000   # 6.1M cells, 2.0M active
#       bash bench/swe_real_run.sh build-gpu cuda 75 4000     # 170K cells, 56K active
#     the CPU smoke test (CI-sized): bash bench/swe_real_run.sh build cpu 150 60
#   OUT: where the scene, its DEM and the run go (default /tmp/silt-out/swe_real_run)
#   GAUGE_S: the gauge interval (default 1)
# Terrain: scenes/data/jacksboro_dem_75m.asc (ESRI ASCII, no GDAL needed), resampled bilinearly to
# DX_M by numpy; cells above the 33rd percentile of the elevation (437 m) are nodata ("wall"), so a
# third of the grid is active, as in the issue's run (2.1M of 6.4M). The event is the shipped
# scene's lake (level 420 m within 1.5 km of (14800, 19800) m) without its rain; its four gauges.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD=${1:-build-gpu}
BACKEND=${2:-cuda}
DX=${3:-12.5}
END=${4:-4000}
GAUGE_S=${GAUGE_S:-1}
OUT=${OUT:-/tmp/silt-out/swe_real_run}
# The first Python with numpy (Debian's here; the GPU machine's image has its own).
PY=
for p in /usr/bin/python3 python3; do
  if "$p" -c "import numpy" >/dev/null 2>&1; then PY=$p; break; fi
done
[ -n "$PY" ] || { echo "swe_real_run.sh: no python3 with numpy" >&2; exit 1; }
mkdir -p "$OUT"
DEM="$OUT/dem_${DX}m.asc"
# The DEM at DX with the mask; prints "cells active".
read -r CELLS ACTIVE < <("$PY" - "$DX" "$DEM" <<'EOF'
import sys
import numpy as np
dx, path = float(sys.argv[1]), sys.argv[2]
a = np.loadtxt("scenes/data/jacksboro_dem_75m.asc", skiprows=6)[::-1]  # row 0 south
ny0, nx0 = a.shape
nx, ny = int(round(nx0 * 75.0 / dx)), int(round(ny0 * 75.0 / dx))
# Cell centres of the new grid in units of the old cells, clamped to the old centres.
x = np.clip((np.arange(nx) + 0.5) * dx / 75.0 - 0.5, 0, nx0 - 1)
y = np.clip((np.arange(ny) + 0.5) * dx / 75.0 - 0.5, 0, ny0 - 1)
i0, j0 = np.minimum(x.astype(int), nx0 - 2), np.minimum(y.astype(int), ny0 - 2)
fx, fy = (x - i0)[None, :], (y - j0)[:, None]
J, I = j0[:, None], i0[None, :]
z = ((1 - fy) * ((1 - fx) * a[J, I] + fx * a[J, I + 1]) + fy * ((1 - fx) * a[J + 1, I] + fx * a[J + 1, I + 1]))
threshold = np.quantile(a, 0.33)
z = np.where(z > threshold, -9999.0, z)
with open(path, "w") as f:
    f.write(f"ncols {nx}\nnrows {ny}\nxllcorner 0\nyllcorner 0\ncellsize {dx}\nNODATA_value -9999\n")
    np.savetxt(f, z[::-1], fmt="%.2f")
print(nx * ny, int((z > -9999).sum()))
EOF
)
SCENE="$OUT/scene_${DX}m.json"
cat > "$SCENE" <<EOF
{
  "solver": "swe",
  "name": "jacksboro_masked_${DX}m",
  "bed": { "raster": "$(basename "$DEM")", "nodata": "wall" },
  "manning": 0.05,
  "initial": {
    "level": {
      "value": 0.0,
      "patches": [ { "shape": "circle", "center": [14800, 19800], "radius": 1500, "value": 420.0 } ]
    }
  },
  "boundaries": [
    { "name": "west", "side": "west", "type": "open" },
    { "name": "east", "side": "east", "type": "open" },
    { "name": "south", "side": "south", "type": "open" },
    { "name": "north", "side": "north", "type": "open" }
  ],
  "physics": { "cfl": 0.45, "precision": "float64" },
  "run": { "end_time": $END, "output_interval": $END },
  "outputs": {
    "fields": ["max_depth"],
    "png": "none",
    "hazard": { "fields": ["max_depth", "max_speed", "first_wet_time"] },
    "gauges": {
      "interval": $GAUGE_S,
      "points": [
        { "name": "lake", "x": 14588, "y": 19838 },
        { "name": "gorge", "x": 15875, "y": 17287 },
        { "name": "gap", "x": 17000, "y": 16237 },
        { "name": "lowland", "x": 17750, "y": 15712 }
      ]
    }
  }
}
EOF
LOG="$OUT/run_${DX}m_${BACKEND}.log"
rm -rf "$OUT/run_${DX}m_${BACKEND}"
"$BUILD/apps/silt/silt" run "$SCENE" --backend "$BACKEND" --out "$OUT/run_${DX}m_${BACKEND}" \
  > "$LOG" 2>&1 || { cat "$LOG"; exit 1; }
grep -E "^split|finished:" "$LOG" || true
# Stepping: the frames' steps times their ms/step; the end-to-end wall from the finished line.
awk -v cells="$CELLS" -v active="$ACTIVE" -v dx="$DX" -v backend="$BACKEND" '
  /^frame .* steps .* ms\/step/ {
    for (i = 1; i <= NF; ++i) { if ($i == "steps") n = $(i+1); if ($(i+1) == "ms/step") ms = $i }
    wall += (n - last) * ms / 1000; last = n }
  /^finished:/ { for (i = 1; i <= NF; ++i) if ($(i+1) == "s" && $(i+2) == "wall") e2e = $i }
  END {
    steps = last
    printf "swe_real_run %s dx %s m: %d cells, %d active (%.0f%%); %d steps, stepping %.3f s, end to end %.3f s; %.0f steps/s; %.3f G cell-updates/s over all cells, %.3f G per active cell\n",
      backend, dx, cells, active, 100 * active / cells, steps, wall, e2e,
      (wall > 0 ? steps / wall : 0), (wall > 0 ? steps * cells / wall / 1e9 : 0),
      (wall > 0 ? steps * active / wall / 1e9 : 0) }' "$LOG"
