// A 64-bit hash of an MPM run's state (`silt run --hash`, Solver::state_hash): two runs that
// print the same hash at a frame hold the same bits in every particle attribute there. FNV-1a
// (64-bit: offset basis 0xcbf29ce484222325, prime 0x100000001b3) over the bytes, little-endian,
// of: the time (float64, s), the particle count (int64), then for each particle in id order its
// id and material (int32), x[3], v[3], C[9], F[9] (row-major) and plastic state (float32). The
// store order, the part a particle is in and the binning are left out: they change no physics.
#pragma once

#include <cstdint>

#include "silt/mpm/restart_state.hpp"

namespace silt::mpm {

/// The hash of s's particles (every part) at time `time` (s).
std::uint64_t state_hash(const RestartState& s, double time);

}  // namespace silt::mpm
