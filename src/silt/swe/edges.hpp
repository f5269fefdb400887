// Edge fluxes of the grid: the flux through the edge between two cells, or between a cell and a
// boundary (a segment of the domain edge, or an inactive neighbour, which is a wall). Both the
// plain parallel_for update and a tiled kernel call edge_flux(), so they see identical fluxes.
#pragma once

#include "silt/core/config.hpp"
#include "silt/swe/kernels/bed_source_k.hpp"
#include "silt/swe/kernels/boundary_k.hpp"
#include "silt/swe/kernels/wet_dry_k.hpp"
#include "silt/swe/views.hpp"

namespace silt::swe::detail {

/// What flow segment seg imposes at boundary cell (i, j) (interior depth h) this step; (ni, nj)
/// is the next cell inward, whose bed the ghost's bed is extrapolated from.
template <class T>
SILT_HD EdgeForcing<T> edge_forcing(const EdgeView<T>& v, Index i, Index j, Index ni, Index nj,
                                    int seg, int kind, T h) {
  EdgeForcing<T> f{T(0), T(0), v.seg_conc[seg], T(0)};
  // Ghost bed 2 z0 - z1: the bed continued across the edge (flat beside an inactive cell).
  if (v.is_active(ni, nj)) f.dz = v.z(i, j) - v.z(ni, nj);
  const T width = T(v.seg_cells[seg]) * v.dx;  // m, the segment's active cells
  if (kind == kDischarge) {
    // Q spread over the segment's wet cells (per unit width), or over all of its cells while
    // none is wet, so that a discharge can wet a dry channel.
    const int wet = v.seg_wet[seg];
    const int n = wet > 0 ? wet : v.seg_cells[seg];
    f.q = (wet > 0 && !(h > v.dry)) ? T(0) : v.seg_value[seg] / (T(n) * v.dx);
  } else if (kind == kInflowDepth || kind == kInflowVelocity) {
    f.q = v.seg_value[seg] / width;  // the boundary state is wet: every active cell takes its share
    f.aux = v.seg_aux[seg];
  } else if (kind == kNormalDepth && h > v.dry) {
    // Manning's uniform flow at the cell's depth: q = h^(5/3) sqrt(S) / n.
    const T c = math::cbrt_pos(h);
    f.q = h * c * c * v.seg_slope[seg] / v.manning(i, j);
  } else if (kind == kRating && h > v.dry) {
    // The table's Q at the cell's stage, shared by conveyance as flood models share it: the
    // cell's K = h^(5/3) / n over the segment's sum of K this step (seg_aux), so a deep, smooth
    // channel passes more of Q than a shallow, rough floodplain beside it.
    const int k = v.seg_table[seg], b = v.series_offset[k];
    const double stage = double(h) + double(v.z(i, j));
    const T q_total =
        T(series_value_k(v.series_t + b, v.series_v + b, v.series_offset[k + 1] - b, stage));
    const T k_sum = v.seg_aux[seg];
    const T n = v.manning.ptr ? v.manning(i, j) : T(0);
    f.q = k_sum > T(0) ? q_total * (conveyance_k(h, n, v.dry) / k_sum) / v.dx : T(0);
  }
  return f;
}

/// Flux through a boundary edge of cell (i, j) in state `in` on bed z at the edge (its cell-centre
/// state, or the second-order scheme's face state), whose ghost lies on the left (west/south) or
/// right (east/north) of the edge. seg < 0 is a wall. at_face: `in` is a face state, already at
/// the edge's bed, so a flow segment's hydrostatic reconstruction takes no bed step across the edge
/// (a cell-centre state takes the step to the ghost's bed, 2 z0 - z1: its half cell's bed force;
/// the second-order scheme counts that force in its centred bed source instead).
template <class T>
SILT_HD EdgeFlux<T> boundary_flux(const EdgeView<T>& v, Index i, Index j, Dir d, int seg,
                                  bool ghost_left, const NormalState<T>& in, T z,
                                  bool at_face = false) {
  if (seg < 0) return boundary_edge_flux_k(kWall, in, z, T(0), T(0), v.g, v.dry, ghost_left);
  const int kind = v.seg_kind[seg];
  if (kind == kWall || kind == kOpen || kind == kLevel)
    return boundary_edge_flux_k(kind, in, z, kind == kLevel ? v.seg_value[seg] : T(0),
                                v.seg_conc[seg], v.g, v.dry, ghost_left);
  const Index step = ghost_left ? 1 : -1;  // toward the interior
  const Index ni = d == Dir::x ? i + step : i, nj = d == Dir::x ? j : j + step;
  EdgeForcing<T> f = edge_forcing(v, i, j, ni, nj, seg, kind, in.h);
  if (at_face) f.dz = T(0);
  return flow_boundary_flux_k(kind, in, f, v.g, v.dry, ghost_left);
}
template <class T>
SILT_HD EdgeFlux<T> boundary_flux(const EdgeView<T>& v, Index i, Index j, Dir d, int seg,
                                  bool ghost_left) {
  return boundary_flux(v, i, j, d, seg, ghost_left, normal_state_k(v.cell(i, j), d, v.dry),
                       v.z(i, j));
}

/// The boundary segment (-1: a wall) of the edge between cells (i - 1, j) and (i, j) (d ==
/// Dir::x) or (i, j - 1) and (i, j) (Dir::y) of which only the right cell (right) or only the left
/// one is active: where the edge lies on the global grid's edge, its side's segment (a subdomain's
/// halo holds its neighbours' cells, so only the global edge is physical); inside the grid, beside
/// an inactive cell, a boundary line's mask edge, else a wall.
template <class T>
SILT_HD int boundary_segment(const EdgeView<T>& v, Index i, Index j, Dir d, bool right) {
  const bool along_x = d == Dir::x;
  if (right) {
    const bool at_side = along_x ? i + v.i0 == 0 : j + v.j0 == 0;
    if (at_side) return v.segment(along_x ? kWest : kSouth, along_x ? j + v.j0 : i + v.i0);
  } else {
    const Index il = along_x ? i - 1 : i, jl = along_x ? j : j - 1;
    const bool at_side = along_x ? i + v.i0 == v.gnx : j + v.j0 == v.gny;
    if (at_side) return v.segment(along_x ? kEast : kNorth, along_x ? jl + v.j0 : il + v.i0);
  }
  return v.mask_segment(i, j, along_x ? 0 : 1);
}

/// Flux through the edge between cells (i - 1, j) and (i, j) for d == Dir::x, or (i, j - 1) and
/// (i, j) for d == Dir::y; i in [0, nx], j in [0, ny] for the owned cells (a subdomain also asks
/// for the edges of its halo cells, never beyond the halo). Normal frame of the edge (+x or +y).
template <class T>
SILT_HD EdgeFlux<T> edge_flux(const EdgeView<T>& v, Index i, Index j, Dir d) {
  const bool along_x = d == Dir::x;
  const Index il = along_x ? i - 1 : i, jl = along_x ? j : j - 1;
  const bool left = v.is_active(il, jl), right = v.is_active(i, j);
  if (left && right)
    return well_balanced_flux_k(normal_state_k(v.cell(il, jl), d, v.dry), v.z(il, jl),
                                normal_state_k(v.cell(i, j), d, v.dry), v.z(i, j), v.g, v.dry);
  if (!left && !right) return EdgeFlux<T>{T(0), T(0), T(0), T(0), T(0)};
  // One side inactive: a wall, or a boundary segment on the global grid's edge.
  const int seg = boundary_segment(v, i, j, d, right);
  if (right) return boundary_flux(v, i, j, d, seg, /*ghost_left=*/true);
  return boundary_flux(v, il, jl, d, seg, /*ghost_left=*/false);
}

/// Unit discharge (m^2/s, positive into the domain) through the edges of the owned cell at global
/// position (gi, gj) that lie on the global domain edge and on flow segments (open, level,
/// discharge and the outflows), from the cell's west, east, south and north edge fluxes; each
/// edge's part times `scale` (dt dx: m^3) is added to its flow slot (flow: SolverView::edge_flow;
/// the cell's owner alone writes them). What phase_boundary_flow counts, cell by cell.
template <class T>
SILT_HD double boundary_inflow(const EdgeView<T>& e, Index gi, Index gj, const EdgeFlux<T>& w,
                               const EdgeFlux<T>& ea, const EdgeFlux<T>& s, const EdgeFlux<T>& n,
                               double* flow, double scale) {
  double q = 0.0;
  auto add = [&](int side, Index pos, double qs) {
    const Index k = e.edge_index(side, pos);
    const int seg = e.side_seg[k];
    if (seg < 0 || e.seg_kind[seg] == kWall) return;
    q += qs;
    flow[k] += qs * scale;
  };
  if (gi == 0) add(kWest, gj, double(w.h));
  if (gi == e.gnx - 1) add(kEast, gj, -double(ea.h));
  if (gj == 0) add(kSouth, gi, double(s.h));
  if (gj == e.gny - 1) add(kNorth, gi, -double(n.h));
  return q;
}

}  // namespace silt::swe::detail
