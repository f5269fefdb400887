// Host side: builds the device parameter structs of the kernels (MaterialParams, ColliderParams)
// from a validated Scene. It lives above kernels/ because it reads the scene; the kernels depend
// only on core/config.hpp and core/math, and share their enums with the scene (kinds_k.hpp).
#pragma once

#include <algorithm>
#include <cmath>

#include "silt/mpm/fixed_sums.hpp"
#include "silt/mpm/kernels/grid_update_k.hpp"
#include "silt/mpm/kernels/material_k.hpp"
#include "silt/mpm/kernels/materials/drucker_prager_k.hpp"
#include "silt/mpm/kernels/materials/elastic_k.hpp"
#include "silt/mpm/scene.hpp"

namespace silt::mpm {

/// Tampubolon et al. 2017 volume correction on by default for sand (without it, sand that was
/// pulled apart carries pressure again as soon as it is touched).
inline constexpr double kDefaultVolumeCorrection = 1.0;

template <class T = float>
Vec3<T> to_vec3(const Vec3d& a) {
  return Vec3<T>{T(a[0]), T(a[1]), T(a[2])};
}

template <class T = float>
MaterialParams<T> make_material_params(const Material& in) {
  MaterialParams<T> m{};
  m.model = in.kind;
  m.density = T(in.density);
  double mu = lame_mu(in.youngs_modulus, in.poisson_ratio);
  double lambda = lame_lambda(in.youngs_modulus, in.poisson_ratio);
  if (in.kind == MaterialKind::nacc) {
    mu = mu_from_bulk(in.nacc_kappa, in.poisson_ratio);
    lambda = in.nacc_kappa - 2.0 / 3.0 * mu;
  }
  m.mu = T(mu);
  m.lambda = T(lambda);
  m.bulk = T(in.bulk_modulus);
  m.gamma = T(in.gamma);
  m.viscosity = T(in.viscosity);
  m.dp_alpha = T(dp_alpha_from_friction_angle(in.friction_angle));
  m.cohesion = T(in.cohesion);
  m.volume_correction = T(kDefaultVolumeCorrection);
  m.kappa = T(in.nacc_kappa);
  m.nacc_m = T(in.nacc_m);
  m.nacc_beta = T(in.nacc_beta);
  m.nacc_xi = T(in.nacc_xi);
  m.nacc_alpha0 = T(in.nacc_alpha0);
  m.wave_speed = material_wave_speed(m);
  return m;
}

/// The stress force gets grid channels of its own (accumulator stride 8) where the grid update
/// needs the velocity before forces: ASFLIP, the fused G2P2G (no dt at its scatter), and local
/// damping (it acts on the force).
inline bool split_force_channels(const Scene& s) {
  return s.transfer == Transfer::asflip || s.g2p2g || s.damping > 0;
}

/// The speed the fixed-point momentum unit is sized for (m/s, fixed_sums.hpp): the fastest source
/// or collider velocity plus the free-fall speed over the domain's diagonal, at least 1 m/s,
/// rounded up to a power of two.
inline double fixed_speed_bound(const Scene& s) {
  const auto norm = [](const Vec3d& v) {
    return std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  };
  double v = 0;
  for (const Source& src : s.sources) v = std::max(v, norm(src.velocity));
  for (const Collider& c : s.colliders) v = std::max(v, norm(c.velocity));
  const Vec3d d{s.domain_max[0] - s.domain_min[0], s.domain_max[1] - s.domain_min[1],
                s.domain_max[2] - s.domain_min[2]};
  v += std::sqrt(2.0 * norm(s.gravity) * norm(d));
  return std::exp2(std::ceil(std::log2(std::max(v, 1.0))));
}

/// The units of the deterministic mode's fixed-point P2G sums (fixed_sums.hpp): mass m_max 2^-40,
/// momentum m_max v_ref 2^-36, force that per dt_ref (max_dt, or fixed_dt), each rounded down to a
/// power of two; m_max is the heaviest particle of the scene's sources (kg).
inline FixedScale fixed_scale(const Scene& s) {
  const double cell = s.dx * s.dx * s.dx;
  double m_max = 0;
  for (const Source& src : s.sources)
    m_max = std::max(
        m_max, s.materials[std::size_t(src.material)].density * cell / src.particles_per_cell);
  if (!(m_max > 0)) m_max = s.materials.empty() ? 1.0 : s.materials.front().density * cell;
  const double dt_ref = s.fixed_dt > 0 ? s.fixed_dt : s.max_dt;
  const double unit[3] = {m_max * 0x1p-40, m_max * fixed_speed_bound(s) * 0x1p-36,
                          m_max * fixed_speed_bound(s) * 0x1p-36 / dt_ref};
  FixedScale f;
  for (int k = 0; k < 3; ++k) {
    const double u = std::exp2(std::floor(std::log2(unit[k])));
    f.from_fixed[k] = float(u);
    f.to_fixed[k] = float(1.0 / u);
  }
  return f;
}

/// Normals and axes are normalised here so the kernels can assume unit vectors.
template <class T = float>
ColliderParams<T> make_collider_params(const Collider& in) {
  ColliderParams<T> c{};
  c.shape = in.kind;
  c.wall = in.wall;
  c.friction = T(in.friction);
  c.point = to_vec3<T>(in.point);
  c.normal = normalized(to_vec3<double>(in.normal)).template cast<T>();
  c.center = to_vec3<T>(in.center);
  c.radius = T(in.radius);
  c.axis = normalized(to_vec3<double>(in.axis)).template cast<T>();
  if (in.kind == ColliderKind::mesh) c.normal = c.axis = Vec3<T>::unit(1);  // unused
  c.box_min = to_vec3<T>(in.box_min);
  c.box_max = to_vec3<T>(in.box_max);
  c.velocity = to_vec3<T>(in.velocity);
  c.mesh = MeshColliderView{};  // a mesh's tables are the part's (Part::collider_table)
  return c;
}

}  // namespace silt::mpm
