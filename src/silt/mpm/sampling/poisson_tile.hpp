// A Poisson-disk point set on a periodic box, thrown in parallel: the tile that
// poisson_disk.cpp repeats over a source's shape.
#pragma once

#include <cstdint>
#include <vector>

#include "silt/mpm/scene.hpp"

namespace silt::mpm {

/// Number density n r^3 of periodic_poisson_tile's points, as measured on tiles 16 r to 64 r wide
/// over seeds (bench/results/snow-setup-2026-12-02-cpu.md); the serial Bridson throw (k = 30) it
/// replaced had 0.575.
constexpr double kPoissonTileDensity = 0.574;

/// Points on the 3-torus of edges L (m, each at least 4 r), no two closer than r across its faces
/// too, so that copies side by side fill space without a seam. Dart throwing in parallel: the
/// torus in cells at most r / sqrt(3) wide (one point each), four darts per cell, each uniform in
/// its cell and in a random one of 16 passes. In a pass every dart clear of the points so far is a
/// proposal, and a proposal becomes a point when it outranks (a random priority) every other
/// proposal within r: no order of cells or threads enters, so nothing of the cell grid is printed
/// on the points (Wei 2008, "Parallel Poisson disk sampling", settles conflicts by phase groups of
/// cells filled in turn instead, which printed the groups' lattice here: +-60% between the places
/// in a cell) and the points are the same for any thread count. In cell order.
std::vector<Vec3d> periodic_poisson_tile(const double L[3], double r, std::uint64_t seed);

}  // namespace silt::mpm
