// Non-associated Cam-Clay snow: the yield surface, hardening law and return mapping of Wolper et
// al. 2019 ("CD-MPM"), after Gaume et al. 2018, on StVK-Hencky elasticity (as Gaume et al. 2018
// and silt's Drucker-Prager sand), with the Kirchhoff pressure p = -tr(tau)/3 and the deviatoric
// Kirchhoff stress s.
//
// Elasticity: with eps = log(sigma) the principal Hencky strain,
//   tau = U diag(2 mu dev(eps) + kappa tr(eps)) U^T,   p = -kappa log J,   s = 2 mu dev(eps).
// Why Hencky and not Wolper et al.'s Psi = mu/2 (tr(J^{-2/3} b) - 3) + kappa/2 ((J^2-1)/2 - log J):
// that law's Kirchhoff pressure kappa/2 (1 - J^2) never exceeds kappa/2, while hardening takes p0
// far past it (p0 = kappa sinh(5 * 0.1) = 0.52 kappa after 10% compaction at xi = 5). Past that
// point the compressive tip cannot be reached, so packed snow compresses elastically without
// bound (a confined compression took J_e to 0.05 with p0 = 12 kappa, docs/NOTES.md), stores the
// impact's energy and gives it back (rubber), and its J^{-2/3} shear stiffness outruns the dt
// chosen from the wave speed at rest (the paper-parameter snow blew up). With Hencky elasticity
// the pressure -kappa log J reaches every p0, the return mapping always has a solution, and the
// tangent moduli in log strain are constant, so the wave speed at rest bounds dt in every state.
//
// Yield surface (an ellipse in p-q, q = sqrt(3/2) |s|):
//   y = 3/2 (1 + 2 beta) |s|^2 + M^2 (p + beta p0)(p - p0) <= 0,
//   p0 = kappa (1e-5 + sinh(xi max(-alpha, 0)))    (hardening; alpha = log J_p)
// Return mapping (Wolper et al. 2019):
//   p > p0 (crushed past the tip)        -> J_e = exp(-p0 / kappa), isotropic;  alpha += log(J/J_e)
//   p < -beta p0 (tension past the tip)  -> J_e = exp(beta p0 / kappa);         alpha += log(J/J_e)
//   y > 0                                -> keep p (and J), scale s onto the ellipse; alpha moves by
//                                           the volume change to the ellipse point p_x on the ray
//                                           from its centre p_c = (1 - beta) p0 / 2 through the
//                                           trial state: alpha += log(J / J_e(p_x)) = (p_x - p)/kappa
// Compression lowers alpha (p0 grows: snow hardens when packed); tension raises it (softening).
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

/// Kirchhoff pressure p = -kappa log J, Pa.
template <class T>
SILT_HD SILT_FORCEINLINE T nacc_pressure(T j, T kappa) {
  return -kappa * math::log(j);
}

/// J at Kirchhoff pressure p: exp(-p / kappa), every pressure has one.
template <class T>
SILT_HD SILT_FORCEINLINE T nacc_j_at_pressure(T p, T kappa) {
  return math::exp(-math::div(p, kappa));
}

/// The deviatoric part of a principal Hencky strain eps, -.
template <class T>
SILT_HD SILT_FORCEINLINE Vec3<T> nacc_deviator(const Vec3<T>& eps) {
  return eps - Vec3<T>::constant(sum(eps) * (T(1) / T(3)));
}

/// Principal Hencky strain log(sigma) of positive singular values, -.
template <class T>
SILT_HD SILT_FORCEINLINE Vec3<T> nacc_strain(const Vec3<T>& sigma) {
  return Vec3<T>{math::log(sigma[0]), math::log(sigma[1]), math::log(sigma[2])};
}

/// Yield function y (Pa^2; <= 0 inside) for positive singular values sigma.
template <class T>
SILT_HD SILT_FORCEINLINE T nacc_yield(const Vec3<T>& sigma, T alpha, const NaccParams<T>& q) {
  const Vec3<T> eps = nacc_strain(sigma);
  const T p = -q.kappa * sum(eps);
  const T p0 = nacc_p0(alpha, q.kappa, q.xi);
  const T s2 = T(4) * q.mu * q.mu * norm2(nacc_deviator(eps));
  return T(1.5) * (T(1) + T(2) * q.beta) * s2 + q.m * q.m * (p + q.beta * p0) * (p - p0);
}

/// The pressure p_x (Pa) where the ray from the ellipse's centre (p_c, 0) through the trial state
/// (p, q_trial) leaves the yield surface of size p0 (Wolper et al. 2019, their hardening rule).
template <class T>
SILT_HD SILT_FORCEINLINE T nacc_ray_pressure(T p, T q_trial, T p0, const NaccParams<T>& q) {
  const T p_c = (T(1) - q.beta) * p0 * T(0.5);
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
  return (p - p_c) * (p1 - p_c) > T(0) ? p1 : p2;
}

