// Particles as OpenVDB points (openvdb::points::PointDataGrid), one .vdb per frame: the format
// Houdini, Blender's VDB tools and OpenVDB's own readers open with every attribute. Chosen over
// Alembic points because Debian packages OpenVDB (libopenvdb-dev) and not Alembic's C++ library.
#pragma once

#include <string>

#include "silt/io/particles/file.hpp"

namespace silt::io {

/// Whether this build can write .vdb files (it was built with OpenVDB): its VDB module was built.
/// The module (libsilt_vdb.so) is loaded by the first .vdb frame or mesh collider.
bool vdb_available();
/// "" when the VDB module loads (it is loaded by this call), else why not (`silt info`).
std::string vdb_problem();

/// Writes one particle frame atomically as a point grid named "points" whose voxels are
/// `voxel_size` (m) wide (points are bucketed per voxel; dx gives ~ppc points per voxel).
/// Attributes, float32 unless noted: P (m, Vec3f), v (m/s, Vec3f), material (int32, index into
/// the scene's materials); with ids: id (int32, stable across frames); with stress: stress
/// (Cauchy, Pa, Mat3s, row-major), pressure = -tr(stress)/3 (Pa); with plastic: plastic (-).
/// Grid metadata: silt_scene, silt_frame, silt_time (s), silt_points (count).
void write_particles_vdb(const std::string& path, const mpm::ParticleFrame& frame,
                         const ParticleFileInfo& info, double voxel_size);

}  // namespace silt::io
