// Walls that hold material where the user put them, and friction against its closed form.
//  - A slab filling the gap between two slip walls keeps its thickness to 1% while it collapses
//    (water and sand): the walls are the faces of the box, not a band of cells inside it.
//  - An elastic column standing on the floor against the back wall keeps its height to 2%.
//  - A block sliding down a frictional floor (gravity tilted by theta) accelerates at
//    g (sin theta - mu cos theta), the Coulomb result for a rigid block, to 3%.
//  - No particle ends up below a frictional plane collider.
// Each runs in 2D and 3D; the CPU build runs the cheaper ones, the GPU build (label gpu) all.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "mpm_scene_util.hpp"
#include "test_support.hpp"

namespace silt::test::mpm {
namespace {

using silt::mpm::Wall;
using silt::mpm::WallKind;

constexpr double kDx = 0.01;  // m
constexpr double kPi = 3.14159265358979323846;

/// Extent (max - min) of the particles along axis a, m.
double extent(const silt::mpm::ParticleFrame& p, int a) {
  float lo = 1e30f, hi = -1e30f;
  for (std::size_t i = 0; i < p.count(); ++i) {
    lo = std::min(lo, p.position[3 * i + a]);
    hi = std::max(hi, p.position[3 * i + a]);
  }
  return double(hi) - double(lo);
}
double lowest(const silt::mpm::ParticleFrame& p, int a) {
  float lo = 1e30f;
  for (std::size_t i = 0; i < p.count(); ++i) lo = std::min(lo, p.position[3 * i + a]);
  return lo;
}
double highest(const silt::mpm::ParticleFrame& p, int a) {
  float hi = -1e30f;
  for (std::size_t i = 0; i < p.count(); ++i) hi = std::max(hi, p.position[3 * i + a]);
  return hi;
}

// The quasi-2D slab: a column filling the 4-cell gap between slip walls at z = 0 and
// z = 4 dx collapses along x. Its thickness is the particles' z extent; the lattice puts the
// outermost particles h / 2 = dx / 4 inside the faces at the start (jitter moves them up to h / 2
// more), so the thickness is measured against the start's. Before the walls sat on the faces
// (a band of 2 cells, particles clamped 1 cell in) a slab placed at the walls lost 2 of its 4 cells.
void slab_keeps_thickness(const Material& m, double seconds) {
  const double depth = 4 * kDx;
  Scene s = box_scene("slab", kDx, {0.3, 0.15, depth}, WallKind::slip);
  s.materials = {m};
  s.sources = {box_source({0, 0, 0}, {0.08, 0.12, depth})};
  s.frame_dt = 0.05;
  silt::mpm::Solver solver(s, exec());
  const double t0 = extent(solver.particles(), 2);
  long long steps = 0;
  for (int f = 0; f < int(std::lround(seconds / s.frame_dt)); ++f)
    steps += solver.advance_frame().steps;
  const silt::mpm::ParticleFrame p = solver.particles();
  const double t1 = extent(p, 2);
  std::printf(
      "%s slab (%zu particles, %lld steps): thickness %.5f m -> %.5f m (%+.2f%%), z in [%.5f, "
      "%.5f], runout %.3f m\n",
      m.name.c_str(), p.count(), steps, t0, t1, 100 * (t1 / t0 - 1), lowest(p, 2), highest(p, 2),
      highest(p, 0));
  EXPECT_NEAR(t1, t0, 0.01 * t0) << "the slab's thickness changed by more than 1%";
  EXPECT_GE(lowest(p, 2), 0.0) << "a particle went past the z- wall";
  EXPECT_LE(highest(p, 2), depth) << "a particle went past the z+ wall";
  EXPECT_GT(highest(p, 0), 0.12) << "the column did not collapse";
}

TEST(MpmWalls, WaterSlabKeepsItsThickness) {
  slab_keeps_thickness(water(), 0.25);
}

TEST(MpmWalls, SandSlabKeepsItsThickness) {
  slab_keeps_thickness(sand(30.0), 0.3);
}

// An elastic column on the floor against the back wall (z-), in a separate-walled box. Elastic
// compression under its own weight is rho g H^2 / (2 E) = 1.6e-4 m here (0.16% of H; twice that
// at the first overshoot); anything more is the column sinking into the floor or the wall.
// Before, a column placed at the floor sank a cell (10% of H) to where particles were clamped.
TEST(MpmWalls, ColumnAgainstTheBackWallKeepsItsHeight) {
  const double h = 0.1;
  Scene s = box_scene("column", kDx, {0.1, 0.15, 0.1}, WallKind::separate);
  s.materials = {jelly(3e5, 0.3, 1000)};
  s.sources = {box_source({0.03, 0, 0}, {0.07, h, 0.04})};
  s.frame_dt = 0.05;
  silt::mpm::Solver solver(s, exec());
  const silt::mpm::ParticleFrame p0 = solver.particles();
  const double top0 = highest(p0, 1), bottom0 = lowest(p0, 1), back0 = lowest(p0, 2);
  for (int f = 0; f < 5; ++f) solver.advance_frame();  // 0.25 s: many wave crossings
  const silt::mpm::ParticleFrame p = solver.particles();
  const double top = highest(p, 1), bottom = lowest(p, 1);
  std::printf("column: top %.5f -> %.5f m, bottom %.5f -> %.5f m, back %.5f -> %.5f m\n", top0, top,
              bottom0, bottom, back0, lowest(p, 2));
  EXPECT_NEAR(top, top0, 0.02 * h) << "the column's height changed by more than 2%";
  EXPECT_GE(bottom, 0.0) << "a particle went below the floor";
  EXPECT_GE(lowest(p, 2), 0.0) << "a particle went past the back wall";
  // A separate wall lets the column rock off it a little (1.5 mm seen); half a cell is leaving.
  EXPECT_LE(lowest(p, 2), back0 + 0.5 * kDx) << "the column left the back wall";
}

// A block on a floor with Coulomb friction mu, gravity tilted by theta from the floor's normal:
// once sliding, a rigid block accelerates at a = g (sin theta - mu cos theta) along the floor. The
// walls' friction acts on the floor nodes, through which the block's whole weight passes, so the
// grid reproduces the closed form; 3% covers the start-up (the block settles onto the floor in the
// first few ms) and the block's elastic wobble (E = 1e6 Pa: c = 32 m/s).
void block_slides_at_coulomb_rate(int dims) {
  const double theta = 30.0 * kPi / 180.0, mu = 0.3, g = 9.81;
  const double expect = g * (std::sin(theta) - mu * std::cos(theta));  // 2.36 m/s^2
  Scene s = box_scene("slide", kDx, {1.0, 0.1, dims == 2 ? 0.0 : 0.05}, WallKind::slip);
  s.dimensions = dims;
  s.walls[2] = Wall{WallKind::separate, mu};  // the floor, y-
  s.gravity = {g * std::sin(theta), -g * std::cos(theta), 0};
  s.materials = {jelly(1e6, 0.3, 1000)};
  Source block = box_source({0.05, 0, 0}, {0.15, 0.05, dims == 2 ? 0.0 : 0.05});
  block.particles_per_cell = dims == 2 ? 4 : 8;
  s.sources = {block};
  s.frame_dt = 0.05;
  silt::mpm::Solver solver(s, exec());
  // Mean velocity along x at t1 and t2, after the block has settled onto the floor.
  const auto mean_vx = [](const silt::mpm::ParticleFrame& p) {
    double v = 0;
    for (std::size_t i = 0; i < p.count(); ++i) v += p.velocity[3 * i];
    return v / double(p.count());
  };
  solver.advance_frame();  // t = 0.05 s
  const double v1 = mean_vx(solver.particles()), t1 = solver.time();
  for (int f = 0; f < 4; ++f) solver.advance_frame();  // t = 0.25 s
  const silt::mpm::ParticleFrame p = solver.particles();
  const double v2 = mean_vx(p), t2 = solver.time();
  const double a = (v2 - v1) / (t2 - t1);
  std::printf(
      "%dD block on a %.0f deg floor, mu %.2f: a = %.4f m/s^2, closed form %.4f (%+.2f%%)\n", dims,
      theta * 180 / kPi, mu, a, expect, 100 * (a / expect - 1));
  EXPECT_NEAR(a, expect, 0.03 * expect);
  EXPECT_GE(lowest(p, 1), 0.0) << "a particle went below the floor";
}

TEST(MpmWalls, BlockSlidesDownAFrictionalFloorAtTheCoulombRate2D) {
  block_slides_at_coulomb_rate(2);
}

TEST(MpmWalls, BlockSlidesDownAFrictionalFloorAtTheCoulombRate3D) {
  if (!on_gpu()) GTEST_SKIP() << "3D run on the GPU build (the 2D case covers the CPU)";
  block_slides_at_coulomb_rate(3);
}

// Sand dropped onto a rough plane collider above the floor: the collider's friction must act (it
// sits inside no wall band any more) and no particle may end up below the plane.
TEST(MpmWalls, NoParticleBelowAFrictionalPlaneCollider) {
  const double plane_y = 0.035;  // between nodes on purpose
  Scene s = box_scene("plane", kDx, {0.2, 0.2, 0.0}, WallKind::slip);
  s.dimensions = 2;
  silt::mpm::Collider floor;
  floor.name = "floor";
  floor.kind = silt::mpm::Collider::Kind::plane;
  floor.wall = WallKind::separate;
  floor.friction = 0.5;
  floor.point = {0, plane_y, 0};
  floor.normal = {0, 1, 0};
  s.colliders = {floor};
  s.materials = {sand(30.0)};
  Source block = box_source({0.05, 0.08, 0}, {0.12, 0.15, 0}, 0, {0, -1.0, 0});
  block.particles_per_cell = 4;
  s.sources = {block};
  s.frame_dt = 0.05;
  silt::mpm::Solver solver(s, exec());
  double lowest_seen = 1e30;
  for (int f = 0; f < 8; ++f) {
    solver.advance_frame();
    lowest_seen = std::min(lowest_seen, lowest(solver.particles(), 1));
  }
  std::printf("sand on a plane at y = %.3f m: lowest particle %.6f m\n", plane_y, lowest_seen);
  EXPECT_GE(lowest_seen, plane_y - 1e-6);
}

}  // namespace
}  // namespace silt::test::mpm
