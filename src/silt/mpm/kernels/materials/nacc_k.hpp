// Non-associated Cam-Clay snow (Wolper et al. 2019, "CD-MPM", and their return mapping), with the
// Kirchhoff pressure p = -tr(tau)/3 and the deviatoric Kirchhoff stress s.
//
// Elasticity (Wolper et al. 2019): Psi = mu/2 (tr(J^{-2/3} F F^T) - 3) + kappa/2 ((J^2-1)/2 -
// log J), so with b = diag(sigma^2) and b_bar = J^{-2/3} b:
//   tau = U diag(mu dev(b_bar) + kappa/2 (J^2 - 1)) U^T,   p = -kappa/2 (J^2 - 1).
// Yield surface (an ellipse in p-q, q = sqrt(3/2) |s|):
//   y = 3/2 (1 + 2 beta) |s|^2 + M^2 (p + beta p0)(p - p0) <= 0,
//   p0 = kappa (1e-5 + sinh(xi max(-alpha, 0)))    (hardening; alpha = log J_p)
// Return mapping:
//   p > p0 (crushed past the tip)        -> J_e with p(J_e) = p0, isotropic;  alpha += log(J/J_e)
//   p < -beta p0 (tension past the tip)  -> J_e with p(J_e) = -beta p0;         alpha += log(J/J_e)
//   y > 0                                -> keep p, scale s onto the ellipse; alpha moves by the
//                                           volume change to the ellipse point on the ray from its
//                                           centre p_c = (1 - beta) p0 / 2 (Wolper et al. 2019)
// Compression lowers alpha (p0 grows: snow hardens when packed); tension raises it (softening).
// Unlike the reference code, the shear projection keeps J exactly (a cubic for the isotropic part
// of b_bar solved by Newton), so the projected state lies on the yield surface to round-off.
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/mat.hpp"
#include "silt/core/math/scalar.hpp"
#include "silt/core/math/svd3.hpp"
#include "silt/core/math/vec.hpp"
#include "silt/mpm/kernels/materials/elastic_k.hpp"

