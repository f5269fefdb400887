// Grid update for one node, boundaries included (paper 000, merging kernels: grid update and
// boundary conditions in one kernel): momentum -> velocity, gravity, optional local damping, the
// walls of the domain box on the nodes at and beyond each face, then analytic colliders moving
// with a prescribed velocity and mesh colliders (mesh_sdf_k.hpp, a sampled distance field with the
// animation's velocity) on the nodes at and inside their surface. G2P keeps the particles
// inside the box and outside the colliders (transfer_body.hpp), so material stops at the wall.
//
// Wall conditions act on the velocity relative to the wall, v_rel = v - v_wall, with n the unit
// normal pointing out of the solid (into the material) and v_n = v_rel . n:
//   sticky    v = v_wall
//   slip      v_rel loses its normal component; Coulomb friction on the tangential part
//   separate  only when v_n < 0 (moving into the wall): as slip; otherwise untouched
// Coulomb friction (Stomakhin et al. 2013): when v_n < 0 the tangential speed |v_t| shrinks by
// mu |v_n|, to 0 if mu |v_n| >= |v_t| (static friction).
//
// Local non-viscous damping (Cundall 1987, as in geotechnical MPM codes such as Anura3D): each
// component of the node's unbalanced force f = m dv/dt loses alpha |f_c| against the direction of
// the node's velocity, f_c -= alpha |f_c| sign(v_c). It removes energy only where the material
// accelerates, so a static state is reached without changing it (unlike viscous damping).
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/scalar.hpp"
#include "silt/core/math/vec.hpp"
#include "silt/mpm/kernels/kinds_k.hpp"
#include "silt/mpm/kernels/mesh_sdf_k.hpp"

