// Conservation and consistency of the MPM pipeline:
//  - one step without gravity or walls conserves mass and linear momentum (APIC/MLS transfers and
//    internal forces that cancel pairwise);
//  - the rebuild period (paper 000 §4.2.1 free zone), the particle sort and, on CUDA, the frame
//    graph change only the order of float atomics: the same scene gives the same moments;
//  - the chosen backend agrees with the CPU backend run in the same test (integrals and moments:
//    atomic order differs between backends, so particles are never compared one by one).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "mpm_scene_util.hpp"
#include "silt/core/exec.hpp"
#include "test_support.hpp"

namespace silt::test::mpm {
namespace {

// Float sums over ~3500 particles and ~100000 atomic adds per step: measured 6e-8 of the momentum
// scale sum |m v| after 20 steps on the CPU; 1e-5 leaves room for GPU atomic order and is still
// far below what a non-conserving transfer or force would lose (~1e-2 through the collision).
constexpr double kMomentumRelTol = 1e-5;
// Same scene, different atomic order: float round-off grows through the collision to ~1e-7
// (measured on the CPU: com 2e-9 m, mean v 6e-8 m/s, second moments 6e-7 relative). The GPU also
// evaluates log, exp, rsqrt and divisions with native approximate instructions (scalar.hpp),
// ~1e-6 relative per operation: these bounds leave room for that and still catch any real
// difference in the physics (a missing force or a lost particle moves them by 1e-3 or more).
constexpr double kPositionTol = 5e-5;         // m
constexpr double kVelocityTol = 5e-4;         // m/s
constexpr double kSecondMomentRelTol = 5e-4;  // relative

/// Two jelly blocks flying into each other (and spinning past each other, off-centre), no gravity,
/// far from the walls.
Scene collision_scene(int rebuild_period, bool g2p2g = false) {
  Scene s = box_scene("collision", 0.025, {1, 1, 1});
  s.gravity = {0, 0, 0};
  s.materials = {jelly(2e4, 0.3, 1000)};
  s.sources = {box_source({0.300, 0.400, 0.400}, {0.450, 0.550, 0.550}, 0, {0.6, 0.1, 0.0}),
               box_source({0.475, 0.450, 0.425}, {0.625, 0.600, 0.575}, 0, {-0.6, -0.1, 0.05})};
  s.frame_dt = 0.01;
  s.rebuild_period = rebuild_period;
  s.g2p2g = g2p2g;
  return s;
}

std::array<double, 3> momentum(const silt::mpm::ParticleFrame& p, double* scale) {
  std::array<double, 3> m{};
  *scale = 0;
  for (std::size_t i = 0; i < p.count(); ++i)
    for (int a = 0; a < 3; ++a) {
      m[a] += p.velocity[3 * i + a];
      *scale += std::abs(p.velocity[3 * i + a]);
    }
  return m;  // equal particle masses: momentum / m_p
}

TEST(MpmConservation, StepConservesMassAndMomentum) {
  silt::mpm::Solver solver(collision_scene(8), exec());
  double scale0 = 0;
  const silt::mpm::ParticleFrame p0 = solver.particles();
  const auto m0 = momentum(p0, &scale0);
  for (int i = 0; i < 20; ++i) solver.step();
  solver.check();
  const silt::mpm::ParticleFrame p1 = solver.particles();
  double scale1 = 0;
  const auto m1 = momentum(p1, &scale1);
  EXPECT_EQ(p1.count(), p0.count());  // mass: particles carry it, none may be lost
  std::printf("momentum change over 20 steps: %.2g %.2g %.2g of sum |m v|\n",
              (m1[0] - m0[0]) / scale0, (m1[1] - m0[1]) / scale0, (m1[2] - m0[2]) / scale0);
  for (int a = 0; a < 3; ++a) EXPECT_NEAR(m1[a], m0[a], kMomentumRelTol * scale0) << "axis " << a;
  // The blocks must have interacted, or the check above proves nothing about internal forces.
  const Moments a = moments(p0), b = moments(p1);
  EXPECT_GT(solver.time(), 0.0);
  EXPECT_NE(a.kinetic, b.kinetic);
}

/// A sand block and a water block dropped onto the floor side by side: plasticity, the fluid
/// model and the walls, for the backend comparison.
Scene splash_scene() {
  Scene s = box_scene("splash", 0.025, {0.6, 0.5, 0.3});
  s.materials = {sand(30.0), water(1e5, 0.0)};
  s.sources = {box_source({0.05, 0.05, 0.05}, {0.25, 0.30, 0.25}, 0),
               box_source({0.30, 0.05, 0.05}, {0.50, 0.30, 0.25}, 1)};
  s.frame_dt = 0.02;
  return s;
}

Moments run(const Scene& scene, const Exec& ex, const silt::mpm::SolverOptions& opt, int frames) {
  silt::mpm::Solver solver(scene, ex, opt);
  for (int f = 0; f < frames; ++f) solver.advance_frame();
  return moments(solver.particles());
}

void expect_same(const Moments& a, const Moments& b, const char* what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(a.count, b.count);
  double dx = 0, dv = 0, ds = 0;
  for (int d = 0; d < 3; ++d) {
    dx = std::max(dx, std::abs(a.com[d] - b.com[d]));
    dv = std::max(dv, std::abs(a.mean_v[d] - b.mean_v[d]));
    ds = std::max(ds, std::abs(a.second[d] - b.second[d]) / b.second[d]);
  }
  std::printf(
      "%s: |d com| %.2g m, |d mean v| %.2g m/s, second moments %.2g, kinetic %.2g "
      "(relative)\n",
      what, dx, dv, ds, std::abs(a.kinetic - b.kinetic) / std::max(b.kinetic, 1e-30));
  for (int d = 0; d < 3; ++d) {
    EXPECT_NEAR(a.com[d], b.com[d], kPositionTol) << "centre of mass, axis " << d;
    EXPECT_NEAR(a.mean_v[d], b.mean_v[d], kVelocityTol) << "mean velocity, axis " << d;
    EXPECT_NEAR(a.second[d], b.second[d], kSecondMomentRelTol * b.second[d]) << "axis " << d;
  }
  EXPECT_NEAR(a.kinetic, b.kinetic, kSecondMomentRelTol * b.kinetic + 1e-9);
}

constexpr int kFrames = 8;  // 0.08 s: the blocks meet at ~0.03 s and bounce

TEST(MpmConsistency, RebuildPeriodDoesNotChangeThePhysics) {
  const silt::mpm::SolverOptions opt;
  const Moments every = run(collision_scene(1), exec(), opt, kFrames);
  const Moments eight = run(collision_scene(8), exec(), opt, kFrames);
  const Moments many = run(collision_scene(1000), exec(), opt, kFrames);  // guard-driven only
  expect_same(eight, every, "rebuild period 8 vs 1");
  expect_same(many, every, "rebuild period 1000 (free-zone guard only) vs 1");
}

TEST(MpmConsistency, FusedG2p2gMatchesSeparateTransfers) {
  const silt::mpm::SolverOptions opt;
  expect_same(run(collision_scene(8, true), exec(), opt, kFrames),
              run(collision_scene(8), exec(), opt, kFrames), "g2p2g vs p2g + g2p");
}

TEST(MpmConsistency, GraphAndPlainLaunchesAgree) {
  if (!on_gpu()) GTEST_SKIP() << "CUDA graphs exist only on the cuda backend";
  silt::mpm::SolverOptions graph, plain;
  plain.cuda_graph = false;
  expect_same(run(collision_scene(8), exec(), plain, kFrames),
              run(collision_scene(8), exec(), graph, kFrames), "plain vs graph");
}

/// A stream of water blocks emitted every frame onto a sand block: the particle count changes
/// between frames, so the frame graphs are recorded again after each emission (updated in place
/// on CUDA).
Scene emitter_scene() {
  Scene s = splash_scene();
  s.name = "emitter";
  s.sources[1].box_min = {0.30, 0.20, 0.10};
  s.sources[1].box_max = {0.40, 0.30, 0.20};
  s.sources[1].velocity = {0.0, -0.5, 0.0};
  s.sources[1].emit_interval = 0.02;
  s.sources[1].emit_start = 0.0;
  s.sources[1].emit_end = 0.13;
  return s;
}

TEST(MpmConsistency, GraphsFollowEmissionsAsPlainLaunchesDo) {
  if (!on_gpu()) GTEST_SKIP() << "CUDA graphs exist only on the cuda backend";
  silt::mpm::SolverOptions graph, plain;
  plain.cuda_graph = false;
  silt::mpm::Solver g(emitter_scene(), exec(), graph), p(emitter_scene(), exec(), plain);
  int recordings = 0, updates = 0;
  for (int f = 0; f < kFrames; ++f) {
    const silt::mpm::FrameStats sg = g.advance_frame();
    p.advance_frame();
    recordings += sg.host.recordings;
    updates += sg.host.graph_updates;
  }
  EXPECT_TRUE(g.uses_graph());
  std::printf("emitter: %d recordings, %d updated in place, %lld particles\n", recordings, updates,
              (long long)g.particle_count());
  EXPECT_GE(recordings, 6) << "every emission changes the particle count";
  expect_same(moments(p.particles()), moments(g.particles()), "emitter: plain vs graph");
}

TEST(MpmConsistency, BackendAgreesWithCpu) {
  if (!on_gpu()) GTEST_SKIP() << "the reference is the cpu backend itself";
  const silt::mpm::SolverOptions opt;
  const Moments cpu = run(collision_scene(8), Exec::host(), opt, kFrames);
  const Moments here = run(collision_scene(8), exec(), opt, kFrames);
  std::printf("backend %s: com %.7f %.7f %.7f (cpu %.7f %.7f %.7f), kinetic %.7g (cpu %.7g)\n",
              silt::to_string(exec().backend).c_str(), here.com[0], here.com[1], here.com[2],
              cpu.com[0], cpu.com[1], cpu.com[2], here.kinetic, cpu.kinetic);
  expect_same(here, cpu, "backend vs cpu");
  expect_same(run(splash_scene(), exec(), opt, kFrames),
              run(splash_scene(), Exec::host(), opt, kFrames), "splash: backend vs cpu");
}

}  // namespace
}  // namespace silt::test::mpm
