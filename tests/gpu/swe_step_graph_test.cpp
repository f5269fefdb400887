// A batch of steps as one CUDA graph launch (SolverOptions::step_graphs, swe/step_graph.hpp)
// against the plain launches of the same kernels: a masked basin with every forcing, gauges on
// the device, hazard maxima and step peaks, through advances that end on targets and early (a
// gauge's `after`), an odd count of step() calls (the next batch starts at the other parity), a
// restore and a replaced series (the graph is recorded again), in float64 and float32. The same
// bits everywhere: fields, hazard fields, totals, gauge rows, peaks, step counts and times. On the
// CPU (label unit) both runs take the row step and must agree too; on CUDA (label gpu) the test
// also checks that the graph path ran.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "silt/swe/fused_step.hpp"
#include "silt/swe/muscl_tile.hpp"
#include "silt/swe/solver.hpp"
#include "silt/swe/step_graph.hpp"
#include "swe_scene_builder.hpp"
#include "test_support.hpp"

namespace silt::swe {
namespace {

constexpr double kInterval = 0.2;  // s between gauge samples

// The forced basin (discharge, level and open boundaries, rain, a source and a sink) at 120 x 80
// cells with two inactive islands inside, hazard outputs on; with `raster`, rain from a raster of
// three frames (the run stops at each frame time and the graph bakes in the bracket).
Scene masked_basin(Precision p, bool raster, bool muscl = false) {
  Scene s = scenes::forced_basin(p, 120, 80);
  s.name = raster ? "masked basin, rain raster" : muscl ? "masked basin, muscl" : "masked basin";
  if (muscl) {
    s.scheme = Scheme::muscl;
    s.cfl = 0.25;
  }
  s.active.assign(s.bed.size(), 1);
  scenes::for_cells(s, [&](Index i, Index j, double, double, size_t k) {
    if (i >= 70 && i < 76 && j >= 40 && j < 47) s.active[k] = 0;
    if (i >= 90 && i < 100 && j >= 10 && j < 20) s.active[k] = 0;
  });
  s.hazard.enabled = true;
  if (raster) {
    s.rain.t = {0.0, 1.5, 3.5};
    for (int f = 0; f < 3; ++f) {
      std::vector<double> r(s.bed.size());
      for (size_t k = 0; k < r.size(); ++k) r[k] = 2e-5 * double(f + 1) * double(k % 7) / 6.0;
      s.rain.rate.push_back(r);
      s.rain.source.push_back("frame " + std::to_string(f));
    }
  }
  return s;
}

std::vector<Index> gauge_cells(const Scene& s) {
  const Index nx = s.grid.nx;
  return {5 * nx + 3, 40 * nx + 60, 20 * nx + 100, 70 * nx + 30};
}

struct Run {
  Fields fields;
  Totals totals;
  std::vector<GaugeRow> rows;
  StepPeaks peaks;
  std::vector<long long> steps;  // after each stage
  std::vector<double> times;
  std::uint64_t graph_launches = 0, fused_launches = 0;
};

Run run(const Scene& s, bool graphs) {
  SolverOptions o;
  o.step_graphs = graphs;
  Solver a(s, test::exec(), o);
  const std::uint64_t g0 = detail::step_graph_launch_count();
  const std::uint64_t f0 = detail::fused_launch_count() + detail::muscl_tile_launch_count();
  Run r;
  // Device gauges: the first order's (the second order probes; nothing to sample here).
  EXPECT_EQ(a.sample_gauges(gauge_cells(s), kInterval, kInterval), s.scheme == Scheme::first_order);
  EXPECT_TRUE(a.track_step_peaks());
  const auto stage = [&] {
    for (GaugeRow& g : a.take_gauge_rows()) r.rows.push_back(std::move(g));
    r.steps.push_back(a.steps());
    r.times.push_back(a.time());
  };
  for (const double t : {0.7, 1.9, 3.0}) {
    a.advance_to(t);
    stage();
  }
  a.step(37);  // odd: the next batch starts at the other parity of the state's buffers
  stage();
  a.advance_to(a.time() + 0.9);
  stage();
  const RestartState mid = a.state();
  a.advance_to(mid.time + 1.0);
  stage();
  a.restore(mid);
  a.advance_to(mid.time + 1.7);
  stage();
  // Steps that end at the first step end past `after` (the run layer's gauge stops).
  a.advance_to(a.time() + 2.0, {}, a.time() + 0.33);
  stage();
  Series inflow = s.boundaries.front().series;  // the discharge boundary's
  for (double& v : inflow.value) v *= 1.5;
  a.set_series(s.boundaries.front().name, inflow);
  a.advance_to(a.time() + 1.1);
  stage();
  a.step(300);  // more than a batch: two queued batches
  stage();
  r.fields = a.fields();
  r.totals = a.totals();
  r.peaks = a.step_peaks();
  r.graph_launches = detail::step_graph_launch_count() - g0;
  r.fused_launches = detail::fused_launch_count() + detail::muscl_tile_launch_count() - f0;
  return r;
}

// Index of the first value whose bits differ (-1: none; the size when the sizes differ).
long long first_difference(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return (long long)std::min(a.size(), b.size());
  for (size_t k = 0; k < a.size(); ++k)
    if (std::memcmp(&a[k], &b[k], sizeof(double)) != 0) return (long long)k;
  return -1;
}

bool same_bits(double a, double b) {
  return std::memcmp(&a, &b, sizeof(double)) == 0;
}

void expect_identical(const Run& g, const Run& p) {
  EXPECT_EQ(g.steps, p.steps);
  ASSERT_EQ(g.times.size(), p.times.size());
  for (size_t k = 0; k < g.times.size(); ++k)
    EXPECT_TRUE(same_bits(g.times[k], p.times[k])) << "stage " << k;
  const Fields &a = g.fields, &b = p.fields;
  const std::pair<const char*, std::pair<const std::vector<double>*, const std::vector<double>*>>
      arrays[] = {{"h", {&a.h, &b.h}},
                  {"hu", {&a.hu, &b.hu}},
                  {"hv", {&a.hv, &b.hv}},
                  {"hc", {&a.hc, &b.hc}},
                  {"max_depth", {&a.max_depth, &b.max_depth}},
                  {"max_speed", {&a.max_speed, &b.max_speed}},
                  {"max_depth_speed", {&a.max_depth_speed, &b.max_depth_speed}},
                  {"max_concentration", {&a.max_concentration, &b.max_concentration}},
                  {"max_rating", {&a.max_rating, &b.max_rating}},
                  {"first_wet_time", {&a.first_wet_time, &b.first_wet_time}},
                  {"wet_duration", {&a.wet_duration, &b.wet_duration}}};
  for (const auto& [name, v] : arrays) {
    EXPECT_FALSE(v.first->empty()) << name;
    EXPECT_EQ(first_difference(*v.first, *v.second), -1) << name;
  }
  const Totals &s = g.totals, &t = p.totals;
  EXPECT_TRUE(same_bits(s.volume, t.volume));
  EXPECT_TRUE(same_bits(s.pollutant_mass, t.pollutant_mass));
  EXPECT_TRUE(same_bits(s.net_inflow_volume, t.net_inflow_volume));
  EXPECT_TRUE(same_bits(s.rain_volume, t.rain_volume));
  EXPECT_EQ(first_difference(s.boundary_volume, t.boundary_volume), -1);
  EXPECT_EQ(first_difference(s.source_volume, t.source_volume), -1);
  EXPECT_EQ(first_difference(g.peaks.q, p.peaks.q), -1);
  EXPECT_EQ(first_difference(g.peaks.time, p.peaks.time), -1);
  ASSERT_EQ(g.rows.size(), p.rows.size());
  for (size_t r = 0; r < g.rows.size(); ++r) {
    EXPECT_TRUE(same_bits(g.rows[r].time, p.rows[r].time)) << "row " << r;
    ASSERT_EQ(g.rows[r].probes.size(), p.rows[r].probes.size());
    for (size_t k = 0; k < g.rows[r].probes.size(); ++k) {
      const Probe &x = g.rows[r].probes[k], &y = p.rows[r].probes[k];
      EXPECT_TRUE(same_bits(x.h, y.h) && same_bits(x.u, y.u) && same_bits(x.v, y.v) &&
                  same_bits(x.c, y.c))
          << "row " << r << " gauge " << k;
    }
  }
}

void graph_matches_plain(Precision prec, bool raster, bool muscl = false) {
  const Scene s = masked_basin(prec, raster, muscl);
  const Run p = run(s, false);
  const Run g = run(s, true);
  std::printf(
      "%s, %s: %lld steps, %zu gauge rows; graph run: %llu graph launches, %llu tile "
      "kernel launches; plain run: %llu graph launches, %llu tile kernel launches\n",
      s.name.c_str(), prec == Precision::f64 ? "float64" : "float32", g.steps.back(), g.rows.size(),
      (unsigned long long)g.graph_launches, (unsigned long long)g.fused_launches,
      (unsigned long long)p.graph_launches, (unsigned long long)p.fused_launches);
  if (!muscl) EXPECT_GE(g.rows.size(), 20u);
  EXPECT_GT(g.steps.back(), 337);  // the step() calls' and the advances'
  // With a rain raster step() selects the bracket before each step: plain launches there.
  expect_identical(g, p);
  EXPECT_EQ(p.graph_launches, 0u);
  if (test::on_gpu()) {
    // The batches went through the graph: its tile kernel launches are the recordings' (two a
    // recording; the second order's two stages: four), not one a step.
    EXPECT_GE(g.graph_launches, 5u);
    if (!raster) EXPECT_LT(g.fused_launches, (unsigned long long)g.steps.back() / 4);
    EXPECT_GE(p.fused_launches, (unsigned long long)p.steps.back());
  } else {
    EXPECT_EQ(g.graph_launches, 0u);  // the CPU never records graphs
  }
}

TEST(SweStepGraph, SameBitsAsPlainLaunchesF64) {
  graph_matches_plain(Precision::f64, false);
}
TEST(SweStepGraph, SameBitsAsPlainLaunchesF32) {
  graph_matches_plain(Precision::f32, false);
}
TEST(SweStepGraph, SecondOrderSameBitsF64) {
  graph_matches_plain(Precision::f64, false, true);
}
TEST(SweStepGraph, SecondOrderSameBitsF32) {
  graph_matches_plain(Precision::f32, false, true);
}
TEST(SweStepGraph, RainRasterSameBitsF64) {
  graph_matches_plain(Precision::f64, true);
}
TEST(SweStepGraph, RainRasterSameBitsF32) {
  graph_matches_plain(Precision::f32, true);
}

}  // namespace
}  // namespace silt::swe
