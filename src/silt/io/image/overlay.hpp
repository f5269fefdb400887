// Lines, areas and points drawn over a PNG map (io/image/map.hpp) in map coordinates: the scene's
// boundaries, inflow lines and polygons, point sources and cross sections on the report's maps
// (io/image/report.hpp), each in its kind's colour over a white halo, with its name beside it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "silt/io/image/map.hpp"
#include "silt/io/image/report.hpp"

namespace silt::io {

/// What a feature is; its colour: boundaries magenta, inflows (lines, polygons, points) green,
/// cross sections black.
enum class FeatureKind { boundary, inflow, section };

/// A polyline (closed: a polygon) or, with one point, a point, in map coordinates.
struct MapFeature {
  FeatureKind kind = FeatureKind::boundary;
  std::string name;  // drawn beside it; empty: no label
  std::vector<std::array<double, 2>> points;
  bool closed = false;
};

/// The colour a feature of `kind` is drawn in.
std::array<std::uint8_t, 3> feature_colour(FeatureKind kind);

/// Draws the features on `map` (placed by `at`: its south-west corner and map units per pixel;
/// the top row is north): a line 3 pixels wide in the kind's colour over a halo of white pixels
/// one pixel beyond it, a point as a 7-pixel square, and the name in the kind's colour on a white
/// box right of and above the line's middle (a polygon's: the mean of its points), kept inside
/// the map. What falls outside the map is clipped.
void draw_features(PngImage& map, const MapPlacement& at, const std::vector<MapFeature>& features);

}  // namespace silt::io
