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

CRS: the source states no datum; its longitudes and latitudes are taken as WGS 84 (a USGS 3
arc-second grid is on NAD83, which differs from WGS 84 by about 1 m here, far below a 75 m cell).
The projection above is written exactly as a CRS into jacksboro_dem_75m.prj beside the grid (ESRI
WKT1, as GDAL and QGIS read it): PROJ's equirectangular (+proj=eqc) is spherical, so it is given
on a sphere of radius M(phi0) (north-south scale exact) with its standard parallel phi_ts chosen so
that M(phi0) cos(phi_ts) = N(phi0) cos(phi0) (east-west scale exact), origin (lon_w, lat_s). Its
geographic coordinates are those of the formulas above, so GDAL/QGIS place the grid on a WGS 84
basemap as this script placed the DEM (checked by the script: every corner and the centre agree to
1e-6 m; the CRS has no EPSG code, it is this grid's own).

Run:  /usr/bin/python3 scenes/data/make_jacksboro_asc.py   (writes scenes/data/jacksboro_dem_75m.asc
and .prj; the .prj needs python3-gdal)
"""
import math
import os
import sys

import numpy as np

SOURCE = "/usr/share/matplotlib/mpl-data/sample_data/jacksboro_fault_dem.npz"
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jacksboro_dem_75m.asc")
PRJ = OUT[:-4] + ".prj"
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
    write_prj(lon_w, lat_s, phi0, n_radius, m_radius, metres_per_deg_x, metres_per_deg_y)
    print(f"{OUT}: {ncols} x {nrows} cells of {CELL:g} m, elevation {out.min():.1f} .. "
          f"{out.max():.1f} m (source {z.min():.0f} .. {z.max():.0f} m); "
          f"{metres_per_deg_x * d:.2f} x {metres_per_deg_y * d:.2f} m native cells")


def write_prj(lon_w, lat_s, phi0, n_radius, m_radius, metres_per_deg_x, metres_per_deg_y):
    """The projection of main() as a CRS (see the module comment), checked against its formulas."""
    from osgeo import osr
    lat_ts = math.degrees(math.acos(n_radius * math.cos(phi0) / m_radius))
    # The origin by a false northing rather than a latitude of origin, which ESRI's
    # Equidistant_Cylindrical (the .prj form) does not have.
    srs = osr.SpatialReference()
    srs.SetProjCS("Jacksboro DEM local equirectangular (make_jacksboro_asc.py)")
    srs.SetGeogCS("WGS 84 coordinates on a sphere of radius M(phi0)", "Jacksboro_sphere",
                  "Sphere_radius_M_phi0", m_radius, 0.0)
    srs.SetEquirectangular2(0.0, lon_w, lat_ts, 0.0, -m_radius * math.radians(lat_s))
    srs.SetLinearUnits("metre", 1.0)
    srs.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    geo = srs.CloneGeogCS()
    geo.SetAxisMappingStrategy(osr.OAMS_TRADITIONAL_GIS_ORDER)
    to_grid = osr.CoordinateTransformation(geo, srs)
    for lon, lat in [(lon_w, lat_s), (lon_w + 0.3, lat_s + 0.28), (lon_w + 0.15, lat_s + 0.14)]:
        x, y, _ = to_grid.TransformPoint(lon, lat)
        assert abs(x - metres_per_deg_x * (lon - lon_w)) < 1e-6, (lon, lat, x)
        assert abs(y - metres_per_deg_y * (lat - lat_s)) < 1e-6, (lon, lat, y)
    srs.MorphToESRI()
    with open(PRJ, "w") as f:
        f.write(srs.ExportToWkt() + "\n")


if __name__ == "__main__":
    main()
