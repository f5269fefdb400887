#include "silt/swe/row_step.hpp"

#include <omp.h>

#include <algorithm>
#include <cstring>

#include "silt/core/error.hpp"
#include "silt/core/exec.hpp"
#include "silt/swe/edges.hpp"
#include "silt/swe/kernels/cell_update_k.hpp"
#include "silt/swe/kernels/cfl_k.hpp"
#include "silt/swe/point_source.hpp"
#include "silt/swe/row_fluxes.hpp"
#include "silt/swe/row_update.hpp"

namespace silt::swe::detail {

namespace {
constexpr size_t kStagedFields = 7;  // StagedRow's arrays of T
constexpr size_t kFluxFields = 5;    // FluxRow's arrays of T
}  // namespace

template <class T>
void RowScratch<T>::reserve(Index width, Index rows, int threads) {
  if (width <= width_ && rows <= rows_ && threads <= threads_) return;
  width_ = std::max(width, width_);
  rows_ = std::max(rows, rows_);
  threads_ = std::max(threads, threads_);
  const size_t w = size_t(width_ + 2), t = size_t(threads_);
  values_.assign(t * 2 * kStagedFields * w, T(0));
  active_.assign(t * 2 * w, 0);
  left_.assign(t * w, 0);
  fluxes_.assign(t * 3 * kFluxFields * w, T(0));
  band_inflow_.assign(size_t((rows_ + kRowBand - 1) / kRowBand), 0.0);
  thread_speed_.assign(t, T(0));
}

template <class T>
StagedRow<T> RowScratch<T>::staged(int thread, int k) {
  const size_t w = size_t(width_ + 2), row = size_t(thread) * 2 + size_t(k);
  T* b = values_.data() + row * kStagedFields * w;
  return StagedRow<T>{b,         b + w,     b + 2 * w, b + 3 * w,
                      b + 4 * w, b + 5 * w, b + 6 * w, active_.data() + row * w};
}

template <class T>
unsigned char* RowScratch<T>::left(int thread) {
  return left_.data() + size_t(thread) * size_t(width_ + 2);
}

template <class T>
FluxRow<T> RowScratch<T>::fluxes(int thread, int k) {
  const size_t w = size_t(width_ + 2), row = size_t(thread) * 3 + size_t(k);
  T* b = fluxes_.data() + row * kFluxFields * w;
  return FluxRow<T>{b, b + w, b + 2 * w, b + 3 * w, b + 4 * w};
}

namespace {

// Stages row j's cells i in [i0 - 1, i1] as normal_state_k() and edge_flux() see them, with the
// roots of their depths: a cell outside the view's readable cells (owned cells and ext halo layers)
// is inactive. Every readable cell is staged, active or not (an inactive cell's values are never
// read), so the loop has no branch and vectorises: the divisions and square roots are IEEE lane by
// lane (-fno-trapping-math lets g++ compute the quotient of a dry cell and discard it), the same
// values as one cell at a time.
template <class T>
void stage_row(const EdgeView<T>& e, Index j, Index i0, Index i1, const StagedRow<T>& r) {
  const bool row_inside = j >= -e.ext && j < e.ny + e.ext;
  const Index lo = std::max(i0 - 1, -e.ext), hi = std::min(i1, e.nx + e.ext - 1);
  std::memset(r.active, 0, size_t(i1 - i0 + 2));
  if (!row_inside) return;
  // The row's fields are copied first and converted in place: every element the second loop
  // reads it also writes unconditionally, which is what lets g++ if-convert the quotients that
  // only wet cells take (a load only some cells make could fault).
  const Index base = e.h.offset(0, j), s0 = lo - i0 + 1, n = hi - lo + 1;
  const size_t bytes = size_t(n) * sizeof(T);
  std::memcpy(r.h + s0, e.h.ptr + base + lo, bytes);
  std::memcpy(r.u + s0, e.hu.ptr + base + lo, bytes);
  std::memcpy(r.v + s0, e.hv.ptr + base + lo, bytes);
  std::memcpy(r.c + s0, e.hc.ptr + base + lo, bytes);
  std::memcpy(r.z + s0, e.z.ptr + base + lo, bytes);
  const std::uint8_t* act = e.active.ptr + base + lo;
  T *h = r.h + s0, *u = r.u + s0, *v = r.v + s0, *c = r.c + s0, *sqrt_h = r.sqrt_h + s0,
    *celerity = r.celerity + s0;
  unsigned char* active = r.active + s0;
  const T dry = e.dry, g = e.g;
#pragma omp simd
  for (Index k = 0; k < n; ++k) {
    const T d = h[k];
    active[k] = act[k] != 0;
    u[k] = velocity_k(d, u[k], dry);
    v[k] = velocity_k(d, v[k], dry);
    c[k] = concentration_k(d, c[k]);
    const DepthRoots<T> roots = depth_roots_k(d, g);
    sqrt_h[k] = roots.sqrt_h;
    celerity[k] = roots.celerity;
  }
}

// The point sources of row j's updated active cells, applied to the new state as phase_sources
// does. Returns whether there was one (the row's CFL speed must then be taken again).
template <class T>
bool row_sources(const RowPass<T>& rp, Index j, const StagedRow<T>& r, double& inflow) {
  const SolverView<T>& v = rp.v;
  bool any = false;
  for (Index k = first_source(v, rp.i0, j); k < v.n_sources; ++k) {
    const SourceCell src = v.sources[k];
    if (src.j != j || src.i >= rp.i1) break;  // sorted by (j, i): the row's are done
    if (!r.active[src.i - rp.i0 + 1]) continue;
    any = true;
    T& h = v.h_new(src.i, src.j);
    T& hc = v.hc_new(src.i, src.j);
    double dh, dhc;
    const double volume = point_source_k(v, src, rp.dt, h, hc, dh, dhc);
    h += T(dh);
    hc += T(dhc);
    if (v.e.owns(src.i, src.j)) {
      inflow += volume;
      *v.source_flow(src) += volume;  // the source's own slot: one thread, one add per step
    }
    if (!(h > v.e.dry)) {
      v.hu_new(src.i, src.j) = T(0);
      v.hv_new(src.i, src.j) = T(0);
    }
    T& md = v.max_depth(src.i, src.j);
    if (h > md) md = h;
  }
  return any;
}

// The CFL speed of row j's owned active cells in the new state once point sources have changed it
// (update_row gives it for the other rows), in chunks of kSpeedChunk cells
// copied to the stack: wave_speed_k reads a cell's discharges only where it is wet, and g++
// if-converts (and vectorises) such reads only from arrays it can see are in bounds. Speeds are
// positive or +0, so their maximum does not depend on the order in which they are taken.
constexpr Index kSpeedChunk = 64;
template <class T>
T row_speed(const RowPass<T>& rp, Index j, const StagedRow<T>& r) {
  const SolverView<T>& v = rp.v;
  if (j < 0 || j >= v.e.ny) return T(0);
  const Index base = v.h_new.offset(0, j), lo = std::max<Index>(rp.i0, 0),
              hi = std::min(rp.i1, v.e.nx);
  const T g = v.e.g, dry = v.e.dry;
  T speed = T(0);
  for (Index c0 = lo; c0 < hi; c0 += kSpeedChunk) {
    const Index n = std::min(kSpeedChunk, hi - c0);
    T h[kSpeedChunk], hu[kSpeedChunk], hv[kSpeedChunk];
    unsigned char active[kSpeedChunk];
    std::memcpy(h, v.h_new.ptr + base + c0, size_t(n) * sizeof(T));
    std::memcpy(hu, v.hu_new.ptr + base + c0, size_t(n) * sizeof(T));
    std::memcpy(hv, v.hv_new.ptr + base + c0, size_t(n) * sizeof(T));
    std::memcpy(active, r.active + (c0 - rp.i0 + 1), size_t(n));
    for (Index k = n; k < kSpeedChunk; ++k) {
      h[k] = hu[k] = hv[k] = T(0);
      active[k] = 0;
    }
    T m = T(0);
#pragma omp simd reduction(max : m)
    for (Index k = 0; k < kSpeedChunk; ++k) {
      const T s = active[k] ? wave_speed_k(h[k], hu[k], hv[k], g, dry) : T(0);
      m = std::max(m, s);
    }
    speed = std::max(speed, m);
  }
  return speed;
}

// Rows [jb, je) of the box on thread t: returns their largest CFL speed, adds their inflow.
template <class T>
T step_band(const RowPass<T>& rp, Index jb, Index je, RowScratch<T>& scratch, int t,
            double& inflow) {
  const EdgeView<T>& e = rp.v.e;
  StagedRow<T> cur = scratch.staged(t, 0), above = scratch.staged(t, 1);
  FluxRow<T> fx = scratch.fluxes(t, 0), fs = scratch.fluxes(t, 1), fn = scratch.fluxes(t, 2);
  stage_row(e, jb - 1, rp.i0, rp.i1, cur);
  stage_row(e, jb, rp.i0, rp.i1, above);
  row_y_fluxes(e, jb, rp.i0, rp.i1, cur, above, fs);
  std::swap(cur, above);
  T speed = T(0);
  for (Index j = jb; j < je; ++j) {
    stage_row(e, j + 1, rp.i0, rp.i1, above);
    row_y_fluxes(e, j + 1, rp.i0, rp.i1, cur, above, fn);
    row_x_fluxes(e, j, rp.i0, rp.i1, cur, fx);
    T row = update_row(rp, j, cur, fx, fs, fn, scratch.left(t), inflow);
    if (rp.v.n_sources > 0 && row_sources(rp, j, cur, inflow)) row = row_speed(rp, j, cur);
    speed = std::max(speed, row);
    std::swap(fs, fn);
    std::swap(cur, above);
  }
  return speed;
}

// A no-op step (dt == 0: past the target or after a fault) carries the box's state over.
template <class T>
void carry_over(const SolverView<T>& v, Box2 box) {
  const size_t n = size_t(box.i1 - box.i0) * sizeof(T);
  for (Index j = box.j0; j < box.j1; ++j) {
    std::memcpy(&v.h_new(box.i0, j), &v.e.h(box.i0, j), n);
    std::memcpy(&v.hu_new(box.i0, j), &v.e.hu(box.i0, j), n);
    std::memcpy(&v.hv_new(box.i0, j), &v.e.hv(box.i0, j), n);
    std::memcpy(&v.hc_new(box.i0, j), &v.e.hc(box.i0, j), n);
    if (v.forcing.model != kNoInfiltration) {
      const Index o = v.e.h.offset(box.i0, j);
      std::memcpy(v.forcing.F_new + o, v.forcing.F + o, size_t(box.i1 - box.i0) * sizeof(double));
    }
  }
}

}  // namespace

template <class T>
void phase_row_update(const SolverView<T>& v, Box2 box, RowScratch<T>& scratch) {
  // Rows are walked with the state's offsets: every field must share its layout.
  const EdgeView<T>& e = v.e;
  SILT_REQUIRE(
      v.h_new.stride() == e.h.stride() && e.z.stride() == e.h.stride() &&
          v.max_depth.stride() == e.h.stride() && e.active.stride() == e.h.stride() &&
          e.h.halo == v.h_new.halo && e.z.halo == e.h.halo && e.active.halo == e.h.halo &&
          v.max_depth.halo == e.h.halo &&
          (!v.manning.ptr || (v.manning.stride() == e.h.stride() && v.manning.halo == e.h.halo)),
      "swe row step: fields with different layouts");
  SILT_REQUIRE(
      box.i0 >= -e.ext && box.j0 >= -e.ext && box.i1 <= e.nx + e.ext && box.j1 <= e.ny + e.ext,
      "swe row step: box reaches beyond the halo");
  if (box.count() == 0) return;
  const double dt = v.clock[kDt];
  if (!(dt > 0.0)) return carry_over(v, box);

  const Index rows = box.j1 - box.j0, bands = (rows + kRowBand - 1) / kRowBand;
  const int threads =
      box.count() < kRowSerialCells ? 1 : int(std::min<Index>(bands, host_thread_count()));
  scratch.reserve(box.i1 - box.i0, rows, threads);
  const RowPass<T> rp{
      v,      box.i0,
      box.i1, CellUpdateParams<T>{T(dt / v.dx), T(dt), T(v.clock[kRain] * dt), e.g, e.dry, T(0)},
      dt,     int(v.clock[kSteps])};
  double* band_inflow = scratch.band_inflow();
  T* thread_speed = scratch.thread_speed();
  auto work = [&](int t) {
    T speed = T(0);
#pragma omp for schedule(dynamic, 1) nowait
    for (Index b = 0; b < bands; ++b) {
      const Index jb = box.j0 + b * kRowBand, je = std::min(jb + kRowBand, box.j1);
      double inflow = 0.0;
      speed = std::max(speed, step_band(rp, jb, je, scratch, t, inflow));
      band_inflow[b] = inflow;
    }
    thread_speed[t] = speed;
  };
  if (threads == 1) {
    work(0);
  } else {
#pragma omp parallel num_threads(threads)
    work(omp_get_thread_num());
  }
  // Combined in a fixed order: the same totals whichever thread took which band.
  T smax = *v.smax;
  for (int t = 0; t < threads; ++t) smax = std::max(smax, thread_speed[t]);
  *v.smax = smax;
  if (v.n_flow_cells > 0 || v.n_sources > 0) {
    double inflow = 0.0;
    for (Index b = 0; b < bands; ++b) inflow += band_inflow[b];
    v.clock[kInflow] += inflow;
  }
}

template class RowScratch<float>;
template class RowScratch<double>;
template void phase_row_update<float>(const SolverView<float>&, Box2, RowScratch<float>&);
template void phase_row_update<double>(const SolverView<double>&, Box2, RowScratch<double>&);

}  // namespace silt::swe::detail
