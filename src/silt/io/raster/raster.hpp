// Single-band rasters on a square-cell grid: what scenes read (DEMs, initial fields) and what runs
// write (depth, level, ...). Values are stored like the solver's cell fields: row j = 0 is the
// southern row, index j * nx + i. Files store rows north first; the readers and writers flip.
//   .asc       ESRI ASCII grid, our own code (always available); its CRS is the .prj beside it
//   .tif/.tiff GeoTIFF through GDAL (float32, DEFLATE)
//   .nc        CF-1.x NetCDF through GDAL's netCDF driver
// Reading a .tif/.nc (or any other GDAL format) or writing one in a build without GDAL throws an
// Error that says so.
#pragma once

#include <mutex>
#include <string>
#include <vector>

#include "silt/core/config.hpp"

namespace silt::io {

enum class RasterFormat { asc, tif, nc };
/// How values are stored in written files: float32, float64 (a float64 run's own precision), or
/// unsigned bytes (class rasters; nodata 255).
enum class ValueType { f32, f64, u8 };

struct Raster {
  Index nx = 0, ny = 0;
  double dx = 1.0;             // m, square cells
  double x0 = 0.0, y0 = 0.0;   // lower-left corner of the lower-left cell, m
  double nodata = -9999.0;     // value marking "no data" (NaN values are no data too)
  std::vector<double> values;  // nx * ny, south row first
  // Coordinate reference system, "" when unknown: WKT in builds with GDAL; in builds without it,
  // the text of the .prj the raster was read with, unparsed (written again as it came).
  std::string crs_wkt;
  std::string variable;  // NetCDF variable name and band description ("" = "Band1")
  std::string units;     // units of the values, e.g. "m" (NetCDF/GeoTIFF metadata)
  double time = -1.0;    // s, simulated time of the values (metadata); < 0 = none
  // CF metadata of the NetCDF variable ("" = none): standard_name, long_name (default: the
  // variable name), cell_methods ("time: maximum"), and the time axis' reference,
  // "YYYY-MM-DD hh:mm:ss[ +hh:mm]" (units "seconds since <it>"; "" = 1970-01-01 00:00:00).
  std::string standard_name, long_name, cell_methods, time_reference;
  // A class raster's CF flag_values (0, 1, ...) and blank-separated flag_meanings ("" = none).
  std::string flag_meanings;
  ValueType type = ValueType::f32;  // how writers store the values (readers leave f32)

  Index cells() const { return nx * ny; }
  bool is_nodata(Index k) const;
};

/// File extension to format (.asc, .tif, .tiff, .nc); throws naming the path otherwise.
RasterFormat raster_format_of(const std::string& path);
std::string extension_of(RasterFormat f);  // "asc", "tif", "nc"
/// "asc", "tif" or "nc" to a format; false when unknown.
bool raster_format_from_name(const std::string& name, RasterFormat& out);

/// True when this build has GDAL (GeoTIFF, NetCDF): its GDAL module was built. The module
/// (libsilt_gdal.so) is loaded the first time a GDAL function below is called.
bool gdal_available();
/// "" when the GDAL module loads (it is loaded by this call), else why not (`silt info`).
std::string gdal_problem();

/// Reads a raster; .asc with our reader, anything else through GDAL. Errors name the file and
/// what is wrong (missing, truncated, not a number at row/column, non-square cells, rotated).
Raster read_raster(const std::string& path);
/// Writes r to path in format f (path is written directly; see swe_output for atomic writes).
void write_raster(const std::string& path, const Raster& r, RasterFormat f);

/// A CRS given by the user ("EPSG:32617", a WKT or PROJ string) as WKT; needs GDAL.
std::string crs_to_wkt(const std::string& user_input);
/// The CRS in a .prj file's text (ESRI WKT, OGC WKT or the old ESRI keyword form) as WKT; without
/// GDAL, the text itself. Errors name `path`.
std::string prj_to_crs(const std::string& text, const std::string& path);
/// A CRS (Raster::crs_wkt) as the text of an ESRI .prj: ESRI WKT1 (what ArcGIS and QGIS read),
/// or, without GDAL, the text unchanged (an input .prj passed through).
std::string crs_to_prj(const std::string& crs);
/// Whether two CRSs (Raster::crs_wkt, both non-empty) are the same: GDAL's IsSame, or without
/// GDAL the same text up to white space.
bool same_crs(const std::string& a, const std::string& b);
/// A CRS's name for messages ("WGS 84 / UTM zone 16N"), or the start of its text.
std::string crs_name(const std::string& crs);
/// "<dir>/<stem>.prj" for a raster path: where ESRI ASCII keeps its CRS.
std::string prj_path_of(const std::string& raster_path);

/// A NetCDF file of several fields on one grid over time (one file per run): `grid` gives the
/// grid, CRS, nodata, value type and time reference (its values are unused); each of `fields` its
/// variable name, units and CF metadata. create_netcdf_series() writes the file with an unlimited
/// (empty) time axis through GDAL (coordinates, CF grid mapping, chunks of one frame, DEFLATE);
/// append_netcdf_frame() then writes frame k (netCDF-C: GDAL cannot grow an unlimited dimension),
/// and closes the file, which is complete and readable after each frame.
/// statics: variables without time (y, x), each with its own value type, written once by
/// write_netcdf_statics() (the hazard rasters at the end of a run); a file with statics and no
/// fields has no time axis.
struct RasterSeries {
  Raster grid;
  std::vector<Raster> fields;
  std::vector<Raster> statics;
};
/// Held around every NetCDF write and series read: netCDF-C and HDF5 are not thread-safe, and the
/// writer pool (io/frame_queue.hpp) writes several frames at once. Also keeps HDF5 from printing
/// its error stack on the calling thread.
std::unique_lock<std::mutex> lock_netcdf();
/// True when this build writes NetCDF series (GDAL and the netCDF-C library).
bool netcdf_series_available();
void create_netcdf_series(const std::string& path, const RasterSeries& s);
/// values[v]: field v's nx * ny values (south row first, NaN = nodata); t in s since the reference.
void append_netcdf_frame(const std::string& path, const RasterSeries& s, long k, double t,
                         const std::vector<std::vector<double>>& values);
/// values[v]: static variable v's nx * ny values (south row first, NaN = nodata).
void write_netcdf_statics(const std::string& path, const RasterSeries& s,
                          const std::vector<std::vector<double>>& values);
/// Frames the file at path holds (the size of its time axis); errors name the file.
long netcdf_series_frames(const std::string& path);

/// Every band of a raster through GDAL: a NetCDF variable over (time, y, x) (variable "" = the
/// file's only one) or a multi-band GeoTIFF. grid: the georeferencing, nodata and CRS (values
/// empty); band_time: each band's coordinate along the extra dimension (NaN without one), in
/// time_units as the file gives them ("seconds since 2026-06-01 00:00:00").
struct RasterBands {
  Raster grid;
  std::vector<std::vector<double>> bands;  // south row first
  std::vector<double> band_time;
  std::string time_dimension, time_units;
};
RasterBands read_raster_bands(const std::string& path, const std::string& variable);

Raster read_ascii_grid(const std::string& path);
/// The same from the file's text; `path` names it in messages.
Raster parse_ascii_grid(const std::string& text, const std::string& path);
/// Writes the values only: the .prj beside it is written by the caller (crs_to_prj, prj_path_of),
/// so that outputs written under a temporary name get a .prj under the final one.
void write_ascii_grid(const std::string& path, const Raster& r);
Raster read_gdal_raster(const std::string& path);
void write_gdal_raster(const std::string& path, const Raster& r, RasterFormat f);

}  // namespace silt::io
