// The cell update of a second-order stage (physics.scheme = "muscl") from its four edge fluxes:
// the first-order update (update_cell_k: rain, wet/dry) then Manning friction fully implicit, and
// the fault of an owned cell; then the store of the new state. The plain phases (muscl_step.cpp,
// fluxes from muscl_edges.hpp) and the tile kernel (muscl_tile.cpp, fluxes once per edge in shared
// memory) both call them, so that they do the same arithmetic.
#pragma once

#include "silt/core/config.hpp"
#include "silt/swe/kernels/cell_update_k.hpp"
#include "silt/swe/kernels/friction_k.hpp"
#include "silt/swe/views.hpp"

namespace silt::swe::detail {

/// Cell (i, j) of e's state, s (read by the caller: the tile kernel's stage has it already), after
/// a stage with update parameters p (dtdx, dt, the cell's rain, g, dry; manning unused) and
/// fluxes through its west, east, south and north edges, with the cell's Manning n (manning,
/// unused without a Manning field: the MUSCL-Hancock tile kernel takes it from its tile, staged
/// with the state; the overload below from v's field); raises a fault for an owned cell (a halo
/// cell repeats its owner's update). The MUSCL-Hancock tile kernel computes p's step constants
/// once per tile (muscl_update_params), the per-cell overload at the end for each cell: the same
/// values.
template <class T>
SILT_HD SILT_FORCEINLINE CellState<T> muscl_update_cell_n(
    const SolverView<T>& v, const EdgeView<T>& e, Index i, Index j, CellState<T> s,
    const CellUpdateParams<T>& p, T manning, const EdgeFlux<T>& w, const EdgeFlux<T>& ea,
    const EdgeFlux<T>& so, const EdgeFlux<T>& n) {
  const int code = update_cell_k(s, w, ea, so, n, p);
  if (code != kFaultNone && e.owns(i, j))
    v.fault.raise(code, e.global_index(i, j), int(v.clock[kSteps]));
  // Friction after the update, fully implicit (manning_implicit_factor_k): update_cell_k's
  // point-implicit factor leaves a steady flow's depth a first-order error off.
  if (v.manning.ptr) {
    const T f = manning_implicit_factor_k(s.h, s.hu, s.hv, manning, e.g, p.dt);
    s.hu *= f;
    s.hv *= f;
  }
  return s;
}

/// The above with the cell's Manning n from v's field (off: the cell's offset in every field).
template <class T>
SILT_HD SILT_FORCEINLINE CellState<T> muscl_update_cell(
    const SolverView<T>& v, const EdgeView<T>& e, Index i, Index j, CellState<T> s,
    const CellUpdateParams<T>& p, Index off, const EdgeFlux<T>& w, const EdgeFlux<T>& ea,
    const EdgeFlux<T>& so, const EdgeFlux<T>& n) {
  return muscl_update_cell_n(v, e, i, j, s, p, v.manning.ptr ? v.manning.ptr[off] : T(0), w, ea, so,
                             n);
}

/// Stores s as the new state of the cell at offset off (its offset in every field, as
/// muscl_update_cell's) in v's next-state grids.
template <class T>
SILT_HD SILT_FORCEINLINE void store_new(const SolverView<T>& v, Index off, const CellState<T>& s) {
  v.h_new.ptr[off] = s.h;
  v.hu_new.ptr[off] = s.hu;
  v.hv_new.ptr[off] = s.hv;
  v.hc_new.ptr[off] = s.hc;
}

/// The update parameters of a stage of dt s on e's cells without the cell's rain (rain_depth 0).
template <class T>
SILT_HD SILT_FORCEINLINE CellUpdateParams<T> muscl_update_params(const SolverView<T>& v,
                                                                 const EdgeView<T>& e, double dt) {
  return CellUpdateParams<T>{T(dt / v.dx), T(dt), T(0), e.g, e.dry, T(0)};
}

/// Cell (i, j) of e's state, s, after a stage of dt s (the overload above with the cell's
/// parameters).
template <class T>
SILT_HD CellState<T> muscl_update_cell(const SolverView<T>& v, const EdgeView<T>& e, Index i,
                                       Index j, CellState<T> s, double dt, const EdgeFlux<T>& w,
                                       const EdgeFlux<T>& ea, const EdgeFlux<T>& so,
                                       const EdgeFlux<T>& n) {
  // One offset for every field: the solver's grids share one layout (as fused_step.cpp reads
  // them), where each field's accessor recomputed it from that field's own halo and width.
  const Index off = e.h.offset(i, j);
  CellUpdateParams<T> p = muscl_update_params(v, e, dt);
  p.rain_depth = v.rain_depth(off, dt);
  return muscl_update_cell(v, e, i, j, s, p, off, w, ea, so, n);
}

}  // namespace silt::swe::detail
