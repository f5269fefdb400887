// The row step's update pass (row_update.hpp): full packs of cells through packed_cell_updates
// (row_update_isa.cpp, built for SSE2, AVX2 and AVX-512F; the widest the CPU has), the rest cell by
// cell with the same functions.
#include "silt/swe/row_update.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "silt/swe/edges.hpp"
#include "silt/swe/kernels/boundary_k.hpp"
#include "silt/swe/kernels/cfl_k.hpp"
#include "silt/swe/row_update_packed.hpp"

namespace silt::swe::detail {

namespace {

template <class T>
T packed_cell_updates(const CellRow<T>& c, const FluxRow<T>& x, const FluxRow<T>& s,
                      const FluxRow<T>& n, Index count, const CellUpdateParams<T>& p,
                      unsigned char* left) {
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx512) return avx512::packed_cell_updates(c, x, s, n, count, p, left);
  return avx2 ? avx2::packed_cell_updates(c, x, s, n, count, p, left)
              : sse2::packed_cell_updates(c, x, s, n, count, p, left);
}

// Row f from element d on.
template <class T>
FluxRow<T> from(const FluxRow<T>& f, Index d) {
  return FluxRow<T>{f.h + d, f.un_left + d, f.un_right + d, f.ut + d, f.c + d};
}

}  // namespace

template <class T>
T update_row(const RowPass<T>& rp, Index j, const StagedRow<T>& r, const FluxRow<T>& fx,
             const FluxRow<T>& fs, const FluxRow<T>& fn, unsigned char* left, double& inflow) {
  const SolverView<T>& v = rp.v;
  const EdgeView<T>& e = v.e;
  const Index base = e.h.offset(0, j), width = rp.i1 - rp.i0;
  const T *h = e.h.ptr + base, *hu = e.hu.ptr + base, *hv = e.hv.ptr + base, *hc = e.hc.ptr + base;
  T *h_new = v.h_new.ptr + base, *hu_new = v.hu_new.ptr + base, *hv_new = v.hv_new.ptr + base,
    *hc_new = v.hc_new.ptr + base, *md = v.max_depth.ptr + base;
  const T* manning = v.manning.ptr ? v.manning.ptr + base : nullptr;
  const bool row_owned = j >= 0 && j < e.ny;
  const bool rain_raster = v.forcing.rain_a != nullptr;
  std::memset(left, 1, size_t(width));
  T speed = T(0);
  // Packs: owned cells (only they report faults and enter the CFL maximum) without rasters of
  // rain or infiltration.
  const Index lo = std::max<Index>(rp.i0, 0), hi = std::min(rp.i1, e.nx);
  if (row_owned && !rain_raster && v.forcing.model == kNoInfiltration && hi > lo) {
    const Index d = lo - rp.i0;
    const CellRow<T> c{
        h + lo,          hu + lo,     hv + lo,     hc + lo, h_new + lo,
        hu_new + lo,     hv_new + lo, hc_new + lo, md + lo, manning ? manning + lo : nullptr,
        r.active + d + 1};
    speed = packed_cell_updates(c, from(fx, d), from(fs, d), from(fn, d), hi - lo, rp.p, left + d);
  }
  // The rest cell by cell: halo cells, packs with an inactive cell or a fault, the row's tail.
  for (Index k = 0; k < width; ++k) {
    if (k + 8 <= width) {
      std::uint64_t run;
      std::memcpy(&run, left + k, 8);
      if (run == 0) {
        k += 7;
        continue;
      }
    }
    if (!left[k]) continue;
    const Index i = rp.i0 + k;
    CellState<T> s{h[i], hu[i], hv[i], hc[i]};
    if (r.active[k + 1]) {
      CellUpdateParams<T> p = rp.p;
      p.manning = manning ? manning[i] : T(0);
      if (rain_raster) p.rain_depth = v.rain_depth(base + i, rp.dt);
      const int code = update_cell_k(s, fx[k], fx[k + 1], fs[k], fn[k], p);
      v.forcing.infiltrate(s, base + i, true, rp.dt, e.dry);
      const bool owned = row_owned && i >= 0 && i < e.nx;
      if (code != kFaultNone && owned) v.fault.raise(code, e.global_index(i, j), rp.step);
      if (s.h > md[i]) md[i] = s.h;
      if (owned) speed = std::max(speed, wave_speed_k(s.h, s.hu, s.hv, e.g, e.dry));
    } else if (v.forcing.model != kNoInfiltration) {
      v.forcing.infiltrate(s, base + i, false, rp.dt, e.dry);
    }
    h_new[i] = s.h;
    hu_new[i] = s.hu;
    hv_new[i] = s.hv;
    hc_new[i] = s.hc;
  }
  // The inflow through flow segments of the global edge, cell by cell in order.
  if (v.n_flow_cells == 0 || !row_owned) return speed;
  auto add_inflow = [&](Index i) {
    const Index k = i - rp.i0;
    if (i < lo || i >= hi || !r.active[k + 1]) return;
    const double q = boundary_inflow(e, i + e.i0, j + e.j0, fx[k], fx[k + 1], fs[k], fn[k],
                                     v.edge_flow(), rp.dt * v.dx);
    if (q != 0.0) inflow += q * rp.dt * v.dx;
  };
  if (j + e.j0 == 0 || j + e.j0 == e.gny - 1) {
    for (Index i = lo; i < hi; ++i) add_inflow(i);
  } else {  // the global west and east columns' cells only
    add_inflow(-e.i0);
    if (e.gnx > 1) add_inflow(e.gnx - 1 - e.i0);
  }
  return speed;
}

template float update_row<float>(const RowPass<float>&, Index, const StagedRow<float>&,
                                 const FluxRow<float>&, const FluxRow<float>&,
                                 const FluxRow<float>&, unsigned char*, double&);
template double update_row<double>(const RowPass<double>&, Index, const StagedRow<double>&,
                                   const FluxRow<double>&, const FluxRow<double>&,
                                   const FluxRow<double>&, unsigned char*, double&);

}  // namespace silt::swe::detail
