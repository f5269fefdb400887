// What a shallow-water run continues from (Solver::restore, io/swe/checkpoint.hpp): a value type
// of its own, so that readers and writers of checkpoints need not see the solver.
#pragma once

#include <vector>

#include "silt/swe/fields.hpp"

namespace silt::swe {

/// What a run continues from (a checkpoint, io/swe/checkpoint.hpp): the whole grid's fields and
/// the clock. The next dt follows from the fields (the CFL condition), so nothing else is kept.
struct RestartState {
  Fields fields;        // every cell of the global grid (on every rank for restore())
  double time = 0;      // s
  long long steps = 0;  // steps taken
  double inflow = 0;    // m^3, Totals::net_inflow_volume so far
  double rain = 0;      // m^3, Totals::rain_volume so far
  // Totals::flows (empty in a checkpoint that predates them: zeros)
  std::vector<double> flows;
  double last_dt = 0;  // s, last non-zero step
  double cfl_dt = 0;   // s, last step as the CFL condition chose it (batching only)
};

}  // namespace silt::swe
