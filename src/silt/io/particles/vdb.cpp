// Particles as OpenVDB points: OpenVDB lives in silt's VDB module (libsilt_vdb.so,
// io/particles/vdb_module.hpp), opened by the first .vdb frame, so that other runs never load it.
#include "silt/io/particles/vdb.hpp"

#include <fmt/format.h>

#include "silt/core/error.hpp"

#ifdef SILT_WITH_VDB
#include "silt/core/module_loader.hpp"
#include "silt/io/atomic_file.hpp"
#include "silt/io/particles/vdb_module.hpp"
#endif

namespace silt::io {

#ifdef SILT_WITH_VDB

bool vdb_available() {
  return true;
}

std::string vdb_problem() {
  return module_problem(kVdbModuleName, kVdbIoEntry);
}

const VdbIo& vdb_io() {
  static const VdbIo& table = module_table<VdbIo>(kVdbModuleName, kVdbIoEntry, kVdbIoAbi);
  return table;
}

void write_particles_vdb(const std::string& path, const mpm::ParticleFrame& f,
                         const ParticleFileInfo& info, double voxel_size) {
  check_frame(f, path);
  SILT_REQUIRE(voxel_size > 0,
               fmt::format("'{}': point voxel size must be > 0 m, got {}", path, voxel_size));
  const VdbIo& module = vdb_io();
  write_atomically(path, [&](const std::string& tmp) {
    module.write_particles(tmp, path, f, info, voxel_size);
  });
}

#else

bool vdb_available() {
  return false;
}

std::string vdb_problem() {
  return "this build of silt has no OpenVDB";
}

void write_particles_vdb(const std::string& path, const mpm::ParticleFrame&,
                         const ParticleFileInfo&, double) {
  throw Error(
      fmt::format("cannot write '{}': this build of silt has no OpenVDB "
                  "(install libopenvdb-dev and rebuild)",
                  path));
}

#endif

}  // namespace silt::io
