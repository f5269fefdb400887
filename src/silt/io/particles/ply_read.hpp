// Reads back the binary PLY particle frames that write_particles_ply writes (`silt view DIR`
// replays them): positions, velocities, material, id, stress (sxx .. sxz, symmetric) and the
// plastic measure; other properties (pressure, which follows from the stress) are skipped.
#pragma once

#include <string>

#include "silt/mpm/particle_frame.hpp"

namespace silt::io {

/// Errors name the file and what is wrong (not binary little-endian, no x y z or material
/// property, shorter than its header says).
mpm::ParticleFrame read_particles_ply(const std::string& path);

}  // namespace silt::io
