// What a user looks for on a PNG output: on shallow-water maps, a strip below the map with the
// colour bar (field name, units, range), the simulated time and a scale bar; on MPM previews, the
// frame time and a legend of the materials, top left. Drawn only where text is available
// (io/image/text.hpp) and the image is wide enough to carry it (kLegendMinWidth); otherwise the
// images are left as they are, one pixel per cell.
#pragma once

#include <string>
#include <vector>

#include "silt/io/image/map.hpp"
#include "silt/io/image/splat_render.hpp"

namespace silt::io {

/// Maps narrower than this many pixels get no legend strip.
constexpr int kLegendMinWidth = 240;

/// The map with the legend strip added below it (or `map` itself, see above).
/// metres_per_pixel: the map's scale (dx / png_scale). units may be empty (a fraction).
PngImage with_map_legend(const PngImage& map, const std::string& field, const std::string& units,
                         double vmax, ColourRamp ramp, double time, double metres_per_pixel);

/// The map with a strip below it naming classes (a box of colours[k] and classes[k] each, after
/// `title`) and a scale bar (see with_map_legend).
PngImage with_class_legend(const PngImage& map, const std::string& title,
                           const std::vector<std::string>& classes,
                           const std::vector<std::array<double, 3>>& colours,
                           double metres_per_pixel);

/// Draws the frame time and the materials' names in their colours onto a preview.
void annotate_preview(SplatImage& image, double time, const std::vector<std::string>& names,
                      const std::vector<Rgb>& palette);

}  // namespace silt::io
