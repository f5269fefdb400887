// Self-intersections of a triangle mesh: two triangles whose surfaces cross or touch anywhere other
// than along the edges and corners they share. A collider's distance field takes its sign from a
// flood fill of the voxels (OpenVDB's meshToVolume), so where a mesh passes through itself the
// inside and outside there are whatever the fill reached first: the run warns, naming the place.
#pragma once

#include <array>
#include <cstddef>

#include "silt/mpm/mesh/obj_mesh.hpp"

namespace silt::mpm {

struct SelfIntersections {
  std::size_t pairs = 0;                 // triangle pairs that intersect
  std::array<std::size_t, 2> example{};  // the first pair, indices into m.triangles()
  Vec3d where{};                         // the centroid of the first pair's two triangles (m)
};

/// False in a build without CGAL (SILT_CGAL in the CMake summary): then find_self_intersections
/// checks nothing and returns no pairs.
bool self_intersection_check_available();

/// Every intersecting pair of m, found with CGAL's exact predicates (Polygon_mesh_processing).
SelfIntersections find_self_intersections(const TriangleMesh& m);

}  // namespace silt::mpm
