// Single-band rasters on a square-cell grid: what scenes read (DEMs, initial fields) and what runs
// write (depth, level, ...). Values are stored like the solver's cell fields: row j = 0 is the
// southern row, index j * nx + i. Files store rows north first; the readers and writers flip.
//   .asc       ESRI ASCII grid, our own code (always available)
//   .tif/.tiff GeoTIFF through GDAL (float32, DEFLATE)
//   .nc        CF-1.x NetCDF through GDAL's netCDF driver
// Reading a .tif/.nc (or any other GDAL format) or writing one in a build without GDAL throws an
// Error that says so.
#pragma once

#include <string>
#include <vector>

#include "silt/core/config.hpp"

namespace silt::io {

enum class RasterFormat { asc, tif, nc };

struct Raster {
  Index nx = 0, ny = 0;
  double dx = 1.0;             // m, square cells
  double x0 = 0.0, y0 = 0.0;   // lower-left corner of the lower-left cell, m
  double nodata = -9999.0;     // value marking "no data" (NaN values are no data too)
  std::vector<double> values;  // nx * ny, south row first
  std::string crs_wkt;         // coordinate reference system (WKT), "" when unknown
  std::string variable;        // NetCDF variable name and band description ("" = "Band1")
  std::string units;           // units of the values, e.g. "m" (NetCDF/GeoTIFF metadata)
  double time = -1.0;          // s, simulated time of the values (metadata); < 0 = none

  Index cells() const { return nx * ny; }
  bool is_nodata(Index k) const;
};

/// File extension to format (.asc, .tif, .tiff, .nc); throws naming the path otherwise.
RasterFormat raster_format_of(const std::string& path);
std::string extension_of(RasterFormat f);  // "asc", "tif", "nc"
/// "asc", "tif" or "nc" to a format; false when unknown.
bool raster_format_from_name(const std::string& name, RasterFormat& out);

/// True when this build has GDAL (GeoTIFF, NetCDF).
bool gdal_available();

/// Reads a raster; .asc with our reader, anything else through GDAL. Errors name the file and
/// what is wrong (missing, truncated, not a number at row/column, non-square cells, rotated).
Raster read_raster(const std::string& path);
/// Writes r to path in format f (path is written directly; see swe_output for atomic writes).
void write_raster(const std::string& path, const Raster& r, RasterFormat f);

/// A CRS given by the user ("EPSG:32617", a WKT or PROJ string) as WKT; needs GDAL.
std::string crs_to_wkt(const std::string& user_input);

Raster read_ascii_grid(const std::string& path);
/// The same from the file's text; `path` names it in messages.
Raster parse_ascii_grid(const std::string& text, const std::string& path);
void write_ascii_grid(const std::string& path, const Raster& r);
Raster read_gdal_raster(const std::string& path);
void write_gdal_raster(const std::string& path, const Raster& r, RasterFormat f);

}  // namespace silt::io
