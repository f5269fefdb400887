// The parts of a mesh collider's field that need no OpenVDB: the rigid segments of its keyframes,
// the kernels' view of its tables, and building the fields of a scene (mpm/mesh/sdf.hpp).
#include "silt/mpm/mesh/sdf.hpp"

#include <fmt/format.h>

#include <cmath>

#include "silt/core/error.hpp"

namespace silt::mpm {

namespace {
constexpr double kPi = 3.14159265358979323846;

struct Quat {
  double w = 1, x = 0, y = 0, z = 0;
};
Quat mul(const Quat& a, const Quat& b) {
  return {
      a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z, a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y,
      a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x, a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w};
}
Quat from_axis_angle(const Vec3d& axis, double degrees) {
  const double n = std::sqrt(axis[0] * axis[0] + axis[1] * axis[1] + axis[2] * axis[2]);
  const double h = 0.5 * degrees * kPi / 180.0, s = std::sin(h) / n;
  return {std::cos(h), axis[0] * s, axis[1] * s, axis[2] * s};
}
void to_matrix(const Quat& q, float r[9]) {
  const double w = q.w, x = q.x, y = q.y, z = q.z;
  const double m[9] = {1 - 2 * (y * y + z * z), 2 * (x * y - w * z),     2 * (x * z + w * y),
                       2 * (x * y + w * z),     1 - 2 * (x * x + z * z), 2 * (y * z - w * x),
                       2 * (x * z - w * y),     2 * (y * z + w * x),     1 - 2 * (x * x + y * y)};
  for (int i = 0; i < 9; ++i) r[i] = float(m[i]);
}
}  // namespace

std::vector<RigidSegment> rigid_segments(const Collider& c) {
  std::vector<RigidSegment> out;
  if (c.keys.empty()) {  // at rest, or the constant translation of `velocity`
    RigidSegment g{};
    g.t0 = 0;
    g.translation = Vec3f::zero();
    to_matrix(Quat{}, g.rotation);
    for (int a = 0; a < 3; ++a) g.velocity[a] = float(c.velocity[std::size_t(a)]);
    g.omega = Vec3f::zero();
    out.push_back(g);
    return out;
  }
  for (std::size_t k = 0; k < c.keys.size(); ++k) {
    const RigidKey& a = c.keys[k];
    const Quat qa = from_axis_angle(a.axis, a.angle);
    RigidSegment g{};
    g.t0 = float(a.time);
    for (int d = 0; d < 3; ++d) g.translation[d] = float(a.translation[std::size_t(d)]);
    to_matrix(qa, g.rotation);
    g.velocity = g.omega = Vec3f::zero();  // the last key holds
    if (k + 1 < c.keys.size()) {
      const RigidKey& b = c.keys[k + 1];
      const double span = b.time - a.time;
      for (int d = 0; d < 3; ++d)
        g.velocity[d] =
            float((b.translation[std::size_t(d)] - a.translation[std::size_t(d)]) / span);
      // R(t) = Rot(w (t - t0)) R(t0): w from the relative rotation q_b q_a^-1, the short way.
      Quat rel = mul(from_axis_angle(b.axis, b.angle), Quat{qa.w, -qa.x, -qa.y, -qa.z});
      if (rel.w < 0) rel = Quat{-rel.w, -rel.x, -rel.y, -rel.z};
      const double s = std::sqrt(rel.x * rel.x + rel.y * rel.y + rel.z * rel.z);
      if (s > 0) {
        const double angle = 2.0 * std::atan2(s, rel.w);
        g.omega = Vec3f{float(rel.x / s * angle / span), float(rel.y / s * angle / span),
                        float(rel.z / s * angle / span)};
      }
    }
    out.push_back(g);
  }
  return out;
}

MeshColliderView mesh_view(const MeshSdf& m, const SdfFrame* frames, const int* bricks,
                           const float* voxels, const RigidSegment* keys) {
  MeshColliderView v;
  v.frames = frames;
  v.n_frames = int(m.frames.size());
  v.bricks = bricks;
  v.voxels = voxels;
  v.keys = keys;
  v.n_keys = int(m.keys.size());
  v.voxel = m.voxel;
  v.inv_voxel = 1.0f / m.voxel;
  v.far_value = m.far_value;
  v.grow = m.grow;
  return v;
}

std::vector<std::string> build_mesh_colliders(Scene& s, const StopCheck& stop) {
  std::vector<std::string> warnings;
  for (Collider& c : s.colliders) {
    if (c.kind != ColliderKind::mesh || c.sdf) continue;
    c.sdf = build_mesh_sdf(c, s, stop);
    warnings.insert(warnings.end(), c.sdf->warnings.begin(), c.sdf->warnings.end());
  }
  return warnings;
}

}  // namespace silt::mpm
