// The boundary between silt's .vdb outputs (io/particles/vdb.cpp, io/particles/volume_vdb.cpp) and
// silt's VDB module (libsilt_vdb.so, src/silt/modules/vdb/): the module's entry point
// silt_vdb_io_module() returns the functions that need OpenVDB. They write a frame to a temporary
// file (the core renames it onto the final path, atomic_file.hpp); path names the file in their
// errors. Both sides are built by the same compiler in the same build, so the table passes silt's
// own C++ types; kVdbIoAbi guards against a module left from another build.
#pragma once

#include <string>

#include "silt/io/particles/vdb.hpp"
#include "silt/io/particles/volume_vdb.hpp"

namespace silt::io {

/// Raise when VdbIo or a type it passes changes.
inline constexpr int kVdbIoAbi = 1;
inline constexpr const char* kVdbModuleName = "silt_vdb";
inline constexpr const char* kVdbIoEntry = "silt_vdb_io_module";

void write_particles_vdb_file(const std::string& tmp, const std::string& path,
                              const mpm::ParticleFrame& frame, const ParticleFileInfo& info,
                              double voxel_size);
void write_volume_vdb_file(const std::string& tmp, const std::string& path,
                           const mpm::ParticleFrame& frame, const ParticleFileInfo& info,
                           const VolumeGrid& grid);
VolumeSamples read_volume_vdb_file(const std::string& path);

struct VdbIo {
  void (*write_particles)(const std::string& tmp, const std::string& path,
                          const mpm::ParticleFrame& frame, const ParticleFileInfo& info,
                          double voxel_size);
  void (*write_volume)(const std::string& tmp, const std::string& path,
                       const mpm::ParticleFrame& frame, const ParticleFileInfo& info,
                       const VolumeGrid& grid);
  VolumeSamples (*read_volume)(const std::string& path);
};

// The entry point: extern "C" const VdbIo* silt_vdb_io_module(int abi), nullptr when abi is not
// the module's kVdbIoAbi.

/// The module's table, loaded on first use; throws the loader's Error (the module's path and
/// dlerror()) when the module cannot be loaded.
const VdbIo& vdb_io();

}  // namespace silt::io
