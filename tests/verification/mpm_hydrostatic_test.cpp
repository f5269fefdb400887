// Hydrostatic water column: weakly compressible water (Tait, K = 1e5 Pa) in a box with slip walls
// under gravity oscillates about p = rho g depth (it starts unstressed; the acoustic mode of the
// column, period 4 H / c = 0.08 s, is barely damped). Pressures (p = -tr(sigma)/3 from the solver's
// stress output) are sampled 20 times per period over 5 periods and fitted against height over the
// column's interior, which averages the oscillation out: the slope must be -rho g and the fitted
// surface (p = 0) must sit at the column's top.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>

#include "mpm_scene_util.hpp"
#include "test_support.hpp"

namespace silt::test::mpm {
namespace {

// MPM pressures scatter by a few percent between particles (quadrature noise); the pooled
// least-squares fit over ~400k samples averages that out. What remains: the column is 2% denser at
// the bottom (J = 0.98 there, dp/dy = -rho0 g / J) and the sampled periods are not exactly whole
// ones (MPM's sound speed differs slightly from sqrt(K/rho)): 5% of rho g covers both.
constexpr double kSlopeRelTol = 0.05;
// The p = 0 level of the fit against the top particles (m): within one cell.
constexpr double kSurfaceTolCells = 1.0;

constexpr double kHeight = 0.2;   // m
constexpr double kPeriod = 0.08;  // s, 4 H / sqrt(K / rho)
constexpr int kSamplesPerPeriod = 20;
constexpr int kPeriods = 5;

Scene column_scene() {
  Scene s = box_scene("hydrostatic", 0.01, {0.08, 0.3, 0.08}, silt::mpm::WallKind::slip);
  s.materials = {water(1e5, 0.0)};
  // Fills the box between its walls, from the floor up to kHeight.
  s.sources = {box_source({0, 0, 0}, {0.08, kHeight, 0.08})};
  s.frame_dt = kPeriod / kSamplesPerPeriod;
  return s;
}

struct Fit {
  double n = 0, sy = 0, sp = 0, syy = 0, syp = 0, top = 0;
  void add(double y, double p) { n += 1, sy += y, sp += p, syy += y * y, syp += y * p; }
  double slope() const { return (n * syp - sy * sp) / (n * syy - sy * sy); }
  double intercept() const { return (sp - slope() * sy) / n; }
};

TEST(MpmHydrostatic, PressureGrowsAsRhoGDepth) {
  const Scene scene = column_scene();
  silt::mpm::Solver solver(scene, exec());
  const double rho = scene.materials[0].density, g = 9.81;
  // One period of start-up, then kPeriods sampled periods.
  for (int f = 0; f < kSamplesPerPeriod; ++f) solver.advance_frame();
  Fit fit;
  const int samples = kPeriods * kSamplesPerPeriod;
  for (int f = 0; f < samples; ++f) {
    solver.advance_frame();
    const silt::mpm::ParticleFrame p = solver.particles(true);
    double top = -1e9;
    for (std::size_t i = 0; i < p.count(); ++i) top = std::max(top, double(p.position[3 * i + 1]));
    fit.top += top / samples;
    // Interior: two cells away from the floor and from the free surface.
    for (std::size_t i = 0; i < p.count(); ++i) {
      const double y = p.position[3 * i + 1];
      if (y < 2 * scene.dx || y > top - 2 * scene.dx) continue;
      fit.add(y, -(p.stress[9 * i] + p.stress[9 * i + 4] + p.stress[9 * i + 8]) / 3.0);
    }
  }
  ASSERT_GT(fit.n, 1e5);
  const double slope = fit.slope(), surface = -fit.intercept() / slope;
  std::printf(
      "pressure slope %.1f Pa/m (expected %.1f), p = 0 at y = %.4f m, mean top particle "
      "%.4f m\n",
      slope, -rho * g, surface, fit.top);
  EXPECT_NEAR(slope, -rho * g, kSlopeRelTol * rho * g);
  EXPECT_NEAR(surface, fit.top, kSurfaceTolCells * scene.dx);
}

}  // namespace
}  // namespace silt::test::mpm
