// find_self_intersections (mpm/mesh/self_intersections.hpp) through CGAL. Compiled by the host
// compiler only (src/silt/mpm/CMakeLists.txt), so CGAL's headers never meet nvcc.
#include "silt/mpm/mesh/self_intersections.hpp"

#if SILT_WITH_CGAL
#include <CGAL/Exact_predicates_inexact_constructions_kernel.h>
#include <CGAL/Polygon_mesh_processing/orient_polygon_soup.h>
#include <CGAL/Polygon_mesh_processing/polygon_soup_to_polygon_mesh.h>
#include <CGAL/Polygon_mesh_processing/self_intersections.h>
#include <CGAL/Surface_mesh.h>

#include <iterator>
#include <utility>
#include <vector>
#endif

namespace silt::mpm {

#if SILT_WITH_CGAL

bool self_intersection_check_available() {
  return true;
}

SelfIntersections find_self_intersections(const TriangleMesh& m) {
  namespace pmp = CGAL::Polygon_mesh_processing;
  using Kernel = CGAL::Exact_predicates_inexact_constructions_kernel;
  using Point = Kernel::Point_3;
  using Mesh = CGAL::Surface_mesh<Point>;

  // Through a polygon soup: orienting it copes with faces wound either way (the closed check
  // accepts both) and splits vertices where the surface is not a manifold, so every triangle
  // becomes a face, in order: face i is m.triangles()[i].
  std::vector<Point> points;
  points.reserve(m.vertex_count());
  for (const Vec3d& v : m.vertices()) points.emplace_back(v[0], v[1], v[2]);
  std::vector<std::array<std::size_t, 3>> faces;
  faces.reserve(m.triangle_count());
  for (const auto& t : m.triangles())
    faces.push_back({std::size_t(t[0]), std::size_t(t[1]), std::size_t(t[2])});
  pmp::orient_polygon_soup(points, faces);
  Mesh mesh;
  pmp::polygon_soup_to_polygon_mesh(points, faces, mesh);

  std::vector<std::pair<Mesh::Face_index, Mesh::Face_index>> pairs;
  pmp::self_intersections(mesh, std::back_inserter(pairs));
  SelfIntersections r;
  r.pairs = pairs.size();
  if (pairs.empty()) return r;
  r.example = {std::size_t(pairs[0].first), std::size_t(pairs[0].second)};
  for (std::size_t f : r.example)
    for (int corner : m.triangles()[f])
      for (std::size_t d = 0; d < 3; ++d) r.where[d] += m.vertices()[std::size_t(corner)][d] / 6.0;
  return r;
}

#else

bool self_intersection_check_available() {
  return false;
}

SelfIntersections find_self_intersections(const TriangleMesh&) {
  return {};
}

#endif

}  // namespace silt::mpm
