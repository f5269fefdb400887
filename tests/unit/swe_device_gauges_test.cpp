// Gauges sampled on the device (Solver::sample_gauges, engine_gauges.cpp) against the host's way
// (advance_to's `after`, then probe()): the same rows, bit for bit, on the same backend (CPU:
// unit; CUDA: gpu), across several advances, a rebuilt engine (set_gravity) and step() calls.
#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <vector>

#include "silt/swe/solver.hpp"
#include "swe_scene_builder.hpp"
#include "test_support.hpp"

namespace silt::swe {
namespace {

constexpr double kInterval = 0.25;  // s between samples: one every few steps of the basin

std::vector<Index> gauge_cells(const Scene& s) {
  const Index nx = s.grid.nx;
  return {5 * nx + 3, 10 * nx + 15, 2 * nx + 28, 10 * nx + 15};  // a cell twice, as snaps give
}

// The host's way, as the run layer sampled before: step to the first step end at or past the
// sample time, probe there, the next time past it.
std::vector<GaugeRow> host_rows(Solver& b, const std::vector<Index>& cells, double& next,
                                double t_end) {
  std::vector<GaugeRow> rows;
  while (b.time() < t_end) {
    b.advance_to(t_end, {}, next);
    if (!(next <= b.time())) continue;
    rows.push_back(GaugeRow{b.time(), b.probe(cells)});
    while (next <= b.time()) next += kInterval;
  }
  return rows;
}

void expect_same(const std::vector<GaugeRow>& got, const std::vector<GaugeRow>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t r = 0; r < want.size(); ++r) {
    EXPECT_EQ(got[r].time, want[r].time) << "row " << r;
    ASSERT_EQ(got[r].probes.size(), want[r].probes.size());
    for (size_t k = 0; k < want[r].probes.size(); ++k) {
      const Probe &a = got[r].probes[k], &b = want[r].probes[k];
      EXPECT_TRUE(a.h == b.h && a.u == b.u && a.v == b.v && a.c == b.c)
          << "row " << r << " (t = " << want[r].time << " s) cell " << k << ": h " << a.h
          << " against " << b.h << ", u " << a.u << " against " << b.u;
    }
  }
}

TEST(SweDeviceGauges, SameRowsAsProbingAtEachSampleTime) {
  const Scene s = scenes::forced_basin(Precision::f64);
  const std::vector<Index> cells = gauge_cells(s);
  Solver a(s, test::exec()), b(s, test::exec());
  ASSERT_TRUE(a.sample_gauges(cells, kInterval, kInterval));
  double next = kInterval;
  std::vector<GaugeRow> want, got;
  for (const double t : {1.0, 2.5, 4.0}) {
    a.advance_to(t);
    for (GaugeRow& r : a.take_gauge_rows()) got.push_back(std::move(r));
    for (GaugeRow& r : host_rows(b, cells, next, t)) want.push_back(std::move(r));
    EXPECT_EQ(a.next_gauge(), next) << "at t = " << t;
  }
  // A rebuilt engine (a scene change between steps) samples on from where it was.
  a.set_gravity(s.gravity);
  b.set_gravity(s.gravity);
  a.advance_to(6.0);
  for (GaugeRow& r : a.take_gauge_rows()) got.push_back(std::move(r));
  for (GaugeRow& r : host_rows(b, cells, next, 6.0)) want.push_back(std::move(r));
  std::printf("%zu rows over 6 s, %lld steps\n", got.size(), a.steps());
  EXPECT_GE(want.size(), 15u);  // 24 sample times; steps longer than 0.25 s pass some
  EXPECT_EQ(a.steps(), b.steps());
  expect_same(got, want);
}

TEST(SweDeviceGauges, StepCallsSampleToo) {
  const Scene s = scenes::forced_basin(Precision::f64);
  const std::vector<Index> cells = gauge_cells(s);
  Solver a(s, test::exec()), b(s, test::exec());
  ASSERT_TRUE(a.sample_gauges(cells, kInterval, kInterval));
  // 300 steps in one call (more than a batch of rows), then the rows by advance_to.
  a.step(300);
  b.step(300);
  const double t = b.time();
  a.advance_to(t + 1.0);
  double next = kInterval;
  std::vector<GaugeRow> want;
  // b's rows of the same steps: one probe per step that passes a sample time.
  Solver c(s, test::exec());
  while (c.steps() < 300) {
    c.step();
    if (next <= c.time()) {
      want.push_back(GaugeRow{c.time(), c.probe(cells)});
      while (next <= c.time()) next += kInterval;
    }
  }
  for (GaugeRow& r : host_rows(c, cells, next, t + 1.0)) want.push_back(std::move(r));
  expect_same(a.take_gauge_rows(), want);
}

TEST(SweDeviceGauges, RefusedWhereTheDevicesDoNotSample) {
  Scene s = scenes::forced_basin(Precision::f64);
  Solver a(s, test::exec());
  EXPECT_FALSE(a.sample_gauges(gauge_cells(s), 0.0, 0.0));  // no interval
  EXPECT_EQ(a.next_gauge(), std::numeric_limits<double>::infinity());
  s.scheme = Scheme::muscl;
  Solver m(s, test::exec());
  EXPECT_FALSE(m.sample_gauges(gauge_cells(s), 0.0, kInterval));
}

}  // namespace
}  // namespace silt::swe
