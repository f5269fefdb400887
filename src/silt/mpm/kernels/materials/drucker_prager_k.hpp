// Drucker-Prager sand plasticity on the Hencky strain (Klar et al. 2016, their projection
// algorithm) with StVK-Hencky elasticity and the volume correction of Tampubolon et al. 2017.
//
// Parameters (SI units):
//   mu, lambda          Lame parameters, Pa
//   alpha               cone slope, - (dp_alpha_from_friction_angle)
//   cohesion c          apex shift in log strain, -; 0 = cohesionless sand
//   volume_correction   weight in [0, 1] of the volume correction, - (0 disables it)
//   vc                  per-particle state: log J_p gained while separating, -
//
// With eps = log|sigma| (principal Hencky strain), eps_hat its deviatoric part and
// k = (3 lambda + 2 mu) / (2 mu), the yield surface in strain space is the cone
//   y(eps) = ||eps_hat|| + alpha k tr(eps - c I) <= 0
//   alpha  = sqrt(2/3) 2 sin(phi) / (3 - sin(phi))
// (Klar et al. 2016 with d = 3; phi the friction angle). The cohesion moves the apex to
// eps = c I, so up to c of tension per axis is elastic.
// Return mapping (Klar et al. 2016), with dgamma = ||eps_hat|| + alpha k tr(eps - c I):
//   tr(eps - c I) + vc >= 0 (tension)   -> apex: eps = c I
//   dgamma <= 0                         -> elastic, unchanged
//   otherwise                           -> eps -= dgamma eps_hat / ||eps_hat||
// Volume correction (Tampubolon et al. 2017): on an apex projection
// vc += volume_correction * tr(eps - c I); in compression vc resets to 0, so sand that was pulled
// apart must be compressed back before it carries pressure again.
#pragma once

#include <cmath>

#include "silt/core/config.hpp"
#include "silt/core/math/log_exp_lanes.hpp"
#include "silt/core/math/mat.hpp"
#include "silt/core/math/scalar.hpp"
#include "silt/core/math/svd3.hpp"
#include "silt/core/math/vec.hpp"
#include "silt/mpm/kernels/materials/elastic_k.hpp"

namespace silt::mpm {

/// Smallest |sigma| used in log(sigma): a crushed or inverted particle gets a large but finite
/// compressive strain (log(1e-4) = -9.2) instead of -inf (Klar et al. clamp the same way).
template <class T>
SILT_HD SILT_FORCEINLINE T dp_sigma_floor() {
  return T(1e-4);
}

/// alpha from the friction angle in degrees (Klar et al. 2016), dimensionless. Host side:
/// computed once when the parameters are built.
inline double dp_alpha_from_friction_angle(double degrees) {
  const double s = std::sin(degrees * 3.14159265358979323846 / 180.0);
  return std::sqrt(2.0 / 3.0) * 2.0 * s / (3.0 - s);
}

/// Yield function y(eps) (dimensionless; <= 0 inside the cone).
template <class T>
SILT_HD SILT_FORCEINLINE T dp_yield(const Vec3<T>& eps, T mu, T lambda, T alpha, T cohesion) {
  const T tr = eps[0] + eps[1] + eps[2];
  const Vec3<T> hat = eps - Vec3<T>::constant(tr * (T(1) / T(3)));
  const T k = math::div(T(3) * lambda + T(2) * mu, T(2) * mu);
  return norm(hat) + alpha * k * (tr - T(3) * cohesion);
}

/// Projects the principal Hencky strain eps (in/out) onto the cone; vc the volume-correction state
/// (in/out, dimensionless); volume_correction in [0, 1] weights it (0 disables). Returns whether
/// the strain was projected (plastic flow): a bool for a scalar T, a lane mask for a pack (the
/// branches are any()/all() and select(), which for a scalar fold back into the branches).
template <class T>
SILT_HD SILT_FORCEINLINE math::MaskOf<T> dp_project_strain(Vec3<T>& eps, T& vc, T mu, T lambda,
                                                           T alpha, T cohesion,
                                                           T volume_correction) {
  const Vec3<T> e = eps - Vec3<T>::constant(cohesion);  // apex at the origin
  const T tr = e[0] + e[1] + e[2];
  // Tension (or not yet recompressed after separating): no stress, free to move apart.
  const math::MaskOf<T> tension = tr + vc >= T(0);
  const T vc_tension = vc + volume_correction * tr;
  const Vec3<T> apex = Vec3<T>::constant(cohesion);
  if (math::all(tension)) {
    vc = vc_tension;
    eps = apex;
    return tension;
  }
  vc = math::select(tension, vc_tension, T(0));
  const Vec3<T> hat = e - Vec3<T>::constant(tr * (T(1) / T(3)));
  const T hat_norm = norm(hat);
  const T k = math::div(T(3) * lambda + T(2) * mu, T(2) * mu);
  const T dgamma = hat_norm + alpha * k * tr;
  const math::MaskOf<T> flow = !tension && !(dgamma <= T(0));  // outside the cone
  if (math::any(flow)) {
    // Here hat_norm >= dgamma > 0 because alpha k tr < 0, so the division is safe.
    const Vec3<T> onto = e - hat * math::div(dgamma, hat_norm) + Vec3<T>::constant(cohesion);
    for (int d = 0; d < 3; ++d) eps[d] = math::select(flow, onto[d], eps[d]);
  }
  for (int d = 0; d < 3; ++d) eps[d] = math::select(tension, apex[d], eps[d]);
  return tension || flow;
}

/// Plasticity + stress for one particle (or a pack of them) from d, the SVD of F: F (in/out) is
/// replaced by its elastic part U exp(eps) V^T when projected; returns the Kirchhoff stress (Pa).
/// log and exp are log_lanes and exp_lanes: on the host the same bits for a float and for each
/// lane of a pack (mpm/host/p2g_packed.hpp runs this on packs).
template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> drucker_prager_update(const Svd3<T>& d, Mat3<T>& f, T& vc, T mu,
                                                       T lambda, T alpha, T cohesion,
                                                       T volume_correction) {
  const T floor = dp_sigma_floor<T>();
  Vec3<T> eps{math::log_lanes(math::max(math::abs(d.sigma[0]), floor)),
              math::log_lanes(math::max(math::abs(d.sigma[1]), floor)),
              math::log_lanes(math::max(math::abs(d.sigma[2]), floor))};
  // Rebuild F when projected, and also when it was inverted or crushed below the floor, so the
  // stored F matches the strain the stress came from (sand recovers from inversion).
  const math::MaskOf<T> projected =
      dp_project_strain(eps, vc, mu, lambda, alpha, cohesion, volume_correction);
  const math::MaskOf<T> rebuild = projected || !(d.sigma[2] >= floor);
  if (math::any(rebuild)) {
    const Mat3<T> fe = u_diag_vt(
        d.u, Vec3<T>{math::exp_lanes(eps[0]), math::exp_lanes(eps[1]), math::exp_lanes(eps[2])},
        d.v);
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) f.m[r][c] = math::select(rebuild, fe.m[r][c], f.m[r][c]);
  }
  return rotate_principal(d.u, hencky_principal_kirchhoff(eps, mu, lambda));
}

/// The same, computing the SVD of F.
template <class T>
SILT_HD inline Mat3<T> drucker_prager_update(Mat3<T>& f, T& vc, T mu, T lambda, T alpha, T cohesion,
                                             T volume_correction) {
  return drucker_prager_update(svd3(f), f, vc, mu, lambda, alpha, cohesion, volume_correction);
}

}  // namespace silt::mpm
