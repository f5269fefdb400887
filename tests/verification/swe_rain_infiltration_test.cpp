// Rain rasters and infiltration (swe/kernels/infiltration_k.hpp, swe/forcing.hpp) through the
// solver, on the CPU (label verification) and on CUDA (label gpu):
//   - Green-Ampt, ponded, against its analytic curve F - P ln(1 + F / P) = Ks t: error norm and
//     observed order in dt; Horton against its closed form;
//   - infiltration limited by the water in the cell (never a negative depth);
//   - rain rasters varying in space and time in a closed box: stored = rain in to round-off, and
//     rain in = the integral of the frames (linear and piecewise constant in time);
//   - the row step and the tile kernel against the plain phases, split runs against one part,
//     a restart from state() against the run it continues (bit for bit on the CPU), and on CUDA
//     the tile kernel against the CPU.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "silt/core/error.hpp"
#include "silt/swe/solver.hpp"
#include "swe_scene_builder.hpp"
#include "test_support.hpp"

namespace silt::swe {
namespace {

using silt::test::exec;
using silt::test::on_gpu;

constexpr double kMmH = 1e-3 / 3600.0;  // m/s per mm/h

// Ponded Green-Ampt: F(t) from F - P ln(1 + F / P) = Ks t (Newton, from above the root).
double green_ampt_exact(double t, double ks, double p) {
  double f = std::max(std::sqrt(2.0 * p * ks * t), ks * t) + p;
  for (int k = 0; k < 100; ++k) {
    const double g = f - p * std::log1p(f / p) - ks * t;
    f -= g / (1.0 - p / (p + f));
  }
  return f;
}

// A closed, flat box of 4 x 4 cells of 1 km with 1 m of water (ponded for hours: the CFL step,
// ~143 s, is above every max_dt used) on uniform soil.
Scene ponded_box(InfiltrationModel model, double max_dt) {
  Scene s = scenes::make_scene("ponded", 4, 4, 1000.0, Precision::f64);
  std::fill(s.depth.begin(), s.depth.end(), 1.0);
  s.max_dt = max_dt;
  s.infiltration.model = model;
  const size_t n = s.depth.size();
  if (model == InfiltrationModel::green_ampt) {
    s.infiltration.a.assign(n, 1e-5);         // Ks, m/s (36 mm/h)
    s.infiltration.b.assign(n, 0.11 * 0.30);  // psi dtheta: 0.11 m x (0.43 - 0.13)
  } else {
    s.infiltration.a.assign(n, 10 * kMmH);   // fc
    s.infiltration.b.assign(n, 80 * kMmH);   // f0
    s.infiltration.c.assign(n, 4.0 / 3600);  // k, 1/s
  }
  return s;
}

double infiltrated_depth(const Solver& s) {
  const Grid& g = s.scene().grid;
  return s.totals().infiltrated_volume / (double(g.cells()) * g.dx * g.dx);
}

TEST(SweInfiltration, GreenAmptFollowsItsAnalyticCurve) {
  // Max error over the samples at 600 s, 1200 s, ... 3600 s, for halving steps. The implicit
  // midpoint is second order where F is smooth; the curve starts like sqrt(2 P Ks t), whose
  // unbounded derivatives at t = 0 bring the observed order to ~1.4-1.5 (measured: errors 2.5e-4,
  // 1.2e-4, 4.5e-5, 1.7e-5, 6.2e-6 m for dt = 240 ... 15 s).
  constexpr double kMinOrder = 1.3;
  constexpr double kMaxErrorAt30s = 2.5e-5;  // m, of F(3600 s) = 0.0752 m
  const double ks = 1e-5, p = 0.11 * 0.30;
  std::vector<double> errors;
  const std::vector<double> dts = {120.0, 60.0, 30.0, 15.0};
  for (double dt : dts) {
    Solver s(ponded_box(InfiltrationModel::green_ampt, dt), exec());
    double err = 0;
    for (double t = 600; t <= 3600; t += 600) {
      s.advance_to(t);
      err = std::max(err, std::abs(infiltrated_depth(s) - green_ampt_exact(t, ks, p)));
    }
    errors.push_back(err);
    // Ponded all along: the depth is what infiltrated short of 1 m.
    EXPECT_NEAR(s.fields().h[5], 1.0 - infiltrated_depth(s), 1e-12) << "dt " << dt;
  }
  for (size_t k = 1; k < errors.size(); ++k) {
    const double order = std::log2(errors[k - 1] / errors[k]);
    std::printf("Green-Ampt dt %5.1f s: max error %.3e m, observed order %.3f\n", dts[k], errors[k],
                order);
    EXPECT_GT(order, kMinOrder) << "dt " << dts[k];
  }
  EXPECT_LT(errors[2], kMaxErrorAt30s);
}

TEST(SweInfiltration, HortonFollowsItsClosedForm) {
  // Ponded, each step takes F(tp + dt) - F(tp) of the closed form: exact up to round-off.
  constexpr double kTolerance = 1e-12;  // relative
  const double fc = 10 * kMmH, f0 = 80 * kMmH, k = 4.0 / 3600;
  for (double dt : {90.0, 7.0}) {
    Solver s(ponded_box(InfiltrationModel::horton, dt), exec());
    for (double t = 900; t <= 7200; t += 900) {
      s.advance_to(t);
      const double exact = fc * t + (f0 - fc) / k * (1.0 - std::exp(-k * t));
      EXPECT_NEAR(infiltrated_depth(s), exact, kTolerance * exact) << "dt " << dt << ", t " << t;
    }
  }
}

TEST(SweInfiltration, TakesNoMoreThanTheCellHolds) {
  // 1 mm of water on soil that would take ~4 mm in the first 10 s step: the cells empty, F holds
  // exactly the water there was, no depth goes negative (a fault would throw).
  for (Precision p : {Precision::f64, Precision::f32}) {
    Scene s = ponded_box(InfiltrationModel::green_ampt, 10.0);
    s.precision = p;
    std::fill(s.depth.begin(), s.depth.end(), 1e-3);
    Solver solver(s, exec());
    solver.advance_to(100.0);
    const Fields f = solver.fields();
    const double tol = p == Precision::f64 ? 1e-15 : 1e-9;
    for (size_t c = 0; c < f.h.size(); ++c) {
      EXPECT_EQ(f.h[c], 0.0) << c;
      EXPECT_NEAR(f.infiltration[c], double(p == Precision::f64 ? 1e-3 : double(float(1e-3))), tol)
          << c;
    }
    EXPECT_NEAR(solver.totals().infiltrated_volume, 16 * 1e6 * 1e-3, 16e6 * tol);
  }
}

// Rain frames at t = 0, 120 and 300 s varying in space: rates r_k (1 + 0.5 sin(x / 20 m)
// cos(y / 15 m)) with r = 60, 150, 20 mm/h.
RainRaster storm(const Scene& s, bool step) {
  RainRaster r;
  r.t = {0.0, 120.0, 300.0};
  r.step = step;
  for (double base : {60.0, 150.0, 20.0}) {
    std::vector<double> f(size_t(s.grid.cells()));
    scenes::for_cells(s, [&](Index, Index, double x, double y, size_t k) {
      f[k] = base * kMmH * (1.0 + 0.5 * std::sin(x / 20.0) * std::cos(y / 15.0));
    });
    r.rate.push_back(f);
    r.source.push_back("test");
  }
  return r;
}

// The rain volume of the frames over [0, t_end] on the active cells (rates as stored in T).
double storm_volume(const Scene& s, double t_end) {
  const RainRaster& r = s.rain;
  const bool f32 = s.precision == Precision::f32;
  const auto rate = [&](size_t k, size_t c) {
    return f32 ? double(float(r.rate[k][c])) : r.rate[k][c];
  };
  double v = 0;
  for (size_t c = 0; c < size_t(s.grid.cells()); ++c) {
    if (!s.active.empty() && !s.active[c]) continue;
    for (size_t k = 0; k + 1 < r.t.size(); ++k) {
      const double dt = std::min(t_end, r.t[k + 1]) - r.t[k];
      if (dt <= 0) break;
      const double end =
          r.step ? rate(k, c)
                 : rate(k, c) + (rate(k + 1, c) - rate(k, c)) * dt / (r.t[k + 1] - r.t[k]);
      v += (r.step ? rate(k, c) : 0.5 * (rate(k, c) + end)) * dt;
    }
    if (t_end > r.t.back()) v += rate(r.t.size() - 1, c) * (t_end - r.t.back());
  }
  return v * s.grid.dx * s.grid.dx;
}

TEST(SweRain, ClosedBoxStoresWhatRained) {
  for (Precision p : {Precision::f64, Precision::f32}) {
    for (bool step : {false, true}) {
      Scene s = scenes::make_scene("box", 24, 16, 5.0, p);
      scenes::for_cells(
          s, [&](Index, Index, double x, double y, size_t k) { s.bed[k] = 0.01 * x + 0.004 * y; });
      s.manning.assign(s.bed.size(), 0.03);
      s.rain = storm(s, step);
      Solver solver(s, exec());
      const std::string what =
          std::string(p == Precision::f64 ? "double" : "float") + (step ? ", step" : ", linear");
      // Round-off: of the summed depths (float: ~1e-7 per cell update) and of the rain sums.
      const double tol = p == Precision::f64 ? 1e-12 : 2e-5;
      for (double t : {60.0, 200.0, 400.0}) {
        solver.advance_to(t);
        const Totals tot = solver.totals();
        const double expected = storm_volume(s, t);
        EXPECT_NEAR(tot.rain_volume, expected, tol * expected) << what << ", t " << t;
        EXPECT_NEAR(tot.volume, tot.rain_volume, tol * expected) << what << ", t " << t;
        EXPECT_EQ(tot.net_inflow_volume, tot.rain_volume) << what;
      }
    }
  }
}

// A tilted plane draining west through an open boundary, under the storm, on Green-Ampt soil
// whose conductivity varies across it.
Scene plane(Precision p) {
  Scene s = scenes::make_scene("plane", 24, 18, 5.0, p);
  scenes::for_cells(s, [&](Index i, Index, double x, double y, size_t k) {
    s.bed[k] = 0.02 * x + 0.003 * y;
    s.depth[k] = x < 20 ? 0.05 : 0.0;
    (void)i;
  });
  s.manning.assign(s.bed.size(), 0.03);
  s.boundaries.push_back(
      Boundary{"outlet", Side::west, 0, s.grid.ny, BoundaryKind::open, Series{}, 0.0});
  s.rain = storm(s, false);
  s.infiltration.model = InfiltrationModel::green_ampt;
  const size_t n = s.bed.size();
  s.infiltration.a.resize(n);
  s.infiltration.b.assign(n, 0.11 * 0.3);
  scenes::for_cells(s, [&](Index i, Index j, double, double, size_t k) {
    s.infiltration.a[k] = (5.0 + 10.0 * double((i + 2 * j) % 3)) * kMmH;
  });
  return s;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b, std::string& where) {
  if (a.size() != b.size()) {
    where = "sizes differ";
    return false;
  }
  for (size_t k = 0; k < a.size(); ++k)
    if (std::memcmp(&a[k], &b[k], sizeof(double)) != 0) {
      where =
          "cell " + std::to_string(k) + ": " + std::to_string(a[k]) + " vs " + std::to_string(b[k]);
      return false;
    }
  return true;
}

// On the CPU bit for bit; on CUDA (tile kernel with fast float math, atomic sums) within
// kGpuTolerance of each field's largest value.
constexpr double kGpuTolerance = 2e-4;

void expect_same(const Solver& a, const Solver& b, const std::string& what, bool exact) {
  const Fields fa = a.fields(), fb = b.fields();
  const std::vector<const std::vector<double>*> xa = {&fa.h, &fa.hu, &fa.hv, &fa.infiltration,
                                                      &fa.max_depth};
  const std::vector<const std::vector<double>*> xb = {&fb.h, &fb.hu, &fb.hv, &fb.infiltration,
                                                      &fb.max_depth};
  const char* names[] = {"h", "hu", "hv", "infiltration", "max_depth"};
  for (size_t f = 0; f < xa.size(); ++f) {
    if (exact) {
      std::string where;
      EXPECT_TRUE(same_bits(*xa[f], *xb[f], where)) << what << ": " << names[f] << " " << where;
    } else {
      double m = 1e-12;
      for (double v : *xb[f]) m = std::max(m, std::abs(v));
      EXPECT_TRUE(silt::test::all_near(*xa[f], *xb[f], kGpuTolerance * m))
          << what << ": " << names[f];
    }
  }
  const Totals ta = a.totals(), tb = b.totals();
  const double tol = exact ? 1e-12 : kGpuTolerance;
  EXPECT_NEAR(ta.rain_volume, tb.rain_volume, tol * tb.rain_volume) << what;
  EXPECT_NEAR(ta.infiltrated_volume, tb.infiltrated_volume, tol * tb.infiltrated_volume) << what;
}

TEST(SweRain, PlaneBalancesRainInfiltrationAndOutflow) {
  for (Precision p : {Precision::f64, Precision::f32}) {
    Solver s(plane(p), exec());
    const double v0 = s.totals().volume;
    s.advance_to(400.0);
    const Totals t = s.totals();
    EXPECT_GT(t.infiltrated_volume, 0.1 * t.rain_volume);
    EXPECT_LT(t.net_inflow_volume, t.rain_volume);  // water left through the outlet
    const double residual = (t.volume - v0) - (t.net_inflow_volume - t.infiltrated_volume);
    EXPECT_NEAR(residual, 0.0, (p == Precision::f64 ? 1e-11 : 2e-5) * t.rain_volume);
  }
}

TEST(SweRain, OnePassPathsMatchThePlainPhases) {
  // The row step (CPU) or the tile kernel (CUDA) against the plain phases, the oracle.
  for (Precision p : {Precision::f64, Precision::f32}) {
    SolverOptions plain;
    plain.plain_phases = true;
    Solver a(plane(p), exec()), b(plane(p), exec(), plain);
    for (double t : {130.0, 400.0}) {
      a.advance_to(t);
      b.advance_to(t);
      expect_same(
          a, b,
          std::string(p == Precision::f64 ? "double" : "float") + " at t " + std::to_string(t),
          !exec().is_cuda());
    }
  }
}

Split parts_of(int n, int halo, SplitShape shape) {
  Split s;
  s.halo = halo;
  s.shape = shape;
  const int devices = std::max(1, cuda_device_count());
  for (int k = 0; k < n; ++k)
    s.execs.push_back(exec().is_cuda() ? Exec::cuda(k % devices) : Exec::host());
  return s;
}

TEST(SweRain, SplitRunsMatchOnePart) {
  struct Case {
    int parts, halo;
    SplitShape shape;
  };
  for (const Case& c : {Case{3, 1, SplitShape::strips}, Case{4, 2, SplitShape::blocks},
                        Case{2, 3, SplitShape::strips}}) {
    for (Precision p : {Precision::f64, Precision::f32}) {
      Solver one(plane(p), exec());
      Solver split(plane(p), parts_of(c.parts, c.halo, c.shape));
      for (double t : {100.0, 400.0}) {
        one.advance_to(t);
        split.advance_to(t);
        expect_same(
            split, one,
            split.layout() + ", halo " + std::to_string(c.halo) + ", t " + std::to_string(t),
            !exec().is_cuda());
      }
    }
  }
}

TEST(SweRain, RestartContinuesBitForBit) {
  // Both runs stop at 150 s (a stop clips a step); the second continues from state() in a new
  // solver, on another part count.
  for (Precision p : {Precision::f64, Precision::f32}) {
    const Scene s = plane(p);
    Solver a(s, exec());
    a.advance_to(150.0);
    const RestartState mid = a.state();
    a.advance_to(400.0);
    Solver b(s, parts_of(2, 1, SplitShape::strips));
    b.restore(mid);
    b.advance_to(400.0);
    EXPECT_EQ(a.steps(), b.steps());
    expect_same(b, a, "restart", !exec().is_cuda());
  }
}

TEST(SweRain, CudaMatchesTheCpu) {
  // The gpu run of this program: the tile kernel against the CPU row step on the same scene.
  if (!exec().is_cuda()) GTEST_SKIP() << "compares the CUDA backend with the CPU";
  for (Precision p : {Precision::f64, Precision::f32}) {
    Solver gpu(plane(p), exec()), cpu(plane(p), Exec::host());
    for (double t : {130.0, 400.0}) {
      gpu.advance_to(t);
      cpu.advance_to(t);
      expect_same(gpu, cpu, "cuda against cpu at t " + std::to_string(t), false);
      std::printf("%s t = %g s: rain %.9g / %.9g m^3, infiltrated %.9g / %.9g m^3 (cuda / cpu)\n",
                  p == Precision::f64 ? "double" : "float", t, gpu.totals().rain_volume,
                  cpu.totals().rain_volume, gpu.totals().infiltrated_volume,
                  cpu.totals().infiltrated_volume);
    }
  }
}

TEST(SweRain, RejectsBadForcing) {
  Scene s = plane(Precision::f64);
  s.rain.t[2] = 100.0;
  EXPECT_TRUE(silt::test::throws_with([&] { Solver x(s, exec()); },
                                      {"rain frame 2 (t = 100 s): times must increase"}));
  s = plane(Precision::f64);
  s.rain.rate[1][7] = -1e-6;
  EXPECT_TRUE(silt::test::throws_with(
      [&] { Solver x(s, exec()); }, {"field 'rain frame 1 (t = 120 s)' at cell (7, 0) is -1e-06"}));
  s = plane(Precision::f64);
  s.infiltration.a[30] = std::nan("");
  EXPECT_TRUE(
      silt::test::throws_with([&] { Solver x(s, exec()); },
                              {"field 'infiltration conductivity Ks' at cell (6, 1) is nan"}));
}

}  // namespace
}  // namespace silt::swe
