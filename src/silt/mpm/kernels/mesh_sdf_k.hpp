// A mesh collider on the device: a narrow-band signed distance field (SDF) in silt's own sparse
// bricks, sampled trilinearly, and the collider's pose and velocity at time t.
//
// Storage (built on the host from OpenVDB's tools::meshToVolume, mpm/mesh/sdf.cpp): voxel (i, j, k)
// holds the value at i h, j h, k h (h the voxel size, m) of the mesh frame. Voxels come in bricks of
// 8^3 (OpenVDB's leaf nodes); a dense table over the mesh's bricks holds each brick's index into
// the voxel pool, or kBrickOutside / kBrickInside where the band has no brick (far from the surface:
// +far or -far). Each voxel is four floats: the distance (m, < 0 inside) and, for a sequence of
// meshes, the surface velocity (m/s) of the closest point of the mesh (0 for rigid meshes).
//
// Motion: either rigid keyframes (x_world = R(t) x_mesh + T(t), R and T piecewise constant
// angular and linear velocity between keys; the velocity at a point is v + w x (x - T)) or a
// sequence of SDF frames at increasing times, linearly interpolated in time (distance and
// velocity grid alike).
//
// The distance the solver sees is the mesh's minus `grow` (m): the collider is the mesh grown by
// grow, so that a part thinner than the grid still holds a band of negative distance at least
// 2 grow thick that nodes and particles cannot step over (docs/NOTES.md, mesh colliders).
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/scalar.hpp"
#include "silt/core/math/vec.hpp"

