// Bed friction after Manning: S_f = n^2 |u| u / h^(4/3), i.e. d(hu)/dt = -g n^2 |u| hu / h^(4/3).
// Integrated point-implicitly (the coefficient taken at the post-flux state, the discharge at the
// new time): hu_new = hu / (1 + dt g n^2 |u| / h^(4/3)). The factor lies in (0, 1], so friction
// slows the flow but can never reverse it, however thin the film or large the step (an explicit
// update would overshoot through zero wherever dt g n^2 |u| / h^(4/3) > 1).
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/scalar.hpp"

namespace silt::swe {

/// Factor (dimensionless, in (0, 1]) applied to hu and hv over a step dt (s) for depth h (m),
/// discharges hu, hv (m^2/s), Manning n (s m^-1/3) and gravity g (m/s^2).
template <class T>
SILT_HD SILT_FORCEINLINE T manning_factor_k(T h, T hu, T hv, T n, T g, T dt) {
  if (!(n > T(0)) || !(h > T(0))) return T(1);
  const T speed = math::sqrt(hu * hu + hv * hv) / h;        // m/s
  const T k = g * n * n * speed / (h * math::cbrt_pos(h));  // 1/s
  return T(1) / (T(1) + dt * k);
}

}  // namespace silt::swe
