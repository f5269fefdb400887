#!/usr/bin/python3
"""Reads a raster with GDAL itself and prints what the io tests compare as JSON: size, geotransform,
nodata, CRS, band data type, description/units/metadata, and the values (north row first, nodata as null).
Used by io_raster_test to check that silt's GeoTIFF/NetCDF/ESRI ASCII files are read by GDAL as
intended (GDAL's own reader, not silt's)."""
import json
import sys

from osgeo import gdal

gdal.UseExceptions()
ds = gdal.Open(sys.argv[1])
band = ds.GetRasterBand(1)
nodata = band.GetNoDataValue()
arr = band.ReadAsArray().astype(float)
values = [[None if (nodata is not None and v == nodata) else float(v) for v in row] for row in arr]
print(json.dumps({
    "driver": ds.GetDriver().ShortName,
    "size": [ds.RasterXSize, ds.RasterYSize],
    "geotransform": list(ds.GetGeoTransform()),
    "nodata": nodata,
    "crs": ds.GetProjection(),
    "units": band.GetUnitType(),
    "type": gdal.GetDataTypeName(band.DataType),
    "metadata": ds.GetMetadata(),
    "band_metadata": band.GetMetadata(),
    "values": values,
}))
