// swe::Solver's scene changes between steps (solver_edit.cpp): gravity, the rain and the bed take
// effect from then on, as a run whose scene had them from there (the engine built anew from the
// state now, as a restart); the bed keeps the water's depth or level; checkpoints are refused
// after a change and restore() puts the scene back.
#include <gtest/gtest.h>

#include "silt/swe/solver.hpp"
#include "swe_scene_builder.hpp"
#include "test_support.hpp"

namespace silt::swe {
namespace {

using scenes::make_scene;
using silt::test::exec;
using silt::test::throws_with;

// A closed basin of 20 x 10 cells of 1 m: 1 m of water on the western half, 0.2 m elsewhere.
Scene basin() {
  Scene s = make_scene("basin", 20, 10, 1.0, Precision::f64);
  for (std::size_t k = 0; k < s.depth.size(); ++k) s.depth[k] = k % 20 < 10 ? 1.0 : 0.2;
  return s;
}

TEST(SweSolverEdit, GravitySetMidRunEqualsTheRunThatHadItFromThere) {
  Solver a(basin(), exec());
  a.advance_to(1.0);
  a.set_gravity(4.0);
  a.advance_to(2.0);
  Solver b(basin(), exec());
  b.advance_to(1.0);
  Scene s = basin();
  s.gravity = 4.0;
  Solver c(s, exec());
  c.restore(b.state());  // a restart of the same state with the other gravity
  c.advance_to(2.0);
  EXPECT_EQ(a.fields().h, c.fields().h);
  EXPECT_EQ(a.steps(), c.steps());
  EXPECT_TRUE(throws_with([&] { a.set_gravity(0.0); }, {"basin", "gravity = 0", "> 0"}));
}

TEST(SweSolverEdit, RainFromNowOn) {
  Solver a(basin(), exec());
  a.advance_to(1.0);
  a.set_rain(Series{{0.0}, {1e-3}}, {});
  a.advance_to(3.0);
  EXPECT_NEAR(a.totals().rain_volume, 2.0 * 1e-3 * 200, 1e-9);
  RainRaster r;
  r.t = {0.0};
  r.rate = {std::vector<double>(200, 0.0)};
  r.rate[0][0] = 1.0;  // one cell
  r.source = {"test"};
  a.set_rain(Series{}, r);
  a.advance_to(4.0);
  EXPECT_NEAR(a.totals().rain_volume, 0.4 + 1.0, 1e-9);
  EXPECT_TRUE(throws_with([&] { a.set_rain(Series{{0.0}, {-1.0}}, {}); }, {"basin", "rain"}));
  EXPECT_EQ(a.scene().rainfall.value.size(), 0u);  // refused: the rain stays as it was
}

TEST(SweSolverEdit, BedKeepsDepthOrLevel) {
  std::vector<double> raised(200, 0.0);
  for (std::size_t k = 0; k < raised.size(); ++k) raised[k] = k % 20 >= 15 ? 0.5 : 0.0;
  Solver depth(basin(), exec()), level(basin(), exec());
  const double v0 = depth.totals().volume;
  depth.set_bed(raised, BedChange::keep_depth);
  EXPECT_NEAR(depth.totals().volume, v0, 1e-12);
  EXPECT_EQ(depth.scene().bed, raised);
  level.set_bed(raised, BedChange::keep_level);  // the eastern quarter dries (0.2 m under 0.5 m)
  EXPECT_NEAR(level.totals().volume, v0 - 0.2 * 50, 1e-12);
  const Fields f = level.fields();
  EXPECT_EQ(f.h[19], 0.0);
  EXPECT_EQ(f.h[14], 0.2);
  level.advance_to(1.0);  // and it runs on
  EXPECT_TRUE(
      throws_with([&] { level.set_bed(std::vector<double>(3, 0.0), BedChange::keep_depth); },
                  {"basin", "3 values", "20 x 10"}));
}

TEST(SweSolverEdit, CheckpointRefusedAfterAChangeUntilRestore) {
  Solver a(basin(), exec());
  a.advance_to(0.5);
  const RestartState s = a.state();
  a.set_bed(std::vector<double>(200, 0.1), BedChange::keep_depth);
  a.advance_to(1.0);
  EXPECT_TRUE(
      throws_with([&] { a.state(); }, {"basin", "the bed was set at t = 0.5", "checkpoint"}));
  a.restore(s);
  EXPECT_EQ(a.scene().bed, std::vector<double>(200, 0.0));  // the scene's bed again
  a.advance_to(1.0);
  Solver b(basin(), exec());
  b.advance_to(0.5);  // the same stop as a's
  b.advance_to(1.0);
  EXPECT_EQ(a.fields().h, b.fields().h);  // as if nothing had changed
  a.state();
}

}  // namespace
}  // namespace silt::swe
