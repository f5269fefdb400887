// The deterministic mode (performance.deterministic; src/silt/mpm/fixed_sums.hpp): P2G sums in
// fixed point, so a run's state hash (Solver::state_hash, every particle attribute) is the same
// bits run after run, for any thread count and part count, and after a restart. On the CPU
// (several OpenMP threads) and, with label gpu, on CUDA (n parts on one GPU, and one per GPU with
// graphs and with plain launches where the machine has n). A share outside the fixed-point range
// fails with the node and the step named.
#include <gtest/gtest.h>
#include <omp.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "mpm_multi_scene.hpp"
#include "silt/mpm/solver.hpp"
#include "silt/mpm/state_hash.hpp"
#include "test_support.hpp"

namespace silt::test::mpm {
namespace {

using silt::mpm::RestartState;
using silt::mpm::Solver;
using silt::mpm::SolverOptions;

/// Frames each run advances; the restarts continue from half way.
constexpr int kFrames = 4;

/// OpenMP threads for the solvers made while it lives (the host P2G sizes its per-thread grids
/// when the solver is made).
struct Threads {
  int before = omp_get_max_threads();
  explicit Threads(int n) { omp_set_num_threads(n); }
  ~Threads() { omp_set_num_threads(before); }
};

/// The sand column of the multi-part tests in the mode (3D, APIC, Drucker-Prager), frames of 0.015
/// s (~10 steps) to stay fast.
Scene sand() {
  Scene s = multi_sand_column();
  s.deterministic = true;
  s.frame_dt = 0.015;
  return s;
}

/// A water column (ASFLIP: split force channels, fluid wave speed) in the mode.
Scene water_column() {
  Scene s = sand();
  s.name = "deterministic_water";
  s.materials = {water()};
  s.transfer = silt::mpm::Transfer::asflip;
  return s;
}

/// The column with the fused G2P2G launch.
Scene fused() {
  Scene s = sand();
  s.name = "deterministic_g2p2g";
  s.g2p2g = true;
  return s;
}

struct Layout {
  std::string name;
  std::vector<Exec> execs;
  SolverOptions options;
  /// GPUs with graphs: one synchronisation a step (mpm/exchange/peer.cpp), which splits the stress
  /// force into channels of its own with an adaptive dt, other arithmetic than one part's: its
  /// runs match each other, not the one-part run (docs/scenes-mpm.md, "Reproducible runs").
  bool lagged = false;
};

/// n parts on this backend: CPU partitions; on CUDA n parts on GPU 0, and one per GPU (graphs
/// with one synchronisation a step, and plain launches) where there are n.
std::vector<Layout> layouts(int n) {
  if (!on_gpu()) return {{"cpu partitions", std::vector<Exec>(std::size_t(n), Exec::host()), {}}};
  std::vector<Layout> out{{"one GPU", std::vector<Exec>(std::size_t(n), Exec::cuda(0)), {}}};
  if (n > 1 && cuda_device_count() >= n) {
    std::vector<Exec> e;
    for (int d = 0; d < n; ++d) e.push_back(Exec::cuda(d));
    SolverOptions plain;
    plain.cuda_graph = false;
    out.push_back({"GPUs, graphs", e, {}, true});
    out.push_back({"GPUs, plain launches", e, plain});
  }
  return out;
}

/// The hash after each of `frames` frames of s.
std::vector<std::uint64_t> hashes(Solver& s, int frames) {
  std::vector<std::uint64_t> h;
  for (int f = 0; f < frames; ++f) {
    s.advance_frame();
    h.push_back(s.state_hash());
  }
  return h;
}

std::vector<std::uint64_t> run_hashes(const Scene& scene, const std::vector<Exec>& execs,
                                      const SolverOptions& o = {}) {
  Solver s(scene, execs, o);
  return hashes(s, kFrames);
}

TEST(MpmDeterministic, RepeatedRunsHashEqual) {
  for (const Scene& scene : {sand(), water_column(), fused()}) {
    const Threads many(4);
    const std::vector<std::uint64_t> a = run_hashes(scene, {exec()});
    const std::vector<std::uint64_t> b = run_hashes(scene, {exec()});
    EXPECT_EQ(a, b) << scene.name << ": two runs in the mode differ";
  }
}

TEST(MpmDeterministic, ThreadCountsHashEqual) {
  if (on_gpu()) GTEST_SKIP() << "OpenMP threads: CPU only";
  for (const Scene& scene : {sand(), water_column(), fused()}) {
    std::vector<std::vector<std::uint64_t>> runs;
    for (int t : {1, 2, 3}) {
      const Threads threads(t);
      runs.push_back(run_hashes(scene, {exec()}));
    }
    EXPECT_EQ(runs[0], runs[1]) << scene.name << ": 1 and 2 threads differ";
    EXPECT_EQ(runs[0], runs[2]) << scene.name << ": 1 and 3 threads differ";
  }
}

// The shared-block reduction sums the parts' integers: a node holds the one-part run's bits
// whatever the split, so every particle does too.
TEST(MpmDeterministic, PartCountsHashEqual) {
  const Threads many(3);
  for (const Scene& scene : {sand(), water_column()}) {
    const std::vector<std::uint64_t> one = run_hashes(scene, {exec()});
    for (int n : {2, 3})
      for (const Layout& l : layouts(n)) {
        const std::vector<std::uint64_t> h = run_hashes(scene, l.execs, l.options);
        if (!l.lagged) {
          EXPECT_EQ(h, one) << scene.name << " on " << n << " parts (" << l.name << ")";
          continue;
        }
        EXPECT_EQ(run_hashes(scene, l.execs, l.options), h)
            << scene.name << ": two runs on " << n << " parts (" << l.name << ") differ";
        std::printf("%s on %d parts (%s): %s the one-part run\n", scene.name.c_str(), n,
                    l.name.c_str(), h == one ? "equal to" : "differs from");
      }
  }
}

/// kFrames frames of scene on `to` after kFrames / 2 on `from`, restarted from the state between.
std::vector<std::uint64_t> restarted(const Scene& scene, const Layout& from, const Layout& to) {
  RestartState st;
  std::vector<std::uint64_t> h;
  {
    Solver first(scene, from.execs, from.options);
    h = hashes(first, kFrames / 2);
    st = first.state();
  }
  Solver second(scene, to.execs, to.options);
  second.restore(st);
  const std::vector<std::uint64_t> rest = hashes(second, kFrames - kFrames / 2);
  h.insert(h.end(), rest.begin(), rest.end());
  return h;
}

TEST(MpmDeterministic, RestartsHashEqual) {
  const Threads many(3);
  const Layout one{"one part", {exec()}, {}};
  for (const Scene& scene : {sand(), water_column(), fused()}) {
    const std::vector<std::uint64_t> ref = run_hashes(scene, {exec()});
    EXPECT_EQ(restarted(scene, one, one), ref) << scene.name << ": one part restarted";
    if (scene.g2p2g) continue;  // the fused launch runs on one part only
    for (const Layout& two : layouts(2)) {
      const std::vector<std::uint64_t> ref2 =
          two.lagged ? run_hashes(scene, two.execs, two.options) : ref;
      EXPECT_EQ(restarted(scene, two, two), ref2)
          << scene.name << ": 2 parts restarted, " << two.name;
      if (!two.lagged)
        EXPECT_EQ(restarted(scene, two, one), ref) << scene.name << ": 2 parts restarted on one";
    }
    for (const Layout& three : layouts(3))
      if (!three.lagged)
        EXPECT_EQ(restarted(scene, one, three), ref)
            << scene.name << ": one part restarted on 3, " << three.name;
  }
}

// A particle 10^9 m/s fast scatters momentum far beyond the units the scene's speeds size (2^14
// times its speed bound): the first P2G fails, naming the channel, the node and the step.
// performance.cuda_graphs = false (a profiler's run): the frame's kernels as plain launches, the
// same kernels in the same order, so the same bits; on a GPU no graph is recorded.
TEST(MpmDeterministic, SceneWithoutCudaGraphsHashesEqual) {
  for (const Scene& scene : {sand(), water_column()}) {
    Scene plain = scene;
    plain.cuda_graphs = false;
    Solver s(plain, {exec()});
    std::vector<std::uint64_t> h;
    int recordings = 0;
    for (int f = 0; f < kFrames; ++f) {
      recordings += s.advance_frame().host.recordings;
      h.push_back(s.state_hash());
    }
    EXPECT_EQ(h, run_hashes(scene, {exec()})) << scene.name;
    EXPECT_EQ(recordings, 0) << scene.name << ": a graph was recorded";
  }
}

TEST(MpmDeterministic, OutOfRangeShareNamesNodeAndStep) {
  Solver s(sand(), exec());
  s.advance_frame();
  s.add_particles(0, {0.05f, 0.1f, 0.03f}, {1e9f, 0.0f, 0.0f});
  EXPECT_TRUE(throws_with([&] { s.advance_frame(); },
                          {"fixed-point P2G sum of momentum x", "at node (", "m)",
                           "step 1 of the frame", "performance.deterministic"}));
}

// Every attribute enters the hash; the order of the particles does not.
TEST(MpmDeterministic, HashCoversEveryAttributeNotTheOrder) {
  RestartState s;
  s.parts.resize(2);
  for (int k = 0; k < 2; ++k) {
    silt::mpm::HostParticles& p = s.parts[std::size_t(k)].particles;
    for (int i = 0; i < 3; ++i) {
      p.id.push_back(2 * i + k);
      p.material.push_back(0);
      for (int c = 0; c < 3; ++c) p.x.push_back(0.1f * float(i + c)), p.v.push_back(0.5f);
      for (int c = 0; c < 9; ++c) p.c.push_back(0.0f), p.f.push_back(c % 4 == 0 ? 1.0f : 0.0f);
      p.plastic.push_back(0.0f);
    }
  }
  const std::uint64_t h = silt::mpm::state_hash(s, 1.0);
  RestartState swapped = s;
  std::swap(swapped.parts[0], swapped.parts[1]);
  EXPECT_EQ(silt::mpm::state_hash(swapped, 1.0), h);
  EXPECT_NE(silt::mpm::state_hash(s, 1.5), h) << "time";
  const auto changed = [&](auto edit) {
    RestartState t = s;
    edit(t.parts[1].particles);
    return silt::mpm::state_hash(t, 1.0) != h;
  };
  EXPECT_TRUE(changed([](auto& p) { p.x[4] = std::nextafter(p.x[4], 1.0f); })) << "x";
  EXPECT_TRUE(changed([](auto& p) { p.v[8] = -p.v[8]; })) << "v";
  EXPECT_TRUE(changed([](auto& p) { p.c[13] = 1e-30f; })) << "C";
  EXPECT_TRUE(changed([](auto& p) { p.f[26] = 1e-30f; })) << "F";
  EXPECT_TRUE(changed([](auto& p) { p.plastic[2] = 1e-3f; })) << "plastic";
  EXPECT_TRUE(changed([](auto& p) { p.material[1] = 1; })) << "material";
  EXPECT_TRUE(changed([](auto& p) { p.id[0] = 99; })) << "id";
}

}  // namespace
}  // namespace silt::test::mpm
