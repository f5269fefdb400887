// Edge fluxes of the second-order scheme on the grid (kernels/muscl_k.hpp): between two active
// cells, muscl_flux_k with each cell's slopes from its two neighbours along the edge's direction;
// at a boundary (the domain's edge or an inactive neighbour) the boundary flux of edges.hpp on the
// active cell's face state, whose slopes are one-sided. The MUSCL-Hancock edge flux takes the same
// fluxes between the cells' predicted face states (hancock_edge_flux). The plain phases of
// muscl_step.hpp, the boundary volume (phase_boundary_flow) and the cross sections' volume
// (phase_section_flow, phase_hancock_section_flow) call these; the reconstruction reads cells up to
// two away from an edge.
#pragma once

#include "silt/core/config.hpp"
#include "silt/swe/edges.hpp"
#include "silt/swe/kernels/muscl_hancock_k.hpp"
#include "silt/swe/kernels/muscl_k.hpp"
#include "silt/swe/views.hpp"

namespace silt::swe::detail {

/// The cells of an EdgeView as cell_slopes_of() reads them (the tile kernel of muscl_tile.cpp
/// reads its shared-memory copy through an accessor of the same shape).
template <class T>
struct ViewCells {
  const EdgeView<T>& v;
  SILT_HD bool is_active(Index i, Index j) const { return v.is_active(i, j); }
  SILT_HD NormalState<T> normal(Index i, Index j, Dir d) const {
    return normal_state_k(v.cell(i, j), d, v.dry);
  }
  SILT_HD T z(Index i, Index j) const { return v.z(i, j); }
};

/// Slopes of active cell (i, j) of cells c (ViewCells or the tile's copy) along d: limited between
/// two active neighbours, one-sided at a boundary (one neighbour inactive or beyond the view),
/// zero in a cell between two boundaries.
template <class T, class Cells>
SILT_HD Slopes<T> cell_slopes_of(const Cells& v, Index i, Index j, Dir d, T dry) {
  const Index di = d == Dir::x ? 1 : 0, dj = 1 - di;
  const NormalState<T> c = v.normal(i, j, d);
  const bool west = v.is_active(i - di, j - dj), east = v.is_active(i + di, j + dj);
  if (west && east)
    return muscl_slopes_k(v.normal(i - di, j - dj, d), v.z(i - di, j - dj), c, v.z(i, j),
                          v.normal(i + di, j + dj, d), v.z(i + di, j + dj), dry);
  if (west || east) {
    const Index a = east ? i + di : i - di, b = east ? j + dj : j - dj;
    return muscl_boundary_slopes_k(c, v.z(i, j), v.normal(a, b, d), v.z(a, b), dry, east);
  }
  return Slopes<T>{T(0), T(0), T(0), T(0), T(0)};
}

/// Slopes of active cell (i, j) of view v along d (cell_slopes_of).
template <class T>
SILT_HD Slopes<T> cell_slopes(const EdgeView<T>& v, Index i, Index j, Dir d) {
  return cell_slopes_of(ViewCells<T>{v}, i, j, d, v.dry);
}

/// The boundary flux through the edge of cells (i - 1, j) | (i, j) (d == Dir::x) or (i, j - 1) |
/// (i, j) with one side inactive (right: the right cell is the active one) on the active cell's
/// face state: its primitive state c (bed z, slopes s; U^n's for the muscl stages, the predicted
/// state for the MUSCL-Hancock step), with its half of the centred bed source.
template <class T>
SILT_HD EdgeFlux<T> muscl_boundary_flux(const EdgeView<T>& v, Index i, Index j, Dir d,
                                        const NormalState<T>& c, T z, const Slopes<T>& s,
                                        bool right) {
  const Index ci = right || d == Dir::y ? i : i - 1, cj = right || d == Dir::x ? j : j - 1;
  const FaceState<T> face = face_state_k(c, z, s, /*east=*/!right);
  EdgeFlux<T> f = boundary_flux(v, ci, cj, d, boundary_segment(v, i, j, d, right),
                                /*ghost_left=*/right, face.s, face.z, /*at_face=*/true);
  add_centred_source_k(f, c, s, v.g, /*east=*/!right);
  return f;
}

/// The MUSCL-Hancock predictor's flux difference across active cell (i, j) along d (state c in
/// d's frame, bed z, slopes s; U^n's): hancock_flux_difference_k, with the one-sided flux of each
/// face that lies on a boundary (west / east: whether that neighbour is active) replaced by the
/// boundary flux the update takes there (muscl_boundary_flux, whose half centred source is the
/// one hancock_flux_difference_k counts).
template <class T>
SILT_HD FluxDifference<T> hancock_cell_difference(const EdgeView<T>& v, Index i, Index j, Dir d,
                                                  const NormalState<T>& c, T z, const Slopes<T>& s,
                                                  bool west, bool east) {
  FluxDifference<T> f = hancock_flux_difference_k(c, s, v.g);
  const T half = T(0.5) * v.g * c.h * (s.h + s.z);
  if (!west) {
    const FaceState<T> w = face_state_k(c, z, s, false);
    const T q = w.s.h * w.s.un;
    const EdgeFlux<T> b = muscl_boundary_flux(v, i, j, d, c, z, s, /*right=*/true);
    f.h += q - b.h;
    f.un += (q * w.s.un - half) - b.un_right;
    f.ut += q * w.s.ut - b.ut;
    f.c += q * w.s.c - b.c;
  }
  if (!east) {
    const FaceState<T> e = face_state_k(c, z, s, true);
    const T q = e.s.h * e.s.un;
    const Index ie = d == Dir::x ? i + 1 : i, je = d == Dir::x ? j : j + 1;
    const EdgeFlux<T> b = muscl_boundary_flux(v, ie, je, d, c, z, s, /*right=*/false);
    f.h += b.h - q;
    f.un += b.un_left - (q * e.s.un + half);
    f.ut += b.ut - q * e.s.ut;
    f.c += b.c - q * e.s.c;
  }
  return f;
}

/// Flux through the edge between cells (i - 1, j) and (i, j) for d == Dir::x, or (i, j - 1) and
/// (i, j) for d == Dir::y, as edge_flux() but second order: between active cells muscl_flux_k; at
/// a boundary the boundary flux of the active cell's face state, with its half of the centred bed
/// source.
template <class T>
SILT_HD EdgeFlux<T> muscl_edge_flux(const EdgeView<T>& v, Index i, Index j, Dir d) {
  const Index il = d == Dir::x ? i - 1 : i, jl = d == Dir::x ? j : j - 1;
  const bool left = v.is_active(il, jl), right = v.is_active(i, j);
  if (left && right)
    return muscl_flux_k(normal_state_k(v.cell(il, jl), d, v.dry), v.z(il, jl),
                        cell_slopes(v, il, jl, d), normal_state_k(v.cell(i, j), d, v.dry),
                        v.z(i, j), cell_slopes(v, i, j, d), v.g, v.dry);
  if (!left && !right) return EdgeFlux<T>{T(0), T(0), T(0), T(0), T(0)};
  const Index ci = right ? i : il, cj = right ? j : jl;  // the active cell
  return muscl_boundary_flux(v, i, j, d, normal_state_k(v.cell(ci, cj), d, v.dry), v.z(ci, cj),
                             cell_slopes(v, ci, cj, d), right);
}

/// The MUSCL-Hancock predicted state of active cell (i, j) of v's state in the frame of d
/// (hancock_predict_k on its slopes and flux differences, a face on a boundary with its boundary
/// flux, with its rain and friction over dt / 2), as the tile kernel's predict phase computes it.
template <class T>
SILT_HD NormalState<T> hancock_state(const SolverView<T>& v, Index i, Index j, Dir d, double dt) {
  const EdgeView<T>& e = v.e;
  const Index off = e.h.offset(i, j);
  const HancockParams<T> hp{
      e.g,         T(0.5 * dt / v.dx),          T(0.5 * v.dx / dt),
      T(0.5 * dt), v.rain_depth(off, 0.5 * dt), v.manning.ptr ? v.manning.ptr[off] : T(0),
      e.dry};
  const NormalState<T> c = normal_state_k(e.cell(i, j), Dir::x, e.dry);
  const Slopes<T> sx = cell_slopes(e, i, j, Dir::x), sy = cell_slopes(e, i, j, Dir::y);
  const FluxDifference<T> fx = hancock_cell_difference(
      e, i, j, Dir::x, c, e.z(i, j), sx, e.is_active(i - 1, j), e.is_active(i + 1, j));
  const FluxDifference<T> fy =
      hancock_cell_difference(e, i, j, Dir::y, NormalState<T>{c.h, c.ut, c.un, c.c}, e.z(i, j), sy,
                              e.is_active(i, j - 1), e.is_active(i, j + 1));
  const NormalState<T> p = hancock_predict_k(c, sx, sy, fx, fy, hp);
  return d == Dir::x ? p : NormalState<T>{p.h, p.ut, p.un, p.c};
}

/// The MUSCL-Hancock flux through the edge of cells (i - 1, j) | (i, j) (d == Dir::x) or
/// (i, j - 1) | (i, j): muscl_flux_k between the predicted face states, or the boundary flux of
/// the active side's predicted face state (muscl_boundary_flux).
template <class T>
SILT_HD EdgeFlux<T> hancock_edge_flux(const SolverView<T>& v, Index i, Index j, Dir d, double dt) {
  const EdgeView<T>& e = v.e;
  const Index il = d == Dir::x ? i - 1 : i, jl = d == Dir::x ? j : j - 1;
  const bool left = e.is_active(il, jl), right = e.is_active(i, j);
  if (left && right)
    return muscl_flux_k(hancock_state(v, il, jl, d, dt), e.z(il, jl), cell_slopes(e, il, jl, d),
                        hancock_state(v, i, j, d, dt), e.z(i, j), cell_slopes(e, i, j, d), e.g,
                        e.dry);
  if (!left && !right) return EdgeFlux<T>{T(0), T(0), T(0), T(0), T(0)};
  const Index ci = right ? i : il, cj = right ? j : jl;  // the active cell
  return muscl_boundary_flux(e, i, j, d, hancock_state(v, ci, cj, d, dt), e.z(ci, cj),
                             cell_slopes(e, ci, cj, d), right);
}

}  // namespace silt::swe::detail
