// A closed triangle mesh read from a Wavefront OBJ file, with an inside test for particle
// sampling. Only what sampling needs: `v` and `f` statements (polygons fan-triangulated, negative
// indices, v/vt/vn forms); everything else in the file is ignored.
#pragma once

#include <array>
#include <istream>
#include <string>
#include <vector>

#include "silt/mpm/scene.hpp"

namespace silt::mpm {

class TriangleMesh {
 public:
  /// Reads `path`, scales each vertex by `scale` and adds `offset` (m). `who` names the owner in
  /// errors ("source 'bunny'"). Throws silt::Error naming the file and line on a parse error, and
  /// the file on an empty or open mesh.
  static TriangleMesh load_obj(const std::string& path, double scale, const Vec3d& offset,
                               const std::string& who);
  /// Same, from a stream; `where` is the file name used in messages.
  static TriangleMesh parse_obj(std::istream& in, const std::string& where, double scale,
                                const Vec3d& offset, const std::string& who);

  /// Checks that every edge is shared by an even number of triangles (closed) and bins the
  /// triangles for the inside test.
  TriangleMesh(std::vector<Vec3d> vertices, std::vector<std::array<int, 3>> triangles,
               const std::string& where);

  /// Ray parity along +x: odd crossings = inside. Exact ties on edges and vertices are broken by a
  /// consistent symbolic perturbation of the point, so a ray through a shared edge counts once.
  bool contains(const Vec3d& p) const;

  const Vec3d& lower() const { return lo_; }
  const Vec3d& upper() const { return hi_; }
  /// |sum of signed tetrahedra| / 6, m^3 (needs consistently oriented faces).
  double volume() const { return volume_; }
  std::size_t vertex_count() const { return vertices_.size(); }
  const std::vector<Vec3d>& vertices() const { return vertices_; }
  const std::vector<std::array<int, 3>>& triangles() const { return triangles_; }
  std::size_t triangle_count() const { return triangles_.size(); }

 private:
  bool crosses(const std::array<int, 3>& t, const Vec3d& p) const;

  std::vector<Vec3d> vertices_;
  std::vector<std::array<int, 3>> triangles_;
  Vec3d lo_{}, hi_{};
  double volume_ = 0;
  // Triangles binned by their y-z bounding box on an ny x nz grid over the mesh's y-z bounds.
  int ny_ = 1, nz_ = 1;
  double by_ = 1, bz_ = 1;  // bins per metre
  std::vector<int> bin_start_, bin_items_;
};

}  // namespace silt::mpm
