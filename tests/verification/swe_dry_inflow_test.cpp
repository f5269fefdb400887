// Inflow onto a dry bed (issue 34, item 1): a discharge hydrograph entering a dry, rained-on slope
// must give the same flood whatever the time step. The step of a dry domain is bounded by nothing
// but the speed floor (cfl dx / sqrt(g dry_depth): minutes), so the clock must bound it by the
// speed of the inflow it lets in during the step (phases.cpp, forcing_step); when it looked at the
// hydrograph at the step's start only, the first step took 227 s of the rising hydrograph into
// the dry column at once and the maximum depth was 1.72 m with the default step, 0.147 m with
// max_dt = 0.5 s. Checked on every path (the one-pass step of the backend, the plain phases, two
// parts, a run advanced in 2 s chunks) and for convergence in dx.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "silt/core/device_set.hpp"
#include "silt/swe/solver.hpp"
#include "swe_scene_builder.hpp"
#include "test_support.hpp"

namespace silt::swe {
namespace {

using test::exec;

// The scene: 300 m x 200 m sloping 1% to the east, Manning 0.03, 20 mm/h of rain, a
// discharge rising to 20 m^3/s at 300 s across the whole west side, open on the east. r refines
// the 5 m grid r times.
Scene dry_inflow(int r, Precision p = Precision::f32) {
  const double dx = 5.0 / r;
  Scene s = scenes::make_scene("dry_inflow", 60 * r, 40 * r, dx, p);
  scenes::for_cells(s,
                    [&](Index, Index, double x, double, size_t k) { s.bed[k] = 3.0 - 0.01 * x; });
  s.manning.assign(s.bed.size(), 0.03);
  const Index ny = s.grid.ny;
  s.boundaries = {Boundary{"inflow", Side::west, 0, ny, BoundaryKind::discharge,
                           Series{{0, 300, 900}, {0, 20, 5}}, 0.0},
                  Boundary{"outflow", Side::east, 0, ny, BoundaryKind::open, Series{}, 0.0}};
  s.rainfall = scenes::constant_series(20e-3 / 3600.0);
  return s;
}

constexpr double kEnd = 900.0;  // s
// The bound: the maximum depth of the default step within 5% of the one with max_dt 0.5 s.
constexpr double kStepTolerance = 0.05;

struct Flood {
  double max_depth = 0;    // m, over the domain and the run
  double inflow_side = 0;  // m, the largest max_depth along the inflow side (column i = 0)
  double volume = 0;       // m^3 at the end
  long long steps = 0;
};

Flood flood_of(const Solver& solver) {
  const Fields f = solver.fields(arrays::depth | arrays::max_depth);
  const Index nx = solver.scene().grid.nx;
  Flood out;
  for (size_t k = 0; k < f.max_depth.size(); ++k) {
    out.max_depth = std::max(out.max_depth, f.max_depth[k]);
    if (Index(k) % nx == 0) out.inflow_side = std::max(out.inflow_side, f.max_depth[k]);
  }
  out.volume = solver.totals().volume;
  out.steps = solver.steps();
  return out;
}

Flood run(const Scene& s, double chunk = kEnd, const SolverOptions& o = {}) {
  Solver solver(s, exec(), o);
  for (double t = chunk; t < kEnd + 0.5 * chunk; t += chunk) solver.advance_to(std::min(t, kEnd));
  return flood_of(solver);
}

Split two_parts() {
  Split s;
  s.this_process_only = true;
  const int devices = std::max(1, cuda_device_count());
  for (int k = 0; k < 2; ++k)
    s.execs.push_back(exec().is_cuda() ? Exec::cuda(k % devices) : Exec::host());
  return s;
}

void print(const char* what, const Flood& f) {
  std::printf("| %s | %lld steps | max depth %.4f m | inflow side %.4f m | volume %.1f m^3 |\n",
              what, f.steps, f.max_depth, f.inflow_side, f.volume);
}

::testing::AssertionResult within(const char* what, const Flood& a, const Flood& ref, double tol) {
  const double e_max = std::abs(a.max_depth - ref.max_depth) / ref.max_depth;
  const double e_side = std::abs(a.inflow_side - ref.inflow_side) / ref.inflow_side;
  if (e_max <= tol && e_side <= tol) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << what << ": max depth " << a.max_depth << " m against " << ref.max_depth
         << " m (relative " << e_max << "), on the inflow side " << a.inflow_side << " m against "
         << ref.inflow_side << " m (relative " << e_side << "); tolerance " << tol;
}

TEST(SweDryInflow, MaximumDepthDoesNotDependOnTheStep) {
  const Scene s = dry_inflow(1);
  Scene short_step = s;
  short_step.max_dt = 0.5;
  Scene low_cfl = s;
  low_cfl.cfl = 0.2;
  Scene f64 = dry_inflow(1, Precision::f64);
  const Flood ref = run(short_step);
  const Flood def = run(s);
  const Flood cfl = run(low_cfl);
  const Flood chunks = run(s, 2.0);
  const Flood dbl = run(f64);
  print("max_dt 0.5 s", ref);
  print("default step", def);
  print("cfl 0.2", cfl);
  print("2 s chunks", chunks);
  print("float64", dbl);
  EXPECT_TRUE(within("default step", def, ref, kStepTolerance));
  EXPECT_TRUE(within("cfl 0.2", cfl, ref, kStepTolerance));
  EXPECT_TRUE(within("2 s chunks", chunks, ref, kStepTolerance));
  EXPECT_TRUE(within("float64", dbl, ref, kStepTolerance));
  // The water balance is the rain's and the boundaries' business: the same volume stored.
  EXPECT_NEAR(def.volume, ref.volume, kStepTolerance * ref.volume);
}

// The plain phases (the oracle of the one-pass steps) and a run in two parts take the same steps:
// the same flood to round-off of float.
TEST(SweDryInflow, EveryPathTakesTheSameSteps) {
  const Scene s = dry_inflow(1);
  const Flood one = run(s);
  SolverOptions plain;
  plain.plain_phases = true;
  const Flood oracle = run(s, kEnd, plain);
  Solver split(s, two_parts());
  split.advance_to(kEnd);
  const Flood parts = flood_of(split);
  print("one pass", one);
  print("plain phases", oracle);
  print("two parts", parts);
  constexpr double kRoundoff = 1e-3;  // float sums over ~600 steps, atomics in any order on GPUs
  EXPECT_TRUE(within("plain phases", oracle, one, kRoundoff));
  EXPECT_TRUE(within("two parts", parts, one, kRoundoff));
  EXPECT_NEAR(double(oracle.steps), double(one.steps), 2.0);
  EXPECT_NEAR(double(parts.steps), double(one.steps), 2.0);
}

// A point source pouring onto the dry bed far from the inflow bounds the step on every part alike:
// the part without it takes the same steps (one dt for all parts), and the column it pours stays
// bounded by the step.
TEST(SweDryInflow, APointSourceOnTheDryBedBoundsEveryPartsStep) {
  Scene s = dry_inflow(1);
  s.sources = {PointSource{"pipe", 252.5, 152.5, Series{{0, 100, 900}, {0, 4, 4}}, 0.0}};
  const Flood one = run(s);
  Solver split(s, two_parts());
  split.advance_to(kEnd);
  const Flood parts = flood_of(split);
  Scene short_step = s;
  short_step.max_dt = 0.5;
  const Flood ref = run(short_step);
  print("source, one part", one);
  print("source, two parts", parts);
  print("source, max_dt 0.5", ref);
  // The same steps (each part's dt from the same forcing) and so the same state: the volume to
  // float32 round-off of the sums (with its own dt the sourceless part drifted 895 vs 897 steps,
  // 5014.1 vs 5019.4 m^3).
  constexpr double kVolumeRoundoff = 1e-6;
  EXPECT_EQ(parts.steps, one.steps);
  EXPECT_NEAR(parts.volume, one.volume, kVolumeRoundoff * one.volume);
  EXPECT_TRUE(within("default step", one, ref, kStepTolerance));
}

// Refined twice, the maximum depth converges: each refinement changes it less than the one before,
// and the finest two grids agree within the step tolerance; the default step within it of
// max_dt 0.5 s on the refined grid too.
TEST(SweDryInflow, MaximumDepthConvergesWithDx) {
  std::vector<Flood> by_dx;
  for (int r : {1, 2, 4}) {
    const Scene s = dry_inflow(r);
    const Flood def = run(s);
    const std::string what = "dx " + std::to_string(5.0 / r) + " m";
    print(what.c_str(), def);
    if (r < 4) {  // at dx 1.25 m the default step is below 0.5 s anyway
      Scene short_step = s;
      short_step.max_dt = 0.5;
      const Flood ref = run(short_step);
      print((what + ", max_dt 0.5").c_str(), ref);
      EXPECT_TRUE(within(what.c_str(), def, ref, kStepTolerance));
    }
    by_dx.push_back(def);
  }
  const double d1 = std::abs(by_dx[1].max_depth - by_dx[0].max_depth);
  const double d2 = std::abs(by_dx[2].max_depth - by_dx[1].max_depth);
  std::printf("max depth change 5 -> 2.5 m: %.4f m, 2.5 -> 1.25 m: %.4f m\n", d1, d2);
  EXPECT_LT(d2, d1);
  EXPECT_TRUE(within("dx 1.25 against 2.5", by_dx[2], by_dx[1], kStepTolerance));
}

}  // namespace
}  // namespace silt::swe
