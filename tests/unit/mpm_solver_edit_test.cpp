// mpm::Solver's changes between frames (solver_edit.cpp): particles added by the caller (counts,
// ids, where they are after the next frame, on one part and on two) and a collider moved by the
// caller (a block resting on a plane rises with it), gravity and material parameters set by the
// caller (the particles fall from then on; kind and density refused), with the errors a caller
// needs.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "mpm_scene_util.hpp"
#include "silt/core/error.hpp"
#include "silt/mpm/solver.hpp"
#include "test_support.hpp"

namespace silt::mpm {
namespace {

using test::exec;

std::vector<Exec> execs(int parts) {
  return std::vector<Exec>(std::size_t(parts), exec());
}

bool throws_with(const std::function<void()>& f, const std::vector<std::string>& parts) {
  try {
    f();
  } catch (const silt::Error& e) {
    const std::string what = e.what();
    for (const std::string& p : parts)
      if (what.find(p) == std::string::npos) {
        ADD_FAILURE() << "message lacks '" << p << "': " << what;
        return false;
      }
    return true;
  }
  ADD_FAILURE() << "no silt::Error thrown";
  return false;
}

// Without gravity a lone particle keeps its velocity: after a frame it is frame_dt v further.
Scene drifting_scene() {
  Scene s = test::mpm::box_scene("drift", 0.02, {0.6, 0.6, 0.0});
  s.dimensions = 2;
  s.gravity = {0, 0, 0};
  s.materials = {test::mpm::jelly(1e4), test::mpm::sand(30)};
  s.sources = {test::mpm::box_source({0.05, 0.05, 0}, {0.15, 0.15, 0}, 0, {0, 0, 0}, 4),
               test::mpm::box_source({0.45, 0.05, 0}, {0.55, 0.15, 0}, 1, {0, 0, 0}, 4)};
  s.sources[1].name = "sand";
  s.frame_dt = 0.01;
  return s;
}

TEST(MpmSolverEdit, AddedParticlesTakeTheNextIdsAndMoveOnOneAndTwoParts) {
  for (int parts : {1, 2}) {
    SCOPED_TRACE(parts);
    const Scene s = drifting_scene();
    Solver solver(s, execs(parts));
    solver.advance_frame();
    const std::int64_t n0 = solver.particle_count();
    // Three lone particles, far apart and from the boxes, on both halves of the domain.
    const std::vector<float> x = {0.1f, 0.4f, 0.0f, 0.3f, 0.45f, 0.0f, 0.5f, 0.4f, 0.3f};
    const std::vector<float> v = {0.5f, 0.0f, 0.0f, 0.0f, -0.5f, 0.0f, -0.5f, 0.25f, 1.0f};
    const int first = solver.add_particles(1, x, v);
    EXPECT_EQ(first, n0);
    EXPECT_EQ(solver.particle_count(), n0 + 3);
    const FrameStats st = solver.advance_frame();
    EXPECT_EQ(st.particles, n0 + 3);
    const ParticleFrame f = solver.particles(true);
    ASSERT_EQ(std::int64_t(f.count()), n0 + 3);
    for (int i = 0; i < 3; ++i) {
      const std::size_t r = std::size_t(n0 + i);  // id order
      EXPECT_EQ(f.id[r], first + i);
      EXPECT_EQ(f.material[r], 1);
      for (int a = 0; a < 2; ++a)
        EXPECT_NEAR(f.position[3 * r + a], x[3 * i + a] + s.frame_dt * v[3 * i + a], 1e-5)
            << "particle " << i << " axis " << a;
      EXPECT_EQ(f.position[3 * r + 2], 0.0f);  // a 2D scene's particles lie in its plane
      EXPECT_EQ(f.velocity[3 * r + 2], 0.0f);
    }
    // The scene's own particles are untouched by the addition (no gravity, at rest).
    EXPECT_NEAR(f.position[0], 0.05 + 0.005, 0.01);
  }
}

TEST(MpmSolverEdit, AddParticlesRefusesBadRowsAndKeepsTheIds) {
  Scene s = drifting_scene();
  s.max_particles = 2000;
  Solver solver(s, exec());
  const std::int64_t n0 = solver.particle_count();
  const std::vector<float> v(6, 0.0f);
  EXPECT_TRUE(throws_with(
      [&] {
        solver.add_particles(1, {0.1f, 0.1f, 0, 0.7f, 0.1f, 0}, v);
      },
      {"drift", "add_particles", "position row 1", "outside the domain"}));
  const float nan = std::numeric_limits<float>::quiet_NaN();
  EXPECT_TRUE(throws_with(
      [&] {
        solver.add_particles(1, {0.1f, nan, 0, 0.2f, 0.1f, 0}, v);
      },
      {"position row 0", "not finite"}));
  EXPECT_TRUE(throws_with(
      [&] {
        solver.add_particles(1, {0.1f, 0.1f, 0, 0.2f, 0.1f, 0}, {0, 0, 0, 0, nan, 0});
      },
      {"velocity row 1", "not finite"}));
  EXPECT_TRUE(throws_with(
      [&] {
        solver.add_particles(2, {0.1f, 0.1f, 0}, {0, 0, 0});
      },
      {"source 2", "2 sources"}));
  const std::vector<float> many(3 * 2000, 0.3f);
  EXPECT_TRUE(throws_with([&] { solver.add_particles(0, many, many); },
                          {"capacity overflow", "2000 added", "max_particles is 2000"}));
  EXPECT_EQ(solver.particle_count(), n0);
  EXPECT_EQ(solver.add_particles(0, {0.3f, 0.3f, 0}, {0, 0, 0}), n0);  // no id was used up
}

// A jelly block settled on a plane collider; the plane is then set moving up at 0.2 m/s from
// where it is: the block rises with it and no particle falls below it.
TEST(MpmSolverEdit, ABlockOnAMovedPlaneRisesWithIt) {
  for (int parts : {1, 2}) {
    SCOPED_TRACE(parts);
    Scene s = test::mpm::box_scene("lift", 0.01, {0.4, 0.4, 0.0});
    s.dimensions = 2;
    s.damping = 0.3;
    Collider floor;
    floor.name = "floor";
    floor.kind = Collider::Kind::plane;
    floor.point = {0, 0.1, 0};
    floor.normal = {0, 1, 0};
    s.colliders = {floor};
    s.materials = {test::mpm::jelly(2e4)};
    s.sources = {test::mpm::box_source({0.15, 0.105, 0}, {0.25, 0.155, 0}, 0, {0, 0, 0}, 4)};
    s.frame_dt = 0.05;
    Solver solver(s, execs(parts));
    for (int f = 0; f < 4; ++f) solver.advance_frame();
    const double y0 = test::mpm::moments(solver.particles()).com[1];
    const double t0 = solver.time();
    solver.move_collider(0, {0, 0.1, 0}, {0, 0.2, 0});
    EXPECT_DOUBLE_EQ(solver.scene().colliders[0].point[1], 0.1 - 0.2 * t0);
    for (int f = 0; f < 5; ++f) solver.advance_frame();
    const ParticleFrame p = solver.particles();
    const double plane = 0.1 + 0.2 * (solver.time() - t0);
    double lowest = 1e30;
    for (std::size_t i = 0; i < p.count(); ++i)
      lowest = std::min(lowest, double(p.position[3 * i + 1]));
    const double rise = test::mpm::moments(p).com[1] - y0;
    std::printf("%d part(s): plane rose %.4f m, block %.4f m, lowest particle %.4f m above it\n",
                parts, plane - 0.1, rise, lowest - plane);
    EXPECT_NEAR(rise, plane - 0.1, 0.01);
    EXPECT_GE(lowest, plane - 0.5 * s.dx);
    EXPECT_TRUE(throws_with([&] { solver.state(); }, {"lift", "collider was moved", "checkpoint"}));
    EXPECT_TRUE(throws_with(
        [&] {
          solver.move_collider(1, {0, 0, 0}, {0, 0, 0});
        },
        {"collider 1 does not exist"}));
  }
}

TEST(MpmSolverEdit, GravitySetBetweenFramesActsFromThenOnAndCheckpointsWait) {
  for (int parts : {1, 2}) {
    SCOPED_TRACE(parts);
    Solver solver(drifting_scene(), execs(parts));
    solver.advance_frame();
    const RestartState before = solver.state();
    const double dt = solver.scene().frame_dt;
    std::vector<Material> m = solver.scene().materials;
    m[0].youngs_modulus *= 2;  // a stiffer jelly: allowed
    solver.set_physics({0, -10, 0}, m);
    EXPECT_EQ(solver.scene().materials[0].youngs_modulus, 2e4);
    solver.advance_frame();
    const ParticleFrame f = solver.particles();
    double vy = 0;
    for (std::size_t k = 0; k < f.count(); ++k) vy += f.velocity[3 * k + 1];
    EXPECT_NEAR(vy / double(f.count()), -10 * dt, 0.05 * 10 * dt);  // free fall for one frame
    EXPECT_TRUE(throws_with([&] { solver.state(); }, {"drift", "gravity or a material was set"}));
    solver.restore(before);  // the scene's gravity and materials again
    EXPECT_EQ(solver.scene().gravity[1], 0.0);
    EXPECT_EQ(solver.scene().materials[0].youngs_modulus, 1e4);
    solver.state();
    m[0].density *= 2;
    EXPECT_TRUE(throws_with(
        [&] {
          solver.set_physics({0, 0, 0}, m);
        },
        {"drift", "materials[0]", "density cannot change mid-run"}));
    m = solver.scene().materials;
    m[1].kind = MaterialKind::fluid;
    EXPECT_TRUE(throws_with([&] { solver.set_physics({0, 0, 0}, m); }, {"kind"}));
  }
}

}  // namespace
}  // namespace silt::mpm
