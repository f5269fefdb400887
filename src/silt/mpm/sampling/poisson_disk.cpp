#include "silt/mpm/sampling/poisson_disk.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "silt/core/error.hpp"
#include "silt/mpm/sampling/sample_source.hpp"
#include "silt/mpm/splitmix.hpp"

namespace silt::mpm {

namespace {

// Candidates around an active point before it retires (Bridson's k).
constexpr int kBridsonTries = 30;
// Number density of Bridson's sampling in 3D with k = 30, as n r^3: 0.575 away from any boundary,
// measured on boxes 25 r and 50 r wide (the periodic tile below has no boundary).
constexpr double kBridsonDensity = 0.575;
// Dart throwing runs this much denser than asked and is then thinned at random to the exact count,
// so the count does not depend on how far the throwing saturates.
constexpr double kOversample = 1.15;
// The periodic tile's edge at most, in radii (~25 dx at 8 per cell): ~150,000 points to throw once
// per source, whatever its size.
constexpr double kTileRadii = 64;
// The tile's edge at least, in radii: its cells then stay wider than r / 2, so a point's
// neighbours within r lie within two cells.
constexpr double kMinTileRadii = 4;

// The 27 cells around a candidate's (offsets + 1), its own first, then those sharing a face, an
// edge, a corner: a candidate is refused at its first neighbour within r, most often a near one,
// so refused candidates (most of them) stop early. The order does not change which are refused.
constexpr int kNearestFirst[27][3] = {
    {1, 1, 1}, {0, 1, 1}, {2, 1, 1}, {1, 0, 1}, {1, 2, 1}, {1, 1, 0}, {1, 1, 2},
    {0, 0, 1}, {2, 0, 1}, {0, 2, 1}, {2, 2, 1}, {0, 1, 0}, {2, 1, 0}, {0, 1, 2},
    {2, 1, 2}, {1, 0, 0}, {1, 2, 0}, {1, 0, 2}, {1, 2, 2}, {0, 0, 0}, {2, 0, 0},
    {0, 2, 0}, {2, 2, 0}, {0, 0, 2}, {2, 0, 2}, {0, 2, 2}, {2, 2, 2}};

// Bridson's dart throwing on a periodic box (a 3-torus) of edges L: no two points closer than r
// across the box's faces either, so copies of it side by side fill space with no seam. One flood
// from one seed fills the torus (it is connected and has no shape to leave).
class PeriodicBridson {
 public:
  PeriodicBridson(const double* L, double r) : r_(r) {
    // Cells at least r wide: a point's neighbours within r lie in its cell and the 26 around it.
    for (int d = 0; d < 3; ++d) {
      L_[d] = L[d];
      m_[d] = std::max(3LL, static_cast<long long>(std::floor(L[d] / r)));
      cell_[d] = L[d] / double(m_[d]);
    }
    head_.assign(static_cast<std::size_t>(m_[0] * m_[1] * m_[2]), -1);
  }

  std::vector<Vec3d> run(SplitMix& rng) {
    try_add({rng.uniform() * L_[0], rng.uniform() * L_[1], rng.uniform() * L_[2]});
    while (!active_.empty()) {
      const std::size_t a = rng.below(active_.size());
      const Vec3d c = points_[static_cast<std::size_t>(active_[a])];
      bool placed = false;
      for (int t = 0; t < kBridsonTries && !placed; ++t) {
        // Uniform in the spherical shell r <= |d| < 2r, by rejection from the cube [-2r, 2r]^3
        // (46% accepted; no cube root or square root).
        Vec3d d;
        double len2;
        do {
          d = {r_ * (4 * rng.uniform() - 2), r_ * (4 * rng.uniform() - 2),
               r_ * (4 * rng.uniform() - 2)};
          len2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        } while (len2 >= 4 * r_ * r_ || len2 < r_ * r_);
        placed = try_add({c[0] + d[0], c[1] + d[1], c[2] + d[2]});
      }
      if (!placed) {
        active_[a] = active_.back();
        active_.pop_back();
      }
    }
    return std::move(points_);
  }

