// swe::Solver::set_series: a discharge boundary's and a point source's series replaced between
// steps take effect from then on (the inflow volume of a closed channel, on one part and on two),
// the checks and messages of the scene's series, and the checkpoint refused after a change.
#include <gtest/gtest.h>

#include <limits>

#include "silt/core/error.hpp"
#include "silt/swe/solver.hpp"
#include "swe_scene_builder.hpp"
#include "test_support.hpp"

namespace silt::swe {
namespace {

using scenes::make_scene;
using silt::test::exec;
using silt::test::throws_with;

// A dry closed channel fed by Q = 1.5 m^3/s through its west edge and 0.25 m^3/s from a tap.
Scene fed_channel() {
  Scene s = make_scene("channel", 40, 4, 0.5, Precision::f64);
  s.boundaries = {
      Boundary{"q", Side::west, 0, 4, BoundaryKind::discharge, scenes::constant_series(1.5), 0.0},
      Boundary{"shut", Side::east, 0, 4, BoundaryKind::wall, Series{}, 0.0}};
  s.sources = {PointSource{"tap", 15.2, 1.0, scenes::constant_series(0.25), 0.0}};
  return s;
}

Split parts_of(int n) {
  Split sp;
  sp.execs.assign(std::size_t(n), exec());
  sp.this_process_only = true;
  return sp;
}

TEST(SweSetSeries, ReplacedSeriesActFromNowOnOneAndTwoParts) {
  for (int parts : {1, 2}) {
    SCOPED_TRACE(parts);
    Solver solver(fed_channel(), parts_of(parts));
    solver.advance_to(4.0);
    EXPECT_NEAR(solver.totals().net_inflow_volume, 4.0 * 1.75, 1e-10);
    // From t = 4 s: the boundary ramps from 0.5 to 1.5 m^3/s over [4, 8] s (a longer table than
    // before) and the tap closes.
    solver.set_series("q", Series{{4.0, 8.0}, {0.5, 1.5}});
    solver.set_series("tap", Series{{0.0}, {0.0}});
    EXPECT_EQ(solver.scene().boundaries[0].series.t.size(), 2u);
    solver.advance_to(8.0);
    const Totals t = solver.totals();
    const double expected = 4.0 * 1.75 + 4.0 * 1.0;  // the ramp's mean is 1 m^3/s
    EXPECT_NEAR(t.net_inflow_volume, expected, 1e-6);
    EXPECT_NEAR(t.volume, expected, 1e-6);
    EXPECT_TRUE(throws_with([&] { solver.state(); },
                            {"channel", "series was replaced at t = 4", "checkpoint"}));
  }
}

TEST(SweSetSeries, RefusesWhatTheSceneRefusesAndKeepsTheOldSeries) {
  Solver solver(fed_channel(), exec());
  const double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(throws_with(
      [&] {
        solver.set_series("q", Series{{0.0, 2.0, 1.0}, {1, 1, 1}});
      },
      {"boundary 'q'", "times must increase strictly (sample 2 at t = 1 s)"}));
  EXPECT_TRUE(throws_with(
      [&] {
        solver.set_series("tap", Series{{0.0, 1.0}, {1, nan}});
      },
      {"source 'tap'", "sample 1 is not finite"}));
  EXPECT_TRUE(throws_with(
      [&] {
        solver.set_series("tap", Series{{0.0, 1.0}, {1}});
      },
      {"source 'tap'", "2 times but 1 values"}));
  EXPECT_TRUE(throws_with([&] { solver.set_series("tap", Series{}); }, {"no samples"}));
  EXPECT_TRUE(throws_with(
      [&] {
        solver.set_series("shut", Series{{0.0}, {1.0}});
      },
      {"boundary 'shut' is a wall boundary"}));
  EXPECT_TRUE(throws_with(
      [&] {
        solver.set_series("nope", Series{{0.0}, {1.0}});
      },
      {"no boundary or source is named 'nope'", "'q', 'tap'"}));
  EXPECT_EQ(solver.scene().boundaries[0].series.value, std::vector<double>{1.5});
  solver.advance_to(2.0);
  EXPECT_NEAR(solver.totals().net_inflow_volume, 2.0 * 1.75, 1e-10);
  EXPECT_NO_THROW(solver.state());  // nothing was replaced
}

}  // namespace
}  // namespace silt::swe
