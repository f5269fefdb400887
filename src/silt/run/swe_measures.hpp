// What a shallow-water ensemble measures on each member (docs/ensembles.md, "Outputs"), from
// what its run left at the end, for measures.csv and measures_stats.csv:
//   - at each gauge of the scene (outputs.gauges, in order), in the gauge's own cell (the cell
//     holding its point: a gauge's snap radius is not applied), the maximum depth and the maximum
//     level (bed + maximum depth; NaN where never wet) over the run, and when the members track
//     the hazard fields the maximum speed and the first time the cell was wet (NaN: never);
//   - for each series of its hydrograph.csv (each boundary that is not a wall, each point source
//     or inflow line, each cross section: io/swe/hydrograph_series.hpp), its peak discharge: the
//     largest magnitude of the discharge of a time step (its net volume / dt, tracked on the
//     device: swe::Solver::track_step_peaks), the end time of that step (NaN: nothing flowed),
//     and its net volume since the start (hydrograph.csv's last "<name>_volume_m3": what left
//     the domain negative, a section's toward the line's left positive);
//   - the member's water balance at the end (swe::Totals, as mass_balance.csv's last row): the
//     rain, the infiltrated volume, the net volumes through the boundaries and the point sources
//     (what left negative) and the volume stored at the end.
// NaN on an inactive cell. The values are the rasters' (io/swe/output.hpp: derived_field,
// hazard_raster) at the gauge's cell, so a member's max_depth raster shows the same number.
#pragma once

#include <vector>

#include "silt/io/swe/hydrograph_series.hpp"
#include "silt/io/swe/scene_file.hpp"
#include "silt/run/measure_table.hpp"
#include "silt/swe/fields.hpp"
#include "silt/swe/totals.hpp"

namespace silt::run {

/// The measures of every member of an ensemble whose base job is `job`: the gauges' (with the
/// hazard measures when `hazard`), the hydrograph's, then the water balance. Made once, from the
/// base job.
std::vector<MeasureText> swe_measure_names(const io::SweJob& job, bool hazard);

/// A member's measures in the order of swe_measure_names(job, hazard): f its fields at the end
/// (max_depth, and with `hazard` the hazard fields), t its totals then, p its step peaks
/// (swe::Solver::step_peaks(); empty: the peak columns are NaN).
std::vector<double> swe_measures_of(const io::SweJob& job, const swe::Fields& f,
                                    const swe::Totals& t, const swe::StepPeaks& p, bool hazard);

}  // namespace silt::run
