// The second-order scheme (physics.scheme = "muscl") through the solver: split runs against one
// part (bit for bit on the CPU: the same stages on the same values; halos of 2 to 5 layers, where
// one exchange serves one stage or more), the volume balance with every forcing, a lake at rest
// with islands, a uniform pollutant. On CUDA (label gpu) the same runs within kGpu, and the muscl
// tile kernels (muscl_tile.hpp) against the plain phases, their oracle.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "silt/swe/muscl_tile.hpp"
#include "silt/swe/solver.hpp"
#include "swe_scene_builder.hpp"
#include "test_support.hpp"

namespace silt::swe {
namespace {

using silt::test::exec;

// CUDA: the same functions on the same values; contraction (FMA) differs from the host and the
// order of two sources' atomic additions could; relative to the largest value of each field.
constexpr double kGpu = 1e-6;

Scene muscl(Scene s) {
  s.scheme = Scheme::muscl;
  s.cfl = 0.25;
  return s;
}

Split make_split(int parts, int halo, SplitShape shape) {
  Split s;
  s.halo = halo;
  s.shape = shape;
  for (int k = 0; k < parts; ++k) s.execs.push_back(exec());
  return s;
}

double largest(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

void expect_same(const std::vector<double>& a, const std::vector<double>& b, const char* field,
                 const std::string& what) {
  ASSERT_EQ(a.size(), b.size());
  if (!exec().is_cuda()) {
    size_t bad = 0, first = 0;
    for (size_t k = 0; k < b.size(); ++k)
      if (std::memcmp(&a[k], &b[k], sizeof(double)) != 0 && bad++ == 0) first = k;
    EXPECT_EQ(bad, 0u) << field << " " << what << ": " << bad << " cells differ, first " << first
                       << ": " << a[first] << " vs " << b[first];
    return;
  }
  EXPECT_TRUE(silt::test::all_near(a, b, kGpu * std::max(largest(b), 1e-12)))
      << field << " " << what;
}

TEST(SweOrder2, SplitRunsMatchOnePart) {
  // Discharge, level and open boundaries, rain, friction, a source and a sink, a pollutant.
  const Scene s = muscl(scenes::forced_basin(Precision::f64));
  Solver one(s, exec());
  one.advance_to(6.0);
  const Fields ref = one.fields();
  const Totals tref = one.totals();
  struct Case {
    int parts, halo;
    SplitShape shape;
  };
  for (const Case c : {Case{2, 1, SplitShape::strips}, Case{2, 2, SplitShape::strips},
                       Case{3, 3, SplitShape::blocks}, Case{4, 5, SplitShape::automatic}}) {
    const std::string what = std::to_string(c.parts) + " parts, halo " + std::to_string(c.halo);
    Solver split(s, make_split(c.parts, c.halo, c.shape));
    split.advance_to(6.0);
    EXPECT_EQ(split.steps(), one.steps()) << what;
    const Fields f = split.fields();
    expect_same(f.h, ref.h, "h", what);
    expect_same(f.hu, ref.hu, "hu", what);
    expect_same(f.hv, ref.hv, "hv", what);
    expect_same(f.hc, ref.hc, "hc", what);
    expect_same(f.max_depth, ref.max_depth, "max_depth", what);
    EXPECT_NEAR(split.totals().boundary_net_volume, tref.boundary_net_volume,
                1e-12 * std::abs(tref.boundary_net_volume))
        << what;
  }
}

TEST(SweOrder2, VolumeBalanceClosesWithEveryForcing) {
  // What entered through boundaries, sources and rain (the boundary volume as the mean of the two
  // stages' fluxes) is what the domain gained, to round-off.
  const Scene s = muscl(scenes::forced_basin(Precision::f64));
  Solver run(s, exec());
  const double v0 = run.totals().volume;
  run.advance_to(8.0);
  const Totals t = run.totals();
  const double residual = t.volume - v0 - t.net_inflow_volume;
  std::printf("muscl forced basin: volume %.6f m^3, net in %.6f m^3, residual %.3e m^3\n", t.volume,
              t.net_inflow_volume, residual);
  EXPECT_GT(std::abs(t.boundary_net_volume), 1.0);
  EXPECT_LE(std::abs(residual), 1e-10 * t.volume);
}

template <class T>
void lake_at_rest(Precision p, double tolerance) {
  // A surface at 1 m over a smooth bed with islands rising above it, walls all round, on one part
  // and on two (halo 2): no velocity appears beyond round-off.
  Scene s = muscl(scenes::make_scene("lake", 40, 30, 0.5, p));
  scenes::for_cells(s, [&](Index i, Index j, double x, double y, size_t k) {
    const bool island = (i >= 10 && i < 13 && j >= 8 && j < 11) || (i == 30 && j == 20);
    s.bed[k] = island ? 1.2 : 0.4 + 0.3 * std::sin(0.3 * x) * std::cos(0.2 * y);
    s.depth[k] = std::max(0.0, 1.0 - s.bed[k]);
  });
  for (int parts : {1, 2}) {
    Solver run(s, make_split(parts, 2, SplitShape::strips));
    run.advance_to(5.0);
    const Fields f = run.fields();
    double q = 0, dh = 0;
    for (size_t k = 0; k < f.h.size(); ++k) {
      q = std::max({q, std::abs(f.hu[k]), std::abs(f.hv[k])});
      dh = std::max(dh, std::abs(f.h[k] - s.depth[k]));
    }
    std::printf("lake at rest, %s, %d part(s), %lld steps: max |q| %.3e m^2/s, max |dh| %.3e m\n",
                p == Precision::f64 ? "float64" : "float32", parts, run.steps(), q, dh);
    EXPECT_GT(run.steps(), 50);
    EXPECT_LE(q, tolerance);
    EXPECT_LE(dh, tolerance);
  }
}
// Depths are 1 - z rounded: surface slopes of an ulp of 1 m, which the Roe dissipation turns into
// discharges of that order (float32: 6e-8 an ulp, over ~200 steps).
TEST(SweOrder2, LakeAtRestWithIslandsStaysAtRestFloat64) {
  lake_at_rest<double>(Precision::f64, 1e-12);
}
TEST(SweOrder2, LakeAtRestWithIslandsStaysAtRestFloat32) {
  lake_at_rest<float>(Precision::f32, 2e-5);
}

TEST(SweOrder2, UniformPollutantStaysUniform) {
  // A dam break over a bump carrying 0.3 kg/m^3 everywhere: the concentration's slopes are zero
  // and every face carries the same concentration, so it stays 0.3 wherever there is water.
  Scene s = muscl(scenes::make_scene("plume", 60, 20, 1.0, Precision::f64));
  scenes::for_cells(s, [&](Index, Index, double x, double y, size_t k) {
    s.bed[k] = 0.2 * std::exp(-((x - 35) * (x - 35) + (y - 10) * (y - 10)) / 20.0);
    s.depth[k] = x < 20 ? 1.0 : 0.1;
  });
  s.concentration.assign(s.depth.size(), 0.3);
  Solver run(s, exec());
  run.advance_to(4.0);
  const Fields f = run.fields();
  double worst = 0;
  for (size_t k = 0; k < f.h.size(); ++k)
    if (f.h[k] > 1e-3) worst = std::max(worst, std::abs(f.hc[k] / f.h[k] - 0.3));
  EXPECT_LE(worst, 1e-12);
}

// Rain on a dry V of two planes falling 5% toward a channel (scenes/rain_plane.json shrunk to 12 x
// 8 cells of 20 m, walls all round): the dry state bounds no step, so the first is as long as the
// speed floor allows (cfl dx / sqrt(g dry), 505 s). Stage 1 rains a film on every cell, and stage
// 2's fluxes on it ran at dt sqrt(g h) / dx ~ 6 (bound 0.25): a negative depth in step 1
// (docs/NOTES.md, "muscl positivity on rain_plane"). The step must bound the rain column's speed.
// Uniform rain (a series) and rasters (two frames, varying in x), one part and three.
Scene rain_on_dry_v(bool raster) {
  Scene s = muscl(scenes::make_scene("rain_v", 12, 8, 20.0, Precision::f32));
  scenes::for_cells(s, [&](Index, Index, double x, double y, size_t k) {
    s.bed[k] = x > 100 && x < 140 ? 0.02 * y : 0.5 + 0.05 * std::abs(x - 120) + 0.02 * y;
  });
  s.manning.assign(s.bed.size(), 0.03);
  const double mm_h = 1e-3 / 3600;
  if (!raster) {
    s.rainfall = scenes::constant_series(40 * mm_h);
    return s;
  }
  s.rain.t = {0.0, 600.0};
  for (double base : {10.0, 60.0}) {
    std::vector<double> rate(s.bed.size());
    scenes::for_cells(
        s, [&](Index, Index, double x, double, size_t k) { rate[k] = (base + 0.1 * x) * mm_h; });
    s.rain.rate.push_back(rate);
  }
  return s;
}

TEST(SweOrder2, RainOnADryPlaneKeepsDepthsPositive) {
  for (const bool raster : {false, true})
    for (const int parts : {1, 3}) {
      const Scene s = rain_on_dry_v(raster);
      const std::string what = std::string(raster ? "rain rasters" : "uniform rain") + ", " +
                               std::to_string(parts) + " part(s)";
      Solver run(s, make_split(parts, 2, SplitShape::strips));
      const double v0 = run.totals().volume;
      try {
        run.advance_to(900.0);
      } catch (const std::exception& e) {
        ADD_FAILURE() << what << ": " << e.what();
        continue;
      }
      const Fields f = run.fields();
      const Totals t = run.totals();
      double lowest = 0;
      for (double h : f.h) lowest = std::min(lowest, h);
      std::printf("rain on a dry V, %s: %lld steps, min h %.3e m, volume %.4f m^3, rain %.4f m^3\n",
                  what.c_str(), run.steps(), lowest, t.volume, t.net_inflow_volume);
      EXPECT_GT(run.steps(), 2) << what;
      EXPECT_GE(lowest, 0.0) << what;
      EXPECT_GT(t.volume, 0.0) << what;
      EXPECT_LE(std::abs(t.volume - v0 - t.net_inflow_volume), 1e-4 * t.volume) << what;
    }
}

// The forced basin (a wet/dry front, discharge, level and open boundaries, rain, Manning friction,
// a source and a sink, a pollutant) as the tile kernels' cases: with point sources (the final
// stage leaves the CFL speed to the plain phase), without them (the final stage reduces it), on
// Green-Ampt soil (infiltration in the final stage), and finer (120 x 80, tiles away from the
// domain's edge all active) with an inactive block inside (edges beside it take the boundary
// flux).
Scene tile_case(int which, Precision p) {
  Scene s = muscl(which == 3 ? scenes::forced_basin(p, 120, 80) : scenes::forced_basin(p));
  if (which == 1 || which == 3) s.sources.clear();
  if (which == 2) {
    s.infiltration.model = InfiltrationModel::green_ampt;
    s.infiltration.a.assign(s.bed.size(), 1e-5);         // Ks, m/s
    s.infiltration.b.assign(s.bed.size(), 0.11 * 0.30);  // psi dtheta, m
  }
  if (which == 3) {
    s.active.assign(s.bed.size(), 1);
    scenes::for_cells(s, [&](Index i, Index j, double, double, size_t k) {
      if (i >= 70 && i < 76 && j >= 40 && j < 47) s.active[k] = 0;
    });
  }
  return s;
}

// A muscl scene steps by tiles (the CUDA kernels, or the same tiles on the host) unless
// SolverOptions::plain_phases selects the plain phases. Both call the same functions
// (muscl_edges.hpp, muscl_cell.hpp) on the same values: on the CPU every field matches bit for
// bit; on CUDA float64 differs by contraction only (as the first order's
// FusedKernelMatchesThePlainPath allows) and float32's tile kernels use fast math (approximate
// division and square root), as the first order's, whose CUDA test allows ~100 ulp of the depths.
TEST(SweOrder2, TileKernelsMatchThePlainPhases) {
  const bool cuda = exec().is_cuda();
  SolverOptions plain_phases;
  plain_phases.plain_phases = true;
  for (const Precision p : {Precision::f64, Precision::f32})
    for (int which = 0; which < 4; ++which) {
      const Scene s = tile_case(which, p);
      const std::string what =
          "case " + std::to_string(which) + (p == Precision::f64 ? ", float64" : ", float32");
      const std::uint64_t launches = detail::muscl_tile_launch_count();
      Solver tile(s, exec());
      Solver plain(s, exec(), plain_phases);
      EXPECT_NE(tile.layout().find("muscl tile"), std::string::npos) << tile.layout();
      const double v0 = tile.totals().volume;
      const double t_end = which == 3 ? 3.0 : 6.0;
      tile.advance_to(t_end);
      EXPECT_GE(detail::muscl_tile_launch_count() - launches, 2 * std::uint64_t(tile.steps()))
          << what << ": two tile launches a step";
      const std::uint64_t after = detail::muscl_tile_launch_count();
      plain.advance_to(t_end);
      EXPECT_EQ(detail::muscl_tile_launch_count(), after) << what << ": the plain phases ran tiles";
      if (p == Precision::f64 || !cuda) {
        EXPECT_EQ(tile.steps(), plain.steps()) << what;
      }
      const Fields a = tile.fields(), b = plain.fields();
      const double tol_h = !cuda ? 0.0 : p == Precision::f64 ? 1e-10 : 1e-3;
      const double tol_q = !cuda ? 0.0 : p == Precision::f64 ? 1e-10 : 2e-3;
      double dh = 0, dq = 0, dc = 0, dm = 0;
      for (size_t k = 0; k < b.h.size(); ++k) {
        dh = std::max(dh, std::abs(a.h[k] - b.h[k]));
        dq = std::max({dq, std::abs(a.hu[k] - b.hu[k]), std::abs(a.hv[k] - b.hv[k])});
        dc = std::max(dc, std::abs(a.hc[k] - b.hc[k]));
        dm = std::max(dm, std::abs(a.max_depth[k] - b.max_depth[k]));
      }
      const Totals t = tile.totals(), u = plain.totals();
      std::printf(
          "muscl tile vs plain, %s: steps %lld / %lld; max |dh| %.3e m, |dq| %.3e m^2/s, "
          "|dhc| %.3e kg/m^2, |d max depth| %.3e m; net in %.9f / %.9f m^3\n",
          what.c_str(), tile.steps(), plain.steps(), dh, dq, dc, dm, t.net_inflow_volume,
          u.net_inflow_volume);
      EXPECT_LE(dh, tol_h) << what;
      EXPECT_LE(dq, tol_q) << what;
      EXPECT_LE(dc, tol_q) << what;
      EXPECT_LE(dm, tol_h) << what;
      EXPECT_NEAR(t.net_inflow_volume, u.net_inflow_volume,
                  (p == Precision::f64 ? 1e-9 : 1e-4) * (1 + std::abs(u.net_inflow_volume)))
          << what;
      EXPECT_NEAR(t.infiltrated_volume, u.infiltrated_volume,
                  (p == Precision::f64 ? 1e-9 : 1e-4) * (1 + u.infiltrated_volume))
          << what;
      // The tile path's own balance: the volume gained is what came in less what infiltrated.
      EXPECT_LE(std::abs(t.volume - v0 - (t.net_inflow_volume - t.infiltrated_volume)),
                (p == Precision::f64 ? 1e-10 : 1e-4) * t.volume)
          << what;
      EXPECT_GT(std::abs(u.boundary_net_volume), 0.1) << what << ": the boundaries did something";
    }
}

}  // namespace
}  // namespace silt::swe
