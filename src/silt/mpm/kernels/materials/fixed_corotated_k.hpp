// Fixed-corotated elasticity (Stomakhin et al. 2012; Jiang et al. 2016 MPM course notes):
//   Psi = mu sum (sigma_i - 1)^2 + lambda/2 (J - 1)^2
//   P = 2 mu (F - R) + lambda (J - 1) J F^{-T}
//   tau = P F^T = U diag(2 mu (sigma_i - 1) sigma_i + lambda (J - 1) J) U^T
// The principal form needs no inverse and holds for inverted F (sigma_2 < 0, R still a rotation).
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/mat.hpp"
#include "silt/core/math/svd3.hpp"
#include "silt/core/math/vec.hpp"
#include "silt/mpm/kernels/materials/elastic_k.hpp"

namespace silt::mpm {

/// Kirchhoff stress tau = P F^T (Pa) from the SVD of F; mu, lambda in Pa.
template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> fixed_corotated_kirchhoff(const Svd3<T>& d, T mu, T lambda) {
  const Vec3<T>& s = d.sigma;
  const T j = s[0] * s[1] * s[2];
  const T vol = lambda * (j - T(1)) * j;
  const Vec3<T> p{T(2) * mu * (s[0] - T(1)) * s[0] + vol, T(2) * mu * (s[1] - T(1)) * s[1] + vol,
                  T(2) * mu * (s[2] - T(1)) * s[2] + vol};
  return rotate_principal(d.u, p);
}

/// Same from F (computes the SVD).
template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> fixed_corotated_kirchhoff(const Mat3<T>& f, T mu, T lambda) {
  return fixed_corotated_kirchhoff(svd3(f), mu, lambda);
}

/// First Piola-Kirchhoff stress P = 2 mu (F - R) + lambda (J - 1) cof(F) (Pa), the textbook form;
/// the unit tests check the principal form above against it.
template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> fixed_corotated_piola(const Mat3<T>& f, T mu, T lambda) {
  const Svd3<T> d = svd3(f);
  const Mat3<T> r = mul_transpose(d.u, d.v);
  return (f - r) * (T(2) * mu) + cofactor(f) * (lambda * (determinant(f) - T(1)));
}

}  // namespace silt::mpm
