#include "silt/mpm/sampling/sample_source.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "silt/core/error.hpp"
#include "silt/mpm/sampling/poisson_disk.hpp"
#include "silt/mpm/sampling/shape_region.hpp"
#include "silt/mpm/splitmix.hpp"

namespace silt::mpm {

namespace {

// Per-source particle limit: particle indices are silt::Index (int32) on the device.
constexpr double kMaxParticles = 2.0e9;

// Lattice spacing h = dx / ppc^(1/dims); exact when ppc is a perfect cube (8 -> dx / 2) or, in
// 2D, a perfect square (4 -> dx / 2).
double lattice_spacing(double ppc, double dx, int dims) {
  const double c = dims == 2 ? std::sqrt(ppc) : std::cbrt(ppc);
  const double n = std::round(c);
  return dx / (std::abs(c - n) < 1e-9 * n ? n : c);
}

void check_inputs(const Source& s, double dx) {
  SILT_REQUIRE(std::isfinite(dx) && dx > 0,
               fmt::format("source '{}': dx = {} must be positive", s.name, dx));
  SILT_REQUIRE(std::isfinite(s.particles_per_cell) && s.particles_per_cell > 0,
               fmt::format("source '{}': particles_per_cell = {} must be positive", s.name,
                           s.particles_per_cell));
}

// Lattice index range [i0, i1) of the cells of spacing h that overlap [lo, hi] along one axis.
void lattice_range(double lo, double hi, double h, long long& i0, long long& i1) {
  i0 = static_cast<long long>(std::floor(lo / h));
  i1 = static_cast<long long>(std::floor(hi / h)) + 1;
}

// The jittered lattice over a region: spacing h, index ranges [i0, i1) per axis.
struct Lattice {
  double h;
  long long i0[3] = {0, 0, 0}, i1[3] = {1, 1, 1};  // 2D: the one layer k = 0, at z = 0
  long long slabs() const { return i1[2] - i0[2]; }
};

Lattice lattice_of(const ShapeRegion& region, const Source& s, double dx, int dims) {
  Lattice l;
  l.h = lattice_spacing(s.particles_per_cell, dx, dims);
  double cells = 1;
  for (int d = 0; d < dims; ++d) {
    lattice_range(region.lower()[d], region.upper()[d], l.h, l.i0[d], l.i1[d]);
    cells *= double(l.i1[d] - l.i0[d]);
  }
  SILT_REQUIRE(
      cells < kMaxParticles,
      fmt::format("source '{}': {:.3g} lattice points at dx = {} and {} particles per cell "
                  "exceed the limit of {:.3g}",
                  s.name, cells, dx, s.particles_per_cell, kMaxParticles));
  return l;
}

// The lattice's points inside the region: visit(kk, p) for each, slab by slab (the lattice's z
// layers, kk from 0) in parallel, each slab's points on one thread and in order. Each lattice
// point's jitter comes from a hash of (seed, i, j, k).
template <class Visit>
void each_jittered_point(const Lattice& l, const ShapeRegion& region, const Source& s, int dims,
                         Visit&& visit) {
  const double h = l.h, jit = s.jitter;
  const long long nk = l.slabs();
#pragma omp parallel for schedule(dynamic, 1)
  for (long long kk = 0; kk < nk; ++kk) {
    const long long k = l.i0[2] + kk;
    const std::uint64_t hk = mix64(mix64(s.seed) ^ static_cast<std::uint64_t>(k));
    for (long long j = l.i0[1]; j < l.i1[1]; ++j) {
      const std::uint64_t hj = mix64(hk ^ static_cast<std::uint64_t>(j));
      for (long long i = l.i0[0]; i < l.i1[0]; ++i) {
        const std::uint64_t hi = mix64(hj ^ static_cast<std::uint64_t>(i));
        const Vec3d p{
            (double(i) + 0.5 + jit * (unit_from(mix64(hi + 1)) - 0.5)) * h,
            (double(j) + 0.5 + jit * (unit_from(mix64(hi + 2)) - 0.5)) * h,
            dims == 2 ? 0.0 : (double(k) + 0.5 + jit * (unit_from(mix64(hi + 3)) - 0.5)) * h};
        if (region.contains(p)) visit(kk, p);
      }
    }
  }
}

// One vector per slab, joined in order: the result does not depend on the thread count.
std::vector<Vec3d> jittered(const ShapeRegion& region, const Source& s, double dx, int dims) {
  const Lattice l = lattice_of(region, s, dx, dims);
  std::vector<std::vector<Vec3d>> slabs(static_cast<std::size_t>(l.slabs()));
  each_jittered_point(l, region, s, dims,
                      [&](long long kk, const Vec3d& p) { slabs[std::size_t(kk)].push_back(p); });
  std::size_t total = 0;
  for (const auto& v : slabs) total += v.size();
  std::vector<Vec3d> pts;
  pts.reserve(total);
  for (const auto& v : slabs) pts.insert(pts.end(), v.begin(), v.end());
  return pts;
}

// How many points jittered() gives, without keeping them (the Poisson-disk count).
std::size_t jittered_count(const ShapeRegion& region, const Source& s, double dx, int dims) {
  const Lattice l = lattice_of(region, s, dx, dims);
  std::vector<std::size_t> per_slab(static_cast<std::size_t>(l.slabs()), 0);
  each_jittered_point(l, region, s, dims,
                      [&](long long kk, const Vec3d&) { ++per_slab[std::size_t(kk)]; });
  std::size_t total = 0;
  for (std::size_t c : per_slab) total += c;
  return total;
}

}  // namespace

std::vector<Vec3d> sample_source(const Source& source, double dx, int dims) {
  check_inputs(source, dx);
  if (source.shape == Shape::points) {
    std::vector<Vec3d> given(source.point_count());
    for (std::size_t i = 0; i < given.size(); ++i)
      for (std::size_t a = 0; a < 3; ++a) given[i][a] = (*source.points)[3 * i + a];
    return given;
  }
  SILT_REQUIRE(
      std::isfinite(source.jitter) && source.jitter >= 0 && source.jitter <= 1,
      fmt::format("source '{}': jitter = {} must lie in [0, 1]", source.name, source.jitter));
  SILT_REQUIRE(dims == 3 || source.sampling == Sampling::jittered,
               fmt::format("source '{}': Poisson-disk sampling is 3D only; use jittered sampling "
                           "in 2D",
                           source.name));
  const ShapeRegion region = source_region(source, dims, dx);
  // Poisson-disk keeps the jittered count (expected value ppc * volume / dx^3 for any shape).
  const std::vector<Vec3d> pts =
      source.sampling == Sampling::poisson
          ? poisson_disk(region, source.seed, poisson_radius(source.particles_per_cell, dx),
                         jittered_count(region, source, dx, dims))
          : jittered(region, source, dx, dims);
  SILT_REQUIRE(!pts.empty(),
               fmt::format("source '{}' holds no particle at dx = {} and {} particles per cell "
                           "(volume {:.3g} m^3): make it larger or raise particles_per_cell",
                           source.name, dx, source.particles_per_cell, region.volume()));
  return pts;
}

double source_volume(const Source& source, int dims, double dx) {
  // Given particles stand for dx^3 / particles_per_cell each (per dx^2, a slab dx deep, in 2D).
  if (source.shape == Shape::points)
    return double(source.point_count()) * dx * dx * dx / source.particles_per_cell;
  return source_region(source, dims, dx).volume();
}

double emission_count(const Source& s) {
  if (!(s.emit_interval > 0)) return 1;  // a plain source: once, at t = 0
  // Count by index, not by accumulating interval, so that the last emission is not lost to
  // round-off; 1e-9 of an interval absorbs the division's rounding.
  return std::floor((s.emit_end - s.emit_start) / s.emit_interval + 1e-9) + 1;
}

std::vector<double> emission_times(const Source& s) {
  if (!(s.emit_interval > 0)) return {0.0};  // a plain source: once, at t = 0
  std::vector<double> t;
  const auto n = static_cast<long long>(emission_count(s)) - 1;
  for (long long i = 0; i <= n; ++i) t.push_back(s.emit_start + double(i) * s.emit_interval);
  return t;
}

std::int64_t estimate_particle_capacity(const Scene& scene) {
  double total = 0;
  for (const Source& s : scene.sources) {
    const double per_emission =
        s.particles_per_cell * source_volume(s, scene.dimensions, scene.dx) / std::pow(scene.dx, 3);
    // Jittered counts scatter around the mean by ~sqrt(N) plus the surface layer; 5% + 64 covers
    // both for any shape that holds a cell.
    total += (per_emission * 1.05 + 64) * emission_count(s);
  }
  return static_cast<std::int64_t>(std::ceil(total));
}

}  // namespace silt::mpm
