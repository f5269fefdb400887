// Time step of the explicit first-order scheme. The 2D unsplit update is the average of two 1D
// updates with twice the step, so with dt = cfl dx / max(max(|u|, |v|) + c) each 1D part runs at
// Courant number 2 cfl; cfl <= 0.5 keeps the scheme stable and the depths non-negative.
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/scalar.hpp"
#include "silt/swe/kernels/wet_dry_k.hpp"

namespace silt::swe {

/// Fastest signal speed of one cell, m/s: max(|u|, |v|) + sqrt(g h) (velocities zero when dry).
/// T is float, double or a host pack of cells (float_pack.hpp).
template <class T>
SILT_HD SILT_FORCEINLINE T wave_speed_k(T h, T hu, T hv, T g, T dry) {
  const auto wet = h > T(0);
  if (!math::any(wet)) return T(0);
  // max(|hu|, |hv|) / h: one division, and to the bit max(|hu / h|, |hv / h|) (a rounded division
  // by the same h > 0 is monotone in the numerator, so it commutes with the max).
  const T uv = math::select(h > dry, math::fdiv(math::max(math::abs(hu), math::abs(hv)), h), T(0));
  return math::select(wet, uv + math::sqrt(g * h), T(0));
}

/// CFL time step (s) for the largest wave speed smax (m/s). speed_floor (m/s, > 0) stands in for
/// smax when nothing moves (a dry or still domain), so the step stays finite.
SILT_HD SILT_FORCEINLINE double cfl_dt_k(double smax, double dx, double cfl, double speed_floor) {
  return cfl * dx / (smax > speed_floor ? smax : speed_floor);
}

/// The largest step <= dt0 (s) whose Courant number stays within the CFL once the step's rain has
/// fallen (the second-order scheme: Heun's stage 1 rains on the cells and stage 2's fluxes see it).
/// A cell of speed a (m/s) under a rain column r dt (rate r <= rain_max, m/s) has speed at most
/// a + sqrt(g r dt) after it (sqrt(g (h + r dt)) <= sqrt(g h) + sqrt(g r dt); rain carries no
/// momentum), so the step keeps dt (speed + sqrt(g rain_max dt)) <= limit = cfl dx (m). Returns dt0
/// itself when it does (no rain: dt0 to the bit). Else Newton on x = sqrt(dt) for the root of the
/// convex b x^3 + speed x^2 = limit (b = sqrt(g rain_max)), which approaches it from above, and
/// then dt = limit / (speed + b x), which is below the root and meets the bound.
SILT_HD SILT_FORCEINLINE double rain_column_step_k(double speed, double rain_max, double g,
                                                   double limit, double dt0) {
  const double b = math::sqrt(g * (rain_max > 0.0 ? rain_max : 0.0));
  if (!(b > 0.0) || !(dt0 * (speed + b * math::sqrt(dt0)) > limit)) return dt0;
  double x = math::sqrt(dt0);
  for (int k = 0; k < 60; ++k) {
    const double f = (b * x + speed) * x * x - limit, df = (3.0 * b * x + 2.0 * speed) * x;
    const double next = x - f / df;
    if (!(next < x)) break;  // converged (round-off), from above
    x = next;
  }
  return limit / (speed + b * x);
}

}  // namespace silt::swe
