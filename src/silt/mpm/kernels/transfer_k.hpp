// Particle <-> grid transfers: MLS-MPM (Hu et al. 2018) with APIC momentum (Jiang et al. 2015),
// and the ASFLIP particle update (Fei et al. 2021) as an option.
//
// P2G (Hu et al. 2018, quadratic B-splines, D^{-1} = 4/dx^2):
//   m_i     += w_ip m_p
//   (m v)_i += w_ip (m_p v_p + Q_p (x_i - x_p)),  Q_p = m_p C_p - dt V_p^0 D^{-1} tau_p
// where tau_p = P F^T (Kirchhoff stress, Pa) and V_p^0 the initial particle volume (m^3): the
// stress term is the MLS force -V_p^0 P F^T grad w_ip with grad w_ip ~ D^{-1} w_ip (x_i - x_p).
// Per particle the pipeline calls p2g_particle() once, then p2g_node_momentum() per node and
// atomically adds w m_p and the momentum.
//
// G2P: v_p = sum w v_i,  C_p = D^{-1} sum w v_i (x_i - x_p)^T,  F_p <- (I + dt C_p) F_p.
// ASFLIP (Fei et al. 2021): with v_old_i the grid velocity before forces and boundaries,
//   v_p^{n+1} = v_pic + a (v_p^n - sum w v_old_i)
//   x_p^{n+1} = x_p^n + dt (v_pic + b a (v_p^n - sum w v_old_i))
// a = flip blend (0: APIC, ~0.95 typical), b = position-correction weight (b_max for separating
// particles, J > 1, else b_min = 0; asflip_advect_weight()).
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/mat.hpp"
#include "silt/core/math/vec.hpp"

namespace silt::mpm {

/// Per-particle P2G quantities, computed once and reused for all 27 nodes.
template <class T>
struct P2GParticle {
  T mass;            // kg
  Vec3<T> momentum;  // m_p v_p, kg m/s
  Mat3<T> affine;    // Q_p = m_p C_p - dt V0 D^{-1} tau_p, kg/s
};

/// mass (kg), v (m/s), c: APIC/MLS affine velocity C_p (1/s), volume0 (m^3), tau: Kirchhoff stress
/// P F^T (Pa), dt (s), dinv: D^{-1} = 4/dx^2 (1/m^2).
template <class T>
SILT_HD SILT_FORCEINLINE P2GParticle<T> p2g_particle(T mass, const Vec3<T>& v, const Mat3<T>& c,
                                                     T volume0, const Mat3<T>& tau, T dt, T dinv) {
  return P2GParticle<T>{mass, v * mass, c * mass - tau * (dt * volume0 * dinv)};
}

/// Momentum the particle adds to a node: w (m_p v_p + Q_p (x_i - x_p)); dpos = x_i - x_p (m).
template <class T>
SILT_HD SILT_FORCEINLINE Vec3<T> p2g_node_momentum(const P2GParticle<T>& p, T w,
                                                   const Vec3<T>& dpos) {
  return (p.momentum + p.affine * dpos) * w;
}

/// Running G2P sums over the 27 nodes (start from g2p_begin()).
template <class T>
struct G2PAccum {
  Vec3<T> v;      // sum w v_i (new grid velocity), m/s
  Mat3<T> b;      // sum w v_i (x_i - x_p)^T, m^2/s
  Vec3<T> v_old;  // sum w v_old_i (grid velocity before the update; ASFLIP only), m/s
};

template <class T>
SILT_HD SILT_FORCEINLINE G2PAccum<T> g2p_begin() {
  return G2PAccum<T>{Vec3<T>::zero(), Mat3<T>::zero(), Vec3<T>::zero()};
}

/// Adds node i: w, its new velocity v_new (m/s), dpos = x_i - x_p (m).
template <class T>
SILT_HD SILT_FORCEINLINE void g2p_add(G2PAccum<T>& a, T w, const Vec3<T>& v_new,
                                      const Vec3<T>& dpos) {
  const Vec3<T> wv = v_new * w;
  a.v += wv;
  a.b += outer(wv, dpos);
}

/// ASFLIP also gathers the pre-update grid velocity.
template <class T>
SILT_HD SILT_FORCEINLINE void g2p_add_asflip(G2PAccum<T>& a, T w, const Vec3<T>& v_new,
                                             const Vec3<T>& v_old, const Vec3<T>& dpos) {
  g2p_add(a, w, v_new, dpos);
  a.v_old += v_old * w;
}

/// C_p = D^{-1} B_p (1/s).
template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> g2p_affine(const G2PAccum<T>& a, T dinv) {
  return a.b * dinv;
}

/// F_new = (I + dt C) F (Hu et al. 2018; dimensionless).
template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> update_deformation(const Mat3<T>& f, const Mat3<T>& c, T dt) {
  return f + (c * dt) * f;
}

/// New particle velocity and position.
template <class T>
struct ParticleAdvance {
  Vec3<T> v;  // m/s
  Vec3<T> x;  // m
};

/// APIC/PIC: v = sum w v_i, x += dt v.
template <class T>
SILT_HD SILT_FORCEINLINE ParticleAdvance<T> advance_apic(const G2PAccum<T>& a, const Vec3<T>& x,
                                                         T dt) {
  return ParticleAdvance<T>{a.v, x + a.v * dt};
}

/// ASFLIP (Fei et al. 2021): v_p_old the particle velocity before this step (m/s),
/// flip the blend a in [0, 1], advect the position-correction weight b in [0, 1].
template <class T>
SILT_HD SILT_FORCEINLINE ParticleAdvance<T> advance_asflip(const G2PAccum<T>& a, const Vec3<T>& x,
                                                           const Vec3<T>& v_p_old, T flip, T advect,
                                                           T dt) {
  const Vec3<T> flip_term = (v_p_old - a.v_old) * flip;
  return ParticleAdvance<T>{a.v + flip_term, x + (a.v + flip_term * advect) * dt};
}

/// ASFLIP's per-particle position-correction weight: advect_max for a separating particle
/// (J = det F > 1, it can move freely), 0 in compression/contact, where the FLIP correction would
/// push particles into each other or into walls (Fei et al. 2021).
template <class T>
SILT_HD SILT_FORCEINLINE T asflip_advect_weight(T j, T advect_max) {
  return j > T(1) ? advect_max : T(0);
}

}  // namespace silt::mpm