 private:
  bool try_add(Vec3d p) {
    long long c[3];
    for (int d = 0; d < 3; ++d) {
      p[d] -= L_[d] * std::floor(p[d] / L_[d]);  // into [0, L]
      c[d] = std::min(static_cast<long long>(p[d] / cell_[d]), m_[d] - 1);
    }
    // The cells within one of c on each axis, wrapped, and the shift that brings the copy of a
    // point there next to p.
    long long cell[3][3];
    double shift[3][3];
    for (int d = 0; d < 3; ++d)
      for (int o = 0; o < 3; ++o) {
        long long w = c[d] + o - 1;
        shift[d][o] = w < 0 ? -L_[d] : w >= m_[d] ? L_[d] : 0.0;
        cell[d][o] = w < 0 ? w + m_[d] : w >= m_[d] ? w - m_[d] : w;
      }
    const double r2 = r_ * r_;
    for (const auto& [i, j, k] : kNearestFirst)
      for (int q = head_[static_cast<std::size_t>((cell[2][k] * m_[1] + cell[1][j]) * m_[0] +
                                                  cell[0][i])];
           q >= 0; q = next_[static_cast<std::size_t>(q)]) {
        const Vec3d& o = points_[static_cast<std::size_t>(q)];
        const double ex = o[0] + shift[0][i] - p[0], ey = o[1] + shift[1][j] - p[1],
                     ez = o[2] + shift[2][k] - p[2];
        if (ex * ex + ey * ey + ez * ez < r2) return false;
      }
    int& head = head_[static_cast<std::size_t>((c[2] * m_[1] + c[1]) * m_[0] + c[0])];
    next_.push_back(head);
    head = static_cast<int>(points_.size());
    active_.push_back(static_cast<int>(points_.size()));
    points_.push_back(p);
    return true;
  }

  double r_, L_[3], cell_[3];
  long long m_[3];
  std::vector<int> head_;  // per cell: its last point, -1 when empty
  std::vector<int> next_;  // per point: the point before it in its cell, -1 at the first
  std::vector<Vec3d> points_;
  std::vector<int> active_;
};

// The points of region: the periodic tile of edges L repeated from region.lower(), those inside
// the shape, copy by copy (in parallel; in copy order).
std::vector<Vec3d> fill_with_copies(const ShapeRegion& region, const std::vector<Vec3d>& tile,
                                    const double* L) {
  long long n[3];
  for (int d = 0; d < 3; ++d)
    n[d] = std::max(
        1LL, static_cast<long long>(std::ceil((region.upper()[d] - region.lower()[d]) / L[d])));
  const long long copies = n[0] * n[1] * n[2];
  std::vector<std::vector<Vec3d>> kept(static_cast<std::size_t>(copies));
#pragma omp parallel for schedule(dynamic, 1)
  for (long long c = 0; c < copies; ++c) {
    const Vec3d o{region.lower()[0] + double(c % n[0]) * L[0],
                  region.lower()[1] + double((c / n[0]) % n[1]) * L[1],
                  region.lower()[2] + double(c / (n[0] * n[1])) * L[2]};
    std::vector<Vec3d>& out = kept[static_cast<std::size_t>(c)];
    for (const Vec3d& t : tile) {
      const Vec3d p{o[0] + t[0], o[1] + t[1], o[2] + t[2]};
      if (region.contains(p)) out.push_back(p);
    }
  }
  std::vector<Vec3d> pts;
  for (const auto& k : kept) pts.insert(pts.end(), k.begin(), k.end());
  return pts;
}

}  // namespace

double poisson_radius(double particles_per_cell, double dx) {
  return std::cbrt(kBridsonDensity / (kOversample * particles_per_cell)) * dx;
}

std::vector<Vec3d> poisson_disk(const ShapeRegion& region, std::uint64_t seed, double radius,
                                std::size_t target) {
  SplitMix rng(seed ^ 0x706f6973736f6eULL);  // a stream apart from the jittered lattice's
  std::vector<Vec3d> pts;
  // Should the throwing saturate below the target (a thin shape, or a density estimate off), try
  // again with a smaller radius.
  for (int attempt = 0; attempt < 4; ++attempt) {
    const double r = radius * std::pow(0.93, attempt);
    // A region narrower than the tile takes one copy of a tile a radius wider than it (its points
    // then meet no copy of themselves); a wider one, copies of a tile kTileRadii r wide.
    double L[3];
    for (int d = 0; d < 3; ++d)
      L[d] = std::max(std::min(region.upper()[d] - region.lower()[d] + r, kTileRadii * r),
                      kMinTileRadii * r);
    pts = fill_with_copies(region, PeriodicBridson(L, r).run(rng), L);
    if (pts.size() >= target) break;
  }
  if (pts.size() <= target) return pts;
  // Keep a uniformly random subset of `target` points (partial Fisher-Yates), in original order.
  std::vector<std::size_t> idx(pts.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  for (std::size_t i = 0; i < target; ++i) std::swap(idx[i], idx[i + rng.below(idx.size() - i)]);
  idx.resize(target);
  std::sort(idx.begin(), idx.end());
  std::vector<Vec3d> kept;
  kept.reserve(target);
  for (std::size_t i : idx) kept.push_back(pts[i]);
  return kept;
}

}  // namespace silt::mpm
