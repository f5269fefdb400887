// Shared by the VDB module's .vdb writers: grids written to the frame's temporary file (the core
// renames it onto path), OpenVDB's errors turned into silt::Error naming the file.
#pragma once

#include <fmt/format.h>
#include <openvdb/openvdb.h>

#include <string>

#include "silt/core/error.hpp"
#include "silt/io/particles_file.hpp"

namespace silt::io::detail {

/// silt_scene, silt_frame, silt_time (s) on a grid, so that each grid says where it is from.
inline void insert_frame_meta(openvdb::GridBase& grid, const ParticleFileInfo& info) {
  grid.insertMeta("silt_scene", openvdb::StringMetadata(info.scene.empty() ? "-" : info.scene));
  grid.insertMeta("silt_frame", openvdb::Int64Metadata(info.frame));
  grid.insertMeta("silt_time", openvdb::DoubleMetadata(info.time));
}

inline void write_vdb_file(const std::string& tmp, const std::string& path,
                           const openvdb::GridCPtrVec& grids) {
  try {
    openvdb::io::File file(tmp);
    file.write(grids);  // OpenVDB's default compression (Blosc when built with it, else zip)
    file.close();
  } catch (const openvdb::Exception& e) {
    throw Error(fmt::format("cannot write '{}': {}", path, e.what()));
  }
}

}  // namespace silt::io::detail
