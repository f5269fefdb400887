// Host side: builds the device parameter struct (material_k.hpp) from a validated scene Material.
// Kept apart from the *_k.hpp kernels so those depend only on core/config.hpp and core/math.
#pragma once

#include "silt/mpm/kernels/material_k.hpp"
#include "silt/mpm/kernels/materials/drucker_prager_k.hpp"
#include "silt/mpm/kernels/materials/elastic_k.hpp"
#include "silt/mpm/scene.hpp"

namespace silt::mpm {

/// Tampubolon et al. 2017 volume correction on by default for sand (Klar et al. 2016 without it
/// lets separated sand carry pressure too early).
inline constexpr double kDefaultVolumeCorrection = 1.0;

template <class T = float>
MaterialParams<T> make_material_params(const Material& in) {
  MaterialParams<T> m{};
  m.model = static_cast<MaterialModel>(static_cast<int>(in.kind));
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
  m.wave_speed = T(0);
  m.wave_speed = material_wave_speed(m);
  return m;
}

}  // namespace silt::mpm
