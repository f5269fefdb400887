// Free fall: a jelly cube dropped in a large box, far from the walls, moves as a rigid body. Its
// centre of mass must follow x0 + v0 t + g t^2 / 2 (the 1/2 g t^2 law) and its mean velocity
// v0 + g t. Symplectic Euler (v first, then x with the new v) adds g dt t / 2 to the position,
// which the tolerance states explicitly.
#include <gtest/gtest.h>

#include "mpm_scene_util.hpp"
#include "test_support.hpp"

namespace silt::test::mpm {
namespace {

// Float positions of order 1 m: accumulated round-off over a few hundred steps stays below this.
constexpr double kFloatPositionTol = 2e-5;  // m
constexpr double kFloatVelocityTol = 1e-4;  // m/s

Scene free_fall_scene(int rebuild_period, silt::mpm::Transfer transfer = silt::mpm::Transfer::apic,
                      bool g2p2g = false) {
  Scene s;
  s.name = "free_fall";
  s.dx = 0.02;
  s.domain_min = {0, 0, 0};
  s.domain_max = {1, 1, 1};
  s.gravity = {0.5, -9.81, 0.0};  // a tilted g checks all axes
  s.materials = {jelly()};
  s.sources = {box_source({0.40, 0.70, 0.40}, {0.50, 0.80, 0.50}, 0, {0.3, 1.0, -0.2})};
  s.fixed_dt = 1e-3;
  s.frame_dt = 0.025;
  s.rebuild_period = rebuild_period;
  s.transfer = transfer;
  s.g2p2g = g2p2g;
  return s;
}

/// forced: the rebuilds the free-zone guard asked for over the run.
void check_free_fall(const Scene& scene, int* forced) {
  silt::mpm::Solver solver(scene, exec());
  const Moments m0 = moments(solver.particles());
  ASSERT_GT(m0.count, 500);
  const int frames = 10;  // 0.25 s: falls ~0.3 m, stays clear of the walls
  *forced = 0;
  for (int f = 0; f < frames; ++f) {
    const silt::mpm::FrameStats st = solver.advance_frame();
    EXPECT_EQ(st.steps, 25);
    *forced += st.forced_rebuilds;
  }
  const double t = solver.time();
  ASSERT_NEAR(t, frames * scene.frame_dt, 1e-12);
  const Moments m = moments(solver.particles());
  const double dt = scene.fixed_dt;
  for (int a = 0; a < 3; ++a) {
    const double g = scene.gravity[a], v0 = scene.sources[0].velocity[a];
    const double law = m0.com[a] + v0 * t + 0.5 * g * t * t;
    // Symplectic Euler: x_n = x0 + v0 t + g t (t + dt) / 2 exactly for uniform acceleration.
    const double discrete = law + 0.5 * g * dt * t;
    EXPECT_NEAR(m.com[a], discrete, kFloatPositionTol) << "axis " << a;
    EXPECT_NEAR(m.com[a], law, std::abs(0.5 * g * dt * t) + kFloatPositionTol) << "axis " << a;
    EXPECT_NEAR(m.mean_v[a], v0 + g * t, kFloatVelocityTol) << "axis " << a;
    // Rigid motion: the shape's spread does not change.
    EXPECT_NEAR(m.second[a], m0.second[a], 1e-3 * m0.second[a]) << "axis " << a;
  }
}

TEST(MpmFreeFall, CentreOfMassFollowsGravity) {
  int forced = 0;
  check_free_fall(free_fall_scene(8), &forced);
}
TEST(MpmFreeFall, SameWithRebuildEveryStep) {
  int forced = 0;
  check_free_fall(free_fall_scene(1), &forced);
  EXPECT_EQ(forced, 0);  // every step rebuilds anyway
}
// With a rebuild period longer than the run, only the free-zone guard in G2P triggers rebuilds:
// the cube travels ~8 cells (more than the 3-cell free zone), so it must fire, and the motion
// must stay exact.
TEST(MpmFreeFall, FreeZoneGuardForcesRebuilds) {
  int forced = 0;
  check_free_fall(free_fall_scene(100000), &forced);
  EXPECT_GE(forced, 1);
}

TEST(MpmFreeFall, SameWithAsflip) {
  int forced = 0;
  check_free_fall(free_fall_scene(8, silt::mpm::Transfer::asflip), &forced);
}
// The fused G2P2G path, also with the guard alone deciding rebuilds (each one re-scatters).
TEST(MpmFreeFall, SameWithG2p2g) {
  int forced = 0;
  check_free_fall(free_fall_scene(8, silt::mpm::Transfer::apic, true), &forced);
  check_free_fall(free_fall_scene(100000, silt::mpm::Transfer::apic, true), &forced);
  EXPECT_GE(forced, 1);
}

}  // namespace
}  // namespace silt::test::mpm
