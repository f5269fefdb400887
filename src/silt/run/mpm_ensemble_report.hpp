// What an MPM ensemble reports (docs/ensembles.md, "MPM sweeps"): measures.csv, a row of
// measures per member (mpm_measures.hpp) with its settings; measures_stats.csv, each measure's
// mean, standard deviation and percentiles over the members (NumPy's nanmean, nanstd,
// nanpercentile 'linear'); kinetic_energy.csv, every member's frames; and on request
// measures.nc, all of it in one CF NetCDF file with a member dimension.
#pragma once

#include <string>
#include <vector>

#include "silt/io/ensemble_file.hpp"
#include "silt/run/mpm_ensemble.hpp"

namespace silt::run {

/// Writes the report into `out` (measures.csv alone with the members that finished when
/// `complete` is false: a stopped run); returns the files written.
std::vector<std::string> write_mpm_ensemble_report(const io::Ensemble& e,
                                                   const std::vector<MpmMemberResult>& results,
                                                   const std::string& out, bool complete = true);

}  // namespace silt::run
