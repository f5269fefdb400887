// The region a Source fills, as an inside test plus bounds: the geometric half of particle
// sampling (sample_source.cpp places points, this decides which ones belong to the shape).
#pragma once

#include <memory>

#include "silt/mpm/scene.hpp"

namespace silt::mpm {

class TriangleMesh;

/// Inside test for a source's shape. Boxes are half-open [min, max) so that two sources sharing a
/// face never both receive a lattice point lying on it.
class ShapeRegion {
 public:
  /// Builds the region; reads and checks the OBJ file for meshes. Throws silt::Error naming the
  /// source on a degenerate shape (empty box, non-positive radius or height, zero axis, open mesh).
  explicit ShapeRegion(const Source& source);
  ~ShapeRegion();
  ShapeRegion(ShapeRegion&&) noexcept;
  ShapeRegion& operator=(ShapeRegion&&) noexcept;

  bool contains(const Vec3d& p) const;
  const Vec3d& lower() const { return lo_; }  // axis-aligned bounds, m
  const Vec3d& upper() const { return hi_; }
  double volume() const { return volume_; }  // m^3

 private:
  Shape shape_;
  Vec3d a_{}, b_{};  // box: min, max; sphere: centre; cylinder: base centre, unit axis
  double radius_ = 0, height_ = 0;
  Vec3d lo_{}, hi_{};
  double volume_ = 0;
  std::unique_ptr<TriangleMesh> mesh_;
};

/// The region a source fills in a scene of `dims` dimensions with cells of dx (m). In 2D a source
/// is a shape in the plane z = 0 (a box or a sphere, which is a disc there) and its region the slab
/// one cell deep around the plane, so that volume() / dx^3 is the area / dx^2 that counts its
/// particles. Throws silt::Error naming the source for shapes 2D has not (cylinder, mesh).
ShapeRegion source_region(const Source& source, int dims, double dx);

}  // namespace silt::mpm
