// A NetCDF variable over an extra axis besides (y, x): an ensemble's members (docs/ensembles.md),
// or its depth thresholds. GDAL writes the file, its grid and CF grid mapping
// (create_netcdf_series); the netCDF-C library then adds the dimension, its coordinate variable
// and the variables over (axis, y, x), each with the grid mapping of the file's other variables.
#pragma once

#include <string>
#include <vector>

#include "silt/io/raster/raster.hpp"

namespace silt::io {

struct NetcdfAxis {
  std::string name;  // the dimension and its coordinate variable ("member", "depth_threshold")
  std::string units, standard_name, long_name;
  std::vector<double> values;       // the coordinate (stored as float64; "member": 0, 1, ...)
  bool integer = false;             // stored as 32-bit integers instead
  std::vector<std::string> labels;  // non-empty: a text variable "<name>_name" (CF labels, 6.1)
};

/// Adds `axis` and `vars` over (axis, y, x) to the NetCDF-4 file at `path` made by
/// create_netcdf_series(path, s): values[v][i] are variable v's nx * ny values (south row first,
/// NaN = its nodata) at index i of the axis. Errors name the file (and a full disk).
void add_netcdf_axis(const std::string& path, const RasterSeries& s, const NetcdfAxis& axis,
                     const std::vector<Raster>& vars,
                     const std::vector<std::vector<std::vector<double>>>& values);

}  // namespace silt::io
