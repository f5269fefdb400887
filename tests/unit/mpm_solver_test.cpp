// mpm::Solver behaviour around the physics: frame clock and the clipped last step, errors with
// the numbers a user needs (scene keys, particle id and frame, capacities), the unstable-dt
// warning, emitters.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "mpm_scene_util.hpp"
#include "silt/core/error.hpp"
#include "silt/mpm/emitter.hpp"
#include "silt/mpm/kernels/bspline_k.hpp"
#include "silt/mpm/part.hpp"
#include "silt/mpm/rebuild.hpp"
#include "silt/mpm/solver.hpp"
#include "silt/mpm/sparse_grid.hpp"
#include "test_support.hpp"

namespace silt::mpm {
namespace {

using test::exec;

Scene cube_scene() {
  Scene s = test::mpm::box_scene("cube", 0.02, {0.5, 0.5, 0.5});
  s.materials = {test::mpm::jelly(1e5)};
  s.sources = {test::mpm::box_source({0.2, 0.2, 0.2}, {0.3, 0.3, 0.3})};
  s.sources[0].name = "cube";
  s.frame_dt = 0.01;
  return s;
}

/// Solver options that append every message the solver logs to *logged.
SolverOptions logging_to(std::vector<std::string>* logged) {
  SolverOptions opt;
  opt.log = [logged](const std::string& m) {
    logged->push_back(m);
  };
  return opt;
}

::testing::AssertionResult throws_containing(const std::function<void()>& f,
                                             const std::vector<std::string>& parts) {
  try {
    f();
  } catch (const silt::Error& e) {
    const std::string what = e.what();
    for (const std::string& p : parts)
      if (what.find(p) == std::string::npos)
        return ::testing::AssertionFailure() << "message lacks '" << p << "': " << what;
    return ::testing::AssertionSuccess();
  }
  return ::testing::AssertionFailure() << "no silt::Error thrown";
}

TEST(MpmSolver, FramesEndExactlyWithAClippedLastStep) {
  Scene s = cube_scene();
  s.fixed_dt = 8e-4;  // 0.01 s = 12 full steps + one of 4e-4 s (the CFL limit is ~8.8e-4 s)
  Solver solver(s, exec());
  for (int f = 1; f <= 3; ++f) {
    const FrameStats st = solver.advance_frame();
    EXPECT_EQ(st.steps, 13);
    EXPECT_NEAR(st.dt_max, 8e-4, 1e-9);
    EXPECT_NEAR(st.dt_min, 4e-4, 1e-6);
    EXPECT_DOUBLE_EQ(st.time, f * s.frame_dt);
    EXPECT_EQ(st.unstable_steps, 0);
    EXPECT_TRUE(st.warnings.empty());
  }
}

TEST(MpmSolver, AdaptiveDtStaysBelowTheCflLimit) {
  Scene s = cube_scene();
  Solver solver(s, exec());
  const FrameStats st = solver.advance_frame();
  // Elastic CFL: 0.5 dx / c with c = sqrt((lambda + 2 mu) / rho) of E = 1e5, nu = 0.3.
  const double c = std::sqrt(1e5 * 0.7 / (1.3 * 0.4) / 1000.0);
  EXPECT_LE(st.dt_max, 0.5 * s.dx / c * (1 + 1e-5));
  EXPECT_GT(st.dt_max, 0.5 * s.dx / c * 0.99);
  EXPECT_GE(st.rebuilds, 1);
  EXPECT_GT(st.active_blocks, 0);
}

// Water slamming into the floor at 4 m/s compresses (Tait, gamma 7: at J = 0.9 the wave speed is
// 1.37 times the rest value); the adaptive dt must follow the faster waves of the compressed water
// (compressed_wave_speed), not stay at the rest sound speed's limit, and the impact must not blow
// up.
TEST(MpmSolver, AdaptiveDtFollowsTheWaveSpeedOfCompressedWater) {
  Scene s = test::mpm::box_scene("slam", 0.02, {0.5, 0.5, 0.5}, WallKind::sticky);
  s.materials = {test::mpm::water(1e5)};  // c = 10 m/s at rest
  s.sources = {test::mpm::box_source({0.15, 0.07, 0.15}, {0.35, 0.2, 0.35}, 0, {0, -4, 0})};
  s.frame_dt = 0.01;
  const double rest_limit = 0.5 * s.dx / 10.0;  // elastic CFL at the rest sound speed
  Solver solver(s, exec());
  double smallest = 1e30;
  for (int f = 0; f < 4; ++f) {
    const FrameStats st = solver.advance_frame();
    smallest = std::min(smallest, st.stable_dt);
  }
  std::printf("slam: smallest stable dt %.3g s against %.3g s at rest\n", smallest, rest_limit);
  EXPECT_LT(smallest, 0.9 * rest_limit) << "dt never saw the compressed water's faster waves";
  EXPECT_GT(smallest, 0.0);
}

TEST(MpmSolver, WarnsAboutAnUnstableFixedDt) {
  Scene s = cube_scene();
  s.fixed_dt = 1.5e-3;  // the elastic CFL limit is ~8.8e-4 s
  s.frame_dt = 3e-3;
  std::vector<std::string> logged;
  Solver solver(s, exec(), logging_to(&logged));
  const FrameStats st = solver.advance_frame();
  EXPECT_EQ(st.unstable_steps, 2);
  EXPECT_NEAR(st.stable_dt, 8.8e-4, 0.5e-4);
  ASSERT_EQ(st.warnings.size(), 1u);
  EXPECT_NE(st.warnings[0].find("fixed_dt"), std::string::npos) << st.warnings[0];
  ASSERT_EQ(logged.size(), 1u);
  EXPECT_EQ(logged[0], st.warnings[0]);
}

TEST(MpmSolver, NanNamesTheParticleAndFrame) {
  Scene s = cube_scene();
  s.sources[0].velocity = {std::numeric_limits<double>::quiet_NaN(), 0, 0};
  Solver solver(s, exec());
  EXPECT_TRUE(throws_containing([&] { solver.advance_frame(); },
                                {"particle id", "non-finite", "frame 0", "cube"}));
}

TEST(MpmSolver, ParticleCapacityOverflowGivesTheNumbers) {
  Scene s = cube_scene();
  s.sources[0].emit_interval = 0.01;
  s.sources[0].emit_start = 0.0;
  s.sources[0].emit_end = 0.05;
  s.max_particles = 1500;  // one emission is 1000 particles
  Solver solver(s, exec());
  EXPECT_EQ(solver.particle_count(), 1000);
  EXPECT_TRUE(throws_containing(
      [&] {
        solver.advance_frame();
        solver.advance_frame();
      },
      {"particle capacity overflow", "2000", "1500"}));
}

TEST(MpmSolver, EmittersAddParticlesBetweenFrames) {
  Scene s = cube_scene();
  s.sources[0].emit_interval = 0.02;
  s.sources[0].emit_start = 0.0;
  s.sources[0].emit_end = 0.04;
  s.gravity = {0, 0, 0};
  Solver solver(s, exec());
  EXPECT_EQ(solver.particle_count(), 1000);
  std::vector<std::int64_t> counts;
  for (int f = 0; f < 5; ++f) counts.push_back(solver.advance_frame().particles);
  // Emissions at 0, 0.02 and 0.04 s join at the first frame boundary at or after them.
  EXPECT_EQ(counts, (std::vector<std::int64_t>{1000, 1000, 2000, 2000, 3000}));
  EXPECT_EQ(solver.particles().count(), 3000u);
}

// A repeating source's emissions are copies of its sample made on the part's device
// (Part::add_emissions): the store holds the same particles, in the same order with the same ids
// and bits, as the host particles of Emitter::take_due handed to Part::add. A one-time source due
// with them keeps its place between the copies; two emissions in one call of a repeating source
// and one of another repeating source interleave in emission order.
TEST(MpmSolver, EmissionCopiesOnTheDeviceAreTheHostParticles) {
  Scene s = cube_scene();
  s.sources[0].emit_interval = 0.01;
  s.sources[0].emit_start = 0.0;
  s.sources[0].emit_end = 0.05;
  s.sources[0].velocity = {0.5, -1, 0.25};
  Source once = test::mpm::box_source({0.04, 0.04, 0.04}, {0.1, 0.1, 0.1});
  once.name = "once";
  once.velocity = {1, 2, 3};
  s.sources.push_back(once);
  Source jet = test::mpm::box_source({0.34, 0.04, 0.04}, {0.4, 0.1, 0.1});
  jet.name = "jet";
  jet.emit_interval = 0.02;
  jet.emit_start = 0.01;
  jet.emit_end = 0.05;
  jet.velocity = {0, 0, -2};
  s.sources.push_back(jet);
  Part device(s, exec(), "copies");
  Part host(s, exec(), "host particles");
  Emitter by_copy(s), by_host(s);
  for (double t : {0.0, 0.025, 0.03, 0.06}) {
    const std::vector<Emission> e = by_copy.take_due_emissions(t);
    device.add_emissions(e, by_copy);
    host.add(by_host.take_due(t));
  }
  const HostParticles a = device.download_all(), b = host.download_all();
  ASSERT_EQ(a.count(), b.count());
  EXPECT_EQ(a.count(), 6u * 1000 + 216u + 3u * 216) << "6 cubes, 'once' once, 3 jets";
  EXPECT_EQ(a.x, b.x);
  EXPECT_EQ(a.v, b.v);
  EXPECT_EQ(a.c, b.c);
  EXPECT_EQ(a.f, b.f);
  EXPECT_EQ(a.plastic, b.plastic);
  EXPECT_EQ(a.material, b.material);
  EXPECT_EQ(a.id, b.id);
  for (std::size_t i = 0; i < a.id.size(); ++i) ASSERT_EQ(a.id[i], int(i)) << "particle " << i;
}

// One part with an emitter: its frames leave the device in id order (Part::pack by id, rows at
// ids 0 .. n - 1), attribute for attribute the storage-order frame put in id order here, after
// rebuilds sorted the store by block.
TEST(MpmSolver, FramesComeInIdOrderFromTheDevice) {
  Scene s = cube_scene();
  s.sources[0].emit_interval = 0.02;
  s.sources[0].emit_start = 0.0;
  s.sources[0].emit_end = 0.04;
  s.sources[0].velocity = {0.3, -0.2, 0.1};
  Solver solver(s, exec());
  for (int f = 0; f < 5; ++f) solver.advance_frame();
  const ParticleFrame a = solver.particles(true);
  const ParticleFrame u = solver.particles_unordered(true);
  ASSERT_EQ(a.count(), 3000u);
  ASSERT_EQ(u.count(), a.count());
  std::size_t moved = 0;
  for (std::size_t r = 0; r < u.count(); ++r) {
    const std::size_t k = std::size_t(u.id[r]);  // the row of id k in the id-ordered frame
    ASSERT_LT(k, a.count());
    moved += k != r;
    ASSERT_EQ(a.id[k], int(k));
    EXPECT_EQ(a.material[k], u.material[r]);
    EXPECT_EQ(a.plastic[k], u.plastic[r]);
    for (int c = 0; c < 3; ++c) {
      EXPECT_EQ(a.position[3 * k + c], u.position[3 * r + c]) << "id " << k;
      EXPECT_EQ(a.velocity[3 * k + c], u.velocity[3 * r + c]) << "id " << k;
    }
    for (int c = 0; c < 9; ++c) EXPECT_EQ(a.stress[9 * k + c], u.stress[9 * r + c]) << "id " << k;
  }
  EXPECT_GT(moved, 0u) << "the store is in block order, not id order";
}

// The dt of every step follows the fastest particle although the speed reduction is folded into
// G2P: at the first frame (a separate reduction over the sampled particles), after an emission of
// faster particles (another one), and in later frames (G2P's fold alone). A soft jelly moving
// rigidly keeps its speed (APIC transfers a uniform velocity exactly), so the velocity CFL
// dt = cfl dx / |v|max sets each frame's step count exactly.
TEST(MpmSolver, DtFollowsTheFastestParticleWithTheFoldedSpeedReduction) {
  Scene s = cube_scene();
  s.materials[0].youngs_modulus = 10.0;  // wave speed ~0.12 m/s: elastic CFL dt ~0.09 s
  s.max_dt = 1.0;
  s.gravity = {0, 0, 0};
  s.sources[0].velocity = {2, 0, 0};  // dt = 0.5 * 0.02 m / 2 m/s = 5e-3 s: 2 steps per frame
  Source fast = s.sources[0];
  fast.name = "fast";
  // Beside the first piece, which moves away from it (pieces that touch would exchange momentum).
  fast.box_min = {0.04, 0.3, 0.2};
  fast.box_max = {0.1, 0.36, 0.3};
  fast.velocity = {0, -4, 0};  // dt = 2.5e-3 s: 4 steps per frame once it is in
  fast.emit_interval = 0.01;
  fast.emit_start = 0.01;
  fast.emit_end = 0.01;
  s.sources.push_back(fast);
  // Rigid motion keeps the speeds to float rounding; dt is a float.
  constexpr double kDtRel = 1e-4;
  Solver solver(s, exec());
  const FrameStats f1 = solver.advance_frame();
  EXPECT_EQ(f1.steps, 2);
  EXPECT_NEAR(f1.dt_max, 5e-3, 5e-3 * kDtRel);
  for (int f = 2; f <= 3; ++f) {
    const FrameStats st = solver.advance_frame();
    EXPECT_GT(st.particles, f1.particles) << "frame " << f;
    EXPECT_EQ(st.steps, 4) << "frame " << f;
    EXPECT_NEAR(st.dt_max, 2.5e-3, 2.5e-3 * kDtRel) << "frame " << f;
  }
}

TEST(MpmSolver, CountsItsLaunchesPerStep) {
  Scene s = cube_scene();
  EXPECT_EQ(Solver(s, exec()).launches().per_step, 4);  // dt, P2G, grid update, G2P
  EXPECT_EQ(Solver(s, exec()).launches().per_rebuild, 11);
  s.g2p2g = true;
  EXPECT_EQ(Solver(s, exec()).launches().per_step, 3);      // dt, grid update, G2P2G
  EXPECT_EQ(Solver(s, exec()).launches().per_rebuild, 12);  // + the re-scatter
}

// A rebuild that sorts puts particles into contiguous runs per block and, within a block, in the
// order of the cell of their nearest node. Weightless jelly at rest: the particles do not move, so
// their blocks and cells after the step are those the rebuild sorted by. One step of a Part read
// back in its store order (the solver returns id order).
TEST(MpmSolver, SortsParticlesByBlockAndCell) {
  Scene s = cube_scene();
  s.gravity = {0, 0, 0};
  Part part(s, exec(), "test part");
  Emitter emitter(s);
  part.add(emitter.take_due(0.0));
  part.prepare();
  part.begin_frame(0.0);
  part.decide(StepHandles{}, false);
  part.rebuild();
  part.p2g();
  part.grid_update();
  part.g2p();
  const StepControl c = part.end_frame();
  part.throw_on_fault(c, 0);
  ASSERT_EQ(c.sorts, 1);
  const HostParticles f = part.download_all();
  const float inv_dx = float(1.0 / s.dx);
  std::vector<long long> block(f.count());
  std::vector<int> cell(f.count());
  for (size_t i = 0; i < f.count(); ++i) {
    const BSplineQ<float> q = bspline_quadratic(
        Vec3f{f.x[3 * i], f.x[3 * i + 1], f.x[3 * i + 2]},
        Vec3f{float(s.domain_min[0]), float(s.domain_min[1]), float(s.domain_min[2])}, inv_dx);
    int hb[3], near[3];
    home_block(q.base, hb);
    for (int a = 0; a < 3; ++a) near[a] = q.base[a] + 1 - kBlockEdge * hb[a];
    block[i] = (long long)(hb[0] + 1000) + 2000LL * ((hb[1] + 1000) + 2000LL * (hb[2] + 1000));
    cell[i] = node_in_block(near[0], near[1], near[2]);
  }
  std::set<long long> seen;
  size_t runs = 0, cell_breaks = 0;
  for (size_t i = 0; i < f.count();) {
    size_t j = i;
    while (j < f.count() && block[j] == block[i]) {
      if (j > i && cell[j] < cell[j - 1]) ++cell_breaks;
      ++j;
    }
    EXPECT_TRUE(seen.insert(block[i]).second) << "block of particle " << i << " in two runs";
    ++runs;
    i = j;
  }
  EXPECT_GT(runs, 1u);
  EXPECT_EQ(cell_breaks, 0u);
  EXPECT_GT(f.count(), 8 * runs);  // several particles per block
}

// Only every kSortEvery-th rebuild (the first included) moves the particles.
TEST(MpmSolver, SortsAtEveryNthRebuild) {
  Scene s = cube_scene();
  s.rebuild_period = 1;  // every step rebuilds
  s.frame_dt = 0.02;     // about 30 steps
  Solver solver(s, exec());
  const FrameStats st = solver.advance_frame();
  ASSERT_EQ(st.rebuilds, st.steps);
  ASSERT_GT(st.rebuilds, kSortEvery);
  EXPECT_EQ(st.sorts, (st.rebuilds + kSortEvery - 1) / kSortEvery);
}

// 4 x 4 x 4 one-cell jelly pieces, two cells apart (so the grid does not glue them together),
// expand homologously: the active region grows ~8x within one frame, far beyond the grid's
// capacity (4x the initial blocks). The frame must pause, grow the grid and finish.
TEST(MpmSolver, GrowsTheGridWithinAFrame) {
  Scene s = cube_scene();
  s.domain_max = {1, 1, 1};
  s.gravity = {0, 0, 0};
  s.sources.clear();
  for (int k = 0; k < 64; ++k) {
    Source src;
    src.name = "piece";
    const int idx[3] = {k & 3, (k >> 2) & 3, k >> 4};
    for (int a = 0; a < 3; ++a) {
      const double offset = idx[a] - 1.5;
      src.box_min[a] = 0.5 + 3 * s.dx * offset - 0.5 * s.dx;
      src.box_max[a] = src.box_min[a] + s.dx;
      src.velocity[a] = 1.0 * offset;
    }
    s.sources.push_back(src);
  }
  s.frame_dt = 0.25;
  std::vector<std::string> logged;
  Solver solver(s, exec(), logging_to(&logged));
  const FrameStats st = solver.advance_frame();
  EXPECT_DOUBLE_EQ(st.time, 0.25);
  EXPECT_GE(st.active_blocks, 64 * 27);
  ASSERT_FALSE(logged.empty());
  EXPECT_NE(logged.back().find("grow the sparse grid"), std::string::npos) << logged.back();
}

TEST(MpmSolver, RejectsABadSceneNamingTheKey) {
  Scene s = cube_scene();
  s.dx = 0;
  EXPECT_TRUE(throws_containing([&] { Solver(s, exec()); }, {"dx", "cube"}));
  s = cube_scene();
  s.sources[0].material = 3;
  EXPECT_TRUE(throws_containing([&] { Solver(s, exec()); }, {"sources[0]", "material"}));
  s = cube_scene();
  s.rebuild_period = 0;
  EXPECT_TRUE(throws_containing([&] { Solver(s, exec()); }, {"rebuild_period"}));
}

}  // namespace
}  // namespace silt::mpm

