// The shared-memory P2G of prior GPU MPM codes (Gao et al. 2018; Hu et al. 2019a; Wang et al.
// 2020), kept as an ablation of paper 000 §4.3, which replaces it by direct global atomics. A
// CUDA block of particles (sorted by block) adds into an arena that covers the 3x3x3 grid blocks
// around its first particle's block (12^3 nodes, the free zone), then flushes the arena's touched
// nodes to the global accumulators with one native atomic per node and channel. Particles of
// other blocks in the same CUDA block scatter straight to global memory. The physics is the same
// scatter (transfer_body.hpp); only the order of the float sums differs.
#pragma once

#include "silt/mpm/transfer_body.hpp"

namespace silt::mpm::detail {

constexpr int kArenaEdge = 3 * kBlockEdge;                         // nodes per axis
constexpr int kArenaNodes = kArenaEdge * kArenaEdge * kArenaEdge;  // 1728
/// Arena channels: mass, momentum x y z, and with split force channels force x y z. Stored channel
/// by channel (arena[c * kArenaNodes + node]); 7 channels x 1728 nodes x 4 B = 48,384 B fits the
/// 48 KiB of static shared memory per CUDA block.
SILT_HD SILT_FORCEINLINE int arena_channels(bool split_force) {
  return split_force ? 7 : 4;
}
constexpr int kArenaThreads = 256;  // particles per CUDA block (and per host chunk)

/// Adds v to an arena entry: a shared-memory float atomic on the device (the non-native atomics
/// the paper measures), a plain add on the host, where one thread owns the arena.
SILT_HD SILT_FORCEINLINE void arena_add(float* p, float v) {
#if SILT_DEVICE_PASS
  atomicAdd(p, v);
#else
  *p += v;
#endif
}

/// Arena index of stencil node (i, j, k): the node's offset in the 12^3 nodes of the home block's
/// 3x3x3 neighbourhood.
SILT_HD SILT_FORCEINLINE int arena_node(const StencilMap& m, int i, int j, int k) {
  const int ax = kBlockEdge * (m.rel[0][i] + 1) + m.local[0][i];
  const int ay = kBlockEdge * (m.rel[1][j] + 1) + m.local[1][j];
  const int az = kBlockEdge * (m.rel[2][k] + 1) + m.local[2][k];
  return ax + kArenaEdge * (ay + kArenaEdge * az);
}

struct ArenaSink {
  float* arena;
  SILT_HD SILT_FORCEINLINE void add(const StencilMap& m, const int*, int i, int j, int k,
                                    float mass, const Vec3f& mv) const {
    const int n = arena_node(m, i, j, k);
    arena_add(arena + n, mass);
    arena_add(arena + kArenaNodes + n, mv[0]);
    arena_add(arena + 2 * kArenaNodes + n, mv[1]);
    arena_add(arena + 3 * kArenaNodes + n, mv[2]);
  }
  SILT_HD SILT_FORCEINLINE void add_force(const StencilMap& m, const int*, int i, int j, int k,
                                          const Vec3f& f) const {
    const int n = arena_node(m, i, j, k);
    arena_add(arena + 4 * kArenaNodes + n, f[0]);
    arena_add(arena + 5 * kArenaNodes + n, f[1]);
    arena_add(arena + 6 * kArenaNodes + n, f[2]);
  }
};

/// P2G of particle i (as p2g_particle_body), into the arena when its block is `leader`.
SILT_HD SILT_FORCEINLINE void p2g_particle_arena(const TransferArgs& a, const ParticleView& p,
                                                 const GridView& g, Index i, float dt,
                                                 float dt_prev, const FaultView& fault, int leader,
                                                 float* arena) {
  Vec3f x, v;
  Mat3f c;
  const ParticleClass* pc;
  const Mat3f tau = p2g_material(a, p, i, dt_prev, x, v, c, pc);
  const int block = p.block[i];
  if (block < 0) return;  // binning failed on an overflow, already raised
  int hb[3];
  home_coords(p, g, i, hb);
  const bool ok = block == leader
                      ? scatter_particle(a, g, x, block, hb, *pc, v, c, tau, dt, ArenaSink{arena})
                      : scatter_particle(a, g, x, block, hb, *pc, v, c, tau, dt);
  if (!ok) fault.raise(kFaultZoneEscape, p.id[i], 0);
}

/// Flushes arena node n of leader block `leader` to the global accumulators and clears it.
/// Untouched nodes (zero mass: every touched node gets w m > 0) cost no atomics.
SILT_HD SILT_FORCEINLINE void flush_arena_node(const TransferArgs& a, const GridView& g, int leader,
                                               float* arena, int n) {
  const float mass = arena[n];
  if (mass == 0.0f) return;
  const int ax = n % kArenaEdge, ay = (n / kArenaEdge) % kArenaEdge,
            az = n / (kArenaEdge * kArenaEdge);
  const int block =
      g.neighbours[27 * leader +
                   neighbour_slot(ax / kBlockEdge - 1, ay / kBlockEdge - 1, az / kBlockEdge - 1)];
  const int node =
      block * kBlockNodes + node_in_block(ax % kBlockEdge, ay % kBlockEdge, az % kBlockEdge);
  float* acc = g.accum + g.accum_stride * node;
  const float m1 = arena[kArenaNodes + n], m2 = arena[2 * kArenaNodes + n],
              m3 = arena[3 * kArenaNodes + n];
  if (a.vector_atomics) {
    atomic_add4(acc, mass, m1, m2, m3);
  } else {
    atomic_add(acc, mass), atomic_add(acc + 1, m1), atomic_add(acc + 2, m2),
        atomic_add(acc + 3, m3);
  }
  for (int ch = 0; ch < 4; ++ch) arena[ch * kArenaNodes + n] = 0.0f;
  if (!a.split_force) return;
  const float f1 = arena[4 * kArenaNodes + n], f2 = arena[5 * kArenaNodes + n],
              f3 = arena[6 * kArenaNodes + n];
  if (a.vector_atomics) {
    atomic_add4(acc + 4, f1, f2, f3, 0.0f);
  } else {
    atomic_add(acc + 4, f1), atomic_add(acc + 5, f2), atomic_add(acc + 6, f3);
  }
  for (int ch = 4; ch < 7; ++ch) arena[ch * kArenaNodes + n] = 0.0f;
}

}  // namespace silt::mpm::detail
