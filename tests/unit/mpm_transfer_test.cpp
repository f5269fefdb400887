// B-spline weights and the MLS-MPM/APIC/ASFLIP transfers, in double on a small host grid.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "silt/mpm/kernels/bspline_k.hpp"
#include "silt/mpm/kernels/transfer_k.hpp"
#include "test_support.hpp"

namespace silt::mpm {
namespace {

using V = Vec3<double>;
using M = Mat3<double>;

// Sums of 27 products of order-1 weights: a few ulp each; 1e-13 is round-off, while a wrong
// weight formula errs by >= 1e-3.
constexpr double kSumTol = 1e-13;
// Central differences with h = 1e-6 dx on a C1 quadratic: truncation ~h^2 |w'''| = 0 inside a
// piece, round-off ~eps/h ~ 1e-10 relative; 1e-7 (in units of 1/dx) leaves margin.
constexpr double kFdTol = 1e-7;

V random_point(std::mt19937& rng, double lo, double hi) {
  std::uniform_real_distribution<double> u(lo, hi);
  return V{u(rng), u(rng), u(rng)};
}

TEST(BSpline, PartitionOfUnityLinearReproductionAndGradients) {
  std::mt19937 rng(3);
  const double dx = 0.037;
  const V origin{-0.3, 0.1, 0.25};
  for (int n = 0; n < 1000; ++n) {
    const V x = origin + random_point(rng, 0.0, 1.0);
    const BSplineQ<double> s = bspline_quadratic(x, origin, 1.0 / dx);
    double sum_w = 0;
    V sum_wx = V::zero(), sum_grad = V::zero();
    M sum_grad_x = M::zero();
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 3; ++k) {
          const double w = s.weight(i, j, k);
          const V xi =
              origin + V{double(s.base[0] + i), double(s.base[1] + j), double(s.base[2] + k)} * dx;
          EXPECT_GE(w, 0.0);
          // dpos is x_i - x_p.
          const V dp = s.dpos(i, j, k, dx);
          EXPECT_LE(norm(dp - (xi - x)), kSumTol) << n;
          sum_w += w;
          sum_wx += xi * w;
          sum_grad += s.gradient(i, j, k);
          sum_grad_x += outer(xi, s.gradient(i, j, k));
        }
    EXPECT_NEAR(sum_w, 1.0, kSumTol) << "particle " << n;
    EXPECT_LE(norm(sum_wx - x), kSumTol) << "particle " << n;
    // Gradient consistency: sum grad w = 0 and sum x_i (grad w)^T = I.
    EXPECT_LE(norm(sum_grad) * dx, kSumTol) << n;
    EXPECT_LE(std::sqrt(frobenius_norm2(sum_grad_x - M::identity())), 1e3 * kSumTol) << n;
    EXPECT_TRUE(s.fx[0] >= 0.5 && s.fx[0] < 1.5) << s.fx[0];
  }
}

TEST(BSpline, GradientMatchesFiniteDifferences) {
  std::mt19937 rng(4);
  const double dx = 0.1, h = 1e-6 * dx;
  const V origin = V::zero();
  for (int n = 0; n < 200; ++n) {
    const V x = random_point(rng, 0.3, 0.7);
    const BSplineQ<double> s = bspline_quadratic(x, origin, 1.0 / dx);
    for (int a = 0; a < 3; ++a) {
      V xp = x, xm = x;
      xp[a] += h, xm[a] -= h;
      const BSplineQ<double> sp = bspline_quadratic(xp, origin, 1 / dx);
      const BSplineQ<double> sm = bspline_quadratic(xm, origin, 1 / dx);
      if (sp.base[a] != s.base[a] || sm.base[a] != s.base[a]) continue;  // across a knot shift
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 3; ++j)
          for (int k = 0; k < 3; ++k) {
            const double fd = (sp.weight(i, j, k) - sm.weight(i, j, k)) / (2 * h);
            EXPECT_NEAR(s.gradient(i, j, k)[a] * dx, fd * dx, kFdTol) << n << " axis " << a;
          }
    }
  }
  EXPECT_DOUBLE_EQ(mls_dinv(0.5), 16.0);
}

