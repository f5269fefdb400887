// Well-balanced bed slope source by hydrostatic reconstruction (Audusse, Bouchut, Bristeau, Klein,
// Perthame, SIAM J. Sci. Comput. 25, 2004, eqs. 2.8–2.11). At each edge the bed is taken as
// z* = max(zL, zR) and the depths are reconstructed as h*L = max(0, hL + zL - z*),
// h*R = max(0, hR + zR - z*), keeping each cell's velocity and concentration; the numerical flux is
// evaluated between the reconstructed states, and each cell adds the pressure difference
// g/2 (h^2 - h*^2) to its normal momentum flux. This
//   - keeps a lake at rest (h + z constant, u = 0) exactly at rest, also around dry islands where
//     z > h + z of the neighbour (then h* = 0 on both sides and the edge carries only pressure);
//   - keeps depths non-negative (h* <= h, and the base flux is positive);
//   - is consistent with the source -g h dz/dx at first order.
// Each cell also gets its own pressure g h^2 / 2 from both of its opposite edges, which cancels in
// the cell update; it is left out here (never computed), so a lake at rest produces momentum
// fluxes that cancel exactly, not just to round-off.
//
// Thin films on slopes (Delestre, Cordier, Darboux, James, C. R. Acad. Sci. Paris I 350, 2012:
// "a limitation of the hydrostatic reconstruction"): where a cell's bed lies above its lower
// neighbour's surface, h* = 0 on the low side and the higher cell feels only its own pressure
// g h^2 / 2 toward the drop instead of the slope force g h dz. A film thinner than the step
// between cells (h < |dz| = S dx) then barely drains: on the drying slopes of Thacker's bowl films
// of 0.7-2 mm stayed behind along the grid axes at every resolution, sliding at ~0.8 m/s
// (issue 21, item 6; tests/verification/swe_thin_film_test.cpp). Chen
// and Noelle (SIAM J. Numer. Anal. 55(2), 2017, section 3) take the edge bed as
// z_e = min(max(zL, zR), min(etaL, etaR)); the reconstructed depths are those above (h* is 0 on
// the low side either way), and the higher cell's source over its half of the edge,
// g (h + h*) / 2 (z_e - z) = g h (eta_low - z) < 0, pushes it toward the drop. That is the one
// term added here. Elsewhere (z_e = max(zL, zR): both surfaces above both beds, or a dry higher
// cell) it is zero, so lakes at rest, islands and flat beds are unchanged to the bit.
//
// T is a scalar or a host pack of edges, as in roe_flux_k.hpp.
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/float_pack.hpp"
#include "silt/core/math/scalar.hpp"
#include "silt/swe/kernels/roe_flux_k.hpp"

namespace silt::swe {

/// What one edge contributes to its two cells, per unit edge length, in the edge's normal frame.
/// The momentum flux differs between the sides by the bed source; each side's value excludes that
/// cell's own pressure g h^2 / 2 (it cancels between the cell's two opposite edges).
template <class T>
struct EdgeFlux {
  T h;         // mass flux L -> R, m^2/s (the same for both cells: conservative)
  T un_left;   // normal momentum flux for the left cell's update, m^3/s^2
  T un_right;  // normal momentum flux for the right cell's update, m^3/s^2
  T ut;        // tangential momentum flux, m^3/s^2
  T c;         // pollutant flux, kg/(m s)
};

/// Reconstructed depth of a cell at an edge whose other side has a bed dz (m) higher than this
/// one. Written as h - max(dz, 0) rather than (h + z) - z*, which loses the depth's digits in
/// float when z is large.
template <class T>
SILT_HD SILT_FORCEINLINE T reconstructed_depth_k(T h, T dz) {
  return math::max(T(0), h - math::max(dz, T(0)));
}

/// Well-balanced flux between two cells with beds zL, zR (m, any common datum). rl, rr: the roots
/// of the cells' own depths L.h, R.h (depth_roots_k), computed once per cell by a tiled kernel;
/// a side whose reconstructed depth differs takes the roots of that depth instead.
template <class T>
SILT_HD EdgeFlux<T> well_balanced_flux_k(NormalState<T> L, T zL, NormalState<T> R, T zR,
                                         DepthRoots<T> rl, DepthRoots<T> rr, T g, T dry) {
  const T dz = zR - zL;
  const T hl = reconstructed_depth_k(L.h, dz), hr = reconstructed_depth_k(R.h, -dz);
  const math::MaskOf<T> cut_l = hl != L.h, cut_r = hr != R.h;
  if (math::any(cut_l)) rl = select_roots_k(cut_l, depth_roots_k(hl, g), rl);
  if (math::any(cut_r)) rr = select_roots_k(cut_r, depth_roots_k(hr, g), rr);
  // Chen and Noelle's push on the higher cell where the lower cell's surface lies at or below its
  // bed (the lower side's reconstructed depth is 0): g h (eta_low - z), eta_low - z = h_low - |dz|.
  T pl = T(0), pr = T(0);
  const math::MaskOf<T> push_r = !(hl > T(0)) && (dz > T(0)), push_l = !(hr > T(0)) && (dz < T(0));
  if (math::any(push_r)) pr = math::select(push_r, g * R.h * (L.h - dz), pr);
  if (math::any(push_l)) pl = math::select(push_l, g * L.h * (R.h + dz), pl);
  L.h = hl;
  R.h = hr;
  const Flux<T> f = numerical_flux_k(L, R, rl, rr, g, dry);
  const T half_g = T(0.5) * g;
  return EdgeFlux<T>{f.h, f.un - half_g * L.h * L.h + pl, f.un - half_g * R.h * R.h + pr, f.ut,
                     f.c};
}
template <class T>
SILT_HD EdgeFlux<T> well_balanced_flux_k(NormalState<T> L, T zL, NormalState<T> R, T zR, T g,
                                         T dry) {
  const T dz = zR - zL;
  return well_balanced_flux_k(L, zL, R, zR, depth_roots_k(reconstructed_depth_k(L.h, dz), g),
                              depth_roots_k(reconstructed_depth_k(R.h, -dz), g), g, dry);
}

}  // namespace silt::swe
