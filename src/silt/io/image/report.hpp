// The maps of a flood report, written at the end of a shallow-water run with the hazard rasters:
// report_max_depth.png (the maximum depth over the run) and report_hazard_class.png (the flood
// hazard class of the maximum hazard rating), each over the hillshade of the bed (io/image/map.hpp)
// and framed for a report: coordinates of the map's CRS as tick labels along its west and south
// edges, a north arrow (grid north: the grid is north up) in its north-east corner, and the legend
// strip below it (io/image/legend.hpp: the colour bar, or the classes, and a scale bar).
#pragma once

#include <string>

#include "silt/io/image/map.hpp"

namespace silt::io {

/// Where a map lies: its south-west corner (x0, y0) and the map units per pixel in its CRS
/// (dx / png_scale), and the units' name for the caption ("m", "degree", ...).
struct MapPlacement {
  double x0 = 0, y0 = 0;
  double units_per_pixel = 1;
  std::string units = "m";
};

/// Pixels of margin framed_map() adds on the north and east sides, and of the north arrow's box.
constexpr int kFrameTop = 8, kFrameRight = 12;
constexpr int kArrowBox = 30;

/// The map in a white frame: a border, ticks every 1, 2 or 5 x 10^k map units (about every 120
/// pixels) with their coordinates along the west and south edges, the units' caption in the
/// south-west corner and a north arrow in the map's north-east corner. The map's top-left pixel
/// lands at (margin_left, kFrameTop); *margin_left receives it when given.
PngImage framed_map(const PngImage& map, const MapPlacement& where, int* margin_left = nullptr);

}  // namespace silt::io