/// A dense host grid holding P2G sums; enough for a few particles in the unit cube.
struct HostGrid {
  int n;
  double dx;
  std::vector<double> mass;
  std::vector<V> mom;
  explicit HostGrid(int n_, double dx_)
      : n(n_), dx(dx_), mass(n_ * n_ * n_, 0.0), mom(mass.size(), V::zero()) {}
  int id(int i, int j, int k) const { return (k * n + j) * n + i; }
  V pos(int i, int j, int k) const { return V{i * dx, j * dx, k * dx}; }
};

struct HostParticle {
  V x, v;
  M c;
  double mass, vol;
  M tau;
};

void p2g(HostGrid& g, const std::vector<HostParticle>& ps, double dt) {
  const double dinv = mls_dinv(g.dx);
  for (const HostParticle& p : ps) {
    const BSplineQ<double> s = bspline_quadratic(p.x, V::zero(), 1.0 / g.dx);
    const P2GParticle<double> q = p2g_particle(p.mass, p.v, p.c, p.vol, p.tau, dt, dinv);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 3; ++k) {
          const int id = g.id(s.base[0] + i, s.base[1] + j, s.base[2] + k);
          const double w = s.weight(i, j, k);
          g.mass[id] += w * q.mass;
          g.mom[id] += p2g_node_momentum(q, w, s.dpos(i, j, k, g.dx));
        }
  }
}

// P2G sums are exact up to round-off of ~27 N terms of size |m v|: 1e-12 relative.
constexpr double kConservationTol = 1e-12;

TEST(Transfer, P2GConservesMassAndMomentumIncludingAffineAndStress) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  HostGrid g(16, 1.0 / 16);
  std::vector<HostParticle> ps;
  double m_tot = 0;
  V p_tot = V::zero();
  for (int n = 0; n < 50; ++n) {
    HostParticle p;
    p.x = random_point(rng, 0.2, 0.8);
    p.v = V{u(rng), u(rng), u(rng)};
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) p.c(r, c) = 5 * u(rng), p.tau(r, c) = 1e4 * u(rng);
    p.mass = 0.5 + 0.5 * u(rng) + 0.5;
    p.vol = 1e-4;
    ps.push_back(p);
    m_tot += p.mass;
    p_tot += p.v * p.mass;
  }
  p2g(g, ps, 1e-3);
  double gm = 0;
  V gp = V::zero();
  for (size_t i = 0; i < g.mass.size(); ++i) gm += g.mass[i], gp += g.mom[i];
  EXPECT_NEAR(gm, m_tot, kConservationTol * m_tot);
  // The affine and stress terms move momentum between nodes but add none: sum_i w (x_i - x_p) = 0.
  EXPECT_LE(norm(gp - p_tot), kConservationTol * (norm(p_tot) + m_tot));
}

TEST(Transfer, P2GStressTermIsTheMlsForce) {
  // A resting particle with Kirchhoff stress tau: the momentum it puts on the nodes satisfies
  // sum_i p_i (x_i - x_p)^T = Q D = -dt V0 tau (D = dx^2/4 I), i.e. the impulse dt f_i of the
  // MLS force f_i = -V0 tau grad w_i (Hu et al. 2018). A tensile tau (> 0) pulls the
  // nodes towards the particle.
  HostGrid g(16, 1.0 / 16);
  const M tau{2e4, 1e3, -5e2, 1e3, -3e4, 7e2, -5e2, 7e2, 1e4};
  const double dt = 1e-3, vol = 2e-4;
  const HostParticle p{V{0.41, 0.52, 0.47}, V::zero(), M::zero(), 1.0, vol, tau};
  p2g(g, {p}, dt);
  M moment = M::zero();
  for (int k = 0; k < g.n; ++k)
    for (int j = 0; j < g.n; ++j)
      for (int i = 0; i < g.n; ++i) moment += outer(g.mom[g.id(i, j, k)], g.pos(i, j, k) - p.x);
  EXPECT_LE(std::sqrt(frobenius_norm2(moment + tau * (dt * vol))), 1e-12 * dt * vol * 4e4);
}

