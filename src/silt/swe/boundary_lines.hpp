// Boundary lines and inflow lines laid on the grid once, at set-up (host), like the cross sections
// (sections.hpp). A boundary line is a polyline in map coordinates along the model's outer edge:
// the edges between an active cell and the outside of the model (beyond the grid, or an inactive,
// nodata cell), also on masked, non-rectangular domains. An inflow line is a polyline inside the
// domain whose discharge is split among the active cells it crosses by its length in each. An
// inflow polygon (a source area) spreads its discharge evenly over the active cells whose centres
// lie inside it (by cell area; the cells are square and equal, so each takes 1 / N).
//
// A boundary line takes an outer edge when the edge's middle lies within half a cell of the line
// (at most dx / 2 from one of its segments, where the foot of the perpendicular falls within the
// segment, or from one of its inner vertices) and the edge runs within 60 degrees of that segment's
// direction: a line along a straight side takes that side's edges, one along a staircase of masked
// cells takes both edges of every step, and the edges across the line's end or across a one-cell
// notch are left out.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "silt/swe/scene.hpp"

namespace silt::swe {

/// An edge of the model's outer edge: edge `side` (SideCode's order: 0 west, 1 east, 2 south, 3
/// north) of cell (i, j), global.
struct BoundaryEdge {
  Index i = 0, j = 0;
  int side = 0;
};

/// The edges of boundary b, scene.boundaries[index] (named in errors as "boundary <index>
/// '<name>'"), ordered by (j, i, side). With side + range: the side's cells [begin, end), active or
/// not (a range outside the side: empty). With a line: the outer edges of active cells it runs
/// along. Throws silt::Error naming the boundary when the line has fewer than 2 points or a point
/// that is not finite, crosses itself, has a point farther than half a cell from the outer edge
/// (giving the point and its distance), or runs along no edge of an active cell.
std::vector<BoundaryEdge> boundary_edges(const Grid& grid, const std::vector<std::uint8_t>& active,
                                         const Boundary& b, size_t index);

/// An active cell an inflow line crosses and the line's length in it, m.
struct LineCell {
  Index i = 0, j = 0;
  double length = 0;
};

/// An active cell of an inflow polygon.
struct SourceCellIndex {
  Index i = 0, j = 0;
};

/// The active cells that inflow line s, scene.sources[index], crosses, ordered by (j, i), with
/// the line's length in each (its parts over inactive cells or outside the grid count nowhere).
/// Throws silt::Error naming the source when the line has fewer than 2 points or a point that is
/// not finite, crosses itself, or crosses no active cell.
std::vector<LineCell> line_cells(const Grid& grid, const std::vector<std::uint8_t>& active,
                                 const PointSource& s, size_t index);

/// The active cells whose centres lie inside inflow polygon s.polygon (scene.sources[index]),
/// ordered by (j, i). A centre on the polygon's edge counts by the half-open crossing rule (one of
/// two polygons sharing that edge takes it). The polygon is closed (its last point may repeat the
/// first). Throws silt::Error naming the source when it has fewer than 3 distinct points or a
/// point that is not finite, a point outside the grid, crosses itself, or holds no active cell's
/// centre.
std::vector<SourceCellIndex> polygon_cells(const Grid& grid,
                                           const std::vector<std::uint8_t>& active,
                                           const PointSource& s, size_t index);

/// The "dry-only" check of a boundary: for a level boundary whose highest level over its whole
/// series is not above the ground (bed) of any active cell it touches, why it is suspicious (its
/// ghost cells are dry for the whole run: water leaves through it as over a free outfall and never
/// enters; most likely a depth given as a level, or a level on another datum); empty for every
/// other boundary. Kinds that impose a discharge may wet dry ground and outflow kinds may stay dry
/// legitimately: not checked. The scene reader warns with it (a valid scene: not refused).
std::string level_below_ground(const Scene& scene, const Boundary& b,
                               const std::vector<BoundaryEdge>& edges);

/// The bed's mean fall toward a boundary's edges, m/m: over the edges whose cell and whose
/// inward neighbour (one cell inside, along the edge's inward normal) are both active, the mean of
/// (bed inside - bed at the edge) / dx; positive where the bed falls toward the edge. cells: how
/// many edges count (0: none, slope 0).
struct EdgeFall {
  double slope = 0;
  size_t cells = 0;
};
EdgeFall bed_fall_toward_edge(const Scene& scene, const std::vector<BoundaryEdge>& edges);

/// The fall above which an `open` edge warns: 0.05%. The held-back outflow does not fade on gentler
/// beds (a subcritical channel's outlet ponds 22% above normal depth at 2%, 133% at 0.1%, and at
/// 0.01% is still filling after a day), so the number only keeps flat beds, beds rising toward the
/// edge and beds level to a DEM's precision (1 cm over a 20 m cell) silent, and is half the
/// gentlest shipped outlet's fall (river_spill's 0.1%), which so warns whatever the round-off.
/// docs/NOTES.md, "open edges on sloping beds: a warning" (2026-12-05).
constexpr double kOpenEdgeFallWarn = 5e-4;

/// The sloping-bed check of an `open` boundary: when the bed falls toward its edge by more than
/// kOpenEdgeFallWarn, why that is suspicious, starting "(open) lies on a bed falling ..." (the
/// zero-gradient ghost copies the bed and the level, so no fall drives the water across the edge
/// and a subcritical outflow is held back: a pond forms at the edge and less water leaves), with
/// the way out (normal_depth with the slope, or critical); empty otherwise and for every other
/// kind. The scene reader warns with it (a valid scene: not refused).
std::string open_on_falling_bed(const Scene& scene, const Boundary& b,
                                const std::vector<BoundaryEdge>& edges);

/// Flow slots of the scene's boundaries and sources (Totals::flows before the cross sections'):
/// the grid's edge cells, the boundary lines' edges beside inactive cells, one per point source and
/// one per cell of each inflow line or polygon. Throws as boundary_edges and line_cells.
size_t boundary_source_slots(const Scene& scene);

}  // namespace silt::swe
