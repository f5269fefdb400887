// What an ensemble reports (docs/ensembles.md, "Outputs"), from every member's end-of-run maxima:
// per cell the mean, standard deviation and percentiles of each field, the probability that the
// maximum depth exceeds each listed depth and that the hazard class reaches each class, as
// rasters (ESRI ASCII with its .prj, GeoTIFF) and in one CF NetCDF file, ensemble.nc, that also
// holds every member's maxima along a `member` dimension; each probability as a report map
// (report_<map>.png, over the terrain, when the scene writes PNG maps); members.csv, a row per
// member; and measures.csv, measures_stats.csv (measures.nc with "nc"): each member's measures at
// the gauges and its water balance (swe_measures.hpp) and their statistics over the members.
#pragma once

#include <string>
#include <vector>

#include "silt/io/ensemble_file.hpp"
#include "silt/io/swe/scene_file.hpp"
#include "silt/run/ensemble.hpp"

namespace silt::run {

/// Writes the report into `out`; `grid` is a member's job (the grid, CRS, precision and nodata of
/// the rasters). Returns the files written.
std::vector<std::string> write_ensemble_report(const io::SweJob& grid, const io::Ensemble& e,
                                               const std::vector<MemberResult>& results,
                                               const std::string& out);

/// members.csv: name, end time, steps, wall seconds and the member's scene values.
void write_members_csv(const io::Ensemble& e, const std::vector<MemberResult>& results,
                       const std::string& out);

}  // namespace silt::run
