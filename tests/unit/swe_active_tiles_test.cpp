// The tile kernel's list of tiles with an active cell (fused_step.hpp, active_tiles): which tiles
// it lists (host, every backend), and on CUDA (label gpu) that a masked run launches only those
// and gives the CPU's fields, hazard maxima included.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "silt/swe/fused_step.hpp"
#include "silt/swe/solver.hpp"
#include "swe_scene_builder.hpp"
#include "test_support.hpp"

namespace silt::swe {
namespace {

using detail::active_tiles;
using detail::tile_cols;
using detail::tile_rows;

std::uint32_t packed(unsigned bx, unsigned by) {
  return (std::uint32_t(by) << 16) | bx;
}

TEST(SweActiveTiles, ListsTheTilesHoldingAnActiveCellInLaunchOrder) {
  // float64 tiles update 31 x 7 cells: a 100 x 30 box has 4 x 5 tiles.
  static_assert(tile_cols() == 31 && tile_rows<double>() == 7, "the float64 tile");
  const Box2 box{0, 100, 0, 30};
  // Active: the cell (40, 8) (tile (1, 1)) and the last cell (99, 29) (tile (3, 4)).
  const auto active = [](Index i, Index j) {
    return (i == 40 && j == 8) || (i == 99 && j == 29);
  };
  const std::vector<std::uint32_t> got = active_tiles<double>(box, active);
  EXPECT_EQ(got, (std::vector<std::uint32_t>{packed(1, 1), packed(3, 4)}));
  // float32 tiles update 31 x 15 cells: both cells' tiles, (1, 0) and (3, 1).
  EXPECT_EQ(active_tiles<float>(box, active),
            (std::vector<std::uint32_t>{packed(1, 0), packed(3, 1)}));
  // Every cell active: every tile; none: none.
  EXPECT_EQ(active_tiles<double>(box, [](Index, Index) { return true; }).size(), 20u);
  EXPECT_TRUE(active_tiles<double>(box, [](Index, Index) { return false; }).empty());
  // A box not at the origin: tiles count from its corner.
  const Box2 shifted{10, 41, 3, 10};  // one tile
  EXPECT_EQ(active_tiles<double>(shifted, [](Index i, Index j) { return i == 40 && j == 9; }),
            (std::vector<std::uint32_t>{packed(0, 0)}));
  EXPECT_TRUE(
      active_tiles<double>(shifted, [](Index i, Index j) { return i == 41 || j == 10; }).empty());
}

// A dam break in a round valley with a channel, on a grid mostly of nodata (the kind of a real
// terrain's mask): hazard maxima on, float64.
Scene masked_valley() {
  Scene s = scenes::make_scene("masked valley", 240, 160, 2.0, Precision::f64);
  s.active.assign(s.bed.size(), 0);
  scenes::for_cells(s, [&](Index i, Index j, double, double, size_t k) {
    const double r = std::hypot(double(i - 60), double(j - 60));
    const bool valley = r < 45, channel = i >= 60 && i < 230 && j >= 55 && j < 66;
    if (!valley && !channel) return;
    s.active[k] = 1;
    s.bed[k] = valley ? 0.002 * r * r / 45.0 : -0.002 * double(i - 60);
    s.depth[k] = (valley && i < 50) ? 2.0 : 0.0;
  });
  s.manning.assign(s.bed.size(), 0.035);
  s.hazard.enabled = true;
  return s;
}

TEST(SweActiveTiles, MaskedRunLaunchesOnlyActiveTilesAndMatchesTheCpu) {
  if (!test::on_gpu()) GTEST_SKIP() << "the tile kernel runs on CUDA: run with --backend=cuda";
  const Scene s = masked_valley();
  Solver cpu(s, Exec::host());
  Solver gpu(s, test::exec());
  const std::uint64_t before = detail::fused_tile_count();
  const std::vector<std::uint32_t> list = active_tiles<double>(
      Box2{0, s.grid.nx, 0, s.grid.ny},
      [&](Index i, Index j) { return s.active[size_t(j) * size_t(s.grid.nx) + size_t(i)] != 0; });
  const Index all = ((s.grid.nx + tile_cols() - 1) / tile_cols()) *
                    ((s.grid.ny + tile_rows<double>() - 1) / tile_rows<double>());
  cpu.advance_to(20.0);
  gpu.advance_to(20.0);
  const std::uint64_t tiles = detail::fused_tile_count() - before;
  std::printf("%s: %s; %llu tiles launched in %lld steps (list %zu, grid %lld)\n", s.name.c_str(),
              gpu.layout().c_str(), static_cast<unsigned long long>(tiles), gpu.steps(),
              list.size(), static_cast<long long>(all));
  EXPECT_LT(list.size(), size_t(all) / 2) << "the mask leaves most tiles without an active cell";
  // Every launch is the list's (steps that overshoot the target are no-ops, launched alike).
  ASSERT_GT(tiles, 0u);
  EXPECT_EQ(tiles % list.size(), 0u) << "launches other than the active tiles' list";
  EXPECT_GE(tiles / list.size(), std::uint64_t(gpu.steps()));
  const std::string over =
      "over " + std::to_string(list.size()) + " of " + std::to_string(all) + " tiles";
  EXPECT_NE(gpu.layout().find(over), std::string::npos) << gpu.layout();
  EXPECT_EQ(cpu.steps(), gpu.steps());
  const Fields a = cpu.fields(), b = gpu.fields();
  // float64: the same functions on both backends; only contraction (FMA on the GPU) differs,
  // ~1e-16 per operation over ~100 steps (swe_backends_test's tolerance).
  constexpr double kTol = 1e-10;
  double dh = 0, dq = 0, dspeed = 0, dwet = 0;
  for (size_t k = 0; k < a.h.size(); ++k) {
    dh = std::max(dh, std::abs(a.h[k] - b.h[k]));
    dq = std::max({dq, std::abs(a.hu[k] - b.hu[k]), std::abs(a.hv[k] - b.hv[k])});
    dspeed = std::max({dspeed, std::abs(a.max_speed[k] - b.max_speed[k]),
                       std::abs(a.max_depth[k] - b.max_depth[k])});
    dwet = std::max(dwet, std::abs(a.first_wet_time[k] - b.first_wet_time[k]));
  }
  std::printf("max |dh| %.3e, |dq| %.3e, |d max speed or depth| %.3e, |d first wet| %.3e\n", dh, dq,
              dspeed, dwet);
  EXPECT_LE(dh, kTol);
  EXPECT_LE(dq, kTol);
  EXPECT_LE(dspeed, kTol);
  EXPECT_LE(dwet, 1e-9);  // a step's end time: the same steps, the same sums of dt
}

// The hazard fields that the float64 tile kernel accumulates in its update (kTileHazard) against
// the separate pass after each step (SolverOptions::hazard_pass) on the same GPU: the same
// function on the same state, time and dt, so the same bits.
TEST(SweActiveTiles, HazardFoldedIntoTheTileKernelGivesThePassBits) {
  if (!test::on_gpu()) GTEST_SKIP() << "the tile kernel runs on CUDA: run with --backend=cuda";
  const Scene s = masked_valley();
  SolverOptions pass;
  pass.hazard_pass = true;
  Solver fold(s, test::exec());
  Solver separate(s, test::exec(), pass);
  fold.advance_to(20.0);
  separate.advance_to(20.0);
  ASSERT_EQ(fold.steps(), separate.steps());
  const Fields a = fold.fields(), b = separate.fields();
  ASSERT_FALSE(a.max_speed.empty());
  const auto same = [](const std::vector<double>& x, const std::vector<double>& y) {
    return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * sizeof(double)) == 0;
  };
  EXPECT_TRUE(same(a.h, b.h)) << "the state";
  EXPECT_TRUE(same(a.max_speed, b.max_speed));
  EXPECT_TRUE(same(a.max_depth_speed, b.max_depth_speed));
  EXPECT_TRUE(same(a.max_concentration, b.max_concentration));
  EXPECT_TRUE(same(a.max_rating, b.max_rating));
  EXPECT_TRUE(same(a.first_wet_time, b.first_wet_time));
  EXPECT_TRUE(same(a.wet_duration, b.wet_duration));
  double wet = 0;
  for (double d : a.wet_duration) wet = std::max(wet, d);
  EXPECT_GT(wet, 0.0) << "some cell was wet";
}

}  // namespace
}  // namespace silt::swe
