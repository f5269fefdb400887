// Host-side preparation of a scene for the solver: validation (silt::Error naming the scene, the
// field or boundary and the cell) and the flat tables the device needs (boundary segments per edge
// cell, forcing series, point sources). Independent of the solver's precision.
#pragma once

#include <vector>

#include "silt/swe/scene.hpp"
#include "silt/swe/sections.hpp"
#include "silt/swe/views.hpp"

namespace silt::swe::detail {

struct Layout {
  std::vector<int> side_seg;  // EdgeView::side_seg layout, -1: wall
  std::vector<int> seg_kind, seg_series, seg_cells;
  std::vector<int> seg_aux_series, seg_table;  // -1: none
  std::vector<double> seg_conc, seg_slope;     // seg_slope: sqrt(bed slope), 0 unless normal depth
  std::vector<BoundaryCell> flow_cells, discharge_cells;
  // Cells of rating segments (with their slots), and each segment's slots: [seg_slot[s],
  // seg_slot[s + 1]), one per cell along a rating segment, active or not.
  std::vector<BoundaryCell> rating_cells;
  std::vector<int> seg_slot{0};
  std::vector<SourceCell> sources;
  SectionEdges sections;  // the cross sections' edges (global cells)
  // Every forcing series, concatenated; series k is [offset[k], offset[k + 1]).
  std::vector<double> series_t, series_v;
  std::vector<int> series_offset{0};
  int rain_series = -1;
  double z_ref = 0;                  // lowest active bed, m
  double active_area = 0;            // m^2
  std::vector<std::uint8_t> active;  // nx * ny, 1 where active
};

/// Throws silt::Error when the scene cannot be simulated; otherwise returns its device tables.
Layout prepare(const Scene& scene);

}  // namespace silt::swe::detail
