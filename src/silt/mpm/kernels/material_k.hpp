// One entry point for every MPM material: plasticity projection + Kirchhoff stress for a particle,
// dispatched by an enum and a switch (DESIGN.md §5.4; never one kernel per material). P2G calls
// material_stress() once per particle, fusing SVD, plasticity and stress into the transfer
// (paper 000, "merging kernels").
//
// Parameters (MaterialParams<T>, the device form of silt::mpm::Material; SI units):
//   model               constitutive model (MaterialKind, kinds_k.hpp)
//   density             rho, kg/m^3 (particle mass = density * volume0)
//   mu, lambda          Lame parameters, Pa. fixed_corotated, drucker_prager: from Young's
//                       modulus E (Pa) and Poisson's ratio nu (-):
//                         mu = E / (2 (1 + nu)),  lambda = E nu / ((1 + nu) (1 - 2 nu));
//                       nacc: mu from kappa and nu (E = 3 kappa (1 - 2 nu)),
//                         lambda = kappa - 2 mu / 3
//   bulk, gamma         fluid: Tait bulk modulus K, Pa, and exponent, -:
//                         p = K / gamma (J^-gamma - 1)
//   viscosity           fluid: dynamic viscosity, Pa s (0: inviscid, skipped)
//   dp_alpha            drucker_prager: cone slope alpha = sqrt(2/3) 2 sin(phi) / (3 - sin(phi)),
//                       -, from the friction angle phi (Klar et al. 2016)
//   cohesion            drucker_prager: apex shift in log strain, -; 0 = cohesionless sand
//   volume_correction   drucker_prager: weight in [0, 1], -, of the Tampubolon et al. 2017
//                       volume correction
//   kappa               nacc: bulk modulus, Pa
//   nacc_m, nacc_beta   nacc: friction M and cohesion beta, - (Wolper et al. 2019 notation)
//   nacc_xi             nacc: hardening xi, -
//   nacc_alpha0         nacc: initial hardening state alpha = log J_p, -; p0 from it (nacc_k.hpp)
//   wave_speed          fastest elastic wave at rest, m/s, for the adaptive dt
//                       (material_wave_speed)
// Per-particle plastic state (`plastic`, one scalar): drucker_prager: volume correction log J_p
// gained while separating; nacc: alpha; fixed_corotated, fluid: unused (0).
// Stress: the Kirchhoff stress tau = P F^T = J sigma (Pa) that transfer_k.hpp's p2g_particle takes.
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/mat.hpp"
#include "silt/core/math/scalar.hpp"
#include "silt/core/math/svd3.hpp"
#include "silt/mpm/kernels/kinds_k.hpp"
#include "silt/mpm/kernels/materials/drucker_prager_k.hpp"
#include "silt/mpm/kernels/materials/elastic_k.hpp"
#include "silt/mpm/kernels/materials/fixed_corotated_k.hpp"
#include "silt/mpm/kernels/materials/fluid_k.hpp"
#include "silt/mpm/kernels/materials/nacc_k.hpp"

