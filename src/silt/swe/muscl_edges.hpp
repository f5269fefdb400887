// Edge fluxes of the second-order scheme on the grid (kernels/muscl_k.hpp): between two active
// cells, muscl_flux_k with each cell's slopes from its two neighbours along the edge's direction
// (an inactive neighbour, or one beyond the view's halo, counts as dry: zero slopes); at a
// boundary or an inactive neighbour, the first-order edge flux of edges.hpp on the cell-centre
// state (the cell's slopes along the direction are zero there anyway). The plain phases of
// muscl_step.hpp call these; the reconstruction reads cells up to two away from an edge.
#pragma once

#include "silt/core/config.hpp"
#include "silt/swe/edges.hpp"
#include "silt/swe/kernels/muscl_k.hpp"
#include "silt/swe/views.hpp"

namespace silt::swe::detail {

/// Slopes of active cell (i, j) along d.
template <class T>
SILT_HD Slopes<T> cell_slopes(const EdgeView<T>& v, Index i, Index j, Dir d) {
  const Index di = d == Dir::x ? 1 : 0, dj = 1 - di;
  NormalState<T> n[2] = {{T(0), T(0), T(0), T(0)}, {T(0), T(0), T(0), T(0)}};
  T zn[2] = {T(0), T(0)};
  for (int k = 0; k < 2; ++k) {
    const Index a = k == 0 ? i - di : i + di, b = k == 0 ? j - dj : j + dj;
    if (!v.is_active(a, b)) continue;  // dry: zero slopes (its bed is not read)
    n[k] = normal_state_k(v.cell(a, b), d, v.dry);
    zn[k] = v.z(a, b);
  }
  return muscl_slopes_k(n[0], zn[0], normal_state_k(v.cell(i, j), d, v.dry), v.z(i, j), n[1], zn[1],
                        v.dry);
}

/// Flux through the edge between cells (i - 1, j) and (i, j) for d == Dir::x, or (i, j - 1) and
/// (i, j) for d == Dir::y, as edge_flux() but second order between active cells.
template <class T>
SILT_HD EdgeFlux<T> muscl_edge_flux(const EdgeView<T>& v, Index i, Index j, Dir d) {
  const Index il = d == Dir::x ? i - 1 : i, jl = d == Dir::x ? j : j - 1;
  if (!(v.is_active(il, jl) && v.is_active(i, j))) return edge_flux(v, i, j, d);
  return muscl_flux_k(normal_state_k(v.cell(il, jl), d, v.dry), v.z(il, jl),
                      cell_slopes(v, il, jl, d), normal_state_k(v.cell(i, j), d, v.dry), v.z(i, j),
                      cell_slopes(v, i, j, d), v.g, v.dry);
}

}  // namespace silt::swe::detail
