// Contact between bodies on MPM's single grid (issue 33, item 3).
//  - The shipped scene scenes/mpm_jelly_on_sand.json digs a crater: the sand under the jelly cube
//    goes down by a stated depth and sand beside it is thrown up. Before its fix (a 4-cell bed of
//    35 deg sand hit at 2.7 m/s: an impact pressure of 20-28 kPa against a bearing capacity of
//    ~36 kPa) the sand under the cube moved 2 mm.
//  - A jelly block dropped onto a jelly bed comes to rest with a gap between the two bodies' outer
//    particles below one cell: the limit of one velocity field per node (bodies interact as soon
//    as their stencils share nodes, and nothing pulls them closer once they share a field; see
//    docs/scenes-mpm.md, "Contact between bodies").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <unordered_map>

#include "mpm_scene_util.hpp"
#include "silt/io/mpm_scene.hpp"
#include "test_support.hpp"

namespace silt::test::mpm {
namespace {

float y_of(const silt::mpm::ParticleFrame& p, std::size_t i) {
  return p.position[3 * i + 1];
}

/// Chebyshev distance (m) of particle i from the vertical axis through (cx, cz) (m).
double off_axis(const silt::mpm::ParticleFrame& p, std::size_t i, double cx, double cz) {
  return std::max(std::abs(p.position[3 * i] - cx), std::abs(p.position[3 * i + 2] - cz));
}

// A crater about a cell deep at the scene's dx (2 cm): the sand that starts in the top cell under the
// middle of the cube (within 4 cm of its axis) goes down by at least 1.5 cm on average at the
// deepest point of the impact (measured after the fix: 1.9 cm; before it: 0.2 cm).
constexpr double kCraterDepth = 0.015;  // m
// A splash: sand from beside the cube (more than a cell outside its footprint) rises at least
// 2 cm above the bed's surface (after the fix: 2.7 cm; before it: 0.3 cm).
constexpr double kSplashHeight = 0.02;  // m

TEST(MpmContact, JellyOnSandDigsACraterAndSplashes) {
  const auto path = std::filesystem::path(SILT_SOURCE_DIR) / "scenes" / "mpm_jelly_on_sand.json";
  silt::io::MpmJob job = silt::io::load_mpm_job(path.string());
  Scene& s = job.scene;
  // The scene's geometry: the bed (source 0) and the cube (source 1), m.
  const double bed_top = s.sources.at(0).box_max[1];
  const double axis_x = 0.5 * (s.sources.at(1).box_min[0] + s.sources.at(1).box_max[0]);
  const double axis_z = 0.5 * (s.sources.at(1).box_min[2] + s.sources.at(1).box_max[2]);
  const double half = 0.5 * (s.sources.at(1).box_max[0] - s.sources.at(1).box_min[0]);
  s.frame_dt = 0.02;  // s: enough frames to see the deepest point of the impact
  silt::mpm::Solver solver(s, exec());
  const silt::mpm::ParticleFrame p0 = solver.particles();
  std::unordered_map<int, std::size_t> start;  // id -> index at the start (frames reorder)
  for (std::size_t i = 0; i < p0.count(); ++i) start[p0.id[i]] = i;
  double deepest = 0, splash = 0;
  for (int f = 0; f < 6; ++f) {  // 0.12 s: the cube lands at ~0.03 s
    solver.advance_frame();
    const silt::mpm::ParticleFrame p = solver.particles();
    double sum = 0, n = 0;
    for (std::size_t i = 0; i < p.count(); ++i) {
      if (p.material[i] != 0) continue;  // sand
      const std::size_t k = start.at(p.id[i]);
      const double y0 = y_of(p0, k);
      const double r0 = off_axis(p0, k, axis_x, axis_z);
      if (r0 < 0.04 && y0 > bed_top - s.dx) sum += y_of(p, i) - y0, n += 1;
      if (r0 > half + s.dx) splash = std::max(splash, double(y_of(p, i)) - bed_top);
    }
    ASSERT_GT(n, 0);
    deepest = std::min(deepest, sum / n);
  }
  std::printf("crater: the top cell of sand under the cube went down %.4f m; splash %.4f m\n",
              -deepest, splash);
  EXPECT_LT(deepest, -kCraterDepth);
  EXPECT_GT(splash, kSplashHeight);
}

// The resting gap: a jelly block (4 cells) dropped from 2 cells onto a jelly bed (3 cells)
// settles; the gap between the lowest particle of the block and the highest of the bed below it
// is measured in cells. Sampled particles reach up to the faces of their box, so bodies in full
// contact show a small fraction of a cell between those particles; the single grid stops them
// about a cell apart (measured: 0.92 cell here at dx 1 cm; the scene's jelly on sand 0.7-0.75
// cell at dx 2 cm and 1 cm): the bound states that limit, it does not hide it.
constexpr double kMaxGapCells = 1.25;
// They never interpenetrate: the gap stays above a quarter of a cell.
constexpr double kMinGapCells = 0.25;

TEST(MpmContact, JellyBlockRestsWithinACellOfItsBed) {
  const double dx = 0.02;
  Scene s = box_scene("resting_gap", dx, {0.24, 0.24, 0.24});
  s.materials = {jelly(2e4, 0.3, 1000), jelly(2e4, 0.3, 1000)};
  s.materials[1].name = "block";
  s.damping = 0.5;  // local damping: come to rest within the run
  s.sources = {box_source({0, 0, 0}, {0.24, 0.06, 0.24}, 0),
               box_source({0.08, 0.1, 0.08}, {0.16, 0.18, 0.16}, 1)};
  s.frame_dt = 0.05;
  silt::mpm::Solver solver(s, exec());
  for (int f = 0; f < 12; ++f) solver.advance_frame();  // 0.6 s
  const silt::mpm::ParticleFrame p = solver.particles();
  float block_low = 1e30f, bed_high = -1e30f, speed = 0;
  for (std::size_t i = 0; i < p.count(); ++i) {
    if (p.material[i] == 1) block_low = std::min(block_low, y_of(p, i));
    if (p.material[i] == 0 && off_axis(p, i, 0.12, 0.12) < 0.04)
      bed_high = std::max(bed_high, y_of(p, i));
    speed = std::max(
        speed, float(std::hypot(p.velocity[3 * i], p.velocity[3 * i + 1], p.velocity[3 * i + 2])));
  }
  const double gap = (double(block_low) - double(bed_high)) / dx;
  std::printf("resting gap: block bottom %.4f m, bed top %.4f m: %.2f cell; fastest %.3g m/s\n",
              block_low, bed_high, gap, speed);
  EXPECT_LT(gap, kMaxGapCells);
  EXPECT_GT(gap, kMinGapCells);
  EXPECT_LT(speed, 0.05) << "not at rest";
}

}  // namespace
}  // namespace silt::test::mpm
