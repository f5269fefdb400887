// The peak discharge of a step through each boundary, source and cross section, tracked on the
// device (Solver::track_step_peaks, engine_peaks.cpp) against the host's way (one step at a time,
// the change of totals()' volumes over last_dt()): the same peaks and times, bit for bit, on the
// same backend (CPU: unit; CUDA: gpu), first and second order; a triangular inflow's peak within a step of its apex; a
// restore with the peaks so far, and a rebuilt engine, go on to the uninterrupted run's peaks.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <limits>
#include <vector>

#include "silt/swe/solver.hpp"
#include "swe_scene_builder.hpp"
#include "test_support.hpp"

namespace silt::swe {
namespace {

constexpr double kEnd = 3.0;       // s: past the inflow's apex at 1 s
constexpr double kApex = 1.0;      // s
constexpr double kApexQ = 8.0;     // m^3/s
constexpr double kRiseRate = 6.0;  // m^3/s per s, on either side of the apex
// A later step replaces the peak only when larger by more than this (phases.cpp, round-off of the
// volumes' differences): the plateau's first step gives its time.
constexpr double kPeakRoundOff = 1e-9;

// The forced basin with a triangular inflow (2 -> 8 -> 2 m^3/s over 2 s) and a cross section
// across the basin's middle: every kind of series (discharge, level and open boundaries, a source
// and a withdrawal, a section).
Scene peaked_basin(Index nx = 30, Index ny = 20) {
  Scene s = scenes::forced_basin(Precision::f64, nx, ny);
  s.boundaries[0].series = Series{{0.0, kApex, 2 * kApex}, {2.0, kApexQ, 2.0}};
  s.sections = {CrossSection{"middle", {{30.0, 0.5}, {30.0, 39.5}}}};
  return s;
}

std::vector<double> series_volumes(const Totals& t) {
  std::vector<double> v = t.boundary_volume;
  v.insert(v.end(), t.source_volume.begin(), t.source_volume.end());
  v.insert(v.end(), t.section_volume.begin(), t.section_volume.end());
  return v;
}

// The host's way: one step at a time (advance_to's `after` just past the time: the steps the run
// takes anyway), each series' |change of volume| / the step's dt.
StepPeaks host_peaks(Solver& b, double t_end) {
  std::vector<double> before = series_volumes(b.totals());
  StepPeaks p{std::vector<double>(before.size(), 0.0),
              std::vector<double>(before.size(), std::numeric_limits<double>::quiet_NaN())};
  while (b.time() < t_end) {
    b.advance_to(t_end, {}, std::nextafter(b.time(), t_end));
    const std::vector<double> now = series_volumes(b.totals());
    for (size_t s = 0; s < now.size(); ++s) {
      const double q = std::abs(now[s] - before[s]) / b.last_dt();
      if (q > p.q[s] * (1 + kPeakRoundOff)) {
        p.q[s] = q;
        p.time[s] = b.time();
      }
    }
    before = now;
  }
  return p;
}

// A series of more than 64 slots is summed in chunks of 32 on the device (engine_peaks.cpp),
// totals() adds its slots one by one: the volumes then differ in their last bits, and a step's
// discharge (a difference of two) by about 1e-16 of the volume over the step's.
constexpr double kChunkedRtol = 1e-12;

void expect_same(const StepPeaks& got, const StepPeaks& want, const char* what, double rtol = 0.0) {
  ASSERT_EQ(got.q.size(), want.q.size()) << what;
  ASSERT_EQ(got.time.size(), want.time.size()) << what;
  for (size_t s = 0; s < want.q.size(); ++s) {
    EXPECT_LE(std::abs(got.q[s] - want.q[s]), rtol * want.q[s])
        << what << ": series " << s << ": " << got.q[s] << " against " << want.q[s];
    EXPECT_TRUE(got.time[s] == want.time[s] ||
                (std::isnan(got.time[s]) && std::isnan(want.time[s])))
        << what << ": series " << s << " at " << got.time[s] << " s against " << want.time[s];
  }
}

TEST(SweStepPeaks, SameAsTheTotalsOfEachStep) {
  const Scene s = peaked_basin();
  Solver a(s, test::exec()), b(s, test::exec());
  ASSERT_TRUE(a.track_step_peaks());
  a.advance_to(kEnd);
  const StepPeaks want = host_peaks(b, kEnd);
  EXPECT_EQ(a.steps(), b.steps());
  const StepPeaks got = a.step_peaks();
  expect_same(got, want, "tracked against one step at a time");
  // 3 boundaries, 2 sources, 1 section; each moved water.
  ASSERT_EQ(got.q.size(), 6u);
  for (size_t k = 0; k < got.q.size(); ++k) EXPECT_GT(got.q[k], 0.0) << "series " << k;
  // The inflow's discharge is the series at the step's middle: within half a step of the apex.
  const double dt = b.last_dt();
  std::printf("inflow peak %.9g m^3/s at %.9g s (apex %g at %g), %lld steps, last dt %.3g s\n",
              got.q[0], got.time[0], kApexQ, kApex, a.steps(), dt);
  EXPECT_LE(got.q[0], kApexQ * (1 + 1e-12));
  EXPECT_GE(got.q[0], kApexQ - kRiseRate * dt);
  EXPECT_NEAR(got.time[0], kApex, 2 * dt);
  // The pipe's constant 0.7 m^3/s and the pump's -0.2: their magnitudes, from the first step.
  EXPECT_NEAR(got.q[3], 0.7, 1e-9);
  EXPECT_NEAR(got.q[4], 0.2, 1e-9);
  EXPECT_LE(got.time[3], got.time[0]);
  EXPECT_LE(got.time[4], got.time[0]);
}

// A boundary of 70 edge cells: summed in chunks on the device.
TEST(SweStepPeaks, LongSeriesInChunksAsTheTotalsOfEachStep) {
  const Scene s = peaked_basin(40, 70);
  Solver a(s, test::exec()), b(s, test::exec());
  ASSERT_TRUE(a.track_step_peaks());
  a.advance_to(kEnd);
  const StepPeaks got = a.step_peaks(), want = host_peaks(b, kEnd);
  EXPECT_EQ(a.steps(), b.steps());
  expect_same(got, want, "in chunks", kChunkedRtol);
  EXPECT_NEAR(got.q[0], kApexQ, kRiseRate * b.last_dt());
}

// The second-order step (engine_muscl.cpp) tracks them too.
TEST(SweStepPeaks, SecondOrderSameAsTheTotalsOfEachStep) {
  Scene s = peaked_basin();
  s.scheme = Scheme::muscl;
  Solver a(s, test::exec()), b(s, test::exec());
  ASSERT_TRUE(a.track_step_peaks());
  a.advance_to(kEnd);
  expect_same(a.step_peaks(), host_peaks(b, kEnd), "second order");
  EXPECT_EQ(a.steps(), b.steps());
}

TEST(SweStepPeaks, RestoreAndRebuildGoOnWithThePeaks) {
  const Scene s = peaked_basin();
  constexpr double kStop = 1.5;  // s: past the apex
  Solver a(s, test::exec());
  ASSERT_TRUE(a.track_step_peaks());
  a.advance_to(kStop);
  const RestartState at_stop = a.state();
  // The state and the peaks so far into another solver (a checkpoint's restart).
  Solver b(s, test::exec());
  b.restore(at_stop);
  ASSERT_TRUE(b.track_step_peaks(a.step_peaks()));
  // A scene change between steps rebuilds the engine from the state: the tracking goes on.
  Solver c(s, test::exec());
  ASSERT_TRUE(c.track_step_peaks());
  c.advance_to(kStop);
  c.set_gravity(s.gravity);
  // A restore while tracking: the next step's discharge from the restored volumes (e), as when
  // the tracking begins after the restore (d).
  Solver d(s, test::exec()), e(s, test::exec());
  d.restore(at_stop);
  ASSERT_TRUE(d.track_step_peaks());
  ASSERT_TRUE(e.track_step_peaks());
  e.restore(at_stop);
  for (Solver* x : {&a, &b, &c, &d, &e}) x->advance_to(kEnd);
  EXPECT_EQ(b.steps(), a.steps());
  expect_same(b.step_peaks(), a.step_peaks(), "restored at 1.5 s");
  expect_same(c.step_peaks(), a.step_peaks(), "rebuilt at 1.5 s");
  expect_same(e.step_peaks(), d.step_peaks(), "tracking, then restored");
  EXPECT_LT(d.step_peaks().q[0], a.step_peaks().q[0]);  // the apex was before the restore
}

TEST(SweStepPeaks, NotTrackedOnSeveralParts) {
  const Scene s = peaked_basin();
  Split split;
  split.execs = {test::exec(), test::exec()};
  Solver a(s, split);
  EXPECT_FALSE(a.track_step_peaks());
  EXPECT_TRUE(a.step_peaks().q.empty());
}

}  // namespace
}  // namespace silt::swe
