// A shallow-water run split into subdomains (strips and 2D blocks, halos of 1 to 3 layers with
// ghost cell expansion) against the same scene on one device. On the CPU the split run does the
// same arithmetic on the same values, so every field must match bit for bit. On CUDA a split run on
// the plain phases (SolverOptions::plain_phases) is compared with one device on the same phases
// within kGpuSamePhases; a split run on the tile kernel (the library default) with one device's
// tile kernel (fast math) within kGpuFused. On the CPU plain_phases must change nothing.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <tuple>

#include "silt/core/error.hpp"
#include "silt/swe/fused_step.hpp"
#include "silt/swe/solver.hpp"
#include "swe_channel.hpp"
#include "swe_multi_scene.hpp"
#include "test_support.hpp"

namespace silt::swe {
namespace {

using multi_test::make_north_strip_overflow;
using multi_test::split_basin;
using silt::test::exec;
using silt::test::throws_with;

// CUDA, one device on the same phases: the same kernels on the same values; only the order of
// atomic additions of two sources in one cell could differ (none here). Relative to the largest
// value of each field.
constexpr double kGpuSamePhases = 1e-6;
// CUDA, one device with the fused tile kernel (fast-math reciprocals and square roots) over ~150
// steps of a dam break, relative to the largest value of each field.
constexpr double kGpuFused = 2e-4;

// On CUDA the plain phases, for both the split run and the one device it is compared with (see the
// file comment); the tile kernel is the default.
SolverOptions plain() {
  SolverOptions o;
  o.plain_phases = true;
  return o;
}

Split make_split(int parts, int halo, SplitShape shape = SplitShape::automatic) {
  Split s;
  s.halo = halo;
  s.shape = shape;
  const int devices = std::max(1, cuda_device_count());
  for (int k = 0; k < parts; ++k)
    s.execs.push_back(exec().is_cuda() ? Exec::cuda(k % devices) : Exec::host());
  return s;
}

double largest(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

void expect_same(const std::vector<double>& split, const std::vector<double>& one,
                 const char* field, const std::string& what, double gpu_tolerance) {
  ASSERT_EQ(split.size(), one.size()) << field << " " << what;
  if (!exec().is_cuda()) {
    size_t bad = 0, first = 0;
    for (size_t k = 0; k < one.size(); ++k)
      if (std::memcmp(&split[k], &one[k], sizeof(double)) != 0 && bad++ == 0) first = k;
    EXPECT_EQ(bad, 0u) << field << " " << what << ": " << bad << " cells differ, first " << first
                       << ": " << split[first] << " vs " << one[first];
    return;
  }
  EXPECT_TRUE(silt::test::all_near(split, one, gpu_tolerance * std::max(largest(one), 1e-12)))
      << field << " " << what;
}

void expect_same_fields(const Solver& split, const Solver& one, const std::string& what,
                        double gpu_tolerance = kGpuSamePhases) {
  if (!exec().is_cuda()) {
    EXPECT_EQ(split.time(), one.time()) << what;
    EXPECT_EQ(split.steps(), one.steps()) << what;
  } else {
    EXPECT_NEAR(split.time(), one.time(), gpu_tolerance * one.time()) << what;
    EXPECT_NEAR(double(split.steps()), double(one.steps()), 1.0) << what;
  }
  const Fields a = split.fields(), b = one.fields();
  expect_same(a.h, b.h, "h", what, gpu_tolerance);
  expect_same(a.hu, b.hu, "hu", what, gpu_tolerance);
  expect_same(a.hv, b.hv, "hv", what, gpu_tolerance);
  expect_same(a.hc, b.hc, "hc", what, gpu_tolerance);
  expect_same(a.max_depth, b.max_depth, "max_depth", what, gpu_tolerance);
  // A frame's outputs ask for some arrays only: those come back the same, the others empty.
  const Fields d = split.fields(silt::swe::arrays::depth | silt::swe::arrays::pollutant);
  expect_same(d.h, a.h, "h (depth and pollutant asked for)", what, 0.0);
  expect_same(d.hc, a.hc, "hc (depth and pollutant asked for)", what, 0.0);
  EXPECT_TRUE(d.hu.empty() && d.hv.empty() && d.max_depth.empty()) << what;
  const Totals ta = split.totals(), tb = one.totals();
  // CPU: sums over cells in another order, round-off of the sum only. CUDA: fields agree within
  // gpu_tolerance of their largest value, so their sums agree within that fraction too (the fused
  // kernel's fast float math moves the totals by ~1e-8 relative, swe_backends_test).
  constexpr double kSumOrder = 1e-9;
  const double sum_tol = exec().is_cuda() ? std::max(kSumOrder, gpu_tolerance) : kSumOrder;
  EXPECT_NEAR(ta.volume, tb.volume, sum_tol * tb.volume) << what;
  EXPECT_NEAR(ta.pollutant_mass, tb.pollutant_mass, sum_tol * tb.pollutant_mass) << what;
  EXPECT_NEAR(ta.net_inflow_volume, tb.net_inflow_volume,
              sum_tol * (1 + std::abs(tb.net_inflow_volume)))
      << what;
}

void compare_runs(Precision precision, int parts, int halo, SplitShape shape,
                  const std::vector<double>& targets) {
  const Scene scene = split_basin(precision);
  const std::string what = ::testing::PrintToString(parts) + " parts, halo " +
                           ::testing::PrintToString(halo) +
                           (precision == Precision::f32 ? ", float" : ", double");
  Solver one(scene, exec(), plain());
  Solver split(scene, make_split(parts, halo, shape), plain());
  for (double t : targets) {
    one.advance_to(t);
    split.advance_to(t);
    expect_same_fields(split, one,
                       what + " at t = " + ::testing::PrintToString(t) + " s: " + split.layout());
  }
}

// Every flow boundary (supercritical inflows, discharge, normal-depth, rating and critical
// outflows) on segments that cross the cuts: the ghost bed is extrapolated from the next cell
// inward, which a cut may put in the halo.
TEST(SweMulti, FlowBoundariesAcrossCutsEqualOneDevice) {
  for (Precision p : {Precision::f64, Precision::f32})
    for (auto [parts, halo, shape] :
         {std::tuple{2, 1, SplitShape::strips}, std::tuple{3, 3, SplitShape::strips},
          std::tuple{4, 2, SplitShape::blocks}, std::tuple{6, 1, SplitShape::blocks}}) {
      const Scene scene = channel::flow_boundaries_basin(p, 31, 23);
      Solver one(scene, exec(), plain());
      Solver split(scene, make_split(parts, halo, shape), plain());
      one.advance_to(5.0);
      split.advance_to(5.0);
      expect_same_fields(split, one, "flow boundaries: " + split.layout());
    }
}

// A frame's copies (fields_async, what `silt run` hands its writer thread) hold the state of the
// moment they were asked for, also after the steps queued behind them have run (on CUDA those wait
// for the copies on the stream, not for the host); several may be in flight at once, and one
// dropped unread gives its staging back. One part and three, on the tile kernel (the default) and
// on the plain phases.
TEST(SweMulti, AsyncFieldsAreTheStateWhenAsked) {
  const Scene scene = split_basin(Precision::f32);
  const std::vector<double> times = {0.5, 1.0, 1.5};
  for (int parts : {1, 3})
    for (bool phases : {false, true}) {
      const SolverOptions o = phases ? plain() : SolverOptions{};
      const std::string what = ::testing::PrintToString(parts) + " parts" +
                               (phases ? ", plain phases" : ", default path");
      Solver run(scene, make_split(parts, 1), o), ref(scene, make_split(parts, 1), o);
      std::vector<FieldsCopy> copies;
      for (double t : times) {
        run.advance_to(t);
        copies.push_back(run.fields_async(arrays::depth | arrays::discharge | arrays::max_depth));
        FieldsCopy dropped = run.fields_async(arrays::pollutant);  // never read
      }
      run.advance_to(3.0);  // overwrites both state buffers many times
      for (size_t k = 0; k < times.size(); ++k) {
        ref.advance_to(times[k]);
        const Fields got = copies[k].get(), want = ref.fields();
        const std::string at = what + " at t = " + ::testing::PrintToString(times[k]);
        expect_same(got.h, want.h, "h", at, kGpuSamePhases);
        expect_same(got.hu, want.hu, "hu", at, kGpuSamePhases);
        expect_same(got.hv, want.hv, "hv", at, kGpuSamePhases);
        expect_same(got.max_depth, want.max_depth, "max_depth", at, kGpuSamePhases);
        EXPECT_TRUE(got.hc.empty()) << at;
      }
      // The slots came back: more frames than were ever in flight reuse them.
      for (int k = 0; k < 8; ++k)
        EXPECT_EQ(run.fields_async(arrays::depth).get().h, run.fields(arrays::depth).h);
    }
}

// A rating segment shares its Q by conveyance summed over all its cells each step (the slots of
// the step's reduction, summed in slot order): cuts through the segment (strips are whole rows:
// 2 strips part the channel from the floodplain, 4 give each row a part) give the same bits.
TEST(SweMulti, RatingByConveyanceAcrossCutsEqualsOneDevice) {
  for (Precision p : {Precision::f64, Precision::f32})
    for (auto [parts, halo, shape] :
         {std::tuple{2, 1, SplitShape::strips}, std::tuple{4, 1, SplitShape::strips},
          std::tuple{8, 2, SplitShape::blocks}}) {
      const Scene scene = channel::compound_channel(24, p).scene;
      Solver one(scene, exec(), plain());
      Solver split(scene, make_split(parts, halo, shape), plain());
      one.advance_to(20.0);
      split.advance_to(20.0);
      expect_same_fields(split, one, "rating by conveyance: " + split.layout());
    }
}

TEST(SweMulti, OnePartitionEqualsOneDevice) {
  compare_runs(Precision::f64, 1, 1, SplitShape::automatic, {1.0, 6.0});
}

TEST(SweMulti, TwoStripsEqualOneDevice) {
  compare_runs(Precision::f64, 2, 1, SplitShape::strips, {0.5, 3.0, 6.0});
  compare_runs(Precision::f32, 2, 1, SplitShape::strips, {6.0});
}

TEST(SweMulti, ThreeStripsEqualOneDevice) {
  compare_runs(Precision::f64, 3, 1, SplitShape::strips, {6.0});
  compare_runs(Precision::f32, 3, 1, SplitShape::strips, {6.0});
}

TEST(SweMulti, FourBlocksEqualOneDevice) {
  compare_runs(Precision::f64, 4, 1, SplitShape::automatic, {2.0, 6.0});
  compare_runs(Precision::f32, 4, 1, SplitShape::blocks, {6.0});
}

TEST(SweMulti, ColumnsEqualOneDevice) {
  compare_runs(Precision::f64, 2, 1, SplitShape::blocks, {6.0});
  compare_runs(Precision::f64, 3, 2, SplitShape::blocks, {6.0});
}

TEST(SweMulti, GhostCellExpansionEqualsOneDevice) {
  // k halo layers exchanged every k steps; the layers in between are recomputed.
  compare_runs(Precision::f64, 2, 2, SplitShape::strips, {0.7, 6.0});
  compare_runs(Precision::f64, 3, 3, SplitShape::strips, {6.0});
  compare_runs(Precision::f64, 4, 2, SplitShape::blocks, {6.0});
  compare_runs(Precision::f32, 4, 3, SplitShape::blocks, {6.0});
}

TEST(SweMulti, RandomSplitsEqualOneDevice) {
  // Grid sizes, part counts, halo widths and shapes drawn at random (fixed seed): cuts fall on
  // every kind of cell, and subdomains as narrow as the halo.
  std::mt19937 rng(20261129);
  const SplitShape shapes[] = {SplitShape::automatic, SplitShape::strips, SplitShape::blocks};
  int runs = 0;
  for (int trial = 0; trial < 40 && runs < 12; ++trial) {
    const Index nx = 12 + Index(rng() % 30), ny = 12 + Index(rng() % 30);
    const int parts = 2 + int(rng() % 5), halo = 1 + int(rng() % 3);
    const SplitShape shape = shapes[rng() % 3];
    const Scene scene = split_basin(trial % 2 ? Precision::f32 : Precision::f64, nx, ny);
    std::unique_ptr<Solver> split;
    try {
      split = std::make_unique<Solver>(scene, make_split(parts, halo, shape), plain());
    } catch (const Error&) {
      continue;  // too many parts of at least `halo` cells for this grid
    }
    Solver one(scene, exec(), plain());
    one.advance_to(3.0);
    split->advance_to(3.0);
    expect_same_fields(*split, one, split->layout());
    ++runs;
  }
  EXPECT_EQ(runs, 12);
}

// A split of one exec is the ordinary one-device run, whatever its halo: the whole grid, one
// tile-kernel launch per step on CUDA (no exchange, no edge strips).
TEST(SweMulti, OnePartIsTheOneDeviceRun) {
  const Scene scene = split_basin(Precision::f32);
  Solver one(scene, exec());
  Solver part(scene, make_split(1, 4));
  EXPECT_EQ(part.layout().rfind("one subdomain", 0), 0u) << part.layout();
  one.advance_to(6.0);
  const std::uint64_t before = detail::fused_launch_count();
  part.advance_to(6.0);
  const std::uint64_t launches = detail::fused_launch_count() - before;
  // One device on the same path: the same kernels on the same values.
  expect_same_fields(part, one, "one part of halo 4: " + part.layout(), kGpuSamePhases);
  if (exec().is_cuda()) {
    EXPECT_GE(launches, std::uint64_t(part.steps())) << part.layout();
    EXPECT_LE(launches, std::uint64_t(part.steps()) + 256) << "one launch per step and no-op step";
  } else {
    EXPECT_EQ(launches, 0u);
  }
}

TEST(SweMulti, SplitMatchesTheFusedKernel) {
  // On the CPU both are the plain path (bit for bit); on CUDA the fused tile kernel of one device.
  const Scene scene = split_basin(Precision::f32);
  Solver fused(scene, exec());
  Solver split(scene, make_split(2, 1, SplitShape::automatic));
  fused.advance_to(6.0);
  split.advance_to(6.0);
  expect_same_fields(split, fused, "2 strips against the fused kernel", kGpuFused);
}

// The split run on the tile kernel against one device on the tile kernel (CUDA), or against the
// plain path bit for bit (CPU: the only path). On CUDA the layout must name the tile
// kernel and every split step must have launched it at least once per subdomain, so the comparison
// cannot pass on the plain phases.
void compare_split_fused(Precision precision, int parts, int halo, SplitShape shape,
                         const std::vector<double>& targets) {
  const Scene scene = split_basin(precision);
  Solver one(scene, exec());
  auto split = std::make_unique<Solver>(scene, make_split(parts, halo, shape));
  const std::string layout = split->layout();
  const bool fused = layout.find("fused tile kernel") != std::string::npos;
  const std::string what = ::testing::PrintToString(parts) + " parts, halo " +
                           ::testing::PrintToString(halo) + ", split fused: " + layout;
  std::uint64_t split_launches = 0;
  for (double t : targets) {
    one.advance_to(t);
    const std::uint64_t before = detail::fused_launch_count();
    split->advance_to(t);
    split_launches += detail::fused_launch_count() - before;
    expect_same_fields(*split, one, what + " at t = " + ::testing::PrintToString(t) + " s",
                       kGpuFused);
  }
  if (exec().is_cuda()) {
    EXPECT_TRUE(fused) << what;
    ASSERT_GT(split->steps(), 0) << what;
    EXPECT_GE(split_launches, std::uint64_t(split->steps()) * std::uint64_t(parts)) << what;
  } else {
    EXPECT_FALSE(fused) << what;
    EXPECT_EQ(split_launches, 0u) << what;
  }
}

TEST(SweMulti, SplitFusedKernelMatchesOneDeviceFused) {
  // Halo 1: an exchange every step (interior box, then the four edge strips). Halo 3 on blocks:
  // grown boxes reaching 2 and 1 layers into the halo between exchanges, corners included.
  compare_split_fused(Precision::f32, 2, 1, SplitShape::strips, {2.0, 6.0});
  compare_split_fused(Precision::f32, 4, 3, SplitShape::blocks, {6.0});
  compare_split_fused(Precision::f64, 3, 2, SplitShape::strips, {6.0});
}

TEST(SweMulti, SingleStepsEqualOneDevice) {
  const Scene scene = split_basin(Precision::f64);
  Solver one(scene, exec(), plain());
  Solver split(scene, make_split(3, 2), plain());
  for (int k = 0; k < 7; ++k) {
    one.step();
    split.step();
  }
  expect_same_fields(split, one, "7 single steps");
}

// Timing the communication (Solver::measure_communication, the exchange's measure) leaves the run
// as it was: the halos receive the values they already hold, and the step scalars that the timed
// reductions summed again are recomputed (else the discharge spreads over several times the wet
// cells).
TEST(SweMulti, MeasuringCommunicationLeavesTheRunAsItWas) {
  const Scene scene = split_basin(Precision::f64);
  Solver one(scene, exec(), plain());
  Solver split(scene, make_split(3, 2), plain());
  one.advance_to(0.7);
  split.advance_to(0.7);
  const CommTimes none = one.measure_communication(3);
  EXPECT_EQ(none.parts, 1);
  EXPECT_EQ(none.exchange_bytes, 0.0);
  const CommTimes t = split.measure_communication(3);
  EXPECT_EQ(t.parts, 3);
  EXPECT_GT(t.exchange_bytes, 0.0);
  EXPECT_GE(t.exchange_s, 0.0);
  EXPECT_GE(t.reduce_s, 0.0);
  one.advance_to(6.0);
  split.advance_to(6.0);
  expect_same_fields(split, one, "after measure_communication(3) at t = 0.7 s");
}

TEST(SweMulti, ProbesEqualOneDevice) {
  const Scene scene = split_basin(Precision::f64);
  Solver one(scene, exec(), plain());
  Solver split(scene, make_split(4, 1), plain());
  one.advance_to(3.0);
  split.advance_to(3.0);
  const Index nx = scene.grid.nx;
  const std::vector<Index> cells = {0, 5 + 3 * nx, nx / 2 + (scene.grid.ny / 2) * nx,
                                    nx * scene.grid.ny - 1};
  const auto a = split.probe(cells), b = one.probe(cells);
  ASSERT_EQ(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k) {
    // m, m/s, kg/m^3: a few metres deep, a few m/s, concentrations up to 3 kg/m^3.
    const double tol = exec().is_cuda() ? kGpuSamePhases * 10 : 0.0;
    EXPECT_NEAR(a[k].h, b[k].h, tol) << "probe " << k;
    EXPECT_NEAR(a[k].u, b[k].u, tol) << "probe " << k;
    EXPECT_NEAR(a[k].c, b[k].c, tol) << "probe " << k;
  }
  EXPECT_THROW(split.probe({nx * scene.grid.ny}), Error);
}

TEST(SweMulti, NaNNamesTheSubdomainCellAndStep) {
  // Velocities of 1e30 m/s overflow float in the momentum flux, in the north strip only.
  Scene s = split_basin(Precision::f32);
  make_north_strip_overflow(s);
  const Index ny = s.grid.ny;
  Solver split(s, make_split(2, 1, SplitShape::strips), plain());
  const ::testing::AssertionResult thrown = throws_with(
      [&] { split.advance_to(1.0); }, {"NaN", "step 1,", "subdomain 1 of 2 (rank 0 of 1, ",
                                       exec().is_cuda() ? "cuda device" : "cpu)", "in cell ("});
  ASSERT_TRUE(thrown);
  // The cell is one of the overflowing ones, in global indices.
  const std::string m = thrown.message();
  int i = -1, j = -1;
  std::sscanf(m.c_str() + m.find("in cell ("), "in cell (%d, %d)", &i, &j);
  EXPECT_GE(j, ny - 5) << m;
  EXPECT_LE(i, 6) << m;
  // The last good check is kept on every subdomain.
  EXPECT_EQ(split.time(), 0.0);
  EXPECT_EQ(split.steps(), 0);
}

TEST(SweMulti, CollapsingTimeStepNamesTheFastestCell) {
  Scene s = split_basin(Precision::f64);
  s.min_dt = 0.2;  // the CFL step is 0.23 s at rest and shrinks as the dam breaks
  Solver one(s, exec(), plain());
  Solver split(s, make_split(3, 2), plain());
  std::string m1, m3;
  try {
    one.advance_to(20.0);
  } catch (const Error& e) {
    m1 = e.what();
  }
  try {
    split.advance_to(20.0);
  } catch (const Error& e) {
    m3 = e.what();
  }
  ASSERT_NE(m3.find("collapsing time step"), std::string::npos) << m3;
  // Same cell, step and time as on one device.
  const auto head = [](const std::string& m) {
    return m.substr(0, m.find(", in subdomain"));
  };
  EXPECT_EQ(head(m3), head(m1).substr(0, head(m3).size())) << m1 << "\n" << m3;
  EXPECT_EQ(split.time(), one.time());
}

TEST(SweMulti, SplitErrorsNameTheProblem) {
  Scene s = split_basin(Precision::f64, 8, 5);
  s.boundaries.clear();
  s.sources.clear();
  // 5 rows cannot hold 3 strips of 2 rows.
  EXPECT_TRUE(throws_with([&] { Solver split(s, make_split(3, 2, SplitShape::strips)); },
                          {"split_basin", "halo of 2"}));
  EXPECT_THROW(Solver(s, make_split(2, 0)), Error);
}

}  // namespace
}  // namespace silt::swe
