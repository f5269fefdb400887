// PNG maps for a quick look at a run: a field (depth or concentration) in a colour ramp over a grey
// hillshade of the bed, one pixel per cell, north up. Dry cells show the terrain; inactive
// (nodata) cells are transparent. Needs libpng (SILT_WITH_PNG); without it writing throws.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "silt/swe/scene.hpp"

namespace silt::io {

struct PngImage {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgba;  // 4 bytes per pixel, top row (north) first
};

enum class ColourRamp {
  blues,  // depth: ColorBrewer "Blues", light to dark
  heat,   // concentration: ColorBrewer "YlOrRd", yellow to dark red
  // Flood hazard classes 1..4 (low, moderate, significant, extreme) at s = class / 4: one colour
  // each, ColorBrewer "YlOrRd" stops, not interpolated.
  hazard_classes
};

/// The ramp's colour (0..255 per channel) at s in [0, 1] (clamped).
std::array<double, 3> ramp_colour(ColourRamp ramp, double s);

/// True when this build has libpng.
bool png_available();

/// Grey shade in [0, 1] of each cell: Lambertian illumination of the bed surface from azimuth
/// 315 deg, altitude 45 deg, with Horn's (1981) 3x3 slope estimate; a flat bed gives sin(45 deg).
/// Inactive cells (active[k] == 0) neither get nor lend a slope.
std::vector<float> hillshade(const swe::Grid& grid, const std::vector<double>& bed,
                             const std::vector<std::uint8_t>& active);

/// The map: value[k] in [show_min, vmax] drawn in `ramp` (clamped above vmax) over the hillshade;
/// values below show_min, or NaN, show the terrain; inactive cells are transparent. Each cell is
/// a block of scale x scale pixels.
PngImage render_map(const swe::Grid& grid, const std::vector<float>& shade,
                    const std::vector<std::uint8_t>& active, const std::vector<double>& value,
                    double show_min, double vmax, ColourRamp ramp, int scale = 1);

/// Writes / reads an 8-bit RGBA PNG. Errors name the file and libpng's reason.
void write_png(const std::string& path, const PngImage& image);
PngImage read_png(const std::string& path);

}  // namespace silt::io
