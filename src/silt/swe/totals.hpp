// The volumes a shallow-water run has moved since t = 0 (Solver::totals()), by where they went.
#pragma once

#include <vector>

namespace silt::swe {

/// Volumes since the start of the run (t = 0; a restart carries them on). "Net" volumes count what
/// entered positive and what left negative.
struct Totals {
  double volume = 0;                    // m^3 of water stored in the domain now
  double pollutant_mass = 0;            // kg
  double net_inflow_volume = 0;         // m^3: rain + boundary_net_volume + source_net_volume
  double rain_volume = 0;               // m^3 that fell as rain
  double infiltrated_volume = 0;        // m^3 that infiltrated into the soil
  double boundary_net_volume = 0;       // m^3 through all boundary segments
  double source_net_volume = 0;         // m^3 through all point sources (withdrawals negative)
  std::vector<double> boundary_volume;  // m^3 net through each of Scene::boundaries, in order
  std::vector<double> source_volume;    // m^3 net through each of Scene::sources, in order
  // m^3 across each of Scene::sections, in order, toward the line's left (not part of the balance)
  std::vector<double> section_volume;
  // m^3 through each edge cell of the grid's boundary (west, east, south, north, along each), then
  // each boundary line's edge beside an inactive cell, then each source (an inflow line: each of
  // its cells), then each cross-section edge: what a restart continues (RestartState::flows)
  std::vector<double> flows;
};

}  // namespace silt::swe