namespace silt::mpm {
namespace {

// sort_by_id places rows by id in linear time when ids are dense, and sorts otherwise; either way
// every row survives, carried whole.
ParticleFrame frame_with_ids(const std::vector<std::int32_t>& ids) {
  ParticleFrame f;
  for (std::int32_t id : ids) {
    for (int a = 0; a < 3; ++a) {
      f.position.push_back(float(id) + 0.25f * float(a));
      f.velocity.push_back(-float(id) - 0.5f * float(a));
    }
    f.material.push_back(id % 3);
    f.plastic.push_back(0.125f * float(id));
    f.id.push_back(id);
  }
  return f;
}

TEST(MpmFrame, SortByIdCarriesWholeRows) {
  for (const std::vector<std::int32_t>& ids :
       {std::vector<std::int32_t>{4, 0, 3, 1, 2}, std::vector<std::int32_t>{90000, 7, 5, 123456},
        std::vector<std::int32_t>{3, 1, 3, 0}}) {
    const ParticleFrame o = sort_by_id(frame_with_ids(ids));
    ASSERT_EQ(o.count(), ids.size());
    for (std::size_t k = 0; k < o.count(); ++k) {
      if (k > 0) EXPECT_LE(o.id[k - 1], o.id[k]);
      const float id = float(o.id[k]);
      EXPECT_EQ(o.position[3 * k + 2], id + 0.5f);
      EXPECT_EQ(o.velocity[3 * k + 1], -id - 0.5f);
      EXPECT_EQ(o.material[k], o.id[k] % 3);
      EXPECT_EQ(o.plastic[k], 0.125f * id);
    }
  }
}

}  // namespace
}  // namespace silt::mpm
