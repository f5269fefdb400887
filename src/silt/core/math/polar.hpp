// Polar decomposition F = R S from the SVD (R = U V^T, S = V diag(sigma) V^T). With the svd3 sign
// convention R is always a proper rotation; for inverted F (det F < 0) S carries the negative
// eigenvalue, which is what fixed-corotated elasticity needs to push inverted elements back
// (Stomakhin et al. 2012; Irving et al. 2004).
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/mat.hpp"
#include "silt/core/math/svd3.hpp"

namespace silt {

template <class T>
struct Polar3 {
  Mat3<T> r;  // rotation
  Mat3<T> s;  // symmetric
};

/// R and S from an SVD already at hand (P2G computes one SVD per particle and shares it).
template <class T>
SILT_HD SILT_FORCEINLINE Polar3<T> polar_from_svd(const Svd3<T>& d) {
  return Polar3<T>{mul_transpose(d.u, d.v), u_diag_vt(d.v, d.sigma, d.v)};
}

template <class T>
SILT_HD inline Polar3<T> polar3(const Mat3<T>& f) {
  return polar_from_svd(svd3(f));
}

}  // namespace silt
