#include "silt/swe/muscl_step.hpp"

#include "silt/core/atomic.hpp"
#include "silt/swe/kernels/muscl_hancock_k.hpp"
#include "silt/swe/kernels/muscl_k.hpp"
#include "silt/swe/muscl_cell.hpp"
#include "silt/swe/muscl_edges.hpp"

namespace silt::swe::detail {

namespace {
/// The stage's update of cell (i, j) of e's state with its second-order edge fluxes
/// (muscl_update_cell).
template <class T>
SILT_HD CellState<T> muscl_update(const SolverView<T>& v, const EdgeView<T>& e, Index i, Index j,
                                  double dt) {
  return muscl_update_cell(v, e, i, j, e.cell(i, j), dt, muscl_edge_flux(e, i, j, Dir::x),
                           muscl_edge_flux(e, i + 1, j, Dir::x), muscl_edge_flux(e, i, j, Dir::y),
                           muscl_edge_flux(e, i, j + 1, Dir::y));
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
}  // namespace

template <class T>
void phase_hancock(const Exec& exec, const SolverView<T>& v, Box2 box, const char* label) {
  parallel_for(
      exec, label, box, SILT_LAMBDA(Index i, Index j) {
        const double dt = v.clock[kDt];
        const bool update = v.e.active(i, j) && dt > 0.0;
        CellState<T> s = v.e.cell(i, j);
        if (update) {
          const EdgeFlux<T> w = hancock_edge_flux(v, i, j, Dir::x, dt),
                            ea = hancock_edge_flux(v, i + 1, j, Dir::x, dt),
                            so = hancock_edge_flux(v, i, j, Dir::y, dt),
                            n = hancock_edge_flux(v, i, j + 1, Dir::y, dt);
          s = muscl_update_cell(v, v.e, i, j, s, dt, w, ea, so, n);
          // The boundary volume from the fluxes the update took, as the tile kernel counts it.
          const Index gi = i + v.e.i0, gj = j + v.e.j0;
          if (v.e.owns(i, j) && (gi == 0 || gj == 0 || gi == v.e.gnx - 1 || gj == v.e.gny - 1)) {
            const double q = boundary_inflow(v.e, gi, gj, w, ea, so, n, v.edge_flow(), dt * v.dx);
            if (q != 0.0) atomic_add(v.clock + kInflow, q * dt * v.dx);
          }
        }
        v.forcing.infiltrate(s, v.e.h.offset(i, j), update, dt, v.e.dry);
        if (update && s.h > v.max_depth(i, j)) v.max_depth(i, j) = s.h;
        v.h_new(i, j) = s.h;
        v.hu_new(i, j) = s.hu;
        v.hv_new(i, j) = s.hv;
        v.hc_new(i, j) = s.hc;
      });
}

template <class T>
void phase_muscl_stage(const Exec& exec, const SolverView<T>& v, Box2 box, const char* label) {
  parallel_for(
      exec, label, box, SILT_LAMBDA(Index i, Index j) {
        const double dt = v.clock[kDt];
        const CellState<T> s =
            v.e.active(i, j) && dt > 0.0 ? muscl_update(v, v.e, i, j, dt) : v.e.cell(i, j);
        v.h_new(i, j) = s.h;
        v.hu_new(i, j) = s.hu;
        v.hv_new(i, j) = s.hv;
        v.hc_new(i, j) = s.hc;
      });
}

template <class T>
void phase_muscl_final(const Exec& exec, const SolverView<T>& v, const EdgeView<T>& star, Box2 box,
                       const char* label) {
  parallel_for(
      exec, label, box, SILT_LAMBDA(Index i, Index j) {
        const double dt = v.clock[kDt];
        const bool update = v.e.active(i, j) && dt > 0.0;
        CellState<T> s = v.e.cell(i, j);
        if (update) s = heun_average_k(s, muscl_update(v, star, i, j, dt), v.e.dry);
        v.forcing.infiltrate(s, v.e.h.offset(i, j), update, dt, v.e.dry);
        if (update && s.h > v.max_depth(i, j)) v.max_depth(i, j) = s.h;
        v.h_new(i, j) = s.h;
        v.hu_new(i, j) = s.hu;
        v.hv_new(i, j) = s.hv;
        v.hc_new(i, j) = s.hc;
      });
}

#define SILT_SWE_MUSCL_PHASES(T)                                                                  \
  template void phase_muscl_stage<T>(const Exec&, const SolverView<T>&, Box2, const char*);       \
  template void phase_muscl_final<T>(const Exec&, const SolverView<T>&, const EdgeView<T>&, Box2, \
                                     const char*);                                                \
  template void phase_hancock<T>(const Exec&, const SolverView<T>&, Box2, const char*);
SILT_SWE_MUSCL_PHASES(float)
SILT_SWE_MUSCL_PHASES(double)
#undef SILT_SWE_MUSCL_PHASES

}  // namespace silt::swe::detail
