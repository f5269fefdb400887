// Binary little-endian PLY point clouds (one `vertex` element, no faces): Houdini's File SOP and
// Blender's importer open them directly, ParaView through its PLY reader.
#pragma once

#include <string>

#include "silt/io/particles/file.hpp"

namespace silt::io {

/// Writes one particle frame atomically. Vertex properties, all float32 unless noted:
///   x y z (m), vx vy vz (m/s), material (int32, index into the scene's materials);
///   when the frame has ids: id (int32, stable across frames; Houdini's `id` attribute);
///   with stress: sxx syy szz sxy syz sxz, the symmetric Cauchy stress (Pa), and
///                pressure = -(sxx + syy + szz) / 3 (Pa);
///   with plastic: plastic (log J_p or the hardening state, -).
/// The header's comments carry the scene name, frame and time.
void write_particles_ply(const std::string& path, const mpm::ParticleFrame& frame,
                         const ParticleFileInfo& info);

}  // namespace silt::io
