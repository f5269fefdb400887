#include "silt/mpm/sampling/poisson_disk.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "silt/core/error.hpp"
#include "silt/mpm/sampling/poisson_tile.hpp"
#include "silt/mpm/sampling/sample_source.hpp"
#include "silt/mpm/sampling/tile_cache.hpp"
#include "silt/mpm/splitmix.hpp"

namespace silt::mpm {

namespace {

// Number density of the tile's points, as n r^3 (periodic_poisson_tile's four darts per cell; the
// serial Bridson throw it replaced, k = 30, had 0.575).
constexpr double kTileDensity = kPoissonTileDensity;
// Dart throwing runs this much denser than asked and is then thinned at random to the exact count,
// so the count does not depend on how far the throwing saturates.
constexpr double kOversample = 1.15;
// The periodic tile's edge at most, in radii (~25 dx at 8 per cell): ~150,000 points to throw once
// per source, whatever its size.
constexpr double kTileRadii = 64;
// The tile's edge at least, in radii (a tile narrower than 2 r would meet its own copies).
constexpr double kMinTileRadii = 4;

// Keys that order the points for thinning: a hash of (seed, index), distinct for distinct indices
// (mix64 is a bijection).
std::uint64_t thinning_key(std::uint64_t seed, std::size_t i) {
  return mix64(seed ^ std::uint64_t(i));
}

// The largest key that `keep` of the n points' keys are at most (1 <= keep < n): a parallel
// histogram of the keys' top 16 bits picks the bin that holds the keep-th key, then a selection
// among that bin's few keys.
std::uint64_t thinning_threshold(std::uint64_t seed, std::size_t n, std::size_t keep) {
  constexpr int kBits = 16;
  std::vector<std::size_t> hist(std::size_t(1) << kBits, 0);
  const auto count = static_cast<long long>(n);
#pragma omp parallel
  {
    std::vector<std::size_t> mine(hist.size(), 0);
#pragma omp for schedule(static)
    for (long long i = 0; i < count; ++i)
      ++mine[thinning_key(seed, std::size_t(i)) >> (64 - kBits)];
#pragma omp critical
    for (std::size_t b = 0; b < hist.size(); ++b) hist[b] += mine[b];
  }
  std::size_t bin = 0, below = 0;
  while (below + hist[bin] < keep) below += hist[bin++];
  std::vector<std::uint64_t> in_bin;  // in any order: the selection does not depend on it
#pragma omp parallel
  {
    std::vector<std::uint64_t> mine;
#pragma omp for schedule(static)
    for (long long i = 0; i < count; ++i) {
      const std::uint64_t k = thinning_key(seed, std::size_t(i));
      if ((k >> (64 - kBits)) == bin) mine.push_back(k);
    }
#pragma omp critical
    in_bin.insert(in_bin.end(), mine.begin(), mine.end());
  }
  const auto kth = in_bin.begin() + std::ptrdiff_t(keep - below - 1);
  std::nth_element(in_bin.begin(), kth, in_bin.end());
  return *kth;
}

// The points of region: the periodic tile of edges L repeated from region.lower(), those inside
// the shape, copy by copy (in parallel; in copy order); then, when there are more than `target`,
// the `target` of them with the smallest thinning keys (a uniformly random subset), in order.
std::vector<Vec3d> fill_with_copies(const ShapeRegion& region, const std::vector<Vec3d>& tile,
                                    const double* L, std::uint64_t seed, std::size_t target) {
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
  // Each copy's first index among all points, and, thinned, among the kept ones.
  std::vector<std::size_t> first(std::size_t(copies) + 1, 0), first_kept(first);
  for (std::size_t c = 0; c < kept.size(); ++c) first[c + 1] = first[c] + kept[c].size();
  const std::size_t total = first.back();
  const bool thin = total > target;
  const std::uint64_t threshold = thin ? thinning_threshold(seed, total, target) : 0;
  if (thin) {
#pragma omp parallel for schedule(dynamic, 1)
    for (long long c = 0; c < copies; ++c) {
      std::size_t m = 0;
      for (std::size_t i = first[std::size_t(c)]; i < first[std::size_t(c) + 1]; ++i)
        m += thinning_key(seed, i) <= threshold;
      first_kept[std::size_t(c) + 1] = m;
    }
    for (std::size_t c = 0; c < kept.size(); ++c) first_kept[c + 1] += first_kept[c];
  } else {
    first_kept = first;
  }
  std::vector<Vec3d> pts(first_kept.back());
#pragma omp parallel for schedule(dynamic, 1)
  for (long long c = 0; c < copies; ++c) {
    const std::vector<Vec3d>& from = kept[std::size_t(c)];
    std::size_t at = first_kept[std::size_t(c)];
    for (std::size_t i = 0; i < from.size(); ++i)
      if (!thin || thinning_key(seed, first[std::size_t(c)] + i) <= threshold) pts[at++] = from[i];
  }
  return pts;
}

}  // namespace

double poisson_radius(double particles_per_cell, double dx) {
  return std::cbrt(kTileDensity / (kOversample * particles_per_cell)) * dx;
}

std::vector<Vec3d> poisson_disk(const ShapeRegion& region, std::uint64_t seed, double radius,
                                std::size_t target) {
  const std::uint64_t stream = mix64(seed ^ 0x706f6973736f6eULL);  // apart from the lattice's
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
    if (target == 0) break;
    const std::uint64_t s = mix64(stream + std::uint64_t(attempt));
    pts = fill_with_copies(region, cached_poisson_tile(L, r, s), L, mix64(s), target);
    if (pts.size() >= target) break;
  }
  return pts;
}

}  // namespace silt::mpm
