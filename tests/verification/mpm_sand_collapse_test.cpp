// Granular column collapse: a Drucker-Prager sand column (friction angle 30 deg) against the left
// wall of a box with a rough floor collapses and spreads. It must come to rest, and the flank of
// the deposit must be flatter than the friction angle (a granular slope steeper than its friction
// angle cannot be at rest). The column starts vertical (90 deg), so the test fails if the sand does
// not yield or does not stop.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "mpm_scene_util.hpp"
#include "test_support.hpp"

namespace silt::test::mpm {
namespace {

constexpr double kFrictionAngle = 30.0;  // deg
// "At rest": particles slower than this after 1 s (the collapse runs at ~0.5 m/s). Sand creeps
// slightly under MPM's elastic oscillation; 5 cm/s is far below the flow speed.
constexpr double kRestSpeed = 0.05;  // m/s, for the mean particle speed
constexpr double kDx = 0.01;
constexpr double kFloor = 0.0;  // m, height of the rough floor (the domain's y- face)

TEST(MpmSandCollapse, ComesToRestBelowFrictionAngle) {
  Scene s;
  s.name = "sand_collapse";
  s.dx = kDx;
  s.domain_min = {0, 0, 0};
  s.domain_max = {0.35, 0.2, 0.04};
  // Frictionless walls (the slab is quasi-2D: friction on the front and back walls would hold the
  // sand up) and a rough floor with Coulomb friction.
  s.walls.fill(silt::mpm::Wall{silt::mpm::WallKind::slip, 0.0});
  s.walls[2] = silt::mpm::Wall{silt::mpm::WallKind::separate, 0.5};
  s.gravity = {0, -9.81, 0};
  silt::mpm::Material m = sand(kFrictionAngle);
  m.youngs_modulus = 1e5;
  s.materials = {m};
  // Against the left wall, filling the slab between the front and back walls.
  s.sources = {box_source({0.0, kFloor, 0.0}, {0.06, kFloor + 0.12, 0.04})};
  s.frame_dt = 0.05;
  silt::mpm::Solver solver(s, exec());
  for (int f = 0; f < 24; ++f) solver.advance_frame();  // 1.2 s
  const silt::mpm::ParticleFrame p = solver.particles();
  double mean_speed = 0;
  for (std::size_t i = 0; i < p.count(); ++i)
    mean_speed += std::hypot(p.velocity[3 * i], p.velocity[3 * i + 1], p.velocity[3 * i + 2]);
  mean_speed /= double(p.count());

  // Surface height per column of cells (x bins), then a line fit over the flank: the bins whose
  // height lies between 20% and 80% of the deposit's maximum, right of the highest bin.
  const int bins = int(std::round(0.35 / kDx));
  std::vector<double> h(bins, 0.0);
  for (std::size_t i = 0; i < p.count(); ++i) {
    const int b = std::clamp(int(p.position[3 * i] / kDx), 0, bins - 1);
    h[b] = std::max(h[b], double(p.position[3 * i + 1]) - kFloor);
  }
  const int peak = int(std::max_element(h.begin(), h.end()) - h.begin());
  const double hmax = h[peak];
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0, runout = 0;
  for (int b = peak; b < bins; ++b) {
    if (h[b] > 0) runout = (b + 1) * kDx;
    if (h[b] < 0.2 * hmax || h[b] > 0.8 * hmax) continue;
    const double x = (b + 0.5) * kDx;
    n += 1, sx += x, sy += h[b], sxx += x * x, sxy += x * h[b];
  }
  ASSERT_GE(n, 3) << "no flank: the column did not spread";
  const double slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
  const double angle = std::atan(-slope) * 180.0 / M_PI;
  std::printf("deposit: height %.3f m, runout %.3f m, flank angle %.1f deg, mean speed %.3g m/s\n",
              hmax, runout, angle, mean_speed);
  EXPECT_LT(mean_speed, kRestSpeed);
  EXPECT_GT(angle, 0.0);
  EXPECT_LT(angle, kFrictionAngle);
  EXPECT_GT(runout, 0.1) << "the column barely spread";
}

}  // namespace
}  // namespace silt::test::mpm
