// Scenes and comparisons of the multi-partition MPM tests (mpm_multi_test.cpp, the MPI test):
// small enough for a 2-core CPU.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "mpm_scene_util.hpp"

namespace silt::test::mpm {

/// A Drucker-Prager sand column collapsing onto a rough floor (split along its height, y).
inline Scene multi_sand_column() {
  Scene s = box_scene("multi_sand_column", 0.01, {0.3, 0.2, 0.06}, silt::mpm::WallKind::slip);
  silt::mpm::Collider floor;
  floor.name = "floor";
  floor.kind = silt::mpm::Collider::Kind::plane;
  floor.wall = silt::mpm::WallKind::separate;
  floor.friction = 0.5;
  floor.point = {0, 0.03, 0};
  floor.normal = {0, 1, 0};
  s.colliders = {floor};
  silt::mpm::Material m = sand(30.0);
  m.youngs_modulus = 1e5;
  s.materials = {m};
  s.sources = {box_source({0.02, 0.03, 0.02}, {0.08, 0.15, 0.04})};
  s.frame_dt = 0.04;
  return s;
}

/// The sand column in 2D (plane strain): a column against the left wall on a rough floor, the
/// same physics on 3x3 stencils; split along x, across the collapse.
inline Scene multi_sand_column_2d() {
  Scene s = box_scene("multi_sand_column_2d", 0.01, {0.3, 0.2, 0.0}, silt::mpm::WallKind::slip);
  s.dimensions = 2;
  s.walls[2] = silt::mpm::Wall{silt::mpm::WallKind::separate, 0.5};
  silt::mpm::Material m = sand(30.0);
  m.youngs_modulus = 1e5;
  s.materials = {m};
  silt::mpm::Source column = box_source({0, 0, 0}, {0.06, 0.12, 0});
  column.particles_per_cell = 4;
  s.sources = {column};
  s.frame_dt = 0.04;
  return s;
}

/// An elastic block (8 x 6 x 6 cells) thrown sideways and falling onto the floor (split along x,
/// its longest axis).
inline Scene multi_elastic_cube() {
  Scene s = box_scene("multi_elastic_cube", 0.01, {0.24, 0.2, 0.12}, silt::mpm::WallKind::slip);
  s.materials = {jelly(2e4, 0.3, 1000)};
  s.sources = {box_source({0.05, 0.06, 0.03}, {0.13, 0.12, 0.09}, 0, {0.4, -0.5, 0.1})};
  s.frame_dt = 0.04;
  return s;
}

/// A thin elastic slab 4 cells across its longest axis split in up to 4 pieces: every piece is
/// about one cell thick, so nearly every block is held by every part (the shared-block sum
/// carries almost all of the grid).
inline Scene multi_thin_slab() {
  Scene s = box_scene("multi_thin_slab", 0.01, {0.12, 0.16, 0.12}, silt::mpm::WallKind::sticky);
  s.materials = {jelly(1e4, 0.3, 1000)};
  s.sources = {box_source({0.04, 0.05, 0.04}, {0.08, 0.08, 0.07}, 0, {0.3, 0.0, -0.2})};
  s.frame_dt = 0.04;
  return s;
}

/// A fountain: a sand layer along x on a rough floor, and an emitter adding 64 particles every
/// frame (from the second on) at one spot near the layer's left end, falling onto it. The split
/// runs along x; without rebalancing every emitted particle joins the leftmost part.
inline Scene multi_fountain() {
  Scene s = multi_sand_column();
  s.name = "multi_fountain";
  s.domain_max = {0.32, 0.2, 0.06};
  s.sources = {box_source({0.02, 0.03, 0.02}, {0.30, 0.06, 0.04})};  // 28 x 3 x 2 cells
  silt::mpm::Source jet = box_source({0.03, 0.12, 0.02}, {0.05, 0.14, 0.04}, 0, {0.3, -0.5, 0});
  jet.name = "fountain";
  jet.emit_interval = s.frame_dt;
  jet.emit_start = s.frame_dt;  // not part of the initial split
  jet.emit_end = 100 * s.frame_dt;
  s.sources.push_back(jet);
  return s;
}

/// Particles per part that an equal-count cut may leave on one side beyond the exact share:
/// particles with the same coordinate along the axis go to one piece. Jittered sampling makes
/// ties rare; one cell's worth (8) is ample.
constexpr double kBalanceGranularity = 8;

/// Empty when every part's count lies within tolerance * mean (plus kBalanceGranularity) of the
/// mean, else the counts.
inline std::string balance_violation(const std::vector<std::int64_t>& counts, double tolerance) {
  double total = 0;
  for (std::int64_t c : counts) total += double(c);
  const double mean = total / double(counts.size());
  bool ok = true;
  for (std::int64_t c : counts)
    ok = ok && std::abs(double(c) - mean) <= tolerance * mean + kBalanceGranularity;
  if (ok) return "";
  std::ostringstream o;
  o << "counts";
  for (std::size_t q = 0; q < counts.size(); ++q) o << (q ? " | " : " ") << counts[q];
  o << " stray more than " << tolerance << " x the mean " << mean;
  return o.str();
}

/// "672 | 672": counts per part, for the log.
inline std::string counts_text(const std::vector<std::int64_t>& counts) {
  std::ostringstream o;
  for (std::size_t q = 0; q < counts.size(); ++q) o << (q ? " | " : "") << counts[q];
  return o.str();
}

/// Mass-weighted integrals and moments (single-source scenes: every particle has one mass).
struct Integrals {
  double count = 0;
  std::array<double, 3> com{};       // centre of mass, m
  std::array<double, 3> momentum{};  // per unit particle mass: mean velocity, m/s
  double kinetic = 0;                // per unit particle mass, m^2/s^2
};

inline Integrals integrals(const silt::mpm::ParticleFrame& f) {
  const Moments m = moments(f);
  Integrals i;
  i.count = m.count;
  i.com = m.com;
  i.momentum = m.mean_v;
  i.kinetic = m.kinetic;
  return i;
}

/// Tolerances of a multi-partition run against one partition. Both runs do the same arithmetic
/// except for the order of the float32 P2G sums (atomics in another order; shared blocks add the
/// parts' copies), i.e. round-off of ~1e-7 relative per step that the dynamics then carry. Over
/// the 0.2-0.24 s compared (a few hundred steps) measured differences on 1-4 CPU partitions are
/// <= 1.2e-7 m in the centre of mass, <= 5e-6 m/s in the mean velocity and <= 6e-5 relative in
/// kinetic energy (the sand; the elastic cases 1e-6) -- the same size as one partition against the
/// one-device Solver (OpenMP atomics in another order: 6e-8 m, 2.5e-6 m/s, 3e-5). The bounds leave
/// a margin of 15-150; skipping the shared-block sum misses them by 70-1000x (4e-3 m, 3e-2 m/s,
/// 7e-2).
struct Tolerance {
  double com = 2e-5;       // m (dx = 0.01 m: 0.2% of a cell)
  double momentum = 2e-4;  // m/s, mean velocity (speeds here ~0.5-1 m/s)
  double kinetic = 1e-3;   // relative
};

/// Largest differences (com m, momentum m/s, relative kinetic), for the log.
inline std::string differences(const Integrals& a, const Integrals& b) {
  double c = 0, m = 0;
  for (int k = 0; k < 3; ++k) {
    c = std::max(c, std::abs(a.com[k] - b.com[k]));
    m = std::max(m, std::abs(a.momentum[k] - b.momentum[k]));
  }
  std::ostringstream o;
  o << "|d com| " << c << " m, |d momentum| " << m << " m/s, d kinetic "
    << std::abs(a.kinetic - b.kinetic) / std::max(b.kinetic, 1e-3) << " (relative)";
  return o.str();
}

/// Empty when a and b agree within tol, else what differs.
inline std::string compare_integrals(const Integrals& a, const Integrals& b,
                                     const Tolerance& tol = {}) {
  std::ostringstream o;
  if (a.count != b.count) o << "count " << a.count << " vs " << b.count << "; ";
  for (int k = 0; k < 3; ++k) {
    if (!(std::abs(a.com[k] - b.com[k]) <= tol.com))
      o << "com[" << k << "] " << a.com[k] << " vs " << b.com[k] << "; ";
    if (!(std::abs(a.momentum[k] - b.momentum[k]) <= tol.momentum))
      o << "momentum[" << k << "] " << a.momentum[k] << " vs " << b.momentum[k] << "; ";
  }
  if (!(std::abs(a.kinetic - b.kinetic) <= tol.kinetic * std::max(b.kinetic, 1e-3)))
    o << "kinetic " << a.kinetic << " vs " << b.kinetic << "; ";
  return o.str();
}

}  // namespace silt::test::mpm
