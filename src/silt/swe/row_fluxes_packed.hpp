// The body of packed_edge_fluxes (row_fluxes.hpp) for one pack type; included by the host-only
// units row_fluxes.cpp (SSE2) and row_fluxes_isa.cpp (built once per wider instruction set by
// silt_isa_units, cmake/SiltIsaUnits.cmake) only, each with a tag type of its own anonymous
// namespace, so that every function instantiated on its packs has internal linkage (an AVX2 or
// AVX-512 copy of a shared inline function can never replace the baseline one at link time).
// Nothing here is instantiated on a scalar type.
#pragma once

#include <cstdint>
#include <cstring>

#include "silt/core/math/float_pack.hpp"
#include "silt/swe/row_fluxes.hpp"

namespace silt::swe::detail {

/// Whether any of the W edges from k has both sides active.
template <int W>
SILT_FORCEINLINE bool any_pair_active(const unsigned char* a, const unsigned char* b) {
  unsigned char x[W], y[W];
  std::memcpy(x, a, W);
  std::memcpy(y, b, W);
  unsigned char r = 0;
  for (int l = 0; l < W; ++l) r |= x[l] & y[l];
  return r != 0;
}

/// The edges of packs k = k0, k0 + W, ... while k + W <= n; returns the end of the last pack.
template <class P, int W, class T>
SILT_FORCEINLINE Index packed_edge_fluxes(const EdgeSide<T>& a, const EdgeSide<T>& b, Index k0,
                                          Index n, T g, T dry, const FluxRow<T>& f) {
  const P gp(g), dryp(dry);
  Index k = k0;
  for (; k + W <= n; k += W) {
    if (!any_pair_active<W>(a.active + k, b.active + k)) continue;
    const NormalState<P> L{P::load(a.h + k), P::load(a.un + k), P::load(a.ut + k),
                           P::load(a.c + k)};
    const NormalState<P> R{P::load(b.h + k), P::load(b.un + k), P::load(b.ut + k),
                           P::load(b.c + k)};
    const EdgeFlux<P> w = well_balanced_flux_k(
        L, P::load(a.z + k), R, P::load(b.z + k),
        DepthRoots<P>{P::load(a.sqrt_h + k), P::load(a.celerity + k)},
        DepthRoots<P>{P::load(b.sqrt_h + k), P::load(b.celerity + k)}, gp, dryp);
    w.h.store(f.h + k);
    w.un_left.store(f.un_left + k);
    w.un_right.store(f.un_right + k);
    w.ut.store(f.ut + k);
    w.c.store(f.c + k);
  }
  return k;
}

/// A row's edges on `Bits`-bit registers: packs of Bits / 8 / sizeof(T) lanes, then, on registers
/// wider than 256 bits, one pack of half that width where that many edges remain, so that a row's
/// tail left to the edge-by-edge pass is no longer than with 256-bit packs. Returns the end of the
/// last pack.
template <int Bits, class Tag, class T>
SILT_FORCEINLINE Index packed_edge_fluxes_width(const EdgeSide<T>& a, const EdgeSide<T>& b, Index n,
                                                T g, T dry, const FluxRow<T>& f) {
  constexpr int W = Bits / 8 / int(sizeof(T));
  const Index m = packed_edge_fluxes<FloatPack<W, Tag, T>, W>(a, b, 0, n, g, dry, f);
  if constexpr (Bits > 256) {
    return packed_edge_fluxes<FloatPack<W / 2, Tag, T>, W / 2>(a, b, m, n, g, dry, f);
  } else {
    return m;
  }
}

}  // namespace silt::swe::detail
