// The 3^D node indices of a particle's stencil at once, for the host transfers on packs
// (mpm/host/p2g.cpp, mpm/host/g2p.cpp). stencil_node (transfer_body.hpp) per node left g++ with ~40
// instructions a node in the unrolled loops (each slot and in-block index rebuilt from the map,
// spilled under register pressure); both are sums of per-axis terms, so the terms are scaled once
// per axis and each node costs three adds and a neighbour-table load. The same integers.
#pragma once

#if defined(__AVX2__)
#include <immintrin.h>
#endif

#include "silt/core/config.hpp"
#include "silt/mpm/kernels/bspline_k.hpp"
#include "silt/mpm/sparse_grid.hpp"
#include "silt/mpm/transfer_body.hpp"

namespace silt::mpm::detail {

#if defined(__AVX2__)
/// stencil_nodes_avx2's axis indices: node n = 8 c + lane has i = n % 3, j = (n / 3) % 3,
/// k = n / 9 in kStencilAxis[c][0..2][lane]; lanes past 26 repeat node 26 (their loads stay valid).
/// Namespace-scope constexpr: internal linkage, a copy per unit.
alignas(32) constexpr int kStencilAxis[4][3][8] = {
    {{0, 1, 2, 0, 1, 2, 0, 1}, {0, 0, 0, 1, 1, 1, 2, 2}, {0, 0, 0, 0, 0, 0, 0, 0}},
    {{2, 0, 1, 2, 0, 1, 2, 0}, {2, 0, 0, 0, 1, 1, 1, 2}, {0, 1, 1, 1, 1, 1, 1, 1}},
    {{1, 2, 0, 1, 2, 0, 1, 2}, {2, 2, 0, 0, 0, 1, 1, 1}, {1, 1, 2, 2, 2, 2, 2, 2}},
    {{0, 1, 2, 2, 2, 2, 2, 2}, {2, 2, 2, 2, 2, 2, 2, 2}, {2, 2, 2, 2, 2, 2, 2, 2}}};

/// stencil_nodes for 3D in the AVX2 and AVX-512 units: the per-axis terms of 8 nodes at once
/// (permutes of the 3-entry tables), the neighbour-table loads as one gather, four packs of 8 for
/// the 27 nodes (the last with 3 lanes stored). The scalar form cost ~18 instructions a node
/// (terms kept on the stack under register pressure): callgrind, docs/NOTES.md "Wider packs".
SILT_FORCEINLINE void stencil_nodes_avx2(const StencilMap& m, const int* nb, int (&node)[27]) {
  static_assert(kBlockNodes == 64 && kBlockEdge == 4, "node = block * 64 + x + 4 y + 16 z");
  const __m256i slot[3] = {
      _mm256_setr_epi32(m.rel[0][0] + 1, m.rel[0][1] + 1, m.rel[0][2] + 1, 0, 0, 0, 0, 0),
      _mm256_setr_epi32(3 * (m.rel[1][0] + 1), 3 * (m.rel[1][1] + 1), 3 * (m.rel[1][2] + 1), 0, 0,
                        0, 0, 0),
      _mm256_setr_epi32(9 * (m.rel[2][0] + 1), 9 * (m.rel[2][1] + 1), 9 * (m.rel[2][2] + 1), 0, 0,
                        0, 0, 0)};
  const __m256i local[3] = {
      _mm256_setr_epi32(m.local[0][0], m.local[0][1], m.local[0][2], 0, 0, 0, 0, 0),
      _mm256_setr_epi32(4 * m.local[1][0], 4 * m.local[1][1], 4 * m.local[1][2], 0, 0, 0, 0, 0),
      _mm256_setr_epi32(16 * m.local[2][0], 16 * m.local[2][1], 16 * m.local[2][2], 0, 0, 0, 0, 0)};
  for (int c = 0; c < 4; ++c) {
    __m256i s = _mm256_setzero_si256(), l = _mm256_setzero_si256();
    for (int a = 0; a < 3; ++a) {
      const __m256i idx = _mm256_load_si256(reinterpret_cast<const __m256i*>(kStencilAxis[c][a]));
      s = _mm256_add_epi32(s, _mm256_permutevar8x32_epi32(slot[a], idx));
      l = _mm256_add_epi32(l, _mm256_permutevar8x32_epi32(local[a], idx));
    }
    const __m256i r = _mm256_add_epi32(_mm256_slli_epi32(_mm256_i32gather_epi32(nb, s, 4), 6), l);
    if (c < 3)
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(node + 8 * c), r);
    else
      _mm256_maskstore_epi32(node + 24, _mm256_setr_epi32(-1, -1, -1, 0, 0, 0, 0, 0), r);
  }
}
#endif

/// node[n] = stencil_node(m, nb, n % 3, (n / 3) % 3, n / 9) for n < 3^D.
template <int D>
SILT_FORCEINLINE void stencil_nodes(const StencilMap& m, const int* nb,
                                    int (&node)[kStencilNodes<D>]) {
#if defined(__AVX2__)
  if constexpr (D == 3) {
    stencil_nodes_avx2(m, nb, node);
    return;
  }
#endif
  // neighbour_slot(dx, dy, dz) = (dx + 1) + 3 (dy + 1) + 9 (dz + 1);
  // node_in_block(lx, ly, lz) = lx + E ly + E^2 lz (E = kBlockEdge).
  constexpr int slot_scale[3] = {1, 3, 9};
  constexpr int local_scale[3] = {1, kBlockEdge, kBlockEdge * kBlockEdge};
  int slot[3][3], local[3][3];
  for (int a = 0; a < 3; ++a)
    for (int k = 0; k < 3; ++k) {
      slot[a][k] = (m.rel[a][k] + 1) * slot_scale[a];
      local[a][k] = m.local[a][k] * local_scale[a];
    }
  SILT_MPM_UNROLL for (int n = 0; n < kStencilNodes<D>; ++n) {
    const int i = n % 3, j = (n / 3) % 3, k = n / 9;
    node[n] = nb[slot[0][i] + slot[1][j] + slot[2][k]] * kBlockNodes + local[0][i] + local[1][j] +
              local[2][k];
  }
}

}  // namespace silt::mpm::detail
