#include "silt/swe/phases.hpp"

#include "silt/core/atomic.hpp"
#include "silt/core/parallel_for.hpp"
#include "silt/swe/clock_step.hpp"
#include "silt/swe/edges.hpp"
#include "silt/swe/kernels/cell_update_k.hpp"
#include "silt/swe/kernels/cfl_k.hpp"
#include "silt/swe/kernels/transport_k.hpp"
#include "silt/swe/muscl_edges.hpp"
#include "silt/swe/point_source.hpp"

namespace silt::swe::detail {

template <class T>
void phase_clock(const Exec& exec, const SolverView<T>& v) {
  parallel_for(
      exec, "swe.clock", 1, SILT_LAMBDA(Index) { clock_step(v); });
}

namespace {
template <class T>
SILT_HD void boundary_cell_ij(const EdgeView<T>&, const BoundaryCell& b, Index& i, Index& j) {
  i = b.i;
  j = b.j;
}
}  // namespace

template <class T>
void phase_wet_count(const Exec& exec, const SolverView<T>& v) {
  parallel_fill(exec, "swe.boundary_wet.zero", v.seg_wet, Index(v.n_seg), 0);
  parallel_for(
      exec, "swe.boundary_wet", v.n_discharge_cells, SILT_LAMBDA(Index k) {
        const BoundaryCell b = v.discharge_cells[k];
        Index i, j;
        boundary_cell_ij(v.e, b, i, j);
        if (v.e.is_active(i, j) && v.e.h(i, j) > v.e.dry) atomic_add(&v.seg_wet[b.seg], 1);
      });
}

template <class T>
void phase_conveyance(const Exec& exec, const SolverView<T>& v, double* slots) {
  parallel_for(
      exec, "swe.rating_conveyance", v.n_rating_cells, SILT_LAMBDA(Index k) {
        const BoundaryCell b = v.rating_cells[k];
        Index i, j;
        boundary_cell_ij(v.e, b, i, j);
        const T n = v.manning.ptr ? v.manning(i, j) : T(0);
        slots[b.slot] = v.e.is_active(i, j) ? double(conveyance_k(v.e.h(i, j), n, v.e.dry)) : 0.0;
      });
}

template <class T>
void phase_conveyance_sum(const Exec& exec, const SolverView<T>& v, const double* slots) {
  parallel_for(
      exec, "swe.rating_conveyance_sum", v.n_seg, SILT_LAMBDA(Index s) {
        if (v.e.seg_kind[s] != kRating) return;
        double sum = 0.0;
        for (int k = v.seg_slot[s]; k < v.seg_slot[s + 1]; ++k) sum += slots[k];
        v.seg_aux[s] = T(sum);
      });
}

template <class T>
void phase_update(const Exec& exec, const SolverView<T>& v) {
  phase_update_box(exec, v, Box2{0, v.e.nx, 0, v.e.ny}, "swe.update");
}

template <class T>
void phase_update_box(const Exec& exec, const SolverView<T>& v, Box2 box, const char* label) {
  parallel_for(
      exec, label, box, SILT_LAMBDA(Index i, Index j) {
        const EdgeView<T>& e = v.e;
        CellState<T> s = e.cell(i, j);
        const double dt = v.clock[kDt];
        // dt == 0: a no-op step past the target (or after a fault) only carries the state over
        // to the other buffer, without computing fluxes that would change nothing.
        const Index off = e.h.offset(i, j);
        const bool update = e.active(i, j) && dt > 0.0;
        if (update) {
          const CellUpdateParams<T> p{T(dt / v.dx), T(dt), v.rain_depth(off, dt),
                                      e.g,          e.dry, v.manning.ptr ? v.manning(i, j) : T(0)};
          const int code =
              update_cell_k(s, edge_flux(e, i, j, Dir::x), edge_flux(e, i + 1, j, Dir::x),
                            edge_flux(e, i, j, Dir::y), edge_flux(e, i, j + 1, Dir::y), p);
          // A halo cell repeats its owner's update (ghost cell expansion): the owner reports.
          if (code != kFaultNone && e.owns(i, j))
            v.fault.raise(code, e.global_index(i, j), int(v.clock[kSteps]));
        }
        v.forcing.infiltrate(s, off, update, dt, e.dry);
        if (update && s.h > v.max_depth(i, j)) v.max_depth(i, j) = s.h;
        v.h_new(i, j) = s.h;
        v.hu_new(i, j) = s.hu;
        v.hv_new(i, j) = s.hv;
        v.hc_new(i, j) = s.hc;
      });
}

namespace {
/// The flux through a boundary edge as the step's update computes it.
template <class T>
SILT_HD EdgeFlux<T> boundary_edge(const SolverView<T>& v, Index i, Index j, Dir d, Scheme scheme) {
  if (scheme == Scheme::muscl_hancock) return hancock_edge_flux(v, i, j, d, v.clock[kDt]);
  return scheme == Scheme::muscl ? muscl_edge_flux(v.e, i, j, d) : edge_flux(v.e, i, j, d);
}
}  // namespace

template <class T>
void phase_boundary_flow(const Exec& exec, const SolverView<T>& v, double weight, Scheme scheme,
                         bool mask) {
  const BoundaryCell* cells = mask ? v.mask_cells : v.flow_cells;
  const Index n = mask ? v.n_mask_cells : v.n_flow_cells;
  if (n == 0) return;
  parallel_reduce_into<silt::detail::SumOp>(
      exec, mask ? "swe.mask_boundary_flow" : "swe.boundary_flow", n,
      SILT_LAMBDA(Index k)->double {
        const BoundaryCell b = cells[k];
        // Mass flux along +x / +y: into the domain through a cell's west or south edge, out of it
        // through its east or north edge.
        double q;
        if (b.side == kWest)
          q = double(boundary_edge(v, b.i, b.j, Dir::x, scheme).h);
        else if (b.side == kEast)
          q = -double(boundary_edge(v, b.i + 1, b.j, Dir::x, scheme).h);
        else if (b.side == kSouth)
          q = double(boundary_edge(v, b.i, b.j, Dir::y, scheme).h);
        else
          q = -double(boundary_edge(v, b.i, b.j + 1, Dir::y, scheme).h);
        const double volume = q * (v.clock[kDt] * v.dx) * weight;  // as boundary_inflow() rounds it
        v.edge_flow()[b.flow] += volume;
        return volume;
      },
      v.clock + kInflow);
}

template <class T>
void phase_sources(const Exec& exec, const SolverView<T>& v) {
  parallel_for(
      exec, "swe.sources", v.n_sources, SILT_LAMBDA(Index k) {
        const double dt = v.clock[kDt];
        if (!(dt > 0.0)) return;
        const SourceCell src = v.sources[k];
        T* h = &v.h_new(src.i, src.j);
        T* hc = &v.hc_new(src.i, src.j);
        double dh, dhc;
        // Two sources in one cell may race on the withdrawal limit (rare, and only then).
        const double volume = point_source_k(v, src, dt, *h, *hc, dh, dhc);
        atomic_add(h, T(dh));
        atomic_add(hc, T(dhc));
        // A source in a subdomain's halo is applied there too (the halo repeats its owner's
        // update) but counted by the owner only.
        if (v.e.owns(src.i, src.j)) {
          atomic_add(v.clock + kInflow, volume);
          *v.source_flow(src) += volume;  // the source's own slot, one thread
        }
        const T h_after = *h;
        if (!(h_after > v.e.dry)) {
          v.hu_new(src.i, src.j) = T(0);
          v.hv_new(src.i, src.j) = T(0);
        }
        atomic_max(&v.max_depth(src.i, src.j), h_after);
      });
}

/// The largest wave speed over the active cells, combined into *v.smax. in_step (phase_cfl_step):
/// nothing after a no-op step, whose state and *v.smax are as they were (phase_clock).
template <bool in_step, class T>
void cfl_into_smax(const Exec& exec, const SolverView<T>& v) {
  const Index nx = v.e.nx;
  parallel_reduce_into<silt::detail::MaxOp>(
      exec, "swe.cfl", v.e.nx * v.e.ny,
      SILT_LAMBDA(Index k)->T {
        if (in_step && !(v.clock[kDt] > 0.0)) return T(0);
        const Index i = k % nx, j = k / nx;
        if (!v.e.active(i, j)) return T(0);
        return wave_speed_k(v.h_new(i, j), v.hu_new(i, j), v.hv_new(i, j), v.e.g, v.e.dry);
      },
      v.smax);
}

template <class T>
void phase_cfl(const Exec& exec, const SolverView<T>& v) {
  cfl_into_smax<false>(exec, v);
}

template <class T>
void phase_cfl_step(const Exec& exec, const SolverView<T>& v) {
  cfl_into_smax<true>(exec, v);
}

template <class T>
void phase_copy(const Exec& exec, const StateCopy<T>& c) {
  // At least the clock's slots (a grid of a few cells holds fewer cells than the clock).
  const Index n = c.n > c.n_clock ? c.n : c.n_clock;
  parallel_for(
      exec, "swe.copy_state", n, SILT_LAMBDA(Index k) {
        if (k < c.n) {
          c.h_out[k] = c.h[k];
          c.hu_out[k] = c.hu[k];
          c.hv_out[k] = c.hv[k];
          c.hc_out[k] = c.hc[k];
          c.max_depth_out[k] = c.max_depth[k];
        }
        if (k < c.n_clock) c.clock_out[k] = c.clock[k];
      });
}

template <class T>
void phase_gather_cells(const Exec& exec, const EdgeView<T>& v, const Index* off, Index n,
                        double* out) {
  const T *h = v.h.ptr, *hu = v.hu.ptr, *hv = v.hv.ptr, *hc = v.hc.ptr;
  parallel_for(
      exec, "swe.gather_cells", n, SILT_LAMBDA(Index k) {
        const Index o = off[k];
        out[4 * k] = double(h[o]);
        out[4 * k + 1] = double(hu[o]);
        out[4 * k + 2] = double(hv[o]);
        out[4 * k + 3] = double(hc[o]);
      });
}

template <class T>
void phase_gauge_sample(const Exec& exec, const EdgeView<T>& v, double* clock, const Index* off,
                        Index n, double* rows, Index capacity, double interval) {
  const T *h = v.h.ptr, *hu = v.hu.ptr, *hv = v.hv.ptr, *hc = v.hc.ptr;
  parallel_for(
      exec, "swe.gauge_sample", Index(1), SILT_LAMBDA(Index) {
        const double t = clock[kTime];
        if (!(clock[kDt] > 0.0) || !(clock[kGaugeNext] <= t)) return;
        const Index row = Index(clock[kGaugeRows]);
        if (row < capacity) {
          double* r = rows + row * (1 + 4 * n);
          r[0] = t;
          for (Index k = 0; k < n; ++k) {
            const Index o = off[k];
            r[1 + 4 * k] = double(h[o]);
            r[2 + 4 * k] = double(hu[o]);
            r[3 + 4 * k] = double(hv[o]);
            r[4 + 4 * k] = double(hc[o]);
          }
        }
        clock[kGaugeRows] = double(row + 1);
        double next = clock[kGaugeNext];
        while (next <= t) next += interval;  // as the host's sampler (run/swe_adapter.cpp)
        clock[kGaugeNext] = next;
      });
}

void phase_flow_chunks(const Exec& exec, const double* clock, const Index* slot, const Index* chunk,
                       Index n_chunks, double* partial) {
  const double* flow = clock + kClockSize;
  parallel_for(
      exec, "swe.flow_chunks", n_chunks, SILT_LAMBDA(Index c) {
        double v = 0.0;
        for (Index k = chunk[c]; k < chunk[c + 1]; ++k) v += flow[slot[k]];
        partial[c] = v;
      });
}

// A later step's discharge replaces the peak only when larger by more than the round-off of a
// step's volume as the difference of two sums of volumes since the start (1e-13 of a 0.2 m^3/s
// source's steps, 1e-12 of a 250 m^3/s inflow's after 4e5 m^3, on river_spill): on a plateau
// (a constant inflow) the peak's time is then the plateau's first step, not the step with the
// largest rounding.
constexpr double kPeakRoundOff = 1e-9;

void phase_flow_peaks(const Exec& exec, const double* clock, const double* values,
                      const Index* index, const Index* series, Index n_series, double* state,
                      bool seed) {
  const double* from = values ? values : clock + kClockSize;
  parallel_for(
      exec, "swe.flow_peaks", n_series, SILT_LAMBDA(Index s) {
        double v = 0.0;
        for (Index c = series[s]; c < series[s + 1]; ++c) v += from[index ? index[c] : c];
        double* st = state + 3 * s;
        const double dt = clock[kDt];
        if (!seed && dt > 0.0) {
          const double d = v - st[0];
          const double q = (d < 0.0 ? -d : d) / dt;
          if (q > st[1] * (1.0 + kPeakRoundOff)) {
            st[1] = q;
            st[2] = clock[kTime];
          }
        }
        st[0] = v;
      });
}

/// Sum of one field of v (h or hc) over the active cells, in float64.
template <class T>
double sum_active(const Exec& exec, const char* label, const EdgeView<T>& v, Grid2<const T> field) {
  const Index nx = v.nx;
  return parallel_reduce_sum<double>(
      exec, label, v.nx * v.ny, SILT_LAMBDA(Index k)->double {
        const Index i = k % nx, j = k / nx;
        return v.active(i, j) ? double(field(i, j)) : 0.0;
      });
}

template <class T>
double sum_depth(const Exec& exec, const EdgeView<T>& v) {
  return sum_active(exec, "swe.sum_depth", v, v.h);
}

template <class T>
double sum_pollutant(const Exec& exec, const EdgeView<T>& v) {
  return sum_active(exec, "swe.sum_pollutant", v, v.hc);
}

#define SILT_SWE_PHASES(T)                                                                       \
  template void phase_clock<T>(const Exec&, const SolverView<T>&);                               \
  template void phase_wet_count<T>(const Exec&, const SolverView<T>&);                           \
  template void phase_conveyance<T>(const Exec&, const SolverView<T>&, double*);                 \
  template void phase_conveyance_sum<T>(const Exec&, const SolverView<T>&, const double*);       \
  template void phase_update<T>(const Exec&, const SolverView<T>&);                              \
  template void phase_update_box<T>(const Exec&, const SolverView<T>&, Box2, const char*);       \
  template void phase_boundary_flow<T>(const Exec&, const SolverView<T>&, double, Scheme, bool); \
  template void phase_sources<T>(const Exec&, const SolverView<T>&);                             \
  template void phase_cfl<T>(const Exec&, const SolverView<T>&);                                 \
  template void phase_cfl_step<T>(const Exec&, const SolverView<T>&);                            \
  template void phase_copy<T>(const Exec&, const StateCopy<T>&);                                 \
  template void phase_gauge_sample<T>(const Exec&, const EdgeView<T>&, double*, const Index*,    \
                                      Index, double*, Index, double);                            \
  template void phase_gather_cells<T>(const Exec&, const EdgeView<T>&, const Index*, Index,      \
                                      double*);                                                  \
  template double sum_depth<T>(const Exec&, const EdgeView<T>&);                                 \
  template double sum_pollutant<T>(const Exec&, const EdgeView<T>&);
SILT_SWE_PHASES(float)
SILT_SWE_PHASES(double)
#undef SILT_SWE_PHASES

}  // namespace silt::swe::detail
