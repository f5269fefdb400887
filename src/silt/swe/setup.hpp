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
  // Flow segments' cells on the global grid's edge (flow_cells) and beside inactive cells inside
  // it (mask_cells: boundary lines on masked domains); discharge and rating cells of both kinds.
  std::vector<BoundaryCell> flow_cells, discharge_cells, mask_cells;
  // Every mask edge that belongs to a segment (walls too), by edge_key() ascending, and its
  // segment: EdgeView::mask_key, mask_seg. Mask edge k has flow slot edge_slots(nx, ny) + k.
  std::vector<long long> mask_key;
  std::vector<int> mask_seg;
  // Cells of rating segments (with their slots), and each segment's slots: [seg_slot[s],
  // seg_slot[s + 1]), one per cell along a rating segment, active or not.
  std::vector<BoundaryCell> rating_cells;
  std::vector<int> seg_slot{0};
  // Point sources, and an inflow line's cells (each with its share of the discharge): one flow
  // slot each, SourceCell::id; source_of[id] is the scene's source it belongs to.
  std::vector<SourceCell> sources;
  std::vector<int> source_of;
  SectionEdges sections;  // the cross sections' edges (global cells)
  // Every forcing series, concatenated; series k is [offset[k], offset[k + 1]).
  std::vector<double> series_t, series_v;
  std::vector<int> series_offset{0};
  int rain_series = -1;
  double z_ref = 0;                  // lowest active bed, m
  double active_area = 0;            // m^2
  std::vector<std::uint8_t> active;  // nx * ny, 1 where active
  Index nx = 0, ny = 0;

  /// Edge flow slots: the global grid's edge cells, then the mask edges.
  Index n_edge() const { return edge_slots(nx, ny) + Index(mask_key.size()); }
};

/// Throws silt::Error when the scene cannot be simulated; otherwise returns its device tables.
Layout prepare(const Scene& scene);

}  // namespace silt::swe::detail