namespace silt::mpm {

template <class T>
struct MaterialParams {
  MaterialKind model;
  T density;            // kg/m^3
  T mu;                 // Pa
  T lambda;             // Pa
  T bulk;               // Pa (fluid)
  T gamma;              // - (fluid)
  T viscosity;          // Pa s (fluid)
  T dp_alpha;           // - (drucker_prager)
  T cohesion;           // - (drucker_prager)
  T volume_correction;  // - (drucker_prager)
  T kappa;              // Pa (nacc)
  T nacc_m;             // - (nacc)
  T nacc_beta;          // - (nacc)
  T nacc_xi;            // - (nacc)
  T nacc_alpha0;        // - (nacc)
  T wave_speed;         // m/s
};

/// Smallest J a fluid particle may report: keeps J^-gamma finite if a step over-compresses.
template <class T>
SILT_HD SILT_FORCEINLINE T fluid_j_floor() {
  return T(1e-3);
}

/// Fastest elastic wave speed (m/s): sqrt((lambda + 2 mu)/rho) for solids, sqrt(K/rho) for the
/// fluid (the Tait sound speed at rest).
template <class T>
SILT_HD SILT_FORCEINLINE T material_wave_speed(const MaterialParams<T>& m) {
  switch (m.model) {
    case MaterialKind::fluid:
      return math::sqrt(m.bulk / m.density);
    case MaterialKind::nacc:
      return math::sqrt((m.kappa + T(4) / T(3) * m.mu) / m.density);
    default:
      return p_wave_speed(m.mu, m.lambda, m.density);
  }
}

/// The wave speed (m/s) of a weakly compressible fluid particle at volume ratio j: the Tait fluid
/// stiffens under compression, c^2 = dp/drho = K j^(1 - gamma) / rho0 (K / rho0 at rest), so an
/// impact that compresses water by 20% (gamma 7) doubles its wave speed, and a dt from the rest
/// value (material_wave_speed) would break the elastic CFL there. 0 for the other models (their
/// rest wave speed bounds the step).
template <class T>
SILT_HD SILT_FORCEINLINE T compressed_wave_speed(const MaterialParams<T>& m, T j) {
  if (m.model != MaterialKind::fluid) return T(0);
  const T jj = math::max(j, fluid_j_floor<T>());
  return math::sqrt(math::div(m.bulk * math::pow(jj, T(1) - m.gamma), m.density));
}

/// Initial plastic state for a new particle of this material.
template <class T>
SILT_HD SILT_FORCEINLINE T material_initial_plastic(const MaterialParams<T>& m) {
  return m.model == MaterialKind::nacc ? m.nacc_alpha0 : T(0);
}

/// Whether material_stress takes the SVD of F (every model but the fluid).
template <class T>
SILT_HD SILT_FORCEINLINE bool material_uses_svd(const MaterialParams<T>& m) {
  return m.model != MaterialKind::fluid;
}

/// The SVD of F as material_stress takes it by default: computed there (svd3).
struct ComputeSvd3 {
  template <class T>
  SILT_HD SILT_FORCEINLINE Svd3<T> operator()(const Mat3<T>& f) const {
    return svd3(f);
  }
};

/// Plasticity + stress for one particle. f: deformation gradient (in/out: plastic projection,
/// fluid reset to J^{1/3} I); plastic: the state above (in/out); c: affine velocity C_p (1/s, for
/// viscosity). svd_of(f) gives the SVD of the incoming f where the model needs it (the host P2G
/// passes one computed beforehand for a pack of particles, mpm/host/p2g.cpp). Returns the Kirchhoff
/// stress tau = P F^T (Pa).
template <class T, class SvdOf = ComputeSvd3>
SILT_HD inline Mat3<T> material_stress(const MaterialParams<T>& m, Mat3<T>& f, T& plastic,
                                       const Mat3<T>& c, const SvdOf& svd_of = SvdOf{}) {
  switch (m.model) {
    case MaterialKind::fluid: {
      const T j = math::max(determinant(f), fluid_j_floor<T>());
      f = fluid_reset_deformation(j);
      return fluid_kirchhoff(j, m.bulk, m.gamma, m.viscosity, c);
    }
    case MaterialKind::drucker_prager:
      return drucker_prager_update(svd_of(f), f, plastic, m.mu, m.lambda, m.dp_alpha, m.cohesion,
                                   m.volume_correction);
    case MaterialKind::nacc:
      return nacc_update(svd_of(f), f, plastic,
                         NaccParams<T>{m.kappa, m.mu, m.nacc_m, m.nacc_beta, m.nacc_xi, true});
    case MaterialKind::fixed_corotated:
    default:
      return fixed_corotated_kirchhoff(svd_of(f), m.mu, m.lambda);
  }
}

}  // namespace silt::mpm
