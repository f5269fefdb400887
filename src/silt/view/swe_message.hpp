// Shallow-water frames for the page: the mapped field (depth, m, or concentration, kg/m^3) as a
// uint16 image over [0, vmax] (0: dry or below the shown minimum, as in the PNG maps), and, once
// per client, the terrain as a uint8 hillshade. Grids larger than kMaxSide cells along a side are
// sampled every k-th cell (a strided subset on the host, not an average).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "silt/io/swe_scene.hpp"
#include "silt/swe/fields.hpp"
#include "silt/view/mpm_message.hpp"

namespace silt::view {

/// Pixels along the longer side of the image sent at most.
constexpr int kMaxSide = 1024;

/// The cell stride k for a grid (1 when it fits kMaxSide).
int swe_stride(const swe::Grid& grid);

/// Grid, map field, units, colour range and gauges, as the page draws them.
nlohmann::json describe_swe(const io::SweJob& job);

/// The terrain: header type "terrain", nx, ny (the image), stride; payload nx x ny uint8, rows
/// from the south, 0 inactive, else 1 + 254 x hillshade.
std::string encode_terrain(const io::SweJob& job);

/// The mapped field of `f`: header type "swe", frame, time, steps, nx, ny, field, units, vmax;
/// payload nx x ny uint16, 0 where dry or below show_min, else 1 + 65534 x min(v / vmax, 1).
std::string encode_swe(const swe::Fields& f, const io::SweJob& job, const FrameInfo& info);

}  // namespace silt::view
