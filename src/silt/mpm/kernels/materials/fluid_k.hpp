// Weakly compressible fluid (Tampubolon et al. 2017; Becker & Teschner 2007 for the Tait form):
//   p(J) = K / gamma (J^{-gamma} - 1)          (rho / rho0 = 1 / J), Pa
//   tau  = -J p I + J mu_v (C + C^T)           (Newtonian viscosity, sigma_v = 2 mu_v sym(grad v))
// Only J matters for a fluid, so F is reset to J^{1/3} I every step: shear never accumulates and
// the SVD is skipped (Tampubolon et al. 2017).
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/mat.hpp"
#include "silt/core/math/scalar.hpp"

namespace silt::mpm {

/// Tait pressure (Pa) at volume ratio j = det F; bulk K (Pa), exponent gamma (-).
template <class T>
SILT_HD SILT_FORCEINLINE T tait_pressure(T j, T bulk, T gamma) {
  return math::div(bulk, gamma) * (math::pow(j, -gamma) - T(1));
}

/// Kirchhoff stress (Pa): pressure at j, plus viscosity (Pa s) on the velocity gradient c (1/s).
template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> fluid_kirchhoff(T j, T bulk, T gamma, T viscosity,
                                                 const Mat3<T>& c) {
  Mat3<T> tau = Mat3<T>::diag(-j * tait_pressure(j, bulk, gamma));
  if (viscosity > T(0)) tau += (c + transpose(c)) * (j * viscosity);
  return tau;
}

/// The deformation gradient a fluid particle keeps: J^{1/3} I (j > 0).
template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> fluid_reset_deformation(T j) {
  return Mat3<T>::diag(math::cbrt_pos(j));
}

}  // namespace silt::mpm
