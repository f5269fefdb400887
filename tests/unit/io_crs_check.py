#!/usr/bin/python3
"""Prints "same" when GDAL reads the raster at argv[1] (its own reader: the .prj beside an .asc,
the GeoTIFF keys, the NetCDF grid mapping) in the CRS argv[2] (e.g. EPSG:32616), and otherwise
"different: <what GDAL read>". Used by io_crs_test."""
import sys

from osgeo import gdal, osr

gdal.UseExceptions()
ds = gdal.Open(sys.argv[1])
srs = ds.GetSpatialRef()
want = osr.SpatialReference()
want.SetFromUserInput(sys.argv[2])
if srs is not None and srs.IsSame(want):
    print("same")
else:
    print("different: " + (srs.ExportToWkt() if srs is not None else "no CRS"))
