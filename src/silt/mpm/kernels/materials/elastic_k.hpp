// Isotropic elasticity shared by the material models: Lame parameters, the StVK-Hencky Kirchhoff
// stress (Klar et al. 2016) and the P-wave speed used by the adaptive dt.
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/mat.hpp"
#include "silt/core/math/scalar.hpp"
#include "silt/core/math/vec.hpp"

namespace silt::mpm {

/// Shear modulus mu = E / (2 (1 + nu)), Pa.
template <class T>
SILT_HD SILT_FORCEINLINE T lame_mu(T youngs, T poisson) {
  return youngs / (T(2) * (T(1) + poisson));
}
/// First Lame parameter lambda = E nu / ((1 + nu)(1 - 2 nu)), Pa.
template <class T>
SILT_HD SILT_FORCEINLINE T lame_lambda(T youngs, T poisson) {
  return youngs * poisson / ((T(1) + poisson) * (T(1) - T(2) * poisson));
}
/// Shear modulus from a bulk modulus kappa and Poisson ratio: E = 3 kappa (1 - 2 nu), Pa.
template <class T>
SILT_HD SILT_FORCEINLINE T mu_from_bulk(T kappa, T poisson) {
  return T(3) * kappa * (T(1) - T(2) * poisson) / (T(2) * (T(1) + poisson));
}

/// P-wave speed sqrt((lambda + 2 mu) / rho), m/s: the fastest elastic signal, bounds dt.
template <class T>
SILT_HD SILT_FORCEINLINE T p_wave_speed(T mu, T lambda, T density) {
  return math::sqrt((lambda + T(2) * mu) / density);
}

/// StVK-Hencky principal Kirchhoff stresses: tau_i = 2 mu eps_i + lambda tr(eps), Pa; eps = log
/// of the singular values (Hencky strain).
template <class T>
SILT_HD SILT_FORCEINLINE Vec3<T> hencky_principal_kirchhoff(const Vec3<T>& eps, T mu, T lambda) {
  const T l = lambda * (eps[0] + eps[1] + eps[2]);
  return Vec3<T>{T(2) * mu * eps[0] + l, T(2) * mu * eps[1] + l, T(2) * mu * eps[2] + l};
}

/// U diag(d) U^T: a Kirchhoff stress from its principal values (isotropic models, tau = P F^T =
/// U (dPsi/dSigma Sigma) U^T).
template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> rotate_principal(const Mat3<T>& u, const Vec3<T>& d) {
  return u_diag_vt(u, d, u);
}

}  // namespace silt::mpm