/// Projects the principal Hencky strain eps (in/out) and the hardening state alpha (in/out).
/// Returns true on plastic flow.
template <class T>
SILT_HD inline bool nacc_project_strain(Vec3<T>& eps, T& alpha, const NaccParams<T>& q) {
  const T log_j = sum(eps);
  const T p0 = nacc_p0(alpha, q.kappa, q.xi);
  const T p = -q.kappa * log_j;
  const T p_min = q.beta * p0;
  if (p > p0 || p < -p_min) {  // past a tip of the ellipse: project to it, isotropically
    const T log_je = -math::div(p > p0 ? p0 : -p_min, q.kappa);
    eps = Vec3<T>::constant(log_je * (T(1) / T(3)));
    if (q.hardening) alpha += log_j - log_je;
    return true;
  }
  const Vec3<T> dev = nacc_deviator(eps);
  const T s_norm = T(2) * q.mu * norm(dev);
  const T y_s = T(1.5) * (T(1) + T(2) * q.beta);
  const T y_p = q.m * q.m * (p + p_min) * (p - p0);  // <= 0 between the tips
  if (y_s * s_norm * s_norm + y_p <= T(0)) return false;

  // Scale s onto the ellipse at the same p (so J is kept exactly): |s_new| = sqrt(-y_p / y_s).
  const T s_target = math::sqrt(math::max(math::div(-y_p, y_s), T(0)));
  // s_norm > 0 here since y_p <= 0 < y.
  eps = dev * math::div(s_target, s_norm) + Vec3<T>::constant(log_j * (T(1) / T(3)));
  if (q.hardening && p0 > T(1e-4) && p < p0 - T(1e-4) && p > T(1e-4) - p_min) {
    // Volume change to the ellipse point on the ray from its centre through the trial state:
    // log(J / J_e(p_x)) = (p_x - p) / kappa.
    const T p_x = nacc_ray_pressure(p, math::sqrt(T(1.5)) * s_norm, p0, q);
    alpha += math::div(p_x - p, q.kappa);
  }
  return true;
}

/// Projects positive singular values sigma (in/out) and alpha (in/out). Returns true on flow.
template <class T>
SILT_HD inline bool nacc_project(Vec3<T>& sigma, T& alpha, const NaccParams<T>& q) {
  Vec3<T> eps = nacc_strain(sigma);
  if (!nacc_project_strain(eps, alpha, q)) return false;
  sigma = Vec3<T>{math::exp(eps[0]), math::exp(eps[1]), math::exp(eps[2])};
  return true;
}

/// Principal Kirchhoff stresses (Pa) of a principal Hencky strain: 2 mu dev(eps) + kappa tr(eps).
template <class T>
SILT_HD SILT_FORCEINLINE Vec3<T> nacc_principal_kirchhoff(const Vec3<T>& eps, T mu, T kappa) {
  return nacc_deviator(eps) * (T(2) * mu) + Vec3<T>::constant(kappa * sum(eps));
}

/// Kirchhoff stress (Pa) from the SVD's U and positive singular values sigma.
template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> nacc_kirchhoff(const Mat3<T>& u, const Vec3<T>& sigma, T mu,
                                                T kappa) {
  return rotate_principal(u, nacc_principal_kirchhoff(nacc_strain(sigma), mu, kappa));
}

/// Plasticity + stress for one particle from d, the SVD of F: F (in/out), alpha (in/out). Returns
/// tau (Pa).
template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> nacc_update(const Svd3<T>& d, Mat3<T>& f, T& alpha,
                                             const NaccParams<T>& q) {
  const T floor = T(1e-4);  // as Drucker-Prager: inverted/crushed states stay finite
  Vec3<T> eps = nacc_strain(Vec3<T>{math::max(math::abs(d.sigma[0]), floor),
                                    math::max(math::abs(d.sigma[1]), floor),
                                    math::max(math::abs(d.sigma[2]), floor)});
  const bool projected = nacc_project_strain(eps, alpha, q);
  if (projected || !(d.sigma[2] >= floor))
    f = u_diag_vt(d.u, Vec3<T>{math::exp(eps[0]), math::exp(eps[1]), math::exp(eps[2])}, d.v);
  return rotate_principal(d.u, nacc_principal_kirchhoff(eps, q.mu, q.kappa));
}

/// The same, computing the SVD of F.
template <class T>
SILT_HD inline Mat3<T> nacc_update(Mat3<T>& f, T& alpha, const NaccParams<T>& q) {
  return nacc_update(svd3(f), f, alpha, q);
}

}  // namespace silt::mpm
