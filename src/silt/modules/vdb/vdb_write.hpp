// Shared by the VDB module's .vdb writers: grids written to the frame's temporary file (the core
// renames it onto path), OpenVDB's errors turned into silt::Error naming the file.
#pragma once

#include <fmt/format.h>
#include <openvdb/openvdb.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <ios>
#include <string>

#include "silt/core/error.hpp"
#include "silt/io/particles/file.hpp"

namespace silt::io::detail {

/// silt_scene, silt_frame, silt_time (s) on a grid, so that each grid says where it is from.
inline void insert_frame_meta(openvdb::GridBase& grid, const ParticleFileInfo& info) {
  grid.insertMeta("silt_scene", openvdb::StringMetadata(info.scene.empty() ? "-" : info.scene));
  grid.insertMeta("silt_frame", openvdb::Int64Metadata(info.frame));
  grid.insertMeta("silt_time", openvdb::DoubleMetadata(info.time));
}

/// OpenVDB's io::File::write opens its own std::ofstream and never looks at it again: a full disk
/// or a file-size limit cut the file short and nothing said so (issue 39). The same archive
/// (Archive::write, seekable, as io::File writes it) goes here into a stream whose every write
/// and whose close are checked.
class CheckedVdbFile : public openvdb::io::File {
 public:
  using openvdb::io::File::File;
  void write_checked(const std::string& tmp, const std::string& path,
                     const openvdb::GridCPtrVec& grids) const {
    const auto failed = [&](int err) {
      return Error(fmt::format("cannot write '{}': {}", path,
                               err ? std::strerror(err) : "the write failed (is the disk full?)"));
    };
    errno = 0;
    std::ofstream out(tmp, std::ios_base::out | std::ios_base::binary | std::ios_base::trunc);
    if (!out) throw failed(errno);
    out.exceptions(std::ios_base::badbit | std::ios_base::failbit);
    try {
      Archive::write(out, grids, /*seekable=*/true, openvdb::MetaMap());
      out.flush();
      out.close();  // flushes the last buffer: a failure there sets failbit, which throws
    } catch (const std::ios_base::failure&) {
      throw failed(errno);
    }
  }
};

inline void write_vdb_file(const std::string& tmp, const std::string& path,
                           const openvdb::GridCPtrVec& grids) {
  try {
    // OpenVDB's default compression (Blosc when built with it, else zip), as io::File has it.
    CheckedVdbFile(tmp).write_checked(tmp, path, grids);
  } catch (const openvdb::Exception& e) {
    throw Error(fmt::format("cannot write '{}': {}", path, e.what()));
  }
}

}  // namespace silt::io::detail
