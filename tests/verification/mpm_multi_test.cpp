// MPM on several parts (src/silt/mpm/solver.hpp, mpm/exchange/exchange.hpp) against one part: a
// sand column, an elastic cube thrown onto the floor and a thin slab whose pieces share nearly
// every block, on 1 to 4 CPU partitions. On CUDA every comparison runs with the parts on distinct
// GPUs (frames as graphs with one synchronisation a step, and plain launches) when the machine has
// enough, and with all parts on one GPU, so the exchange is tested where one GPU is all there is.
// The integrals (particle count, i.e. mass; momentum; centre of mass; kinetic energy) must match
// within the tolerances of mpm_multi_scene.hpp. Also: emitted particles join the part of their
// slab; a fountain emitting every frame keeps the parts balanced (and fills one part when balancing
// is off); a fault names its part.
#include <gtest/gtest.h>
#include <omp.h>

#include <cstdio>
#include <string>
#include <vector>

#include "mpm_multi_scene.hpp"
#include "silt/core/error.hpp"
#include "silt/mpm/solver.hpp"
#include "test_support.hpp"

namespace silt::test::mpm {
namespace {

using silt::mpm::Solver;
using silt::mpm::SolverOptions;

/// One way to run n parts on this backend.
struct Layout {
  std::string name;
  std::vector<Exec> execs;
  SolverOptions options;
  bool graphs = false;  // frames must run as CUDA graphs
};

/// CPU partitions; on CUDA, n GPUs with graphs and with plain launches (when there are n), and
/// n parts on GPU 0 (one graph for them all, and plain launches).
std::vector<Layout> layouts(int n) {
  if (!on_gpu()) return {{"cpu partitions", std::vector<Exec>(std::size_t(n), Exec::host()), {}}};
  std::vector<Layout> out;
  if (n > 1 && cuda_device_count() >= n) {
    std::vector<Exec> e;
    for (int d = 0; d < n; ++d) e.push_back(Exec::cuda(d));
    SolverOptions graph, plain;
    // Why graphs fell back to plain launches, if they do (the test then fails on uses_graph()).
    graph.log = [](const std::string& m) {
      std::fprintf(stderr, "%s\n", m.c_str());
    };
    plain.cuda_graph = false;
    out.push_back({"GPUs, graphs", e, graph, true});
    out.push_back({"GPUs, plain launches", e, plain, false});
  }
  // Parts on one GPU share its stream: one graph steps them all (and plain launches).
  SolverOptions plain;
  plain.cuda_graph = false;
  out.push_back({"one GPU", std::vector<Exec>(std::size_t(n), Exec::cuda(0)), {}, n > 1});
  if (n > 1)
    out.push_back(
        {"one GPU, plain launches", std::vector<Exec>(std::size_t(n), Exec::cuda(0)), plain});
  return out;
}

Integrals run_one(const Scene& s, int frames) {
  silt::mpm::Solver one(s, exec());
  for (int f = 0; f < frames; ++f) one.advance_frame();
  return integrals(one.particles());
}

struct MultiResult {
  Integrals in;
  std::string layout;
  long long shared = 0;  // shared blocks over all parts at the end
};

MultiResult run_multi(const Scene& s, int frames, const Layout& l) {
  Solver multi(s, l.execs, l.options);
  for (int f = 0; f < frames; ++f) multi.advance_frame();
  // The graphs are recorded by the first frame.
  if (l.graphs) {
    EXPECT_TRUE(multi.uses_graph()) << "one CUDA graph per GPU";
  }
  MultiResult r;
  const silt::mpm::ParticleFrame p = multi.particles();
  r.in = integrals(p);
  r.layout = multi.layout();
  for (const auto& i : multi.part_info()) r.shared += i.shared_blocks;
  // Gathered in id order, every id once.
  for (std::size_t k = 0; k < p.count(); ++k)
    if (p.id[k] != int(k)) {
      ADD_FAILURE() << "particle " << k << " has id " << p.id[k];
      break;
    }
  return r;
}

void expect_match(const Scene& s, int frames, std::vector<int> counts, const Tolerance& tol = {}) {
  const Integrals one = run_one(s, frames);
  for (int n : counts)
    for (const Layout& l : layouts(n)) {
      const MultiResult r = run_multi(s, frames, l);
      EXPECT_EQ(compare_integrals(r.in, one, tol), "")
          << s.name << " on " << l.name << ": " << r.layout;
      std::printf("%s, %d parts (%s): %s\n", s.name.c_str(), n, l.name.c_str(),
                  differences(r.in, one).c_str());
      if (n > 1) {
        EXPECT_GT(r.shared, 0) << r.layout;
      }
    }
}

TEST(MpmMulti, SandColumnMatchesOnePartition) {
  expect_match(multi_sand_column(), 6, {1, 2, 3, 4});
}

// On one H200 the one-part run of this 2D column is itself not repeatable to 1e-3 in kinetic
// energy: in 3 of 10 repetitions the 2- and 3-part runs agreed with each other to ~1e-5 and both
// missed the one-part reference by 1.04-1.12e-3 (float atomics in another order, amplified by the
// sand's yield over 6 frames; bench/results/final-2026-12-02e-h200.md). The GPU bound on the
// kinetic energy is 3e-3 there, still 20x under what skipping the shared-block sum gives (7e-2).
TEST(MpmMulti, SandColumn2DMatchesOnePartition) {
  Tolerance tol;
  if (on_gpu()) tol.kinetic = 3e-3;
  expect_match(multi_sand_column_2d(), 6, {1, 2, 3}, tol);
}

TEST(MpmMulti, ElasticCubeMatchesOnePartition) {
  expect_match(multi_elastic_cube(), 6, {2, 3});
}

// A body crossing the cuts as a whole (the elastic cube thrown along x, the split's axis, 20% of
// its length a frame) leaves its parts' pieces, but the parts stay apart along the axis: the cuts
// follow them, and no particle changes part or goes to the host (issue 33: the 1.33M snowball of
// scenes/mpm_snow_paper.json, falling across its y cut, went to the host and back every 2-3
// frames, "0 moved"). Failed before: a rebalance every frame.
TEST(MpmMulti, BodyCrossingTheCutsMovesTheCutsNotTheParticles) {
  const Scene s = multi_elastic_cube();
  const int frames = 6;
  const Integrals one = run_one(s, frames);
  for (int n : {2, 3})
    for (const Layout& l : layouts(n)) {
      Solver multi(s, l.execs, l.options);
      const std::vector<std::int64_t> before = multi.part_counts();
      for (int f = 0; f < frames; ++f) multi.advance_frame();
      EXPECT_EQ(multi.rebalances(), 0) << l.name << ": " << multi.layout();
      EXPECT_GE(multi.cut_moves(), 1) << "the cube never left its pieces: " << multi.layout();
      EXPECT_EQ(multi.part_counts(), before) << l.name << ": " << multi.layout();
      EXPECT_EQ(compare_integrals(integrals(multi.particles()), one), "") << multi.layout();
      std::printf("%s, %d parts (%s): %d cut moves, %d rebalances\n", s.name.c_str(), n,
                  l.name.c_str(), multi.cut_moves(), multi.rebalances());
    }
}

TEST(MpmMulti, ThinSlabSharingNearlyEveryBlockMatches) {
  expect_match(multi_thin_slab(), 5, {2, 4});
}

// Solver::part_particles (the Python package's zero-copy views): every part's storage holds its
// particles, together exactly those of particles(), attribute for attribute, and in
// particles_unordered() part after part as stored. Host memory on the CPU backend; the CUDA path
// is tested through DLPack (tests/python/test_dlpack_gpu.py).
TEST(MpmMulti, PartParticlesAreTheStorageOfEveryPart) {
  if (on_gpu()) GTEST_SKIP() << "device pointers: tests/python/test_dlpack_gpu.py";
  Solver solver(multi_sand_column_2d(), std::vector<Exec>(3, Exec::host()));
  solver.advance_frame();
  const silt::mpm::ParticleFrame all = solver.particles();
  const silt::mpm::ParticleFrame stored = solver.particles_unordered();
  ASSERT_EQ(stored.count(), all.count());
  std::int64_t seen = 0;
  for (int k = 0; k < solver.parts(); ++k) {
    const silt::mpm::PartParticles p = solver.part_particles(k);
    EXPECT_FALSE(p.exec.is_cuda());
    for (std::int64_t i = 0; i < p.count; ++i) {
      const std::size_t id = std::size_t(p.id[i]), row = std::size_t(seen + i);
      ASSERT_LT(id, all.count());
      EXPECT_EQ(p.material[i], all.material[id]);
      EXPECT_EQ(p.id[i], stored.id[row]) << "row " << row;
      for (int a = 0; a < 3; ++a) {
        EXPECT_EQ(p.position[3 * i + a], all.position[3 * id + a]) << "particle " << id;
        EXPECT_EQ(p.velocity[3 * i + a], all.velocity[3 * id + a]) << "particle " << id;
        EXPECT_EQ(p.position[3 * i + a], stored.position[3 * row + a]) << "row " << row;
        EXPECT_EQ(p.velocity[3 * i + a], stored.velocity[3 * row + a]) << "row " << row;
      }
    }
    seen += p.count;
  }
  EXPECT_EQ(seen, solver.particle_count());
  EXPECT_THROW(solver.part_particles(3), silt::Error);
}

// "" when a and b hold the same arrays value for value, else the first difference.
std::string frame_difference(const silt::mpm::ParticleFrame& a, const silt::mpm::ParticleFrame& b) {
  std::string d;
  const auto compare = [&d](const char* name, const auto& x, const auto& y) {
    if (!d.empty()) return;
    if (x.size() != y.size()) {
      d = std::string(name) + ": " + std::to_string(x.size()) + " vs " + std::to_string(y.size()) +
          " values";
      return;
    }
    for (std::size_t i = 0; i < x.size(); ++i)
      if (x[i] != y[i]) {
        d = std::string(name) + "[" + std::to_string(i) + "]: " + std::to_string(x[i]) + " vs " +
            std::to_string(y[i]);
        return;
      }
  };
  compare("position", a.position, b.position);
  compare("velocity", a.velocity, b.velocity);
  compare("material", a.material, b.material);
  compare("id", a.id, b.id);
  compare("plastic", a.plastic, b.plastic);
  compare("stress", a.stress, b.stress);
  return d;
}

// Frames copied behind the steps (Solver::particles_async, what `silt run` hands its writer
// thread) are the particles as they were when taken: each equals the synchronous frame taken at
// that moment, holds only the attributes asked for, and is read after later frames have stepped,
// three in flight at once (read out of order) and one dropped unread each frame, while a fountain
// changes the count from frame to frame, on one part and on two. On the CPU the copies are made
// at once, so this checks the parts' places in the frame and that a slot in flight is never
// reused; on CUDA the copies run on a copy stream beside the next frames' steps.
TEST(MpmMulti, FramesCopiedBehindTheStepsAreTheFramesTaken) {
  namespace attr = silt::mpm::attributes;
  const Scene s = multi_fountain();
  for (int n : {1, 2})
    for (const Layout& l : layouts(n)) {
      Solver run(s, l.execs, l.options);
      std::vector<silt::mpm::ParticlesCopy> copies;
      std::vector<silt::mpm::ParticleFrame> taken;
      const unsigned asked[] = {attr::all, attr::motion, attr::position};
      for (int f = 0; f < 3; ++f) {
        run.advance_frame();
        const bool id_order = f != 1;
        copies.push_back(run.particles_async(asked[f], id_order));
        silt::mpm::ParticlesCopy dropped = run.particles_async(attr::all);  // never read
        silt::mpm::ParticleFrame now =
            id_order ? run.particles(f == 0) : run.particles_unordered(f == 0);
        if (asked[f] == attr::position) now.velocity.clear();
        taken.push_back(std::move(now));
      }
      run.advance_frame();
      for (int f : {2, 0, 1})
        EXPECT_EQ(frame_difference(copies[std::size_t(f)].get(), taken[std::size_t(f)]), "")
            << "frame " << f + 1 << ", " << n << " part(s) on " << l.name;
      EXPECT_NE(taken[0].count(), taken[2].count()) << "the fountain emits every frame";
      EXPECT_EQ(taken[0].stress.size(), 9 * taken[0].count());
      EXPECT_TRUE(taken[1].stress.empty());
      EXPECT_EQ(frame_difference(run.particles_async(attr::all).get(), run.particles(true)), "")
          << n << " part(s) on " << l.name;
    }
}

// A water column spreading over the floor outgrows a part's grid within the first frame: the
// part asks to pause, every part pauses with it (pause_request), the host grows the grids and
// the frame resumes, still matching one partition (which happens not to pause).
TEST(MpmMulti, GridGrowthMidFramePausesEveryPart) {
  // On one CPU thread: with two, the host rebuild numbers blocks and orders particles in the
  // order the threads get there, and this splashing water ends the frame in one of two states
  // (momentum y -0.0056 or -0.0072, ~1 run in 4 the second, seen before and after the
  // per-thread P2G grids; docs/NOTES.md), either of which may differ from one partition's. The
  // other comparisons here stay on every thread.
  struct OneThread {
    int n = omp_get_max_threads();
    OneThread() { omp_set_num_threads(1); }
    ~OneThread() { omp_set_num_threads(n); }
  } one_thread;
  Scene s = multi_sand_column();
  s.name = "multi_spreading_water";
  s.domain_max = {0.8, 0.5, 0.8};
  s.materials = {water()};
  s.sources = {box_source({0.38, 0.03, 0.38}, {0.42, 0.33, 0.42})};
  s.frame_dt = 0.4;
  Solver one(s, exec());
  one.advance_frame();
  const Integrals ref = integrals(one.particles());
  for (const Layout& l : layouts(2)) {
    Solver multi(s, l.execs, l.options);
    const silt::mpm::FrameStats st = multi.advance_frame();
    bool paused = false;
    for (const std::string& w : st.warnings)
      paused = paused || w.find("paused") != std::string::npos;
    EXPECT_TRUE(paused) << "the scene no longer outgrows a grid within a frame: " << multi.layout();
    EXPECT_EQ(compare_integrals(integrals(multi.particles()), ref), "") << multi.layout();
  }
}

// A fixed dt: on GPUs with one synchronisation per step, the dt kernel decides dt before P2G, the
// force stays fused into the momentum channels and only shared blocks wait for the others (the
// adaptive scenes above decide dt after P2G, with split force channels).
TEST(MpmMulti, FixedDtMatchesOnePartition) {
  Scene s = multi_sand_column();
  s.name = "multi_sand_column_fixed_dt";
  s.fixed_dt = 2.5e-4;  // about half the elastic CFL limit
  expect_match(s, 4, {2});
}

// Single steps (tests, benchmarks) agree as frames do.
TEST(MpmMulti, SingleStepsMatchOnePartition) {
  const Scene s = multi_elastic_cube();
  Solver one(s, exec());
  for (int k = 0; k < 40; ++k) one.step();
  one.check();
  for (const Layout& l : layouts(2)) {
    Solver multi(s, l.execs, l.options);
    for (int k = 0; k < 40; ++k) multi.step();
    multi.check();
    // dt follows the largest speed, which round-off in the P2G sums moves by ~1e-7 relative.
    EXPECT_NEAR(multi.time(), one.time(), 1e-5 * one.time()) << l.name;
    EXPECT_EQ(compare_integrals(integrals(multi.particles()), integrals(one.particles())), "")
        << l.name;
  }
}

// Frames, then single steps, then frames again: switching from the graph step (one
// synchronisation per step, alternating accumulators) to single steps and back keeps matching.
TEST(MpmMulti, FramesAfterSingleStepsMatchOnePartition) {
  const Scene s = multi_elastic_cube();
  Solver one(s, exec());
  auto drive = [](Solver& solver) {
    solver.advance_frame();
    for (int k = 0; k < 10; ++k) solver.step();
    solver.check();
    solver.advance_frame();
  };
  drive(one);
  for (const Layout& l : layouts(2)) {
    Solver multi(s, l.execs, l.options);
    drive(multi);
    EXPECT_NEAR(multi.time(), one.time(), 1e-5 * one.time()) << l.name;
    EXPECT_EQ(compare_integrals(integrals(multi.particles()), integrals(one.particles())), "")
        << l.name;
  }
}

TEST(MpmMulti, EmittedParticlesJoinThePartOfTheirSlab) {
  Scene s = multi_elastic_cube();
  s.name = "multi_emitter";
  // A second source re-emitted every frame at the left of the cube: its particles all start in
  // the left piece.
  silt::mpm::Source jet = box_source({0.02, 0.14, 0.05}, {0.03, 0.15, 0.06}, 0, {1.0, 0.0, 0.0});
  jet.name = "jet";
  jet.emit_interval = s.frame_dt;
  jet.emit_start = s.frame_dt;  // not part of the initial split
  jet.emit_end = 3 * s.frame_dt;
  s.sources.push_back(jet);
  Solver one(s, exec());
  for (int f = 0; f < 5; ++f) one.advance_frame();
  const auto b = one.particles();
  for (Layout l : layouts(2)) {
    l.options.balance_tolerance = 0;  // the emission rule alone (balancing would move particles)
    Solver multi(s, l.execs, l.options);
    const auto before = multi.part_info();
    for (int f = 0; f < 5; ++f) multi.advance_frame();
    const auto after = multi.part_info();
    EXPECT_EQ(multi.particle_count(), one.particle_count());
    EXPECT_GT(after[0].particles, before[0].particles) << multi.layout();
    EXPECT_EQ(after[1].particles, before[1].particles) << multi.layout();
    // Two materials' worth of particle masses: compare the particle set, ordered by id.
    const auto a = multi.particles();
    ASSERT_EQ(a.count(), b.count());
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(compare_integrals(integrals(a), integrals(b)), "") << multi.layout();
  }
}

// An emitter whose sample straddles the cut: each part copies the rows of the sample in its
// piece on its device (Solver::Impl::emit, Part::add_emissions with rows). The same particles as
// one part, by id, and the same motion within the tolerances; both parts gain particles.
TEST(MpmMulti, EmittedParticlesAcrossTheCutJoinBothParts) {
  Scene s = multi_elastic_cube();
  s.name = "multi_emitter_across";
  silt::mpm::Source jet = box_source({0.06, 0.14, 0.05}, {0.12, 0.15, 0.06}, 0, {0.0, -1.0, 0.0});
  jet.name = "wide jet";
  jet.emit_interval = s.frame_dt;
  jet.emit_start = s.frame_dt;
  jet.emit_end = 3 * s.frame_dt;
  s.sources.push_back(jet);
  Solver one(s, exec());
  for (int f = 0; f < 5; ++f) one.advance_frame();
  const auto b = one.particles();
  for (Layout l : layouts(2)) {
    l.options.balance_tolerance = 0;
    Solver multi(s, l.execs, l.options);
    const auto before = multi.part_info();
    for (int f = 0; f < 5; ++f) multi.advance_frame();
    const auto after = multi.part_info();
    EXPECT_EQ(multi.particle_count(), one.particle_count());
    EXPECT_GT(after[0].particles, before[0].particles) << multi.layout();
    EXPECT_GT(after[1].particles, before[1].particles) << multi.layout();
    const auto a = multi.particles();
    ASSERT_EQ(a.count(), b.count());
    EXPECT_EQ(a.id, b.id);
    EXPECT_EQ(a.material, b.material);
    EXPECT_EQ(compare_integrals(integrals(a), integrals(b)), "") << multi.layout();
  }
}

struct FountainRun {
  std::string diff;        // against one partition (empty: within tolerance)
  std::string unbalanced;  // the first frame whose counts strayed from the mean, if any
  std::string counts;      // per frame, for the log
  int rebalances = 0;
  int logged = 0;         // "MPM: rebalanced" lines through SolverOptions::log
  std::string first_log;  // the first of them
};

FountainRun run_fountain(const Scene& s, int frames, const Layout& l, const Integrals& one,
                         double tolerance) {
  FountainRun r;
  SolverOptions o = l.options;
  o.balance_tolerance = tolerance;
  o.log = [&r](const std::string& m) {
    if (m.rfind("MPM: rebalanced", 0) != 0) return;
    if (r.logged++ == 0) r.first_log = m;
  };
  Solver multi(s, l.execs, o);
  for (int f = 1; f <= frames; ++f) {
    multi.advance_frame();
    const std::vector<std::int64_t> c = multi.part_counts();
    const std::string bad = balance_violation(c, tolerance > 0 ? tolerance : 0.1);
    if (r.unbalanced.empty() && !bad.empty())
      r.unbalanced = "frame " + std::to_string(f) + ": " + bad;
    r.counts += (f > 1 ? ", " : "") + counts_text(c);
  }
  r.rebalances = multi.rebalances();
  const silt::mpm::ParticleFrame p = multi.particles();
  for (std::size_t k = 0; k < p.count(); ++k)
    if (p.id[k] != int(k)) {
      ADD_FAILURE() << "particle " << k << " has id " << p.id[k];
      break;
    }
  r.diff = compare_integrals(integrals(p), one);
  std::printf(
      "%s, %d parts (%s), balance_tolerance %g: %d rebalances; counts after each frame: %s\n",
      s.name.c_str(), int(l.execs.size()), l.name.c_str(), tolerance, r.rebalances,
      r.counts.c_str());
  if (!r.first_log.empty()) std::printf("  first log line: %s\n", r.first_log.c_str());
  std::printf("  %s\n", differences(integrals(p), one).c_str());
  return r;
}

// An emitter adding particles every frame at one spot would fill one part: between frames the
// cuts move back to equal counts and the particles go to the parts of their new pieces. After
// every frame each part holds the mean count within the tolerance, and the run still matches one
// partition (a migration copies every attribute exactly; only the order of the P2G sums differs).
TEST(MpmMulti, FountainStaysBalancedAndMatchesOnePartition) {
  const Scene s = multi_fountain();
  const int frames = 10;
  const Integrals one = run_one(s, frames);
  for (int n : {2, 3})
    for (const Layout& l : layouts(n)) {
      const FountainRun r = run_fountain(s, frames, l, one, SolverOptions{}.balance_tolerance);
      EXPECT_EQ(r.diff, "") << n << " parts, " << l.name;
      EXPECT_EQ(r.unbalanced, "") << n << " parts, " << l.name;
      EXPECT_GE(r.rebalances, 1) << n << " parts: the fountain never unbalanced the parts";
      EXPECT_EQ(r.logged, r.rebalances) << "one log line per rebalance";
    }
}

// The check above can fail: without rebalancing the fountain's particles all join the leftmost
// part, which soon holds far more than its share (the physics is unaffected).
TEST(MpmMulti, WithoutBalancingTheFountainFillsOnePart) {
  const Scene s = multi_fountain();
  const int frames = 10;
  const FountainRun r = run_fountain(s, frames, layouts(2).front(), run_one(s, frames), 0.0);
  EXPECT_EQ(r.diff, "");
  EXPECT_NE(r.unbalanced, "") << "the fountain left the parts balanced: " << r.counts;
  EXPECT_EQ(r.rebalances, 0);
  EXPECT_EQ(r.logged, 0);
}

TEST(MpmMulti, FaultNamesThePartAndStopsEveryPart) {
  Scene s = multi_elastic_cube();
  s.name = "multi_fault";
  // 18x the elastic CFL limit (~1.1e-3 s): the cube survives the first frames (2 steps each)
  // and blows up at t = 0.14 s, in frame 3.
  s.fixed_dt = 0.02;
  for (const Layout& l : layouts(2)) {
    Solver multi(s, l.execs, l.options);
    try {
      for (int f = 0; f < 10; ++f) multi.advance_frame();
      ADD_FAILURE() << "no fault raised on " << l.name;
    } catch (const silt::mpm::PartFault& err) {
      const std::string m = err.what();
      EXPECT_NE(m.find("part "), std::string::npos) << m;
      EXPECT_NE(m.find("of 2"), std::string::npos) << m;
      EXPECT_NE(m.find("frame "), std::string::npos) << m;
      EXPECT_EQ(m.find("frame 0 "), std::string::npos) << "the first frames ran: " << m;
      std::printf("%s\n", m.c_str());
    }
  }
}

}  // namespace
}  // namespace silt::test::mpm
