// The boundary between build_mesh_sdf (mpm/mesh/sdf_build.cpp) and silt's VDB module
// (libsilt_vdb.so, src/silt/modules/vdb/): the module's entry point silt_vdb_mesh_module() returns
// the one function that needs OpenVDB. Both sides are built by the same compiler in the same build,
// so the table passes silt's own C++ types; kMeshSdfVdbAbi guards against a module left from
// another build.
#pragma once

#include <string>
#include <vector>

#include "silt/mpm/mesh/obj_mesh.hpp"
#include "silt/mpm/mesh/sdf.hpp"

namespace silt::mpm {

/// Raise when MeshSdfVdb or a type it passes changes.
inline constexpr int kMeshSdfVdbAbi = 2;
inline constexpr const char* kVdbModuleName = "silt_vdb";
inline constexpr const char* kMeshSdfVdbEntry = "silt_vdb_mesh_module";

/// Appends one frame of mesh to m: OpenVDB's narrow-band signed distance field (band_voxels
/// voxels of m.voxel on each side) copied into silt's bricks, with the velocity of the closest
/// point of the closest triangle from the per-vertex velocities vel (empty: rigid, zero). Returns
/// twice the deepest interior distance. what and scene name the frame and scene in errors. stop
/// interrupts OpenVDB's conversion (silt::Stopped).
double add_mesh_frame(MeshSdf& m, const TriangleMesh& mesh, const std::vector<Vec3d>& vel,
                      double band_voxels, const std::string& what, const std::string& scene,
                      const StopCheck& stop);

struct MeshSdfVdb {
  double (*add_mesh_frame)(MeshSdf& m, const TriangleMesh& mesh, const std::vector<Vec3d>& vel,
                           double band_voxels, const std::string& what, const std::string& scene,
                           const StopCheck& stop);
};

// The entry point: extern "C" const MeshSdfVdb* silt_vdb_mesh_module(int abi), nullptr when abi
// is not the module's kMeshSdfVdbAbi.

}  // namespace silt::mpm
