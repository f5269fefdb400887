// The pieces of io/swe/scene_file.cpp's loader, one file each: forcing (boundaries, point sources,
// rainfall) and run/output settings. Internal to silt::io.
#pragma once

#include "silt/io/json_keys.hpp"
#include "silt/io/raster/cell_field.hpp"
#include "silt/io/swe/scene_file.hpp"

namespace silt::io::detail {

/// "boundaries", "sources", "rainfall_mm_h" into job.scene (grid and active cells already set).
void read_swe_forcing(Keys& root, const FieldReader& fields, swe::Scene& scene);
/// "run" and "outputs" into job.run and job.outputs.
void read_swe_run_outputs(Keys& root, const FieldReader& fields, SweJob& job);
/// "rainfall" (rain rasters) and "infiltration" into job.scene (after "run": frame times may be
/// dates, counted from run.start_datetime).
void read_swe_rain_soil(Keys& root, FieldReader& fields, SweJob& job);
/// Index of the cell containing (x, y), or -1 outside the grid.
Index cell_at(const swe::Grid& g, double x, double y);

}  // namespace silt::io::detail
