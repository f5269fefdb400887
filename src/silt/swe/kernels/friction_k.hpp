// Bed friction after Manning: S_f = n^2 |u| u / h^(4/3), i.e. d(hu)/dt = -g n^2 |u| hu / h^(4/3).
// Integrated point-implicitly (the coefficient taken at the post-flux state, the discharge at the
// new time): hu_new = hu / (1 + dt g n^2 |u| / h^(4/3)). The factor lies in (0, 1], so friction
// slows the flow but can never reverse it, however thin the film or large the step (an explicit
// update would overshoot through zero wherever dt g n^2 |u| / h^(4/3) > 1).
//
// Vanishing films: the positive (HLLE) flux lets water creep over dry cells as films whose depth
// falls like h^(3/2) from one cell to the next (a wetting front over a bank, or past a bed step,
// leaves depths of 1e-35 m and less). There h^(4/3) underflows to 0 (float below h ~ 1e-34 m,
// double below ~ 1e-243 m) while such a cell, being dry, has no discharge, and |u| / h^(4/3) is
// 0 / 0 = NaN, which friction then spreads to hu and hv. A cell without discharge has nothing to
// slow, so the factor is 1 there; with a discharge over an underflowed h^(4/3) the coefficient is
// +inf and the factor its limit, 0 (the film stops).
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/scalar.hpp"

namespace silt::swe {

/// Factor (dimensionless, in [0, 1], finite for every h >= 0) applied to hu and hv over a step
/// dt (s) for depth h (m), discharges hu, hv (m^2/s), Manning n (s m^-1/3) and gravity g (m/s^2).
/// T is float, double or a host pack of cells (float_pack.hpp): lanes without friction take the
/// cube root of 1 (libm's quickest case; a pack's exp and log go lane by lane) and give 1.
template <class T>
SILT_HD SILT_FORCEINLINE T manning_factor_k(T h, T hu, T hv, T n, T g, T dt) {
  const auto rough = n > T(0) && h > T(0) && dt > T(0);
  if (!math::any(rough)) return T(1);
  const T q = math::sqrt(hu * hu + hv * hv);  // m^2/s
  const auto slowed = rough && q > T(0);      // else nothing to slow (and no 0 / 0 below)
  if (!math::any(slowed)) return T(1);
  const T d = math::select(slowed, h, T(1));
  const T k = g * n * n * (q / d) / (d * math::cbrt_fast(d));  // 1/s, +inf if h^(4/3) underflows
  return math::select(slowed, T(1) / (T(1) + dt * k), T(1));
}

/// The factor of the fully implicit step, hu_new = hu / (1 + dt k(hu_new)) with k linear in |q|:
/// f = 2 / (1 + sqrt(1 + 4 dt k(hu))), k as in manning_factor_k. Its steady state balances the
/// friction at the new discharge whatever dt, where manning_factor_k's (k at the discharge before
/// friction) is dt k too strong: a first-order error in the depth of a steady flow, which the
/// second-order scheme's stages cannot carry (SWASHES's MacDonald channels: order 1 in h). Scalar T.
/// The factor of manning_implicit_factor_k from the speed |u| (m/s, > 0) and depth h (m, > 0)
/// of the flow, for n > 0 and dt > 0 (scalar T): the predictor of the MUSCL-Hancock step holds
/// its velocities, where the discharges' q / h took two products and a division more.
template <class T>
SILT_HD SILT_FORCEINLINE T manning_implicit_speed_factor_k(T h, T speed, T n, T g, T dt) {
  const T k = g * n * n * speed / (h * math::cbrt_fast(h));  // 1/s, +inf if h^(4/3) underflows
  return T(2) / (T(1) + math::sqrt(T(1) + T(4) * dt * k));
}
template <class T>
SILT_HD SILT_FORCEINLINE T manning_implicit_factor_k(T h, T hu, T hv, T n, T g, T dt) {
  if (!(n > T(0) && h > T(0) && dt > T(0))) return T(1);
  const T q = math::sqrt(hu * hu + hv * hv);  // m^2/s
  if (!(q > T(0))) return T(1);
  return manning_implicit_speed_factor_k(h, q / h, n, g, dt);
}

}  // namespace silt::swe
