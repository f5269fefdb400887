// The 3^D node indices of a particle's stencil at once, for the host transfers on packs
// (host_p2g.cpp, host_g2p.cpp). stencil_node (transfer_body.hpp) per node left g++ with ~40
// instructions a node in the unrolled loops (each slot and in-block index rebuilt from the map,
// spilled under register pressure); both are sums of per-axis terms, so the terms are scaled once
// per axis and each node costs three adds and a neighbour-table load. The same integers.
#pragma once

#include "silt/core/config.hpp"
#include "silt/mpm/kernels/bspline_k.hpp"
#include "silt/mpm/sparse_grid.hpp"
#include "silt/mpm/transfer_body.hpp"

namespace silt::mpm::detail {

/// node[n] = stencil_node(m, nb, n % 3, (n / 3) % 3, n / 9) for n < 3^D.
template <int D>
SILT_FORCEINLINE void stencil_nodes(const StencilMap& m, const int* nb,
                                    int (&node)[kStencilNodes<D>]) {
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
