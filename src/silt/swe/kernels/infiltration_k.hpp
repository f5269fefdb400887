// Infiltration into the soil beneath a cell, as a loss of surface water after the cell update.
// The state of the soil is the cumulative infiltrated depth F (m, double: a float32 F of ~0.1 m
// would lose increments below ~1e-8 m per step), from which each model gives the most the soil
// can take over the step; the cell gives at most the water it holds (never a negative depth).
//
// Green-Ampt (Green & Ampt 1911; Chow, Maidment & Mays, Applied Hydrology, 1988, section 4.3):
// infiltration capacity f = Ks (1 + P / F), P = psi dtheta (suction head at the wetting front
// times the moisture deficit, porosity minus initial moisture). Ponded from t = 0 it integrates to
// the implicit F - P ln(1 + F / P) = Ks t. Over one step it is taken with the implicit midpoint
// rule, F1 - F0 = Ks dt (1 + P / ((F0 + F1) / 2)), a quadratic in F1 solved in closed form
// (second order in dt, no division by F0 = 0: the first step gives sqrt(2 P Ks dt), the curve's
// own start).
//
// Horton (Horton 1940; SWMM's cumulative form, Rossman & Huber 2016, section 4.2.1): capacity
// f = fc + (f0 - fc) exp(-k t) ponded, cumulative F(t) = fc t + (f0 - fc) / k (1 - exp(-k t)).
// When the surface is not ponded F grows more slowly than that curve, so the step starts from the
// time tp on the curve where F(tp) equals the cell's F (Newton from below, monotone for the
// concave F) and takes F(tp + dt) - F(tp).
#pragma once

#include <cmath>
#include "silt/core/config.hpp"

#include "silt/swe/kernels/wet_dry_k.hpp"

namespace silt::swe {

/// Infiltration models (Scene::infiltration.model).
enum InfiltrationCode : int { kNoInfiltration = 0, kGreenAmpt = 1, kHorton = 2 };

/// Green-Ampt: the most the soil takes over dt (m) after F (m) has infiltrated; ks hydraulic
/// conductivity (m/s), pd = psi dtheta (m). Implicit midpoint: with a = Ks dt and X = a + 2 F0,
/// F1 - F0 = a + 4 P a / (sqrt(X^2 + 8 P a) + X) (the root of the quadratic, written without
/// cancellation).
SILT_HD inline double green_ampt_increment_k(double F, double ks, double pd, double dt) {
  const double a = ks * dt;
  if (!(a > 0.0)) return 0.0;
  const double x = a + 2.0 * F;
  return a + 4.0 * pd * a / (sqrt(x * x + 8.0 * pd * a) + x);
}

/// Horton's ponded cumulative infiltration F(t) (m): fc, f0 (m/s), k (1/s).
SILT_HD inline double horton_cumulative_k(double t, double fc, double f0, double k) {
  if (!(k > 0.0)) return f0 * t;
  return fc * t - (f0 - fc) / k * expm1(-k * t);
}

/// Horton: the most the soil takes over dt (m) after F (m) has infiltrated (f0 >= fc >= 0).
SILT_HD inline double horton_increment_k(double F, double fc, double f0, double k, double dt) {
  if (!(dt > 0.0)) return 0.0;
  if (!(k > 0.0) || !(f0 > fc)) return f0 * dt;  // a constant rate
  // fc = 0: F approaches f0 / k and never reaches it; at (or past) it the soil takes no more.
  if (!(fc > 0.0) && !(F < f0 / k * (1.0 - 1e-15))) return 0.0;
  // tp with F(tp) = F: Newton from tp = F / f0 <= the root (f <= f0), approaching it from below
  // (F(t) is concave: every tangent lies above it), quadratically; 40 iterations bound a
  // pathological case.
  double tp = F / f0;
  for (int it = 0; it < 40; ++it) {
    const double g = horton_cumulative_k(tp, fc, f0, k) - F;
    const double rate = fc + (f0 - fc) * exp(-k * tp);
    const double step = -g / rate;
    tp += step;
    if (!(step > 1e-14 * (tp + dt))) break;
  }
  // F(tp + dt) - F(tp), without the cancellation of the difference.
  return fc * dt - (f0 - fc) * exp(-k * tp) / k * expm1(-k * dt);
}

/// The soil parameters of one cell: Green-Ampt (a = Ks m/s, b = psi dtheta m), Horton (a = fc,
/// b = f0 m/s, c = k 1/s).
template <class T>
struct SoilCell {
  T a, b, c;
};

/// Removes what infiltrates over dt (s) from cell state s (the water after the cell update, rain
/// included) and adds it to F (m). The water leaves with its velocity and concentration (hu, hv
/// and hc scale with h); a cell at or below `dry` then holds no discharge. Returns the depth
/// infiltrated (m).
template <class T>
SILT_HD double infiltrate_k(CellState<T>& s, double& F, int model, const SoilCell<T>& soil,
                            double dt, T dry) {
  if (model == kNoInfiltration || !(s.h > T(0)) || !(dt > 0.0)) return 0.0;
  const double cap =
      model == kGreenAmpt
          ? green_ampt_increment_k(F, double(soil.a), double(soil.b), dt)
          : horton_increment_k(F, double(soil.a), double(soil.b), double(soil.c), dt);
  if (!(cap > 0.0)) return 0.0;
  const double h = double(s.h);
  const T h_new = cap < h ? T(h - cap) : T(0);
  const double taken = h - double(h_new);  // exact: both are values of T
  if (!(taken > 0.0)) return 0.0;
  const T keep = h_new / s.h;
  s.h = h_new;
  s.hu *= keep;
  s.hv *= keep;
  s.hc *= keep;
  if (!(s.h > dry)) s.hu = s.hv = T(0);
  F += taken;
  return taken;
}

}  // namespace silt::swe
