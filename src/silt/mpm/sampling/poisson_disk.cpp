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
// Number density of Bridson's sampling in 3D with k = 30, as n r^3: 0.575 away from the boundary
// (0.59-0.60 counting the denser boundary layer), measured on boxes 25 r and 50 r wide.
constexpr double kBridsonDensity = 0.575;
// Dart throwing runs this much denser than asked and is then thinned at random to the exact count,
// so the count does not depend on how far the throwing saturates.
constexpr double kOversample = 1.15;
// Background grid cells allowed (4 bytes each).
constexpr double kMaxGridCells = 1.0e9;

class Bridson {
 public:
  Bridson(const ShapeRegion& region, double r, const std::string& name)
      : region_(region), r_(r), cell_(r / std::sqrt(3.0)) {
    double cells = 1;
    for (int d = 0; d < 3; ++d) {
      n_[d] =
          static_cast<long long>(std::ceil((region.upper()[d] - region.lower()[d]) / cell_)) + 1;
      cells *= double(n_[d] + 2 * kPad);
    }
    SILT_REQUIRE(cells < kMaxGridCells,
                 fmt::format("source '{}': Poisson-disk sampling at radius {} m needs {:.3g} "
                             "background cells (limit {:.3g}); use jittered sampling",
                             name, r, cells, kMaxGridCells));
    grid_.assign(static_cast<std::size_t>(cells), -1);
    make_offsets();
  }

  std::vector<Vec3d> run(SplitMix& rng) {
    // Seed every part of the shape, not only the component of the first point: try one random
    // point per block of 4^3 background cells (~2.3 r wide) and flood from each one that fits.
    constexpr int kStride = 4;
    for (long long k = 0; k < n_[2]; k += kStride)
      for (long long j = 0; j < n_[1]; j += kStride)
        for (long long i = 0; i < n_[0]; i += kStride) {
          const Vec3d p{region_.lower()[0] + (double(i) + kStride * rng.uniform()) * cell_,
                        region_.lower()[1] + (double(j) + kStride * rng.uniform()) * cell_,
                        region_.lower()[2] + (double(k) + kStride * rng.uniform()) * cell_};
          if (try_add(p)) flood(rng);
        }
    return std::move(points_);
  }

 private:
  void flood(SplitMix& rng) {
    while (!active_.empty()) {
      const std::size_t a = rng.below(active_.size());
      const Vec3d c = points_[static_cast<std::size_t>(active_[a])];
      bool placed = false;
      for (int t = 0; t < kBridsonTries && !placed; ++t) {
        // Uniform in the spherical shell r <= |d| < 2r: a direction by rejection from the cube,
        // a radius with density ~ rho^2.
        Vec3d d;
        double len2;
        do {
          d = {2 * rng.uniform() - 1, 2 * rng.uniform() - 1, 2 * rng.uniform() - 1};
          len2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        } while (len2 > 1 || len2 < 1e-12);
        const double rho = r_ * std::cbrt(1 + 7 * rng.uniform()) / std::sqrt(len2);
        placed = try_add({c[0] + rho * d[0], c[1] + rho * d[1], c[2] + rho * d[2]});
      }
      if (!placed) {
        active_[a] = active_.back();
        active_.pop_back();
      }
    }
  }

  bool try_add(const Vec3d& p) {
    long long c[3];
    for (int d = 0; d < 3; ++d) {
      const double u = (p[d] - region_.lower()[d]) / cell_;
      if (!(u >= 0 && u < double(n_[d]))) return false;
      c[d] = static_cast<long long>(u);
    }
    const double r2 = r_ * r_;
    const long long at = index(c[0], c[1], c[2]);
    for (long long off : offsets_) {
      const int q = grid_[static_cast<std::size_t>(at + off)];
      if (q < 0) continue;
      const Vec3d& o = points_[static_cast<std::size_t>(q)];
      const double d2 = (o[0] - p[0]) * (o[0] - p[0]) + (o[1] - p[1]) * (o[1] - p[1]) +
                        (o[2] - p[2]) * (o[2] - p[2]);
      if (d2 < r2) return false;
    }
    if (!region_.contains(p)) return false;
    grid_[static_cast<std::size_t>(at)] = static_cast<int>(points_.size());
    active_.push_back(static_cast<int>(points_.size()));
    points_.push_back(p);
    return true;
  }

  // Grid index of cell (i, j, k), the grid padded by kPad empty cells on every side so that the
  // neighbour offsets never leave it.
  long long index(long long i, long long j, long long k) const {
    return ((k + kPad) * (n_[1] + 2 * kPad) + (j + kPad)) * (n_[0] + 2 * kPad) + (i + kPad);
  }

  // Any point closer than r lies within ceil(r / cell) = 2 cells (cell = r / sqrt 3), except in
  // the 8 corner cells of the 5^3 block (their nearest point is sqrt(3) cell = r away). Nearest
  // cells first: a conflict, the common outcome, is found after a few looks.
  void make_offsets() {
    std::vector<std::pair<int, long long>> o;
    for (int k = -kPad; k <= kPad; ++k)
      for (int j = -kPad; j <= kPad; ++j)
        for (int i = -kPad; i <= kPad; ++i) {
          if (std::abs(i) == kPad && std::abs(j) == kPad && std::abs(k) == kPad) continue;
          o.emplace_back(i * i + j * j + k * k, index(i, j, k) - index(0, 0, 0));
        }
    std::stable_sort(o.begin(), o.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    for (const auto& e : o) offsets_.push_back(e.second);
  }

  static constexpr int kPad = 2;
  const ShapeRegion& region_;
  double r_, cell_;
  long long n_[3];
  std::vector<int> grid_;  // point index per background cell, -1 when empty
  std::vector<long long> offsets_;
  std::vector<Vec3d> points_;
  std::vector<int> active_;
};

}  // namespace

double poisson_radius(double particles_per_cell, double dx) {
  return std::cbrt(kBridsonDensity / (kOversample * particles_per_cell)) * dx;
}

std::vector<Vec3d> poisson_disk(const ShapeRegion& region, std::uint64_t seed, double radius,
                                std::size_t target, const std::string& name) {
  SplitMix rng(seed ^ 0x706f6973736f6eULL);  // a stream apart from the jittered lattice's
  std::vector<Vec3d> pts;
  // Should the throwing saturate below the target (a thin shape, or a density estimate off), try
  // again with a smaller radius.
  for (int attempt = 0; attempt < 4; ++attempt) {
    pts = Bridson(region, radius * std::pow(0.93, attempt), name).run(rng);
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
