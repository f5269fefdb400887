// libsilt_vdb.so's boundary: the entry points that hand the OpenVDB functions to the core, one per
// library that loads them (silt::io's .vdb outputs, io/particles/vdb_module.hpp; silt::mpm's mesh
// colliders, mpm/mesh/vdb_module.hpp), and the one core function their code calls (SILT_REQUIRE's
// throw).
#include "silt/core/error.hpp"
#include "silt/io/particles/vdb_module.hpp"
#include "silt/mpm/mesh/vdb_module.hpp"

namespace silt::detail {

// As the core's (error.cpp): the message is the Error.
void throw_require(const char*, const char*, int, const std::string& msg) {
  throw Error(msg);
}

}  // namespace silt::detail

#define SILT_MODULE_ENTRY extern "C" __attribute__((visibility("default")))

SILT_MODULE_ENTRY const silt::io::VdbIo* silt_vdb_io_module(int abi) {
  using namespace silt::io;
  static const VdbIo table{write_particles_vdb_file, write_volume_vdb_file, read_volume_vdb_file};
  return abi == kVdbIoAbi ? &table : nullptr;
}

SILT_MODULE_ENTRY const silt::mpm::MeshSdfVdb* silt_vdb_mesh_module(int abi) {
  using namespace silt::mpm;
  static const MeshSdfVdb table{add_mesh_frame};
  return abi == kMeshSdfVdbAbi ? &table : nullptr;
}
