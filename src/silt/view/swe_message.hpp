// Shallow-water frames for the page: every field the frame holds (depth, level, speed, maximum
// depth, concentration, hazard class, ...: layers) as a uint16 image each over the frame's
// [lo, hi] (0: no data, dry, or below the map's shown minimum for depth and concentration, as in
// the PNG maps), so that the page colours by any of them and reads the value under the cursor;
// and, once per client, the terrain as a uint8 hillshade. Grids larger than kMaxSide cells along
// a side are sampled every k-th cell (a strided subset on the host, not an average).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "silt/io/swe/scene_file.hpp"
#include "silt/swe/fields.hpp"
#include "silt/view/mpm_message.hpp"

namespace silt::view {

/// Pixels along the longer side of the image sent at most.
constexpr int kMaxSide = 1024;

/// The cell stride k for a grid (1 when it fits kMaxSide).
int swe_stride(const swe::Grid& grid);

/// One field of a frame: a value per cell of the whole grid, rows from the south (NaN: no data).
struct Layer {
  std::string name;   // a raster's stem: "depth", "level", "velocity", "hazard_class", ...
  std::string units;  // as the rasters' metadata: "m", "m s-1", "kg m-3", "1"
  std::vector<double> values;
};

/// The layers of a live frame, as far as `f` holds their arrays: the scene's mapped field
/// (depth, or concentration) first, then depth, level, velocity, max_depth, concentration,
/// infiltration and hazard_class.
std::vector<Layer> swe_layers(const swe::Fields& f, const io::SweJob& job);

/// Grid, map field, units, colour range, gauges and cross sections, as the page draws them.
nlohmann::json describe_swe(const io::SweJob& job);

/// The terrain: header type "terrain", nx, ny (the image), stride, bed_lo, bed_hi; payload nx x ny
/// uint8, rows from the south, 0 inactive, else 1 + 254 x hillshade.
std::string encode_terrain(const io::SweJob& job);

/// The layers: header type "swe", frame, time, steps, nx, ny, field and units (the mapped field),
/// vmax, layers [{name, units, lo, hi, range}] (range: the colour bar's [bottom, top]); payload a
/// nx x ny uint16 image per layer, 0 no data, else v = lo + (q - 1) / 65534 x (hi - lo).
std::string encode_swe(const std::vector<Layer>& layers, const io::SweJob& job,
                       const FrameInfo& info);
/// encode_swe of swe_layers(f, job).
std::string encode_swe(const swe::Fields& f, const io::SweJob& job, const FrameInfo& info);

}  // namespace silt::view
