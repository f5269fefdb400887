// The Poisson-disk tile kept on disk between runs: the same points as periodic_poisson_tile, read
// back instead of thrown again.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "silt/mpm/scene.hpp"

namespace silt::mpm {

/// periodic_poisson_tile(L, r, seed), read from the tile cache when an earlier run left it there,
/// else thrown and written there (atomically: a temporary file renamed). The file is keyed on
/// everything the points depend on (the algorithm's version, seed, r and L, bit for bit) and
/// checked whole (key, count, a hash of the points); a missing, short, foreign or damaged file is
/// ignored and the tile thrown, and a failure to write is ignored too. The cache is the folder
/// tile_cache_dir(); SILT_TILE_CACHE=off (or 0) turns it off.
std::vector<Vec3d> cached_poisson_tile(const double L[3], double r, std::uint64_t seed);

/// $XDG_CACHE_HOME/silt, else $HOME/.cache/silt; empty when neither is set or SILT_TILE_CACHE is
/// off or 0.
std::string tile_cache_dir();

}  // namespace silt::mpm
