// Pollutant transport (paper 001: the concentration C is carried by the flow, d(hC)/dt +
// div(hC u) = 0). The pollutant flux through an edge is the mass flux times the concentration of
// the upwind cell, so
//   - a uniform C stays uniform: every edge carries C times its mass flux, and the cell update of
//     hC is C times that of h (to round-off);
//   - the new C is a convex combination of the old C of the cell and its upwind neighbours as long
//     as no cell sends out more water than it holds in one step (the CFL condition), so C stays
//     within the [min, max] of its neighbourhood.
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/float_pack.hpp"
#include "silt/core/math/scalar.hpp"

namespace silt::swe {

/// Upwind pollutant flux, kg/(m s), for a mass flux (m^2/s, positive from L to R) and the two
/// concentrations (kg/m^3).
template <class T>
SILT_HD SILT_FORCEINLINE T upwind_pollutant_flux_k(T mass_flux, T c_left, T c_right) {
  return mass_flux * math::select(mass_flux > T(0), c_left, c_right);
}

/// Concentration C = hC / h, kg/m^3. Kept for thin films too (any h > 0) so that pollutant in a
/// draining cell leaves with the water that carries it; 0 where there is no water.
template <class T>
SILT_HD SILT_FORCEINLINE T concentration_k(T h, T hc) {
  return h > T(0) ? hc / h : T(0);
}

}  // namespace silt::swe
