// The series of hydrograph.csv (io/swe/output.hpp, FlowTables): each boundary segment that is not
// a wall, each point source or inflow line, each cross section, in that order (the scene's order
// within each): their names, their net volumes since t = 0 out of the solver's totals, and their
// peak discharges of a step out of the solver's (swe::StepPeaks, Solver::track_step_peaks), what
// an ensemble reports per member (run/swe_measures.hpp).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "silt/swe/scene.hpp"
#include "silt/swe/step_peaks.hpp"
#include "silt/swe/totals.hpp"

namespace silt::io {

/// The boundaries of hydrograph.csv: the indices of Scene::boundaries that are not walls.
std::vector<size_t> hydrograph_boundaries(const swe::Scene& s);
/// The names of hydrograph.csv's series, in its column order.
std::vector<std::string> hydrograph_names(const swe::Scene& s);
/// Their net volumes since t = 0 (m^3; what left a boundary or source negative, a section's
/// toward its line's left positive), as hydrograph.csv's "<name>_volume_m3" columns.
std::vector<double> hydrograph_volumes(const swe::Scene& s, const swe::Totals& t);

/// Their peak discharges of a step (m^3/s, >= 0) and the end times of those steps (s; NaN: none
/// flowed), picked out of the solver's peaks p (every boundary, source and section); both NaN
/// when p is empty (not tracked).
struct HydrographPeaks {
  std::vector<double> q, time;
};
HydrographPeaks hydrograph_peaks(const swe::Scene& s, const swe::StepPeaks& p);

}  // namespace silt::io