namespace silt::mpm {

/// Device form of a scene Collider (analytic shapes: positions at time 0, moving rigidly with
/// `velocity`; meshes: their own motion, mesh_sdf_k.hpp).
template <class T>
struct ColliderParams {
  ColliderKind shape;
  WallKind wall;
  T friction;             // Coulomb coefficient, -
  Vec3<T> point;          // plane: a point on it, m
  Vec3<T> normal;         // plane: unit normal pointing out of the solid, -
  Vec3<T> center;         // sphere centre / cylinder axis point, m
  T radius;               // sphere, cylinder, m
  Vec3<T> axis;           // cylinder: unit axis direction, -
  Vec3<T> box_min;        // box (solid), m
  Vec3<T> box_max;        // m
  Vec3<T> velocity;       // rigid translation, m/s (analytic shapes)
  MeshColliderView mesh;  // mesh: its distance field and motion (device tables)
};

/// One wall of the domain box: its condition and Coulomb coefficient.
template <class T>
struct WallParams {
  WallKind kind;
  T friction;  // -
};

template <class T>
struct GridUpdateParams {
  T dt;                    // s
  T time;                  // s, at the start of the step (collider positions)
  Vec3<T> gravity;         // m/s^2
  Vec3<T> domain_min;      // m, the faces of the domain box
  Vec3<T> domain_max;      // m
  T face_tolerance;        // m: a node this close to a face or collider surface counts as on it
  WallParams<T> walls[6];  // x-, x+, y-, y+, z-, z+
  int dims;                // 3, or 2 (plane strain in x-y: no walls on z)
  T damping;               // local non-viscous damping coefficient alpha in [0, 1), -
  T min_mass;              // kg: nodes lighter than this are treated as empty (velocity 0)
};

/// Node velocity from P2G sums (m/s); 0 for empty nodes.
template <class T>
SILT_HD SILT_FORCEINLINE Vec3<T> node_velocity(T mass, const Vec3<T>& momentum, T min_mass) {
  return mass > min_mass ? momentum * math::rcp(mass) : Vec3<T>::zero();
}

/// Applies one wall: v (m/s), n unit normal out of the solid, v_wall (m/s).
template <class T>
SILT_HD SILT_FORCEINLINE Vec3<T> apply_wall(const Vec3<T>& v, const Vec3<T>& n,
                                            const Vec3<T>& v_wall, WallKind kind, T friction) {
  if (kind == WallKind::sticky) return v_wall;
  const Vec3<T> rel = v - v_wall;
  const T vn = dot(rel, n);
  if (kind == WallKind::separate && vn >= T(0)) return v;
  Vec3<T> vt = rel - n * vn;
  if (vn < T(0) && friction > T(0)) {
    const T t2 = norm2(vt);
    const T dec = friction * (-vn);
    if (t2 <= dec * dec)
      vt = Vec3<T>::zero();
    else
      vt *= T(1) - dec * math::rsqrt(t2);
  }
  return v_wall + vt;
}

/// Signed distance (m, < 0 inside the solid) of point x to a collider at time t, and its outward
/// unit normal.
template <class T>
SILT_HD inline T collider_distance(const ColliderParams<T>& c, const Vec3<T>& x, T t,
                                   Vec3<T>& normal) {
  const Vec3<T> shift = c.velocity * t;
  switch (c.shape) {
    case ColliderKind::plane:
      normal = c.normal;
      return dot(x - (c.point + shift), c.normal);
    case ColliderKind::sphere: {
      const Vec3<T> r = x - (c.center + shift);
      normal = normalized(r);
      return norm(r) - c.radius;
    }
    case ColliderKind::cylinder: {
      const Vec3<T> r = x - (c.center + shift);
      const Vec3<T> radial = r - c.axis * dot(r, c.axis);
      normal = normalized(radial);
      return norm(radial) - c.radius;
    }
    case ColliderKind::mesh: {
      Vec3f n, v;
      const float d = mesh_contact(c.mesh, x.template cast<float>(), float(t), n, v);
      normal = n.template cast<T>();
      return T(d);
    }
    case ColliderKind::box:
    default: {
      // max over the six face distances: inside (all <= 0) the nearest face, which also gives
      // the normal; outside a positive lower bound of the distance (only the sign is used).
      const Vec3<T> lo = c.box_min + shift, hi = c.box_max + shift;
      T best = T(-1e30);
      normal = Vec3<T>::unit(1);
      for (int a = 0; a < 3; ++a) {
        const T d_lo = lo[a] - x[a];
        const T d_hi = x[a] - hi[a];
        if (d_lo > best) best = d_lo, normal = -Vec3<T>::unit(a);
        if (d_hi > best) best = d_hi, normal = Vec3<T>::unit(a);
      }
      return best;
    }
  }
}

/// The collider's velocity (m/s) at x and time t: the prescribed translation of an analytic shape,
/// the animation's velocity at the point for a mesh.
template <class T>
SILT_HD inline T collider_contact(const ColliderParams<T>& c, const Vec3<T>& x, T t,
                                  Vec3<T>& normal, Vec3<T>& v_wall) {
  if (c.shape == ColliderKind::mesh) {
    Vec3f n, v;
    const float d = mesh_contact(c.mesh, x.template cast<float>(), float(t), n, v);
    normal = n.template cast<T>();
    v_wall = v.template cast<T>();
    return T(d);
  }
  v_wall = c.velocity;
  return collider_distance(c, x, t, normal);
}

/// Local damping of the velocity change dv = v - v0 of one node (v0: its velocity before the
/// step's forces): f_c -= alpha |f_c| sign(v0_c), with f = m dv / dt.
template <class T>
SILT_HD SILT_FORCEINLINE Vec3<T> damp_local(const Vec3<T>& v0, const Vec3<T>& v, T alpha) {
  Vec3<T> out;
  for (int c = 0; c < 3; ++c) {
    const T dv = v[c] - v0[c];
    const T s = v0[c] > T(0) ? T(1) : (v0[c] < T(0) ? T(-1) : T(0));
    out[c] = v0[c] + dv - alpha * math::abs(dv) * s;
  }
  return out;
}

/// The whole node update: returns the node's new velocity (m/s) from its P2G sums, mass (kg) and
/// momentum (kg m/s, forces included), with transfer the momentum before the step's forces (only
/// read with damping). x_node: node position (m); colliders: n_colliders entries in memory the
/// executing backend can read.
template <class T>
SILT_HD inline Vec3<T> grid_update_node(T mass, const Vec3<T>& momentum, const Vec3<T>& transfer,
                                        const Vec3<T>& x_node, const GridUpdateParams<T>& g,
                                        const ColliderParams<T>* colliders, int n_colliders) {
  if (!(mass > g.min_mass)) return Vec3<T>::zero();
  const T inv_mass = math::rcp(mass);
  Vec3<T> v = momentum * inv_mass + g.gravity * g.dt;
  if (g.damping > T(0)) v = damp_local(transfer * inv_mass, v, g.damping);
  const Vec3<T> still = Vec3<T>::zero();
  for (int a = 0; a < g.dims; ++a) {
    const WallParams<T>& lo = g.walls[2 * a];
    const WallParams<T>& hi = g.walls[2 * a + 1];
    if (x_node[a] <= g.domain_min[a] + g.face_tolerance)
      v = apply_wall(v, Vec3<T>::unit(a), still, lo.kind, lo.friction);
    if (x_node[a] >= g.domain_max[a] - g.face_tolerance)
      v = apply_wall(v, -Vec3<T>::unit(a), still, hi.kind, hi.friction);
  }
  for (int i = 0; i < n_colliders; ++i) {
    const ColliderParams<T>& c = colliders[i];
    Vec3<T> n, vw;
    if (collider_contact(c, x_node, g.time, n, vw) <= g.face_tolerance)
      // No direction (a mesh's flat interior): the node moves with the collider.
      v = norm2(n) > T(0) ? apply_wall(v, n, vw, c.wall, c.friction) : vw;
  }
  return v;
}

/// A particle position x (m) moved out of every collider at time t (s) onto its surface: the
/// particle counterpart of the node condition, so that no particle ends a step inside a solid.
template <class T>
SILT_HD inline Vec3<T> project_out_of_colliders(Vec3<T> x, T t, const ColliderParams<T>* colliders,
                                                int n_colliders) {
  for (int i = 0; i < n_colliders; ++i) {
    Vec3<T> n;
    const T d = collider_distance(colliders[i], x, t, n);
    if (d < T(0)) x -= n * d;
  }
  return x;
}

}  // namespace silt::mpm
