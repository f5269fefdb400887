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

}  // namespace silt::swe
