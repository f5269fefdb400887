// The row step's edge fluxes: full packs of edges through packed_edge_fluxes (row_fluxes_isa.cpp,
// built for SSE2, AVX2 and AVX-512F; the widest the CPU has), the rest edge by edge with the same
// functions.
#include "silt/swe/row_fluxes.hpp"

#include <cstdint>
#include <cstring>

#include "silt/swe/edges.hpp"
#include "silt/swe/row_fluxes_packed.hpp"

namespace silt::swe::detail {

namespace {

template <class T>
Index packed_edge_fluxes(const EdgeSide<T>& a, const EdgeSide<T>& b, Index n, T g, T dry,
                         const FluxRow<T>& f) {
  static const bool avx512 = __builtin_cpu_supports("avx512f");
  static const bool avx2 = __builtin_cpu_supports("avx2");
  if (avx512) return avx512::packed_edge_fluxes(a, b, n, g, dry, f);
  return avx2 ? avx2::packed_edge_fluxes(a, b, n, g, dry, f)
              : sse2::packed_edge_fluxes(a, b, n, g, dry, f);
}

// Row r's cells from staged index s on, seen from an x edge (x_normal) or a y edge.
template <class T>
EdgeSide<T> edge_side(const StagedRow<T>& r, Index s, bool x_normal) {
  return EdgeSide<T>{r.h + s,
                     (x_normal ? r.u : r.v) + s,
                     (x_normal ? r.v : r.u) + s,
                     r.c + s,
                     r.z + s,
                     r.sqrt_h + s,
                     r.celerity + s,
                     r.active + s};
}

// Flux between staged cells a (left) and b (right), both active, edge by edge. The staged roots
// give the bits of the flux without them (roe_flux_k.hpp).
template <class T>
SILT_FORCEINLINE EdgeFlux<T> staged_flux(const EdgeSide<T>& a, const EdgeSide<T>& b, Index k, T g,
                                         T dry) {
  return well_balanced_flux_k(NormalState<T>{a.h[k], a.un[k], a.ut[k], a.c[k]}, a.z[k],
                              NormalState<T>{b.h[k], b.un[k], b.ut[k], b.c[k]}, b.z[k],
                              DepthRoots<T>{a.sqrt_h[k], a.celerity[k]},
                              DepthRoots<T>{b.sqrt_h[k], b.celerity[k]}, g, dry);
}

// The general edge flux (an inactive side, or a segment of the domain edge), out of line as in the
// tile kernel: few edges take it, and inlined it doubles the size of the row loops.
template <class T>
__attribute__((noinline)) EdgeFlux<T> general_edge_flux(const EdgeView<T>& e, Index i, Index j,
                                                        Dir d) {
  return edge_flux(e, i, j, d);
}

// Edges k in [0, n) between sides a and b; edge k is edge_flux(e, i0 + k, j, d) when a side is
// inactive. The flux functions are inlined into the loop (flatten): called, each edge's flux came
// back through the stack and its arguments went out through it.
template <class T>
__attribute__((noinline, flatten)) void edge_fluxes(const EdgeView<T>& e, Index j, Index i0, Dir d,
                                                    const EdgeSide<T>& a, const EdgeSide<T>& b,
                                                    Index n, const FluxRow<T>& f) {
  const Index m = packed_edge_fluxes(a, b, n, e.g, e.dry, f);
  // Runs of 8 packed edges whose sides are all active (staged masks hold 0 or 1) are done.
  Index k = 0;
  for (; k + 8 <= m; k += 8) {
    std::uint64_t x, y;
    std::memcpy(&x, a.active + k, 8);
    std::memcpy(&y, b.active + k, 8);
    if ((x & y) == 0x0101010101010101ull) continue;
    for (Index l = k; l < k + 8; ++l)
      if (!(a.active[l] && b.active[l])) f.set(l, general_edge_flux(e, i0 + l, j, d));
  }
  for (; k < n; ++k) {
    if (!(a.active[k] && b.active[k]))
      f.set(k, general_edge_flux(e, i0 + k, j, d));
    else if (k >= m)
      f.set(k, staged_flux(a, b, k, e.g, e.dry));
  }
}

}  // namespace

template <class T>
void row_x_fluxes(const EdgeView<T>& e, Index j, Index i0, Index i1, const StagedRow<T>& r,
                  const FluxRow<T>& f) {
  edge_fluxes(e, j, i0, Dir::x, edge_side(r, 0, true), edge_side(r, 1, true), i1 - i0 + 1, f);
}

template <class T>
void row_y_fluxes(const EdgeView<T>& e, Index j, Index i0, Index i1, const StagedRow<T>& below,
                  const StagedRow<T>& above, const FluxRow<T>& f) {
  edge_fluxes(e, j, i0, Dir::y, edge_side(below, 1, false), edge_side(above, 1, false), i1 - i0, f);
}

template void row_x_fluxes<float>(const EdgeView<float>&, Index, Index, Index,
                                  const StagedRow<float>&, const FluxRow<float>&);
template void row_x_fluxes<double>(const EdgeView<double>&, Index, Index, Index,
                                   const StagedRow<double>&, const FluxRow<double>&);
template void row_y_fluxes<float>(const EdgeView<float>&, Index, Index, Index,
                                  const StagedRow<float>&, const StagedRow<float>&,
                                  const FluxRow<float>&);
template void row_y_fluxes<double>(const EdgeView<double>&, Index, Index, Index,
                                   const StagedRow<double>&, const StagedRow<double>&,
                                   const FluxRow<double>&);

}  // namespace silt::swe::detail
