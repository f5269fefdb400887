// Elastic bar: a thin fixed-corotated bar (Poisson ratio 0, so its 1-D wave speed is exactly
// c = sqrt(E / rho)) with free ends; its two halves start moving towards each other at +-A. The
// longitudinal motion of a free-free bar is periodic with T = 2 L / c; its fundamental mode has the
// shape cos(pi x / L) and frequency c / (2 L). Projecting the particle velocities on that shape
// (by rest position) isolates the fundamental from the higher modes the square start excites; the
// period from the projection's zero crossings over three periods must match 2 L / c.
#include <gtest/gtest.h>

#include <cstdio>

#include "mpm_scene_util.hpp"
#include "test_support.hpp"

namespace silt::test::mpm {
namespace {

// The grid smears each free end over the B-spline support, so the MPM bar vibrates like a bar up to
// one cell longer (measured: 2.5% slow at L = 32 dx, 1.4% at L = 64 dx, first order in dx/L). The
// period must lie between 2 L / c and 2 (L + dx) / c, give or take 1% for the zero crossings
// interpolated between frames T / 40 apart and the O((k dx)^2) dispersion of the fundamental.
constexpr double kPeriodRelTol = 0.01;
// Small amplitude: peak strain A / c = 0.5%, the linear regime.
constexpr double kAmplitude = 0.05;  // m/s

constexpr double kE = 1e5, kRho = 1000;
constexpr double kDx = 0.0125, kLength = 32 * kDx, kSide = 2 * kDx;

void check_period(silt::mpm::Transfer transfer, bool g2p2g) {
  const double c = std::sqrt(kE / kRho), period = 2 * kLength / c;
  Scene s;
  s.name = "elastic_bar";
  s.dx = kDx;
  s.domain_min = {0, 0, 0};
  s.domain_max = {0.8, 0.2, 0.2};
  s.gravity = {0, 0, 0};
  s.materials = {jelly(kE, 0.0, kRho)};
  const double x0 = 0.2, y0 = 0.1, z0 = 0.1, half = 0.5 * kLength;
  s.sources = {box_source({x0, y0, z0}, {x0 + half, y0 + kSide, z0 + kSide}, 0, {kAmplitude, 0, 0}),
               box_source({x0 + half, y0, z0}, {x0 + kLength, y0 + kSide, z0 + kSide}, 0,
                          {-kAmplitude, 0, 0})};
  s.frame_dt = period / 40;
  s.transfer = transfer;
  s.g2p2g = g2p2g;
  silt::mpm::Solver solver(s, exec());
  const silt::mpm::ParticleFrame p0 = solver.particles();
  // Mode shape at each particle's rest position, by particle id (particles get reordered).
  std::vector<double> shape(p0.count());
  for (std::size_t i = 0; i < p0.count(); ++i)
    shape[std::size_t(p0.id[i])] = std::cos(M_PI * (p0.position[3 * i] - x0) / kLength);
  auto fundamental = [&](const silt::mpm::ParticleFrame& p) {
    double a = 0;
    for (std::size_t i = 0; i < p.count(); ++i)
      a += shape[std::size_t(p.id[i])] * p.velocity[3 * i];
    return a / double(p.count());
  };
  std::vector<double> crossings;
  double t_prev = 0, v_prev = fundamental(p0);
  ASSERT_GT(v_prev, 0.0);
  for (int f = 0; f < 3 * 40; ++f) {
    solver.advance_frame();
    const double t = solver.time(), v = fundamental(solver.particles());
    if ((v_prev < 0) != (v < 0)) crossings.push_back(t_prev + (t - t_prev) * v_prev / (v_prev - v));
    t_prev = t, v_prev = v;
  }
  ASSERT_GE(crossings.size(), 5u) << "the bar does not oscillate";
  const double measured = 2 * (crossings.back() - crossings.front()) / double(crossings.size() - 1);
  std::printf("period %.5f s measured over %zu half periods, 2 L / c = %.5f s\n", measured,
              crossings.size() - 1, period);
  EXPECT_GT(measured, period * (1 - kPeriodRelTol));
  EXPECT_LT(measured, 2 * (kLength + kDx) / c * (1 + kPeriodRelTol));
}

TEST(MpmElasticBar, PeriodMatchesWaveSpeed) {
  check_period(silt::mpm::Transfer::apic, false);
}
// ASFLIP takes its FLIP increment against the grid velocity before forces (split force channels);
// a mix-up there would scale the elastic force by 1 - flip and slow the bar down ~4x.
TEST(MpmElasticBar, SameWithAsflip) {
  check_period(silt::mpm::Transfer::asflip, false);
}
TEST(MpmElasticBar, SameWithG2p2g) {
  check_period(silt::mpm::Transfer::apic, true);
}

}  // namespace
}  // namespace silt::test::mpm
