// The material as a volume: OpenVDB lives in silt's VDB module (libsilt_vdb.so,
// io/particles/vdb_module.hpp), opened by the first volume frame, so that other runs never load it.
#include "silt/io/particles/volume_vdb.hpp"

#include <fmt/format.h>

#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "silt/core/error.hpp"

#ifdef SILT_WITH_VDB
#include "silt/io/atomic_file.hpp"
#include "silt/io/particles/vdb_module.hpp"
#endif

namespace silt::io {

#ifdef SILT_WITH_VDB

void write_volume_vdb(const std::string& path, const mpm::ParticleFrame& f,
                      const ParticleFileInfo& info, const VolumeGrid& g) {
  check_frame(f, path);
  SILT_REQUIRE(g.voxel_size > 0,
               fmt::format("'{}': voxel size must be > 0 m, got {}", path, g.voxel_size));
  const VdbIo& module = vdb_io();
  write_atomically(path,
                   [&](const std::string& tmp) { module.write_volume(tmp, path, f, info, g); });
}

VolumeSamples read_volume_vdb(const std::string& path) {
  return vdb_io().read_volume(path);
}

#else

void write_volume_vdb(const std::string& path, const mpm::ParticleFrame&, const ParticleFileInfo&,
                      const VolumeGrid&) {
  throw Error(
      fmt::format("cannot write '{}': this build of silt has no OpenVDB "
                  "(install libopenvdb-dev and rebuild)",
                  path));
}

VolumeSamples read_volume_vdb(const std::string& path) {
  throw Error(fmt::format("cannot read '{}': this build of silt has no OpenVDB", path));
}

#endif

}  // namespace silt::io
