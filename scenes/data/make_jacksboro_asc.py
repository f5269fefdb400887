#!/usr/bin/python3
"""Converts matplotlib's Jacksboro fault DEM to the ESRI ASCII grid used by
scenes/jacksboro_flood.json.

Source: /usr/share/matplotlib/mpl-data/sample_data/jacksboro_fault_dem.npz (Debian package
python-matplotlib-data): 344 x 403 int16 elevations in metres on a geographic grid of
0.000833333 deg (3 arc-seconds), north row first, spanning longitude -84.41375 .. -84.07792 and
latitude 36.44625 .. 36.73292 (the file's "ymin" holds the northern edge, "ymax" the southern) in
the Cumberland Mountains of Tennessee, USA.

Projection (an approximation, stated so nobody mistakes the output for a survey-grade grid): a
local equirectangular projection about the centre latitude phi0 on the WGS84 ellipsoid,
    x = N(phi0) cos(phi0) (lon - lon_w),    y = M(phi0) (lat - lat_s)      (lon, lat in radians)
with N and M the prime-vertical and meridional radii of curvature at phi0, and the origin
(x, y) = (0, 0) at the south-west corner (lon_w, lat_s) = (-84.41375, 36.44625). Distances along
the centre latitude and along meridians are exact to first order; east-west distances at the
northern and southern edges are off by |tan(phi0) (lat - phi0)|, at most 0.19 % here, which is far
below what a 75 m flood model resolves.

The native cells are about 74.6 m (east-west) by 92.6 m (north-south); silt needs square cells, so
the DEM is resampled bilinearly onto 75 m cells (full east-west resolution) covering the largest
whole number of cells inside the source extent. Elevations are written with 0.1 m precision.

Run:  /usr/bin/python3 scenes/data/make_jacksboro_asc.py   (writes scenes/data/jacksboro_dem_75m.asc)
"""
import math
import os
import sys

import numpy as np

SOURCE = "/usr/share/matplotlib/mpl-data/sample_data/jacksboro_fault_dem.npz"
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jacksboro_dem_75m.asc")
CELL = 75.0  # m

# WGS84 ellipsoid
A = 6378137.0
F = 1.0 / 298.257223563
E2 = F * (2.0 - F)


def main():
    dem = np.load(sys.argv[1] if len(sys.argv) > 1 else SOURCE)
    z = dem["elevation"].astype(np.float64)  # rows north first
    d = float(dem["dx"])
    assert abs(float(dem["dy"]) - d) < 1e-12
    nrows_src, ncols_src = z.shape
    lon_w = float(dem["xmin"])
    lat_n = max(float(dem["ymin"]), float(dem["ymax"]))
    lat_s = min(float(dem["ymin"]), float(dem["ymax"]))
    assert abs((float(dem["xmax"]) - lon_w) / d - ncols_src) < 1e-6, "xmin/xmax are cell edges"
    assert abs((lat_n - lat_s) / d - nrows_src) < 1e-6, "ymin/ymax are cell edges"

    phi0 = math.radians(0.5 * (lat_n + lat_s))
    w = 1.0 - E2 * math.sin(phi0) ** 2
    n_radius = A / math.sqrt(w)  # prime vertical
    m_radius = A * (1.0 - E2) / w ** 1.5  # meridian
    metres_per_deg_x = n_radius * math.cos(phi0) * math.pi / 180.0
    metres_per_deg_y = m_radius * math.pi / 180.0

    ncols = int(math.floor(ncols_src * d * metres_per_deg_x / CELL))
    nrows = int(math.floor(nrows_src * d * metres_per_deg_y / CELL))
    # Target cell centres (south row first) in geographic coordinates.
    x = (np.arange(ncols) + 0.5) * CELL
    y = (np.arange(nrows) + 0.5) * CELL
    lon = lon_w + x / metres_per_deg_x
    lat = lat_s + y / metres_per_deg_y
    # Fractional source indices of the target centres (source centres at integer + 0.5 edges).
    c = np.clip((lon - lon_w) / d - 0.5, 0.0, ncols_src - 1.0)
    r = np.clip((lat_n - lat) / d - 0.5, 0.0, nrows_src - 1.0)
    c0 = np.minimum(np.floor(c).astype(int), ncols_src - 2)
    r0 = np.minimum(np.floor(r).astype(int), nrows_src - 2)
    fc = (c - c0)[None, :]
    fr = (r - r0)[:, None]
    R0, C0 = np.meshgrid(r0, c0, indexing="ij")
    out = ((1 - fr) * (1 - fc) * z[R0, C0] + (1 - fr) * fc * z[R0, C0 + 1] +
           fr * (1 - fc) * z[R0 + 1, C0] + fr * fc * z[R0 + 1, C0 + 1])  # south row first

    with open(OUT, "w") as f:
        f.write(f"ncols {ncols}\nnrows {nrows}\nxllcorner 0\nyllcorner 0\n"
                f"cellsize {CELL:g}\nNODATA_value -9999\n")
        for row in out[::-1]:  # the file stores the northern row first
            f.write(" ".join(f"{v:.1f}" for v in row))
            f.write("\n")
    print(f"{OUT}: {ncols} x {nrows} cells of {CELL:g} m, elevation {out.min():.1f} .. "
          f"{out.max():.1f} m (source {z.min():.0f} .. {z.max():.0f} m); "
          f"{metres_per_deg_x * d:.2f} x {metres_per_deg_y * d:.2f} m native cells")


if __name__ == "__main__":
    main()
