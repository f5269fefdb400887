// hydrograph.nc: the rows of hydrograph.csv as a CF discrete sampling geometry (CF 1.8 chapter 9,
// featureType timeSeries, the orthogonal multidimensional representation of appendix H.2.1): one
// "station" per boundary, point source and cross section, all sampled at the frame times.
#pragma once

#include <string>
#include <vector>

namespace silt::io {

/// What hydrograph.nc holds; q and v are [station][row].
struct HydrographSeries {
  std::vector<std::string> names;  // boundary, source and section names
  std::vector<int> kinds;          // 0 boundary, 1 point source, 2 cross section
  std::vector<double> x, y;        // m: where each is (a segment's or a line's middle, a source)
  std::string time_units;          // "seconds since YYYY-MM-DD hh:mm:ss"
  std::string crs_wkt;             // the run's CRS ("" = none)
  std::vector<double> t;           // s, one per row (frame)
  std::vector<std::vector<double>> q, v;  // m^3/s (mean over the interval before t), m^3 (since 0)
};

/// Writes s to path (whole, under a temporary name renamed over path). Throws silt::Error naming
/// the file when it cannot be written, or when this build has no netCDF-C.
void write_hydrograph_netcdf(const std::string& path, const HydrographSeries& s);

}  // namespace silt::io
