// The shallow-water solver on the backend chosen by --backend: time stepping to exact targets,
// conservation and volume budgets with every kind of boundary and forcing, inactive cells,
// precision, faults and scene validation.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include "silt/core/error.hpp"
#include "silt/swe/engine.hpp"
#include "silt/swe/fused_step.hpp"
#include "silt/swe/solver.hpp"
#include "swe_scene_builder.hpp"
#include "test_support.hpp"

namespace silt::swe {
namespace {

using scenes::for_cells;
using scenes::forced_basin;
using scenes::make_scene;
using silt::test::exec;
using silt::test::throws_with;

// A dam break in a closed 40 x 8 box: 1 m of water left of x = 20 m, 0.2 m right, pollutant in
// the deep part.
Scene dam_break_box(Precision p) {
  Scene s = make_scene("box", 40, 8, 1.0, p);
  for_cells(s, [&](Index, Index, double x, double, size_t k) { s.depth[k] = x < 20 ? 1.0 : 0.2; });
  s.concentration.assign(s.depth.size(), 0.0);
  for_cells(s, [&](Index, Index, double x, double, size_t k) {
    s.concentration[k] = x < 10 ? 2.0 : 0.0;
  });
  return s;
}

TEST(SweSolver, AdvanceToLandsExactlyOnTheTarget) {
  Solver solver(dam_break_box(Precision::f64), exec());
  EXPECT_EQ(solver.time(), 0.0);
  solver.advance_to(0.7);
  EXPECT_EQ(solver.time(), 0.7);
  const long long n = solver.steps();
  EXPECT_GT(n, 5);
  EXPECT_GT(solver.last_dt(), 0.0);
  solver.advance_to(0.7);  // already there: nothing happens
  EXPECT_EQ(solver.steps(), n);
  for (double t : {0.71, 0.73, 1.0, 1.0 + 1e-9, 2.5}) {
    solver.advance_to(t);
    EXPECT_EQ(solver.time(), t);
  }
  // The dt of the CFL condition: cfl dx / (|u| + c) with c <= sqrt(g 1 m).
  EXPECT_GE(solver.last_dt(), 0.45 * 1.0 / (2 * std::sqrt(9.81)) * 0.5);
}

// advance_to with a stop callback (the Python package's Ctrl-C): asked after each batch, a stop
// leaves a checked state short of the target, and going on takes exactly the steps of one call.
TEST(SweSolver, AdvanceToStopsBetweenBatchesAndGoesOn) {
  Solver whole(dam_break_box(Precision::f64), exec());
  whole.advance_to(20.0);
  Solver resumed(dam_break_box(Precision::f64), exec());
  int asked = 0;
  EXPECT_FALSE(resumed.advance_to(20.0, [&] { return ++asked == 1; }));
  EXPECT_EQ(asked, 1);
  EXPECT_GT(resumed.time(), 0.0);
  EXPECT_LT(resumed.time(), 20.0);
  EXPECT_TRUE(resumed.advance_to(20.0, [&] { return ++asked < 0; }));
  EXPECT_EQ(resumed.time(), 20.0);
  EXPECT_EQ(resumed.steps(), whole.steps());
  EXPECT_EQ(resumed.fields().hu, whole.fields().hu);
}

TEST(SweSolver, StepAdvancesByOneCflStep) {
  Solver solver(dam_break_box(Precision::f64), exec());
  solver.step();
  EXPECT_EQ(solver.steps(), 1);
  // At rest the fastest wave is sqrt(g h) with h = 1 m.
  EXPECT_NEAR(solver.last_dt(), 0.45 * 1.0 / std::sqrt(9.81), 1e-12);
  EXPECT_EQ(solver.time(), solver.last_dt());
  const double t1 = solver.time();
  solver.step();
  EXPECT_EQ(solver.steps(), 2);
  EXPECT_DOUBLE_EQ(solver.time(), t1 + solver.last_dt());
  // step() after advance_to() steps past the old target.
  solver.advance_to(0.5);
  solver.step();
  EXPECT_GT(solver.time(), 0.5);
}

void conserves(Precision p, double tolerance) {
  Solver solver(dam_break_box(p), exec());
  const Totals t0 = solver.totals();
  EXPECT_NEAR(t0.volume, 20 * 8 * 1.0 + 20 * 8 * 0.2, tolerance * t0.volume);
  solver.advance_to(6.0);
  const Totals t1 = solver.totals();
  EXPECT_NEAR(t1.volume, t0.volume, tolerance * t0.volume);
  EXPECT_NEAR(t1.pollutant_mass, t0.pollutant_mass, tolerance * t0.pollutant_mass);
  EXPECT_EQ(t1.net_inflow_volume, 0.0);
  // The water moved: the flow is not trivially at rest.
  const Fields f = solver.fields();
  EXPECT_GT(*std::max_element(f.hu.begin(), f.hu.end()), 0.1);
}
// Closed box: water and pollutant are conserved to round-off of the summation over ~1000 steps.
TEST(SweSolver, ClosedBoxConservesWaterAndPollutantDouble) {
  conserves(Precision::f64, 1e-12);
}
TEST(SweSolver, ClosedBoxConservesWaterAndPollutantFloat) {
  conserves(Precision::f32, 2e-5);
}

TEST(SweSolver, FloatAndDoubleAgree) {
  Solver s32(dam_break_box(Precision::f32), exec()), s64(dam_break_box(Precision::f64), exec());
  s32.advance_to(3.0);
  s64.advance_to(3.0);
  const Fields a = s32.fields(), b = s64.fields();
  // Both round-off paths converge to the same discrete solution; float keeps ~6 digits of h.
  constexpr double kPrecisionGap = 1e-4;
  EXPECT_LT(silt::test::rel_l2(a.h, b.h), kPrecisionGap);
  EXPECT_LT(silt::test::rel_l2(a.hu, b.hu), 10 * kPrecisionGap);
}

TEST(SweSolver, MaxDepthTracksThePeak) {
  Solver solver(dam_break_box(Precision::f64), exec());
  solver.advance_to(4.0);
  const Fields f = solver.fields();
  for (size_t k = 0; k < f.h.size(); ++k) {
    ASSERT_GE(f.max_depth[k], f.h[k]) << "cell " << k;
    ASSERT_GE(f.max_depth[k], k % 40 < 20 ? 1.0 : 0.2) << "cell " << k;
  }
  // The bore (about 3 m/s) passed x = 28.5 m: its maximum there exceeds the initial 0.2 m.
  EXPECT_GT(f.max_depth[28], 0.4);
}

TEST(SweSolver, InactiveCellsAreWalls) {
  Scene s = make_scene("wall", 30, 6, 1.0, Precision::f64);
  s.active.assign(s.depth.size(), 1);
  for_cells(s, [&](Index i, Index, double x, double, size_t k) {
    s.depth[k] = x < 10 ? 1.0 : 0.0;
    if (i == 15) s.active[k] = 0;
  });
  Solver solver(s, exec());
  solver.advance_to(8.0);
  const Fields f = solver.fields();
  for_cells(s, [&](Index i, Index j, double, double, size_t k) {
    if (i == 15) {
      EXPECT_EQ(f.h[k], 0.0) << "inactive cell " << i << "," << j;
    }
    if (i > 15) {
      EXPECT_EQ(f.h[k], 0.0) << "cell " << i << "," << j << " behind the wall";
    }
  });
  // Water reached the wall and piled up against it.
  EXPECT_GT(f.h[size_t(2) * 30 + 14], 0.1);
  EXPECT_NEAR(solver.totals().volume, 10 * 6 * 1.0, 1e-12 * 60);
}

TEST(SweSolver, VolumeBudgetWithBoundariesRainAndSources) {
  // Volume now - volume before = net inflow through boundaries, rain and sources.
  const Scene s = forced_basin(Precision::f64);
  Solver solver(s, exec());
  const Totals t0 = solver.totals();
  solver.advance_to(12.0);
  const Totals t1 = solver.totals();
  EXPECT_NEAR(t1.volume - t0.volume, t1.net_inflow_volume, 1e-10 * t0.volume);
  // The level boundary drains more than the discharge brings: the budget is far from trivial.
  EXPECT_GT(std::abs(t1.net_inflow_volume), 5.0);
}

TEST(SweSolver, FusedKernelMatchesThePlainPath) {
  // On CUDA a scene steps with the tile kernel unless SolverOptions::plain_phases selects the
  // plain parallel_for phases, its oracle (on the CPU both are the plain path). Both call the same
  // edge and cell functions; only the order of the inflow sum, floating-point contraction and the
  // tile's staged velocities (primitive_state_k, within two ulps of normal_state_k) may differ.
  const Scene s = forced_basin(Precision::f64);
  SolverOptions plain_phases;
  plain_phases.plain_phases = true;
  Solver fused(s, exec());
  Solver plain(s, exec(), plain_phases);
  fused.advance_to(6.0);
  plain.advance_to(6.0);
  EXPECT_EQ(fused.steps(), plain.steps());
  const Fields a = fused.fields(), b = plain.fields();
  constexpr double kSamePath = 1e-10;  // m or m^2/s: contraction differences over ~100 steps
  EXPECT_TRUE(silt::test::all_near(a.h, b.h, kSamePath));
  EXPECT_TRUE(silt::test::all_near(a.hu, b.hu, kSamePath));
  EXPECT_TRUE(silt::test::all_near(a.hv, b.hv, kSamePath));
  EXPECT_TRUE(silt::test::all_near(a.hc, b.hc, kSamePath));
  EXPECT_TRUE(silt::test::all_near(a.max_depth, b.max_depth, kSamePath));
  EXPECT_NEAR(fused.totals().net_inflow_volume, plain.totals().net_inflow_volume, 1e-9);
}

void expect_bitwise(const std::vector<double>& a, const std::vector<double>& b, const char* field,
                    const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << field << " " << what;
  size_t bad = 0, first = 0;
  for (size_t k = 0; k < a.size(); ++k)
    if (std::memcmp(&a[k], &b[k], sizeof(double)) != 0 && bad++ == 0) first = k;
  EXPECT_EQ(bad, 0u) << field << " " << what << ": " << bad << " cells differ, first " << first
                     << ": " << a[first] << " vs " << b[first];
}

// On the CPU a scene steps with the row step (row_step.hpp) unless plain_phases selects the plain
// phases, its oracle: the same edge and cell functions on the same values, so every field matches
// bit for bit and so do time and steps; only the inflow volume is summed in another order. On a
// grid large enough for the row step to use threads (three, also on a machine with fewer cores)
// and on one small enough to run on the calling thread; in float32 and float64.
TEST(SweSolver, RowStepMatchesThePlainPathBitForBit) {
  if (exec().is_cuda()) GTEST_SKIP() << "the row step is the CPU backend's";
  SolverOptions plain_phases;
  plain_phases.plain_phases = true;
  const int threads = omp_get_max_threads();
  omp_set_num_threads(3);
  for (const Index nx : {30, 222})  // 600 and 32,856 cells (kRowSerialCells: 32,768)
    for (const Precision p : {Precision::f32, Precision::f64}) {
      const Scene s = forced_basin(p, nx, nx * 2 / 3);
      const std::string what = ::testing::PrintToString(s.grid.cells()) + " cells" +
                               (p == Precision::f32 ? ", float" : ", double");
      Solver rows(s, exec());
      Solver plain(s, exec(), plain_phases);
      EXPECT_NE(rows.layout().find("row step"), std::string::npos) << rows.layout();
      EXPECT_EQ(plain.layout().find("row step"), std::string::npos) << plain.layout();
      for (double t : {0.5, 2.0}) {
        rows.advance_to(t);
        plain.advance_to(t);
        EXPECT_EQ(rows.time(), plain.time()) << what;
        EXPECT_EQ(rows.steps(), plain.steps()) << what;
        const Fields a = rows.fields(), b = plain.fields();
        expect_bitwise(a.h, b.h, "h", what);
        expect_bitwise(a.hu, b.hu, "hu", what);
        expect_bitwise(a.hv, b.hv, "hv", what);
        expect_bitwise(a.hc, b.hc, "hc", what);
        expect_bitwise(a.max_depth, b.max_depth, "max_depth", what);
        constexpr double kSumOrder = 1e-9;  // m^3: the inflow summed in another order
        const double inflow = plain.totals().net_inflow_volume;
        EXPECT_NEAR(rows.totals().net_inflow_volume, inflow, kSumOrder * (1 + std::abs(inflow)))
            << what;
        EXPECT_GT(std::abs(inflow), 0.1) << what << ": the boundaries and sources did something";
      }
    }
  omp_set_num_threads(threads);
}

// The forced basin inside nodata: two columns and a row of inactive cells on its west and south,
// a nodata corner cut diagonally on its north-east, its boundaries as lines along the mask (a
// discharge and a level beside inactive cells, an open line along the cut's staircase and the
// grid's east side) and one of its sources an inflow line (issue 34, item 8).
Scene masked_basin(Precision p) {
  const Scene b = forced_basin(p);
  Scene s = make_scene("masked_basin", 34, 22, 2.0, p, -4.0, -2.0);
  s.active.assign(s.depth.size(), 0);
  s.manning.assign(s.depth.size(), 0.03);
  s.concentration.assign(s.depth.size(), 0.1);
  for_cells(s, [&](Index i, Index j, double x, double y, size_t k) {
    const bool inside = i >= 2 && j >= 1 && i < 32 && j < 21 && (i - 2) + (j - 1) < 40;
    s.active[k] = inside;
    s.bed[k] = 0.01 * x + 0.005 * y;
    s.depth[k] = inside && x < 30 ? 0.5 : 0.0;
  });
  s.boundaries = b.boundaries;
  s.boundaries[0].line = {{0, 10}, {0, 30}};             // west, cells 5..14 of the basin
  s.boundaries[1].line = {{0, 0}, {20, 0}};              // south, cells 0..9
  s.boundaries[2].line = {{60, 0}, {60, 22}, {42, 40}};  // east, then along the cut
  s.rainfall = b.rainfall;
  s.sources = b.sources;
  s.sources[0].line = {{14, 14}, {26, 26}, {30, 20}};
  return s;
}

TEST(SweSolver, BoundaryLinesOnAMaskBalanceOnEveryPath) {
  for (const Scheme scheme : {Scheme::first_order, Scheme::muscl})
    for (const Precision p : {Precision::f32, Precision::f64}) {
      Scene s = masked_basin(p);
      s.scheme = scheme;
      if (scheme == Scheme::muscl) s.cfl = 0.25;
      SolverOptions plain_phases;
      plain_phases.plain_phases = true;
      Solver fast(s, exec());  // first order: the row step on the CPU; else tiles
      Solver plain(s, exec(), plain_phases);
      const double v0 = fast.totals().volume;
      fast.advance_to(6.0);
      plain.advance_to(6.0);
      // The muscl tile kernels in float32 on CUDA: fast math (approximate division and square
      // root) through the limiters, within swe_backends_test's float32 bounds.
      const bool fast_math = exec().is_cuda() && scheme == Scheme::muscl && p == Precision::f32;
      if (!fast_math) {
        EXPECT_EQ(fast.steps(), plain.steps());
      }
      const Fields a = fast.fields(), b = plain.fields();
      // CUDA: contraction, fast math in f32
      const double same = exec().is_cuda() ? (fast_math ? 1e-3 : 1e-5) : 0.0;
      EXPECT_TRUE(silt::test::all_near(a.h, b.h, same));
      EXPECT_TRUE(silt::test::all_near(a.hu, b.hu, same));
      const Totals t = fast.totals(), u = plain.totals();
      ASSERT_EQ(t.boundary_volume.size(), 3u);
      ASSERT_EQ(t.source_volume.size(), 2u);
      for (size_t k = 0; k < 3; ++k) {
        EXPECT_NEAR(t.boundary_volume[k], u.boundary_volume[k],
                    (fast_math ? 1e-4 : 1e-6) * (1 + std::abs(u.boundary_volume[k])));
      }
      EXPECT_GT(t.boundary_volume[0], 1.0);  // the discharge and the level beside nodata cells
      EXPECT_GT(std::abs(t.boundary_volume[1]), 0.1);
      // The inflow line passes its 0.7 m^3/s for 6 s; the balance closes.
      EXPECT_NEAR(t.source_volume[0], 4.2, 1e-5);
      const double flows = t.rain_volume + t.boundary_net_volume + t.source_net_volume;
      EXPECT_NEAR(t.net_inflow_volume, flows, 1e-5 * (1 + std::abs(flows)));
      const double tol = p == Precision::f32 ? 1e-4 : 1e-9;
      EXPECT_NEAR(t.volume - v0, t.net_inflow_volume - t.infiltrated_volume, tol * t.volume);
    }
}

// An inflow polygon over cells (10..11, 10..11) of the masked basin spreads 0.8 m^3/s evenly, 0.2
// into each: bit for bit the four cells as point sources of 0.2 m^3/s, on the row step (tile
// kernel) and the plain phases, first and second order; its volume is its series' integral.
TEST(SweSolver, AnInflowPolygonIsItsCellsAsPointSourcesOnEveryPath) {
  for (const Scheme scheme : {Scheme::first_order, Scheme::muscl})
    for (const Precision p : {Precision::f32, Precision::f64}) {
      Scene area = masked_basin(p);
      area.scheme = scheme;
      if (scheme == Scheme::muscl) area.cfl = 0.25;
      area.sources[1] = PointSource{"pond", 18, 20, scenes::constant_series(0.8), 2.0};
      area.sources[1].polygon = {{16, 18}, {20, 18}, {20, 22}, {16, 22}};
      Scene cells = area;
      cells.sources.resize(1);
      for (const double y : {19.0, 21.0})
        for (const double x : {17.0, 19.0})
          cells.sources.push_back(PointSource{"c", x, y, scenes::constant_series(0.2), 2.0});
      SolverOptions plain_phases;
      plain_phases.plain_phases = true;
      Solver fast(area, exec()), plain(area, exec(), plain_phases), points(cells, exec());
      for (Solver* s : {&fast, &plain, &points}) s->advance_to(6.0);
      EXPECT_EQ(fast.steps(), points.steps());
      const double same = exec().is_cuda() ? 1e-5 : 0.0;
      const Fields a = fast.fields(), b = plain.fields(), c = points.fields();
      EXPECT_TRUE(silt::test::all_near(a.h, c.h, same)) << "polygon against its cells";
      EXPECT_TRUE(silt::test::all_near(a.hv, c.hv, same));
      EXPECT_TRUE(silt::test::all_near(a.hc, c.hc, same));
      EXPECT_TRUE(silt::test::all_near(a.h, b.h, same)) << "row step against plain phases";
      const Totals t = fast.totals(), u = points.totals();
      ASSERT_EQ(t.source_volume.size(), 2u);
      EXPECT_NEAR(t.source_volume[1], 4.8, 1e-5);
      EXPECT_NEAR(t.source_volume[1],
                  u.source_volume[1] + u.source_volume[2] + u.source_volume[3] + u.source_volume[4],
                  1e-6);
      EXPECT_NEAR(t.source_net_volume, u.source_net_volume, 1e-6);
    }
}

TEST(SweSolver, DischargeFillsADryChannel) {
  // Q = 1.5 m^3/s enters a dry, closed channel for 8 s: exactly 12 m^3 end up in it.
  Scene s = make_scene("channel", 40, 4, 0.5, Precision::f64);
  s.boundaries = {
      Boundary{"q", Side::west, 0, 4, BoundaryKind::discharge, scenes::constant_series(1.5), 1.0}};
  Solver solver(s, exec());
  solver.advance_to(8.0);
  const Totals t = solver.totals();
  EXPECT_NEAR(t.volume, 12.0, 1e-10);
  EXPECT_NEAR(t.net_inflow_volume, 12.0, 1e-10);
  EXPECT_NEAR(t.pollutant_mass, 12.0, 1e-10);  // concentration 1 kg/m^3
  const Fields f = solver.fields();
  EXPECT_GT(f.h[0], 0.0);
  EXPECT_GT(f.hu[0], 0.0);
}

TEST(SweSolver, PointSourceAndRainAddTheirVolume) {
  Scene s = make_scene("rain", 10, 10, 1.0, Precision::f64);
  s.rainfall = scenes::constant_series(1e-3);
  s.sources = {PointSource{"tap", 4.5, 4.5, scenes::constant_series(0.25), 8.0}};
  Solver solver(s, exec());
  solver.advance_to(4.0);
  const Totals t = solver.totals();
  const double expected = 4.0 * (1e-3 * 100.0 + 0.25);
  EXPECT_NEAR(t.volume, expected, 1e-10);
  EXPECT_NEAR(t.net_inflow_volume, expected, 1e-10);
  EXPECT_NEAR(t.pollutant_mass, 4.0 * 0.25 * 8.0, 1e-10);
}

TEST(SweSolver, FrictionSlowsTheFlowWithoutReversingIt) {
  // Uniform 5 cm sheet moving at 2 m/s in a closed box with a rough bed: momentum decays.
  Scene s = make_scene("rough", 20, 20, 1.0, Precision::f64);
  s.depth.assign(s.depth.size(), 0.05);
  s.velocity_x.assign(s.depth.size(), 2.0);
  s.manning.assign(s.depth.size(), 0.1);
  Solver solver(s, exec());
  double previous = 2.0 * 0.05;
  for (double t : {0.2, 0.4, 0.8}) {
    solver.advance_to(t);
    const Fields f = solver.fields();
    const double centre = f.hu[size_t(10) * 20 + 10];
    EXPECT_GT(centre, 0.0) << "t = " << t;
    EXPECT_LT(centre, previous) << "t = " << t;
    previous = centre;
  }
}

// Water overtopping a 1.5 m bed step onto a dry, rough bank (river_spill.json's floodplain at
// t = 1250 s, in miniature): the positive flux sends films over the bank whose depth falls like
// h^(3/2) from cell to cell, down to where h^(4/3) underflows; Manning friction there must not
// turn 0 / 0 into a NaN. Both precisions, since the underflow depth differs.
Scene overtopped_step(Precision p) {
  Scene s = make_scene("step", 24, 1, 5.0, p);
  for_cells(s, [&](Index i, Index, double, double, size_t k) {
    s.bed[k] = i < 2 ? 0.0 : 1.5;
    s.depth[k] = i < 2 ? 1.501 : 0.0;  // 1 mm above the bank
  });
  s.manning.assign(s.depth.size(), 0.06);
  return s;
}

TEST(SweSolver, WettingOverABedStepWithFrictionStaysFinite) {
  for (const Precision p : {Precision::f32, Precision::f64}) {
    const Scene s = overtopped_step(p);
    Solver solver(s, exec());
    const double before = solver.totals().volume;
    ASSERT_NO_THROW(solver.advance_to(120.0)) << (p == Precision::f32 ? "float" : "double");
    const Fields f = solver.fields();
    for (size_t k = 0; k < f.h.size(); ++k) {
      EXPECT_TRUE(std::isfinite(f.hu[k]) && std::isfinite(f.hv[k])) << "cell " << k;
      EXPECT_GE(f.h[k], 0.0) << "cell " << k;
    }
    // Walls all round: the film stays in the box (float: a few ulps of the 15 m^3 per step).
    const double tol = p == Precision::f32 ? 1e-4 : 1e-10;
    EXPECT_NEAR(solver.totals().volume, before, tol * before);
  }
}

// advance_to sizes each batch from the last unclipped CFL step. Sized from the clipped step that
// landed on the previous target (as it was), a short interval queued up to a whole batch of
// no-op steps, each a full pass over the grid: ten calls of 10 s cost 5x one call of 100 s.
TEST(SweSolver, ShortAdvancesQueueFewStepsPastTheTarget) {
  const Scene s = dam_break_box(Precision::f64);
  Split one_part;
  one_part.execs = {exec()};
  one_part.this_process_only = true;
  const std::unique_ptr<detail::EngineBase> engine = detail::make_engine(s, one_part, {});
  constexpr int kCalls = 40;
  constexpr double kInterval = 0.3;  // s: a few CFL steps (~0.1 s) and a clipped remainder
  for (int k = 1; k <= kCalls; ++k)
    engine->advance_to(k * kInterval, {}, std::numeric_limits<double>::infinity());
  const detail::Clock c = engine->clock();
  EXPECT_DOUBLE_EQ(c[detail::kTime], kCalls * kInterval);
  // One spare step per batch, plus one more where the step grew within the interval.
  constexpr double kNoOpsPerCall = 2.0;
  EXPECT_LE(c[detail::kLaunched] - c[detail::kSteps], kNoOpsPerCall * kCalls);
  EXPECT_GT(c[detail::kCflDt], c[detail::kLastDt]) << "the last step was clipped to the target";
}

// The tile kernel is compiled per feature set and the launch picks the view's
// (detail::tile_features): a feature the view uses must switch its code on, or the CUDA step
// would silently skip it; one it does not use must leave it off (the plain wet step's speed).
TEST(SweSolver, TileKernelFeatureSetFollowsTheView) {
  detail::SolverView<float> v{};
  EXPECT_EQ(detail::tile_features(v), 0u) << "no rain raster, soil, flow boundary or source";
  const float frame[1] = {0.0f};
  v.forcing.rain_a = v.forcing.rain_b = frame;
  EXPECT_EQ(detail::tile_features(v), unsigned(detail::kTileForcing)) << "a rain raster";
  v.forcing.rain_a = v.forcing.rain_b = nullptr;
  for (int model : {kGreenAmpt, kHorton}) {
    v.forcing.model = model;
    EXPECT_EQ(detail::tile_features(v), unsigned(detail::kTileForcing)) << "infiltration " << model;
  }
  v.forcing.model = kNoInfiltration;
  v.n_flow_cells = 3;
  EXPECT_EQ(detail::tile_features(v), unsigned(detail::kTileFlowEdges));
  v.n_flow_cells = 0;
  v.n_sources = 1;
  EXPECT_EQ(detail::tile_features(v), unsigned(detail::kTileSources));
  v.n_flow_cells = 2;
  v.forcing.model = kHorton;
  EXPECT_EQ(detail::tile_features(v), detail::kTileFeatureSetsOf<float> - 1u)
      << "every float32 kernel instance";
  // The hazard fields: accumulated by the float64 kernel only (the float32 one keeps the pass).
  float speed[1] = {0.0f};
  v.hazard.max_speed = speed;
  v.hazard.params.fields = kHazardMaxSpeed;
  EXPECT_EQ(detail::tile_features(v), detail::kTileFeatureSetsOf<float> - 1u)
      << "no hazard bit in float32";
  detail::SolverView<double> d{};
  double dspeed[1] = {0.0};
  EXPECT_EQ(detail::tile_features(d), 0u);
  d.hazard.max_speed = dspeed;
  d.hazard.params.fields = kHazardMaxSpeed;
  EXPECT_EQ(detail::tile_features(d), unsigned(detail::kTileHazard)) << "hazard outputs";
  // The fields it accumulates decide, not max_speed: the arrival alone folds too.
  double dwet[1] = {-1.0};
  d.hazard.max_speed = nullptr;
  d.hazard.first_wet = dwet;
  d.hazard.params.fields = kHazardFirstWet;
  EXPECT_EQ(detail::tile_features(d), unsigned(detail::kTileHazard)) << "arrival only";
  d.n_flow_cells = 2;
  d.n_sources = 1;
  d.forcing.model = kHorton;
  EXPECT_EQ(detail::tile_features(d), detail::kTileFeatureSetsOf<double> - 1u)
      << "every float64 kernel instance";
}

// The tile kernel takes dt / dx and the uniform rain depth of a step from the clock (kDtDx,
// kRainDepth) instead of computing them per thread: they must be exactly what it computed.
TEST(SweSolver, ClockHoldsTheStepsDtOverDxAndRainDepth) {
  Scene s = make_scene("rain box", 20, 8, 0.3, Precision::f64);  // dt / 0.3 rounds
  s.depth.assign(s.depth.size(), 0.5);
  s.rainfall = scenes::constant_series(2.7e-5);
  Split one_part;
  one_part.execs = {exec()};
  one_part.this_process_only = true;
  const std::unique_ptr<detail::EngineBase> engine = detail::make_engine(s, one_part, {});
  for (int k = 0; k < 3; ++k) {
    engine->step();
    const detail::Clock c = engine->clock();
    ASSERT_GT(c[detail::kDt], 0.0);
    EXPECT_EQ(c[detail::kDtDx], c[detail::kDt] / 0.3) << "step " << k;
    EXPECT_EQ(c[detail::kRainDepth], c[detail::kRain] * c[detail::kDt]) << "step " << k;
    EXPECT_GT(c[detail::kRainDepth], 0.0);
  }
}

TEST(SweSolver, BatchSizeFromTheRemainingTimeAndTheCflStep) {
  using detail::batch_steps;
  EXPECT_EQ(batch_steps(10.0, 0.4, 256), 26);  // 25 steps and a spare
  EXPECT_EQ(batch_steps(1e3, 0.4, 256), 256);
  EXPECT_EQ(batch_steps(10.0, 0.0, 256), 1);  // no step yet: one, then ask again
  EXPECT_EQ(batch_steps(10.0, 1e-300, 256), 256);
  EXPECT_EQ(batch_steps(0.0, 0.4, 256), 1);
}

// Steps past the target carry the state and the wave speed over unchanged: the next step after
// advance_to(t) is the one that a run of plain steps to the same t takes.
TEST(SweSolver, StepsPastTheTargetChangeNothing) {
  const Scene s = dam_break_box(Precision::f64);
  Solver plain(s, exec()), landed(s, exec());
  for (int k = 0; k < 20; ++k) plain.step();
  landed.advance_to(plain.time());  // its batches end with no-op steps
  plain.step();
  landed.step();
  // The last landed step is clipped to plain.time(): the same step up to an ulp of t.
  constexpr double kClipRoundoff = 1e-12;
  EXPECT_NEAR(landed.last_dt(), plain.last_dt(), kClipRoundoff);
  EXPECT_LT(test::rel_l2(landed.fields().h, plain.fields().h), kClipRoundoff);
}

TEST(SweSolver, ProbeMatchesFields) {
  Solver solver(dam_break_box(Precision::f64), exec());
  solver.advance_to(2.0);
  const Fields f = solver.fields();
  const std::vector<Index> cells = {0, 19 + 3 * 40, 21 + 3 * 40, 319};
  const auto p = solver.probe(cells);
  ASSERT_EQ(p.size(), cells.size());
  for (size_t k = 0; k < cells.size(); ++k) {
    const size_t c = size_t(cells[k]);
    EXPECT_DOUBLE_EQ(p[k].h, f.h[c]);
    EXPECT_DOUBLE_EQ(p[k].u, f.hu[c] / f.h[c]);
    EXPECT_DOUBLE_EQ(p[k].c, f.hc[c] / f.h[c]);
  }
  EXPECT_THROW(solver.probe({320}), Error);
}

TEST(SweSolver, CollapsingTimeStepIsReportedWithCellAndStep) {
  Scene s = dam_break_box(Precision::f64);
  s.min_dt = 0.12;  // the CFL step is 0.144 s at rest and shrinks as the flow accelerates
  Solver solver(s, exec());
  EXPECT_TRUE(throws_with([&] { solver.advance_to(20.0); },
                          {"collapsing time step", "in cell (", "step ", "'box'"}));
  // The state of the last good check is kept: a valid time before the failure, finite fields.
  EXPECT_LT(solver.time(), 20.0);
  const Fields f = solver.fields();
  for (double h : f.h) ASSERT_TRUE(std::isfinite(h) && h >= 0);
}

TEST(SweSolver, NaNIsReported) {
  // Velocities of 1e30 m/s overflow float in the momentum flux.
  Scene s = dam_break_box(Precision::f32);
  s.velocity_x.assign(s.depth.size(), 1e30);
  s.min_dt = 0;
  Solver solver(s, exec());
  EXPECT_TRUE(throws_with([&] { solver.advance_to(1.0); }, {"NaN", "in cell (", "step 1,"}));
  EXPECT_EQ(solver.time(), 0.0);
  EXPECT_EQ(solver.steps(), 0);
}

TEST(SweSolver, FaultOfAStepIsReportedByTheNextAdvance) {
  Scene s = dam_break_box(Precision::f64);
  s.min_dt = 1.0;  // the first CFL step (0.144 s) already falls below it
  Solver solver(s, exec());
  solver.step();  // queued, does not wait
  EXPECT_EQ(solver.time(), 0.0);
  EXPECT_EQ(solver.steps(), 0);
  EXPECT_THROW(solver.advance_to(1.0), Error);
}

TEST(SweSolver, SceneErrorsNameTheProblem) {
  auto message = [](const Scene& s) {
    try {
      Solver solver(s, exec());
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  Scene s = dam_break_box(Precision::f64);
  s.depth.pop_back();
  EXPECT_NE(message(s).find("'depth' has 319 values"), std::string::npos) << message(s);
  s = dam_break_box(Precision::f64);
  s.depth[45] = -1;
  EXPECT_NE(message(s).find("cell (5, 1)"), std::string::npos) << message(s);
  s = dam_break_box(Precision::f64);
  s.boundaries = {Boundary{"a", Side::west, 0, 5, BoundaryKind::open, {}, 0},
                  Boundary{"b", Side::west, 4, 8, BoundaryKind::open, {}, 0}};
  EXPECT_NE(message(s).find("overlaps boundary 'a'"), std::string::npos) << message(s);
  s = dam_break_box(Precision::f64);
  s.boundaries = {Boundary{"q", Side::north, 0, 5, BoundaryKind::discharge, {}, 0}};
  EXPECT_NE(message(s).find("'q'"), std::string::npos) << message(s);
  s = dam_break_box(Precision::f64);
  s.sources = {PointSource{"far", 100, 1, scenes::constant_series(1), 0}};
  EXPECT_NE(message(s).find("outside the grid"), std::string::npos) << message(s);
  s = dam_break_box(Precision::f64);
  s.cfl = 0.9;
  EXPECT_NE(message(s).find("cfl"), std::string::npos) << message(s);
}

}  // namespace
}  // namespace silt::swe
