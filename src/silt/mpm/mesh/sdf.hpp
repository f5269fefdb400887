// A mesh collider's distance field on the host: built from its OBJ file(s) with OpenVDB
// (tools::meshToVolume: a narrow-band signed distance field and the closest triangle of every band
// voxel), copied into silt's own bricks (mesh_sdf_k.hpp) that the parts upload. Only this file's
// .cpp includes OpenVDB, and it is compiled by the host compiler: the device code never sees it.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "silt/core/stop_check.hpp"
#include "silt/mpm/kernels/mesh_sdf_k.hpp"
#include "silt/mpm/mesh/obj_mesh.hpp"
#include "silt/mpm/scene.hpp"

namespace silt::mpm {

struct MeshSdf {
  std::vector<SdfFrame> frames;    // one (rigid) or one per file of a sequence
  std::vector<int> bricks;         // the frames' brick tables, one after another
  std::vector<float> voxels;       // 4 per voxel: distance (m), velocity (m/s)
  std::vector<RigidSegment> keys;  // rigid motion (empty for a sequence)
  float voxel = 0;                 // m
  float far_value = 0;             // m
  float grow = 0;                  // m, the mesh grown by this
  double min_thickness = 0;        // m, twice the deepest interior distance met (all frames)
  std::vector<std::string> warnings;
};

/// Whether this build can make mesh colliders (OpenVDB was found).
bool mesh_colliders_available();

/// The meshes of collider c, read and checked as its field needs them (no OpenVDB needed: `silt
/// validate` runs this): throws silt::Error naming the collider, file and frame for a mesh that
/// cannot be read or is open, a frame or key pose outside the domain, a sequence whose frames
/// differ in vertex count or triangle list.
std::vector<TriangleMesh> load_collider_meshes(const Collider& c, const Scene& s);

/// Half-width of collider c's narrow band, m: its growth, two cells and a voxel.
double mesh_band_width(const Collider& c, const Scene& s);

/// Voxels of the band of these meshes (load_collider_meshes) at c's voxel size, estimated from
/// above (the band's box, or twice the surface area times the half-width plus its caps): bounded
/// before OpenVDB allocates them.
double mesh_sdf_voxels(const Collider& c, const Scene& s, const std::vector<TriangleMesh>& meshes);

/// Builds the distance field of mesh collider c of scene s: load_collider_meshes' errors, and a
/// part too thin for the voxels; warns (in MeshSdf::warnings) about a part thinner than a cell.
/// Without OpenVDB it throws, naming the key. stop is polled between frames and inside OpenVDB's
/// conversion (silt::Stopped).
std::shared_ptr<const MeshSdf> build_mesh_sdf(const Collider& c, const Scene& s,
                                              const StopCheck& stop = {});

/// Builds the field of every mesh collider of s that has none yet; returns their warnings.
std::vector<std::string> build_mesh_colliders(Scene& s, const StopCheck& stop = {});

/// The rigid segments of a collider's keyframes (or of its constant velocity when it has none).
std::vector<RigidSegment> rigid_segments(const Collider& c);

/// The view of a field whose tables live at these addresses (host or device).
MeshColliderView mesh_view(const MeshSdf& m, const SdfFrame* frames, const int* bricks,
                           const float* voxels, const RigidSegment* keys);

}  // namespace silt::mpm
