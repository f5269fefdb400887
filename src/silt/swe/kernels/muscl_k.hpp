// The second-order scheme's reconstruction (physics.scheme = "muscl"; docs/NOTES.md, "A
// second-order scheme"): MUSCL face states with minmod-limited slopes (van Leer 1979), Audusse's
// hydrostatic reconstruction between them and the centred bed source of the second-order scheme
// (Audusse, Bouchut, Bristeau, Klein, Perthame, SIAM J. Sci. Comput. 25, 2004, section 2.3), and
// the two-stage Runge-Kutta of Heun (SSP-RK2, Gottlieb and Shu 1998) that averages the state with
// two first-order updates on reconstructed states.
//
// - Variables: per direction, the depth h and the surface eta = h + z (so a lake at rest has no
//   slope of eta), the normal and tangential velocities and the concentration (primitive: the
//   face values of u and c lie between the cell's and a neighbour's, so speeds and bounds hold).
//   The face bed is z_face = eta_face - h_face, the bed that makes the reconstructed surface and
//   depth agree (Audusse et al. 2004, eq. 2.17).
// - Positivity: minmod keeps each face depth within [h / 2, 3 h / 2] of the cell's h (the slope is
//   at most each one-sided difference, and the neighbours' depths are >= 0), and the face depths
//   average to h, so each first-order stage stays positive at half the first-order Courant number
//   (Audusse et al. 2004, Theorem 2.2): the scheme's cfl defaults to 0.25.
// - Slopes are zero (the stage is first order) in a cell with a dry or inactive neighbour along
//   the direction, or dry itself: wet/dry fronts, walls and the characteristic boundaries see
//   cell-centre states, as in the first-order scheme.
// - Well-balanced: a lake at rest has eta slopes of round-off; the hydrostatic reconstruction
//   between equal face surfaces and the centred source g h_i (eta_E - eta_W) cancel the pressure
//   of unequal face depths, so it stays at rest to round-off; next to dry islands the slopes are
//   zero and the first-order scheme keeps it at rest to the bit.
// - The centred source of cell i, g (h_W + h_E) / 2 (z_E - z_W) plus its own pressure
//   g (h_E^2 - h_W^2) / 2 (which cancels in the first-order update but not between unequal face
//   depths), is g h_i (eta_E - eta_W) = g h_i (s_h + s_z); half of it goes to each of the cell's two
//   faces' one-sided momentum fluxes (EdgeFlux::un_left / un_right), so the cell update
//   (update_cell_k) and a tiled kernel's once-per-edge fluxes are those of the first order.
//
// T is float or double (host and device); the CPU's packed row step does not run this scheme.
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/scalar.hpp"
#include "silt/swe/kernels/bed_source_k.hpp"
#include "silt/swe/kernels/roe_flux_k.hpp"
#include "silt/swe/kernels/wet_dry_k.hpp"

namespace silt::swe {

/// Limited change of a cell's primitive state across it along one direction (value at its
/// east/north face minus value at its west/south face), in the direction's normal frame.
template <class T>
struct Slopes {
  T h;   // depth, m
  T z;   // face bed: eta slope minus depth slope, m
  T un;  // normal velocity, m/s
  T ut;  // tangential velocity, m/s
  T c;   // concentration, kg/m^3
};

/// minmod(a, b): the smaller of the two one-sided differences when they agree in sign, else 0.
template <class T>
SILT_HD SILT_FORCEINLINE T minmod_k(T a, T b) {
  if (a > T(0) && b > T(0)) return a < b ? a : b;
  if (a < T(0) && b < T(0)) return a > b ? a : b;
  return T(0);
}

/// Slopes of cell c between its neighbours l (west/south) and r (east/north), states in the
/// direction's normal frame, beds zl, zc, zr (m). Zero when any of the three is dry (h <= dry, m);
/// the caller passes an inactive neighbour with h = 0. The surface difference is taken as
/// dh + dz, not as a difference of h + z, so that a bed far above the datum keeps its digits.
template <class T>
SILT_HD Slopes<T> muscl_slopes_k(const NormalState<T>& l, T zl, const NormalState<T>& c, T zc,
                                 const NormalState<T>& r, T zr, T dry) {
  if (!(l.h > dry && c.h > dry && r.h > dry)) return Slopes<T>{T(0), T(0), T(0), T(0), T(0)};
  const T dh_l = c.h - l.h, dh_r = r.h - c.h;
  const T sh = minmod_k(dh_l, dh_r);
  const T seta = minmod_k(dh_l + (zc - zl), dh_r + (zr - zc));
  return Slopes<T>{sh, seta - sh, minmod_k(c.un - l.un, r.un - c.un),
                   minmod_k(c.ut - l.ut, r.ut - c.ut), minmod_k(c.c - l.c, r.c - c.c)};
}

/// A reconstructed state at one face of a cell, with the face's bed (m).
template <class T>
struct FaceState {
  NormalState<T> s;
  T z;
};

/// The state of cell c (bed z) at its east/north face (east) or its west/south face.
template <class T>
SILT_HD SILT_FORCEINLINE FaceState<T> face_state_k(const NormalState<T>& c, T z, const Slopes<T>& s,
                                                   bool east) {
  const T k = east ? T(0.5) : T(-0.5);
  return FaceState<T>{
      NormalState<T>{c.h + k * s.h, c.un + k * s.un, c.ut + k * s.ut, c.c + k * s.c}, z + k * s.z};
}

/// The second-order flux through the edge between cells L (west/south, bed zL, slopes sL) and R:
/// well_balanced_flux_k between L's east face and R's west face, with half of each cell's centred
/// bed source in its one-sided momentum flux. With zero slopes it is well_balanced_flux_k(L, zL,
/// R, zR) to the bit.
template <class T>
SILT_HD EdgeFlux<T> muscl_flux_k(const NormalState<T>& L, T zL, const Slopes<T>& sL,
                                 const NormalState<T>& R, T zR, const Slopes<T>& sR, T g, T dry) {
  const FaceState<T> fl = face_state_k(L, zL, sL, true), fr = face_state_k(R, zR, sR, false);
  EdgeFlux<T> f = well_balanced_flux_k(fl.s, fl.z, fr.s, fr.z, g, dry);
  const T half_g = T(0.5) * g;
  f.un_left += half_g * L.h * (sL.h + sL.z);
  f.un_right -= half_g * R.h * (sR.h + sR.z);
  return f;
}

/// Heun's second stage: U^{n+1} = (U^n + U**) / 2, U** the first-order update of U* (each stage
/// with the step's rain and friction, so the average adds the step's rain once). Both are >= 0,
/// so is the average; a cell whose average falls to the dry depth or below carries no momentum.
template <class T>
SILT_HD SILT_FORCEINLINE CellState<T> heun_average_k(const CellState<T>& un, const CellState<T>& s2,
                                                     T dry) {
  CellState<T> s{T(0.5) * (un.h + s2.h), T(0.5) * (un.hu + s2.hu), T(0.5) * (un.hv + s2.hv),
                 T(0.5) * (un.hc + s2.hc)};
  dry_out_k(s, dry);
  return s;
}

}  // namespace silt::swe
