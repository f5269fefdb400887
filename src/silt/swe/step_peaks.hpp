// The largest discharge of a time step through each boundary segment, point source and cross
// section (Solver::track_step_peaks): what an ensemble reports as a member's peak discharge.
#pragma once

#include <vector>

namespace silt::swe {

/// Per series, in the order of Totals' volumes: each of Scene::boundaries, then each of
/// Scene::sources, then each of Scene::sections.
struct StepPeaks {
  /// m^3/s, >= 0: the largest |net volume of a step / the step's dt| since tracking began
  std::vector<double> q;
  /// s: the end of that step (the first of equal ones; NaN while nothing has flowed)
  std::vector<double> time;
};

}  // namespace silt::swe
