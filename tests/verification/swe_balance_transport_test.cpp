// Verification of well-balancing (a lake at rest around dry islands stays at rest) and of pollutant
// transport (a uniform concentration stays uniform; a patch carried by a uniform flow keeps its
// mass and its bounds and moves with the flow; a closed basin keeps its water and pollutant).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "silt/swe/solver.hpp"
#include "swe_scene_builder.hpp"
#include "test_support.hpp"

namespace silt::swe {
namespace {

constexpr double kEta = 1.0;  // m, lake surface

// A 60 x 40 basin (dx = 0.5 m) with a wavy bed and three Gaussian hills rising above the surface:
// dry islands, wet/dry edges and bed slopes everywhere.
double bumpy_bed(double x, double y) {
  auto hill = [](double x, double y, double xc, double yc, double r, double top) {
    return top * std::exp(-((x - xc) * (x - xc) + (y - yc) * (y - yc)) / (r * r));
  };
  return 0.2 + 0.15 * std::sin(0.7 * x) * std::cos(0.5 * y) + hill(x, y, 8, 10, 2.5, 1.3) +
         hill(x, y, 20, 6, 1.5, 1.1) + hill(x, y, 22, 15, 3.0, 0.95);
}

Scene lake(Precision p) {
  Scene s = scenes::make_scene("lake", 60, 40, 0.5, p);
  scenes::for_cells(s, [&](Index, Index, double x, double y, size_t k) {
    s.bed[k] = bumpy_bed(x, y);
    s.depth[k] = std::max(0.0, kEta - s.bed[k]);
  });
  return s;
}

struct Rest {
  double max_speed = 0;  // m/s over wet cells
  double max_dh = 0;     // m
  long long steps = 0;
  int dry_cells = 0;
};

Rest run_lake(Precision p, double t_end) {
  const Scene s = lake(p);
  Solver solver(s, silt::test::exec());
  solver.advance_to(t_end);
  const Fields f = solver.fields();
  Rest r;
  r.steps = solver.steps();
  for (size_t k = 0; k < f.h.size(); ++k) {
    r.dry_cells += s.depth[k] == 0;
    r.max_dh = std::max(r.max_dh, std::abs(f.h[k] - s.depth[k]));
    if (f.h[k] > s.dry_depth)
      r.max_speed = std::max({r.max_speed, std::abs(f.hu[k] / f.h[k]), std::abs(f.hv[k] / f.h[k])});
  }
  std::printf("| lake at rest, %s | %lld steps | max |u|, |v| %.2e m/s | max |dh| %.2e m |\n",
              p == Precision::f64 ? "float64" : "float32", r.steps, r.max_speed, r.max_dh);
  return r;
}

TEST(SweVerification, LakeAtRestWithDryIslandsDouble) {
  const Rest r = run_lake(Precision::f64, 120.0);
  EXPECT_GT(r.steps, 1500);
  EXPECT_GT(r.dry_cells, 50);  // the islands are there
  // Depths are kEta - z rounded to double, so the surface is flat to ~1e-16 m; the scheme is
  // exactly well-balanced for a flat surface and only that round-off moves. Measured after 1628
  // steps: 1.1e-14 m/s, 3.3e-16 m.
  constexpr double kRoundoffSpeed = 1e-13, kRoundoffDepth = 1e-13;
  EXPECT_LT(r.max_speed, kRoundoffSpeed);
  EXPECT_LT(r.max_dh, kRoundoffDepth);
}

TEST(SweVerification, LakeAtRestWithDryIslandsFloat) {
  const Rest r = run_lake(Precision::f32, 120.0);
  // In float the surface is flat to ~1e-7 m (depth and bed rounded separately); the largest
  // velocities appear in the thinnest wet cells at the island shores. Measured after 1628 steps:
  // 5.0e-6 m/s, 1.7e-7 m.
  constexpr double kRoundoffSpeed = 2e-5, kRoundoffDepth = 1e-6;
  EXPECT_LT(r.max_speed, kRoundoffSpeed);
  EXPECT_LT(r.max_dh, kRoundoffDepth);
}

TEST(SweVerification, UniformConcentrationStaysUniform) {
  // The lake's surface tilted by 0.6 m: water sloshes over the bumps and islands, wetting and
  // drying, all with C = 0.8 kg/m^3.
  Scene s = lake(Precision::f64);
  constexpr double kC = 0.8;
  s.concentration.assign(s.depth.size(), kC);
  scenes::for_cells(s, [&](Index, Index, double x, double, size_t k) {
    s.depth[k] = std::max(0.0, kEta + 0.02 * (15 - x) - s.bed[k]);
  });
  Solver solver(s, silt::test::exec());
  solver.advance_to(10.0);
  const Fields f = solver.fields();
  double worst = 0;
  int wet = 0;
  for (size_t k = 0; k < f.h.size(); ++k) {
    if (f.h[k] <= 1e-4) continue;  // thin films: C = hC / h of two tiny numbers
    ++wet;
    worst = std::max(worst, std::abs(f.hc[k] / f.h[k] - kC));
  }
  std::printf("| uniform C = %.1f, 10 s of sloshing | %d wet cells | max |C - %.1f| %.2e |\n", kC,
              wet, kC, worst);
  EXPECT_GT(wet, 1500);
  constexpr double kRoundoffC = 1e-12;  // hC and h updated by the same fluxes times C
  EXPECT_LT(worst, kRoundoffC);
}

TEST(SweVerification, PollutantPatchInUniformFlow) {
  // 1 m deep channel, 200 m x 4 m, flowing at 1 m/s: 4 m^3/s enter on the west (clean), the east
  // is open. A patch of C = 1 on 20 m < x < 40 m is carried 60 m downstream.
  Scene s = scenes::make_scene("patch", 200, 4, 1.0, Precision::f64);
  s.depth.assign(s.depth.size(), 1.0);
  s.velocity_x.assign(s.depth.size(), 1.0);
  s.concentration.assign(s.depth.size(), 0.0);
  double x0 = 0, m0 = 0;
  scenes::for_cells(s, [&](Index, Index, double x, double, size_t k) {
    if (x > 20 && x < 40) s.concentration[k] = 1.0;
    m0 += s.concentration[k];
    x0 += x * s.concentration[k];
  });
  x0 /= m0;
  s.boundaries = {
      Boundary{"in", Side::west, 0, 4, BoundaryKind::discharge, scenes::constant_series(4.0), 0},
      Boundary{"out", Side::east, 0, 4, BoundaryKind::open, Series{}, 0}};
  Solver solver(s, silt::test::exec());
  const double mass0 = solver.totals().pollutant_mass;
  constexpr double kTravel = 60.0;  // s at 1 m/s
  solver.advance_to(kTravel);
  const Fields f = solver.fields();
  double mass = 0, x1 = 0, cmin = 1e300, cmax = -1e300, flow = 0;
  scenes::for_cells(s, [&](Index, Index, double x, double, size_t k) {
    const double c = f.hc[k] / f.h[k];
    cmin = std::min(cmin, c);
    cmax = std::max(cmax, c);
    mass += f.hc[k];
    x1 += x * f.hc[k];
    flow = std::max({flow, std::abs(f.h[k] - 1.0), std::abs(f.hu[k] - 1.0), std::abs(f.hv[k])});
  });
  x1 /= mass;
  const double rel_mass = std::abs(solver.totals().pollutant_mass - mass0) / mass0;
  std::printf(
      "| patch in uniform flow, 60 s | mass change %.2e (relative) | C in [%.2e, 1 + %.2e] | "
      "centroid moved %.4f m (exact 60) |\n",
      rel_mass, cmin, cmax - 1, x1 - x0);
  constexpr double kRoundoff = 1e-12;
  EXPECT_LT(flow, kRoundoff) << "the flow stays uniform";
  EXPECT_LT(rel_mass, kRoundoff);
  EXPECT_GE(cmin, -kRoundoff);
  EXPECT_LE(cmax, 1 + kRoundoff);
  EXPECT_LT(cmax, 0.99);  // first-order upwinding smears the patch: the test can see transport
  // Upwinding moves the centroid at the flow speed (the numerical diffusion is symmetric).
  constexpr double kCentroid = 0.05;  // m
  EXPECT_NEAR(x1 - x0, kTravel, kCentroid);
}

TEST(SweVerification, ClosedBasinKeepsWaterAndPollutant) {
  // A dam break over the bumpy bed, islands included, in a closed basin for 30 s (many reflections,
  // wetting and drying), with a pollutant patch behind the dam.
  for (Precision p : {Precision::f64, Precision::f32}) {
    Scene s = lake(p);
    s.concentration.assign(s.depth.size(), 0.0);
    scenes::for_cells(s, [&](Index, Index, double x, double y, size_t k) {
      s.depth[k] = std::max(0.0, (x < 5 ? 1.8 : 0.6) - s.bed[k]);
      if (x < 5 && y > 10) s.concentration[k] = 3.0;
    });
    Solver solver(s, silt::test::exec());
    const Totals t0 = solver.totals();
    solver.advance_to(30.0);
    const Totals t1 = solver.totals();
    const double dv = std::abs(t1.volume - t0.volume) / t0.volume;
    const double dm = std::abs(t1.pollutant_mass - t0.pollutant_mass) / t0.pollutant_mass;
    std::printf(
        "| closed basin, %s, 30 s, %lld steps | volume change %.2e | pollutant change %.2e |\n",
        p == Precision::f64 ? "float64" : "float32", solver.steps(), dv, dm);
    // Sums of ~2400 cell updates per step, ~2000 steps: round-off of the type.
    const double tolerance = p == Precision::f64 ? 1e-12 : 1e-4;
    EXPECT_LT(dv, tolerance);
    EXPECT_LT(dm, tolerance);
  }
}

}  // namespace
}  // namespace silt::swe
