// The body of packed_cell_updates (row_update.hpp) for one pack type; included by the host-only
// units row_update.cpp (SSE2) and row_update_isa.cpp (built once per wider instruction set by
// silt_isa_units, cmake/SiltIsaUnits.cmake) only, each with a tag type of its own anonymous
// namespace, so that every function instantiated on its packs has internal linkage. Nothing here is
// instantiated on a scalar type.
#pragma once

#include <algorithm>
#include <cstring>

#include "silt/core/math/float_pack.hpp"
#include "silt/swe/kernels/cell_update_k.hpp"
#include "silt/swe/kernels/cfl_k.hpp"
#include "silt/swe/row_update.hpp"

namespace silt::swe::detail {

/// Whether the W staged masks from a are all set.
template <int W>
SILT_FORCEINLINE bool all_active(const unsigned char* a) {
  unsigned char x[W];
  std::memcpy(x, a, W);
  unsigned char r = 1;
  for (int l = 0; l < W; ++l) r &= x[l];
  return r != 0;
}

template <class P, class T>
SILT_FORCEINLINE EdgeFlux<P> load_fluxes(const FluxRow<T>& f, Index k) {
  return EdgeFlux<P>{P::load(f.h + k), P::load(f.un_left + k), P::load(f.un_right + k),
                     P::load(f.ut + k), P::load(f.c + k)};
}

/// The cells of packs k = k0, k0 + W, ... while k + W <= count (packed_cell_updates's
/// contract); returns the largest speed of the cells updated (+0 if none).
template <class P, int W, class T>
SILT_FORCEINLINE T packed_cell_updates(const CellRow<T>& c, const FluxRow<T>& x,
                                       const FluxRow<T>& s, const FluxRow<T>& n, Index k0,
                                       Index count, const CellUpdateParams<T>& p,
                                       unsigned char* left) {
  const CellUpdateParams<P> pp{P(p.dtdx), P(p.dt), P(p.rain_depth), P(p.g), P(p.dry), P(T(0))};
  P speed(T(0));
  for (Index k = k0; k + W <= count; k += W) {
    if (!all_active<W>(c.active + k)) continue;
    CellState<P> u{P::load(c.h + k), P::load(c.hu + k), P::load(c.hv + k), P::load(c.hc + k)};
    CellUpdateParams<P> q = pp;
    if (c.manning) q.manning = P::load(c.manning + k);
    const int code = update_cell_k(u, load_fluxes<P>(x, k), load_fluxes<P>(x, k + 1),
                                   load_fluxes<P>(s, k), load_fluxes<P>(n, k), q);
    if (code != kFaultNone) continue;  // the scalar pass reports it cell by cell
    u.h.store(c.h_new + k);
    u.hu.store(c.hu_new + k);
    u.hv.store(c.hv_new + k);
    u.hc.store(c.hc_new + k);
    const P md = P::load(c.max_depth + k);
    math::select(u.h > md, u.h, md).store(c.max_depth + k);
    speed = math::max(speed, wave_speed_k(u.h, u.hu, u.hv, q.g, q.dry));
    std::memset(left + k, 0, W);
  }
  // Speeds are >= +0 and not NaN: their maximum does not depend on the order.
  T m = T(0);
  for (int l = 0; l < W; ++l) m = std::max(m, speed[l]);
  return m;
}

/// A row's cells on `Bits`-bit registers: packs of Bits / 8 / sizeof(T) lanes, then, on registers
/// wider than 256 bits, one pack of half that width where that many cells remain, so that a row's
/// tail left to the cell-by-cell pass is no longer than with 256-bit packs. Returns the largest
/// speed of the cells updated (+0 if none).
template <int Bits, class Tag, class T>
SILT_FORCEINLINE T packed_cell_updates_width(const CellRow<T>& c, const FluxRow<T>& x,
                                             const FluxRow<T>& s, const FluxRow<T>& n, Index count,
                                             const CellUpdateParams<T>& p, unsigned char* left) {
  constexpr int W = Bits / 8 / int(sizeof(T));
  const T a = packed_cell_updates<FloatPack<W, Tag, T>, W>(c, x, s, n, 0, count, p, left);
  if constexpr (Bits > 256) {
    const Index half = count - count % W;
    const T b =
        packed_cell_updates<FloatPack<W / 2, Tag, T>, W / 2>(c, x, s, n, half, count, p, left);
    return std::max(a, b);  // speeds are >= +0 and not NaN
  } else {
    return a;
  }
}

}  // namespace silt::swe::detail
