#include "silt/mpm/sampling/shape_region.hpp"

#include <fmt/format.h>

#include <cmath>

#include "silt/core/error.hpp"
#include "silt/mpm/mesh/obj_mesh.hpp"

namespace silt::mpm {

namespace {

constexpr double kPi = 3.14159265358979323846;

double dot(const Vec3d& a, const Vec3d& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

bool finite3(const Vec3d& v) {
  return std::isfinite(v[0]) && std::isfinite(v[1]) && std::isfinite(v[2]);
}

}  // namespace

ShapeRegion::ShapeRegion(const Source& s) : shape_(s.shape) {
  const std::string who = fmt::format("source '{}'", s.name);
  switch (s.shape) {
    case Shape::box: {
      SILT_REQUIRE(finite3(s.box_min) && finite3(s.box_max),
                   fmt::format("{}: box corners must be finite", who));
      for (int d = 0; d < 3; ++d)
        SILT_REQUIRE(s.box_max[d] > s.box_min[d],
                     fmt::format("{}: box max[{}] = {} must exceed min[{}] = {}", who, d,
                                 s.box_max[d], d, s.box_min[d]));
      a_ = s.box_min;
      b_ = s.box_max;
      lo_ = a_;
      hi_ = b_;
      volume_ = (b_[0] - a_[0]) * (b_[1] - a_[1]) * (b_[2] - a_[2]);
      break;
    }
    case Shape::points:  // the bounding box of the given particles (it may be flat)
      SILT_REQUIRE(finite3(s.box_min) && finite3(s.box_max),
                   fmt::format("{}: the particles' positions must be finite", who));
      a_ = lo_ = s.box_min;
      b_ = hi_ = s.box_max;
      volume_ = (b_[0] - a_[0]) * (b_[1] - a_[1]) * (b_[2] - a_[2]);
      break;
    case Shape::sphere: {
      SILT_REQUIRE(finite3(s.center), fmt::format("{}: sphere centre must be finite", who));
      SILT_REQUIRE(s.radius > 0 && std::isfinite(s.radius),
                   fmt::format("{}: sphere radius = {} must be positive", who, s.radius));
      a_ = s.center;
      radius_ = s.radius;
      for (int d = 0; d < 3; ++d) {
        lo_[d] = a_[d] - radius_;
        hi_[d] = a_[d] + radius_;
      }
      volume_ = 4.0 / 3.0 * kPi * radius_ * radius_ * radius_;
      break;
    }
    case Shape::cylinder: {
      SILT_REQUIRE(finite3(s.center) && finite3(s.axis),
                   fmt::format("{}: cylinder centre and axis must be finite", who));
      const double len = std::sqrt(dot(s.axis, s.axis));
      SILT_REQUIRE(len > 0, fmt::format("{}: cylinder axis must be non-zero", who));
      SILT_REQUIRE(s.radius > 0 && std::isfinite(s.radius),
                   fmt::format("{}: cylinder radius = {} must be positive", who, s.radius));
      SILT_REQUIRE(s.height > 0 && std::isfinite(s.height),
                   fmt::format("{}: cylinder height = {} must be positive", who, s.height));
      a_ = s.center;
      b_ = {s.axis[0] / len, s.axis[1] / len, s.axis[2] / len};
      radius_ = s.radius;
      height_ = s.height;
      for (int d = 0; d < 3; ++d) {
        // A disc of radius r with unit normal n spans r sqrt(1 - n_d^2) along axis d.
        const double ext = radius_ * std::sqrt(std::max(0.0, 1.0 - b_[d] * b_[d]));
        const double top = a_[d] + b_[d] * height_;
        lo_[d] = std::min(a_[d], top) - ext;
        hi_[d] = std::max(a_[d], top) + ext;
      }
      volume_ = kPi * radius_ * radius_ * height_;
      break;
    }
    case Shape::mesh: {
      mesh_ = std::make_unique<TriangleMesh>(
          TriangleMesh::load_obj(s.mesh_path, s.mesh_scale, s.mesh_offset, who));
      lo_ = mesh_->lower();
      hi_ = mesh_->upper();
      volume_ = mesh_->volume();
      break;
    }
  }
}

ShapeRegion::~ShapeRegion() = default;
ShapeRegion::ShapeRegion(ShapeRegion&&) noexcept = default;
ShapeRegion& ShapeRegion::operator=(ShapeRegion&&) noexcept = default;

bool ShapeRegion::contains(const Vec3d& p) const {
  switch (shape_) {
    case Shape::box:
    case Shape::points:
      return p[0] >= a_[0] && p[0] < b_[0] && p[1] >= a_[1] && p[1] < b_[1] && p[2] >= a_[2] &&
             p[2] < b_[2];
    case Shape::sphere: {
      const Vec3d r{p[0] - a_[0], p[1] - a_[1], p[2] - a_[2]};
      return dot(r, r) < radius_ * radius_;
    }
    case Shape::cylinder: {
      const Vec3d r{p[0] - a_[0], p[1] - a_[1], p[2] - a_[2]};
      const double t = dot(r, b_);  // distance along the axis from the base, m
      if (!(t >= 0 && t < height_)) return false;
      return dot(r, r) - t * t < radius_ * radius_;
    }
    case Shape::mesh:
      return mesh_->contains(p);
  }
  return false;
}

ShapeRegion source_region(const Source& source, int dims, double dx) {
  if (dims == 3) return ShapeRegion(source);
  Source slab = source;
  switch (source.shape) {
    case Shape::box:
    case Shape::points:
      slab.box_min[2] = -0.5 * dx;
      slab.box_max[2] = 0.5 * dx;
      break;
    case Shape::sphere:  // a disc: the cylinder along z through the slab
      slab.shape = Shape::cylinder;
      slab.center = {source.center[0], source.center[1], -0.5 * dx};
      slab.axis = {0, 0, 1};
      slab.height = dx;
      break;
    case Shape::cylinder:
    case Shape::mesh:
      throw Error(
          fmt::format("source '{}': a 2D scene fills boxes and spheres (discs in its "
                      "plane), not a {}",
                      source.name, source.shape == Shape::mesh ? "mesh" : "cylinder"));
  }
  return ShapeRegion(slab);
}

}  // namespace silt::mpm
