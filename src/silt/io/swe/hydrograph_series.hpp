// The series of hydrograph.csv (io/swe/output.hpp, FlowTables): each boundary segment that is not
// a wall, each point source or inflow line, each cross section, in that order (the scene's order
// within each), with their net volumes since t = 0 out of the solver's totals; and the largest
// mean discharge of each over the intervals between output frames (FlowPeaks), what an ensemble
// reports per member (run/swe_measures.hpp).
//
// Why intervals between frames and not steps: the solver keeps, per step, a volume per edge cell
// of a boundary and per edge of a section (swe/totals.hpp, Totals::flows), but no series' discharge
// of a step; a step's discharge would need a sum over each series' slots after every step (a new
// phase on the devices) or a host round trip per step. Measured (docs/NOTES.md, 2026-12-05d):
// river_spill's triangular inflow peak of 250 m^3/s reads 232.5 with 300 s frames, 246.5 with
// 60 s, 249.4 with 10 s; a smooth outflow peak 131.5 / 132.4 / 132.4.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "silt/swe/scene.hpp"
#include "silt/swe/totals.hpp"

namespace silt::io {

/// The boundaries of hydrograph.csv: the indices of Scene::boundaries that are not walls.
std::vector<size_t> hydrograph_boundaries(const swe::Scene& s);
/// The names of hydrograph.csv's series, in its column order.
std::vector<std::string> hydrograph_names(const swe::Scene& s);
/// Their net volumes since t = 0 (m^3; what left a boundary or source negative, a section's
/// toward its line's left positive), as hydrograph.csv's "<name>_volume_m3" columns.
std::vector<double> hydrograph_volumes(const swe::Scene& s, const swe::Totals& t);

/// Each series' largest mean discharge over an interval between two output frames: the magnitude
/// of hydrograph.csv's "<name>_q_m3_s" (same formula: volume difference / time difference) and
/// the end of that interval (the row's time_s; the earliest of equal ones). NaN peak: no interval
/// yet; NaN time: nothing has flowed (the peak is 0). Kept in checkpoints (a restart goes on with
/// the same intervals).
struct FlowPeaks {
  bool started = false;           // `time` and `volume` hold the previous frame (or the start)
  double time = 0;                // s
  std::vector<double> volume;     // m^3 per series at `time`
  std::vector<double> peak_q;     // m^3/s, >= 0
  std::vector<double> peak_time;  // s

  /// Its series' volumes at time t (s): the start of the run, or an output frame.
  void add(double t, const std::vector<double>& volumes);
};

}  // namespace silt::io
