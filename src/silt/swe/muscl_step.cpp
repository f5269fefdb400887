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
        store_new(v, v.h_new.offset(i, j), s);
      });
}

template <class T>
void phase_muscl_stage(const Exec& exec, const SolverView<T>& v, Box2 box, const char* label) {
  parallel_for(
      exec, label, box, SILT_LAMBDA(Index i, Index j) {
        const double dt = v.clock[kDt];
        const CellState<T> s =
            v.e.active(i, j) && dt > 0.0 ? muscl_update(v, v.e, i, j, dt) : v.e.cell(i, j);
        store_new(v, v.h_new.offset(i, j), s);
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
        store_new(v, v.h_new.offset(i, j), s);
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