TEST(Transfer, ApicRoundTripPreservesAffineField) {
  // v(x) = a + B x sampled on particles with C = B: P2G then G2P returns v_p and C_p exactly
  // (Jiang et al. 2015: APIC preserves affine fields; D = dx^2/4 I for quadratic splines).
  const V a{0.3, -1.2, 0.7};
  const M b{0.5, -2.0, 1.0, 0.25, 0.1, -0.4, 3.0, 0.0, -0.6};
  std::mt19937 rng(6);
  HostGrid g(16, 1.0 / 16);
  std::vector<HostParticle> ps;
  // Enough particles that every node touched by the test particles has mass from many.
  for (int n = 0; n < 4000; ++n) {
    HostParticle p{random_point(rng, 0.15, 0.85), V::zero(), b, 1.0, 1e-4, M::zero()};
    p.v = a + b * p.x;
    ps.push_back(p);
  }
  p2g(g, ps, 1e-3);
  const double dinv = mls_dinv(g.dx);
  for (int n = 0; n < 100; ++n) {
    const HostParticle& p = ps[n];
    const BSplineQ<double> s = bspline_quadratic(p.x, V::zero(), 1.0 / g.dx);
    G2PAccum<double> acc = g2p_begin<double>();
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j)
        for (int k = 0; k < 3; ++k) {
          const int id = g.id(s.base[0] + i, s.base[1] + j, s.base[2] + k);
          g2p_add(acc, s.weight(i, j, k), g.mom[id] / g.mass[id], s.dpos(i, j, k, g.dx));
        }
    EXPECT_LE(norm(acc.v - p.v), kConservationTol * 1e2) << n;  // 1e-10: division by node mass
    EXPECT_LE(std::sqrt(frobenius_norm2(g2p_affine(acc, dinv) - b)), 1e-9) << n;
  }
}

// Closed-form checks of a few flops: round-off only.
constexpr double kExactTol = 1e-14;

TEST(Transfer, DeformationUpdateAndAsflip) {
  const M f{1.1, 0.2, 0, -0.1, 0.9, 0.05, 0, 0.3, 1.0};
  const M c{0.5, 1, 0, -1, 0.2, 0.3, 0, 0, -0.7};
  const double dt = 1e-2;
  const M expect = (M::identity() + c * dt) * f;
  EXPECT_LE(std::sqrt(frobenius_norm2(update_deformation(f, c, dt) - expect)), kExactTol);

  G2PAccum<double> acc = g2p_begin<double>();
  g2p_add_asflip(acc, 1.0, V{1, 2, 3}, V{0.5, 2, 2}, V::zero());  // one node, w = 1
  const V x{0.1, 0.2, 0.3}, vp{0.7, 1.9, 2.5};
  // flip = 0: APIC.
  const ParticleAdvance<double> apic = advance_asflip(acc, x, vp, 0.0, 1.0, dt);
  EXPECT_LE(norm(apic.v - V{1, 2, 3}), kExactTol);
  EXPECT_LE(norm(apic.x - (x + V{1, 2, 3} * dt)), kExactTol);
  const ParticleAdvance<double> a2 = advance_apic(acc, x, dt);
  EXPECT_LE(norm(a2.x - apic.x), kExactTol);
  // flip = 1: FLIP, v_p + (v_new - v_old); advect = 1 moves with that velocity, 0 with the PIC one.
  const V flip_v = vp + (V{1, 2, 3} - V{0.5, 2, 2});
  const ParticleAdvance<double> fl = advance_asflip(acc, x, vp, 1.0, 1.0, dt);
  EXPECT_LE(norm(fl.v - flip_v), kExactTol);
  EXPECT_LE(norm(fl.x - (x + flip_v * dt)), kExactTol);
  const ParticleAdvance<double> fl0 = advance_asflip(acc, x, vp, 1.0, 0.0, dt);
  EXPECT_LE(norm(fl0.x - (x + V{1, 2, 3} * dt)), kExactTol);
  // Blend 0.95.
  const ParticleAdvance<double> bl = advance_asflip(acc, x, vp, 0.95, 1.0, dt);
  EXPECT_LE(norm(bl.v - (V{1, 2, 3} + (vp - V{0.5, 2, 2}) * 0.95)), kExactTol);
  EXPECT_EQ(asflip_advect_weight(1.01, 0.8), 0.8);
  EXPECT_EQ(asflip_advect_weight(0.99, 0.8), 0.0);
}

}  // namespace
}  // namespace silt::mpm