namespace silt::mpm {

inline constexpr int kSdfBrickLog2 = 3;
inline constexpr int kSdfBrickEdge = 1 << kSdfBrickLog2;
inline constexpr int kSdfBrickVoxels = kSdfBrickEdge * kSdfBrickEdge * kSdfBrickEdge;
inline constexpr int kBrickOutside = -1;
inline constexpr int kBrickInside = -2;

/// One SDF volume (a frame of a sequence, or the one volume of a rigid mesh).
struct SdfFrame {
  float time;           // s (sequences)
  int brick_origin[3];  // brick coordinates of the table's first brick
  int brick_dims[3];    // table size in bricks
  int table;            // offset of the table in MeshColliderView::bricks
};

/// A rigid segment from one keyframe to the next: pose at t0 and constant velocities after it.
struct RigidSegment {
  float t0;           // s
  Vec3f translation;  // m, T(t0)
  float rotation[9];  // R(t0), row-major
  Vec3f velocity;     // m/s, dT/dt
  Vec3f omega;        // rad/s, world angular velocity
};

struct MeshColliderView {
  const SdfFrame* frames = nullptr;
  int n_frames = 0;  // 1: rigid (keys); > 1: a sequence
  const int* bricks = nullptr;
  const float* voxels = nullptr;  // 4 floats per voxel: distance (m), velocity (m/s)
  const RigidSegment* keys = nullptr;
  int n_keys = 0;                  // 0: at rest in the mesh frame
  float voxel = 0, inv_voxel = 0;  // m, 1/m
  float far_value = 0;             // m, |distance| of the voxels outside the band
  float grow = 0;                  // m, growth of the mesh
};

/// Distance (m), its gradient (-) and velocity (m/s) at a point of one SDF frame (mesh frame).
struct SdfSample {
  float phi;
  Vec3f grad;
  Vec3f vel;
};

/// Brick coordinate of voxel index i (an arithmetic shift: floor division for negative i too).
SILT_HD SILT_FORCEINLINE int sdf_brick_of(int i) {
  return i >> kSdfBrickLog2;
}

/// Voxel (i, j, k) of frame f: distance (m) and velocity (m/s) into out.

SILT_HD inline void sdf_voxel(const MeshColliderView& m, const SdfFrame& f, int i, int j, int k,
                              float out[4]) {
  const int b[3] = {sdf_brick_of(i) - f.brick_origin[0], sdf_brick_of(j) - f.brick_origin[1],
                    sdf_brick_of(k) - f.brick_origin[2]};
  int e = kBrickOutside;
  if (b[0] >= 0 && b[1] >= 0 && b[2] >= 0 && b[0] < f.brick_dims[0] && b[1] < f.brick_dims[1] &&
      b[2] < f.brick_dims[2])
    e = m.bricks[f.table + b[0] + f.brick_dims[0] * (b[1] + f.brick_dims[1] * b[2])];
  if (e < 0) {
    out[0] = e == kBrickInside ? -m.far_value : m.far_value;
    out[1] = out[2] = out[3] = 0.0f;
    return;
  }
  const int l = (i & (kSdfBrickEdge - 1)) + kSdfBrickEdge * (j & (kSdfBrickEdge - 1)) +
                kSdfBrickEdge * kSdfBrickEdge * (k & (kSdfBrickEdge - 1));
  const float* v = m.voxels + 4 * (long long)(e * kSdfBrickVoxels + l);
  out[0] = v[0], out[1] = v[1], out[2] = v[2], out[3] = v[3];
}

/// Trilinear sample of frame f at p (m, mesh frame): distance, its gradient and velocity. Points
/// off the table read +far with no gradient.
SILT_HD inline SdfSample sdf_sample(const MeshColliderView& m, const SdfFrame& f, const Vec3f& p) {
  float u[3];
  int i0[3];
  for (int a = 0; a < 3; ++a) {
    const float s = p[a] * m.inv_voxel;
    const float fl = math::floor(s);
    i0[a] = int(fl);
    u[a] = s - fl;
  }
  SdfSample r{0.0f, Vec3f::zero(), Vec3f::zero()};
  // Off the table (with a voxel of margin): far outside, the common case for most nodes.
  for (int a = 0; a < 3; ++a) {
    const int lo = f.brick_origin[a] * kSdfBrickEdge;
    const int hi = (f.brick_origin[a] + f.brick_dims[a]) * kSdfBrickEdge;
    if (i0[a] + 1 < lo || i0[a] >= hi) {
      r.phi = m.far_value;
      return r;
    }
  }
  for (int c = 0; c < 8; ++c) {
    const int dx = c & 1, dy = (c >> 1) & 1, dz = c >> 2;
    float v[4];
    sdf_voxel(m, f, i0[0] + dx, i0[1] + dy, i0[2] + dz, v);
    const float wx = dx ? u[0] : 1.0f - u[0];
    const float wy = dy ? u[1] : 1.0f - u[1];
    const float wz = dz ? u[2] : 1.0f - u[2];
    const float w = wx * wy * wz;
    r.phi += w * v[0];
    // d/du of the trilinear weights: +-1 along the axis times the other two weights.
    r.grad[0] += (dx ? 1.0f : -1.0f) * wy * wz * v[0];
    r.grad[1] += (dy ? 1.0f : -1.0f) * wx * wz * v[0];
    r.grad[2] += (dz ? 1.0f : -1.0f) * wx * wy * v[0];
    r.vel[0] += w * v[1], r.vel[1] += w * v[2], r.vel[2] += w * v[3];
  }
  r.grad *= m.inv_voxel;
  return r;
}

/// Rotates v about the unit axis k by angle (rad) (Rodrigues).
SILT_HD SILT_FORCEINLINE Vec3f rotate_axis_angle(const Vec3f& v, const Vec3f& k, float angle) {
  const float c = math::cos(angle), s = math::sin(angle);
  return v * c + cross(k, v) * s + k * (dot(k, v) * (1.0f - c));
}

/// The rigid pose at time t: the segment in force and the time since its key (0 before the first
/// key: the mesh waits at its first pose, at rest; the last key holds for ever).
SILT_HD inline const RigidSegment& rigid_segment_at(const MeshColliderView& m, float t,
                                                    float& tau) {
  int k = 0;
  while (k + 1 < m.n_keys && m.keys[k + 1].t0 <= t) ++k;
  tau = t > m.keys[k].t0 ? t - m.keys[k].t0 : 0.0f;
  return m.keys[k];
}

/// Distance (m, < 0 inside, the growth applied), outward unit normal (0 where the field is flat)
/// and the collider's velocity (m/s) at world point x and time t (s).
SILT_HD inline float mesh_contact(const MeshColliderView& m, const Vec3f& x, float t, Vec3f& normal,
                                  Vec3f& v_wall) {
  SdfSample s;
  if (m.n_frames > 1) {
    // A sequence: the two frames around t, linear in time (held at either end).
    int k = 0;
    while (k + 2 < m.n_frames && m.frames[k + 1].time <= t) ++k;
    const SdfFrame& a = m.frames[k];
    const SdfFrame& b = m.frames[k + 1];
    float w = (t - a.time) / (b.time - a.time);
    w = w < 0.0f ? 0.0f : (w > 1.0f ? 1.0f : w);
    const SdfSample sa = sdf_sample(m, a, x), sb = sdf_sample(m, b, x);
    s.phi = sa.phi + w * (sb.phi - sa.phi);
    s.grad = sa.grad + (sb.grad - sa.grad) * w;
    s.vel = sa.vel + (sb.vel - sa.vel) * w;
  } else if (m.n_keys > 0) {
    float tau;
    const RigidSegment& g = rigid_segment_at(m, t, tau);
    const Vec3f tr = g.translation + g.velocity * tau;
    const float wn = norm(g.omega);
    const Vec3f axis = wn > 0.0f ? g.omega * (1.0f / wn) : Vec3f::unit(1);
    const float angle = wn * tau;
    // x_mesh = R0^T Rot(-angle) (x - T); the normal goes back the other way.
    const Vec3f q = rotate_axis_angle(x - tr, axis, -angle);
    Vec3f local;
    for (int r = 0; r < 3; ++r)
      local[r] = g.rotation[r] * q[0] + g.rotation[3 + r] * q[1] + g.rotation[6 + r] * q[2];
    s = sdf_sample(m, m.frames[0], local);
    Vec3f gw;
    for (int r = 0; r < 3; ++r)
      gw[r] = g.rotation[3 * r] * s.grad[0] + g.rotation[3 * r + 1] * s.grad[1] +
              g.rotation[3 * r + 2] * s.grad[2];
    s.grad = rotate_axis_angle(gw, axis, angle);
    s.vel = g.velocity + cross(g.omega, x - tr);
  } else {
    s = sdf_sample(m, m.frames[0], x);
  }
  const float g2 = norm2(s.grad);
  // A flat field (deep inside, or midway through a part thinner than a voxel): no direction.
  normal = g2 > 1e-6f ? s.grad * math::rsqrt(g2) : Vec3f::zero();
  v_wall = s.vel;
  return s.phi - m.grow;
}

}  // namespace silt::mpm