namespace silt::mpm {

template <class T>
struct NaccParams {
  T kappa;  // bulk modulus, Pa
  T mu;     // shear modulus, Pa (from kappa and Poisson's ratio: mu_from_bulk)
  T m;      // friction coefficient M (slope of the critical state line), -
  T beta;   // cohesion coefficient (tensile strength / compressive strength), -
  T xi;     // hardening coefficient, -
  bool hardening;
};

/// Yield-surface size p0 (Pa) for hardening state alpha.
template <class T>
SILT_HD SILT_FORCEINLINE T nacc_p0(T alpha, T kappa, T xi) {
  return kappa * (T(1e-5) + math::sinh(xi * math::max(-alpha, T(0))));
}

/// Kirchhoff pressure p = -kappa/2 (J^2 - 1), Pa.
template <class T>
SILT_HD SILT_FORCEINLINE T nacc_pressure(T j, T kappa) {
  return -T(0.5) * kappa * (j * j - T(1));
}

/// dev(b_bar) for positive singular values sigma with J = prod(sigma), dimensionless.
template <class T>
SILT_HD SILT_FORCEINLINE Vec3<T> nacc_dev_b_bar(const Vec3<T>& sigma, T j) {
  const T scale = math::pow(j, T(-2.0 / 3.0));
  const Vec3<T> b{sigma[0] * sigma[0] * scale, sigma[1] * sigma[1] * scale,
                  sigma[2] * sigma[2] * scale};
  return b - Vec3<T>::constant(sum(b) * (T(1) / T(3)));
}

/// Yield function y (Pa^2; <= 0 inside) for positive singular values sigma.
template <class T>
SILT_HD SILT_FORCEINLINE T nacc_yield(const Vec3<T>& sigma, T alpha, const NaccParams<T>& q) {
  const T j = sigma[0] * sigma[1] * sigma[2];
  const T p = nacc_pressure(j, q.kappa);
  const T p0 = nacc_p0(alpha, q.kappa, q.xi);
  const T s2 = q.mu * q.mu * norm2(nacc_dev_b_bar(sigma, j));
  return T(1.5) * (T(1) + T(2) * q.beta) * s2 + q.m * q.m * (p + q.beta * p0) * (p - p0);
}

/// J at Kirchhoff pressure p: sqrt(1 - 2 p / kappa); the floor keeps a state hardened past
/// p = kappa/2 (unreachable by elasticity) finite.
template <class T>
SILT_HD SILT_FORCEINLINE T nacc_j_at_pressure(T p, T kappa) {
  return math::sqrt(math::max(T(1) - math::div(T(2) * p, kappa), T(1e-8)));
}

/// Projects positive singular values sigma (in/out) and the hardening state alpha (in/out).
/// Returns true on plastic flow.
template <class T>
SILT_HD inline bool nacc_project(Vec3<T>& sigma, T& alpha, const NaccParams<T>& q) {
  const T j = sigma[0] * sigma[1] * sigma[2];
  const T p0 = nacc_p0(alpha, q.kappa, q.xi);
  const T p = nacc_pressure(j, q.kappa);
  const T p_min = q.beta * p0;
  if (p > p0 || p < -p_min) {  // past a tip of the ellipse: project to it, isotropically
    const T je = nacc_j_at_pressure(p > p0 ? p0 : -p_min, q.kappa);
    sigma = Vec3<T>::constant(math::cbrt_pos(je));
    if (q.hardening) alpha += math::log(math::div(j, je));
    return true;
  }
  const Vec3<T> dev = nacc_dev_b_bar(sigma, j);
  const T s_norm = q.mu * norm(dev);
  const T y_s = T(1.5) * (T(1) + T(2) * q.beta);
  const T y_p = q.m * q.m * (p + p_min) * (p - p0);  // <= 0 between the tips
  if (y_s * s_norm * s_norm + y_p <= T(0)) return false;

  // Scale s onto the ellipse at the same p: |s_new| = sqrt(-y_p / y_s).
  const T s_target = math::sqrt(math::max(math::div(-y_p, y_s), T(0)));
  const Vec3<T> d = dev * math::div(s_target, s_norm);  // s_norm > 0 here since y_p <= 0 < y
  // b_bar_new = m I + d with det = 1 (J unchanged): m^3 + e2 m + e3 = 1, Newton from 1 + |d|,
  // an upper bound of the root, converges monotonically (f convex and increasing there).
  const T e2 = d[0] * d[1] + d[0] * d[2] + d[1] * d[2];
  const T e3 = d[0] * d[1] * d[2];
  T mm = T(1) + norm(d);
  for (int it = 0; it < 8; ++it)
    mm -= math::div(mm * mm * mm + e2 * mm + e3 - T(1), T(3) * mm * mm + e2);
  const T j13 = math::cbrt_pos(j);
  sigma = Vec3<T>{j13 * math::sqrt(mm + d[0]), j13 * math::sqrt(mm + d[1]),
                  j13 * math::sqrt(mm + d[2])};

  if (q.hardening && p0 > T(1e-4) && p < p0 - T(1e-4) && p > T(1e-4) - p_min) {
    // Volume change to the ellipse point on the ray from its centre through the trial state.
    const T p_c = (T(1) - q.beta) * p0 * T(0.5);
    const T q_trial = math::sqrt(T(1.5)) * s_norm;
    const T dl = math::rsqrt((p_c - p) * (p_c - p) + q_trial * q_trial);
    const T d0 = (p_c - p) * dl, d1 = -q_trial * dl;
    const T m2 = q.m * q.m;
    const T qa = m2 * d0 * d0 + (T(1) + T(2) * q.beta) * d1 * d1;
    const T qb = m2 * d0 * (T(2) * p_c - p0 + q.beta * p0);
    const T qc = m2 * (p_c + q.beta * p0) * (p_c - p0);
    const T disc = math::sqrt(math::max(qb * qb - T(4) * qa * qc, T(0)));
    const T inv_2a = math::rcp(T(2) * qa);
    const T p1 = p_c + (-qb + disc) * inv_2a * d0;
    const T p2 = p_c + (-qb - disc) * inv_2a * d0;
    const T p_x = (p - p_c) * (p1 - p_c) > T(0) ? p1 : p2;
    const T je_x = math::sqrt(math::abs(T(1) - math::div(T(2) * p_x, q.kappa)));
    if (je_x > T(1e-4)) alpha += math::log(math::div(j, je_x));
  }
  return true;
}

/// Kirchhoff stress (Pa) from the SVD's U and positive singular values sigma.
template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> nacc_kirchhoff(const Mat3<T>& u, const Vec3<T>& sigma, T mu,
                                                T kappa) {
  const T j = sigma[0] * sigma[1] * sigma[2];
  const Vec3<T> t =
      nacc_dev_b_bar(sigma, j) * mu + Vec3<T>::constant(T(0.5) * kappa * (j * j - T(1)));
  return rotate_principal(u, t);
}

/// Plasticity + stress for one particle from d, the SVD of F: F (in/out), alpha (in/out). Returns
/// tau (Pa).
template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> nacc_update(const Svd3<T>& d, Mat3<T>& f, T& alpha,
                                             const NaccParams<T>& q) {
  const T floor = T(1e-4);  // as Drucker-Prager: inverted/crushed states stay finite
  Vec3<T> sigma{math::max(math::abs(d.sigma[0]), floor), math::max(math::abs(d.sigma[1]), floor),
                math::max(math::abs(d.sigma[2]), floor)};
  const bool projected = nacc_project(sigma, alpha, q);
  if (projected || !(d.sigma[2] >= floor)) f = u_diag_vt(d.u, sigma, d.v);
  return nacc_kirchhoff(d.u, sigma, q.mu, q.kappa);
}

/// The same, computing the SVD of F.
template <class T>
SILT_HD inline Mat3<T> nacc_update(Mat3<T>& f, T& alpha, const NaccParams<T>& q) {
  return nacc_update(svd3(f), f, alpha, q);
}

}  // namespace silt::mpm
