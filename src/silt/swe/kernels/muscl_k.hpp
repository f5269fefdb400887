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
// - Slopes are zero (the stage is first order) in a cell with a dry neighbour along the
//   direction, or dry itself: wet/dry fronts see cell-centre states, as in the first-order
//   scheme. A cell at a boundary (the domain's edge, an inactive neighbour) takes one-sided
//   slopes from its other neighbour, and the boundary flux sees its face state.
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

#include <type_traits>

#include "silt/core/config.hpp"
#include "silt/core/math/minmax_nan.hpp"
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

/// Whether a and b are both positive or both negative (the limiters' test of one sign). On the
/// device in float32 as min(a, b) > 0 || max(a, b) < 0 with NaN-propagating min and max
/// (math::min_nan: a NaN gives false; the result is a or b, so the compares flush a subnormal as
/// the unit's own compares do): the same answer for every pair, in four instructions where the
/// two pairs of compares took six.
template <class T>
SILT_HD SILT_FORCEINLINE bool same_sign_k(T a, T b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (std::is_same_v<T, float>) {
    const float lo = math::min_nan(a, b), hi = math::max_nan(a, b);
    return lo > 0.0f || hi < 0.0f;
  } else
#endif
  {
    return (a > T(0) && b > T(0)) || (a < T(0) && b < T(0));
  }
}

/// minmod(a, b): the smaller of the two one-sided differences when they agree in sign, else 0.
/// The one nearer 0 is picked by magnitude and kept by the sign test, both as selects: the same
/// values as two branches on the signs, without the branches and reconvergence that each of a
/// cell's limiters took (docs/NOTES.md, "The muscl stage kernel's instructions"). On the device
/// in float32: min(a, b) where it is positive, else max(a, b) where that is negative, else 0
/// (NaN-propagating min and max, math::min_nan): the same value, in seven instructions for eight.
/// The last select is a min instruction to the compiler, which gives -0 for max(a, b) = -0 where
/// the host's form gives +0 (swe_sign_tests_device_test on an H100, 2026-12-07d): the sum with +0
/// turns that -0 into +0 and leaves every other value as it is (a subnormal only where its
/// compares keep it).
template <class T>
SILT_HD SILT_FORCEINLINE T minmod_k(T a, T b) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (std::is_same_v<T, float>) {
    const float lo = math::min_nan(a, b), hi = math::max_nan(a, b);
    return (lo > 0.0f ? lo : (hi < 0.0f ? hi : 0.0f)) + 0.0f;
  } else
#endif
  {
    const T m = math::abs(a) < math::abs(b) ? a : b;
    return same_sign_k(a, b) ? m : T(0);
  }
}

/// The monotonized central limiter (van Leer 1977): the centred difference (a + b) / 2 where it
/// lies within twice either one-sided difference, else the nearer bound; 0 at an extremum.
/// With one sign test: where a and b agree, minmod(2 a, 2 b) is twice the one nearer 0 (doubling
/// is exact). There c and m share a and b's sign and c is not 0 (|a + b| >= 2 min(|a|, |b|), and a
/// flushed subnormal fails the sign test), so the one nearer 0 is the smaller in magnitude: one
/// compare, where the min of two positives or the max of two negatives took three.
template <class T>
SILT_HD SILT_FORCEINLINE T monotonized_central_k(T a, T b) {
  const T c = T(0.5) * (a + b), m = T(2) * (math::abs(a) < math::abs(b) ? a : b);
  return same_sign_k(a, b) ? (math::abs(c) < math::abs(m) ? c : m) : T(0);
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
  // The bed's centred slope, the surface's limited one, the depth's their difference held within
  // [-h, h] (the bed then takes the rest, so the face surface stays as limited).
  const T sz = T(0.5) * (zr - zl);
  const T seta = monotonized_central_k(dh_l + (zc - zl), dh_r + (zr - zc));
  const T d = seta - sz;
  const T sh = math::min(math::max(d, -c.h), c.h);  // d held within [-h, h]
  return Slopes<T>{sh, seta - sh, minmod_k(c.un - l.un, r.un - c.un),
                   minmod_k(c.ut - l.ut, r.ut - c.ut), minmod_k(c.c - l.c, r.c - c.c)};
}

/// Slopes of cell c at a boundary (the domain's edge, or an inactive neighbour) from its one
/// neighbour n (n_east: n lies east/north of c): one-sided differences, so that the boundary
/// cell's faces carry the same linear bed and surface as its neighbour's and the bed force is
/// split between them as in the interior (zero slopes there left the boundary cell half its bed
/// force: docs/NOTES.md, "A second-order scheme"). The depth slope is held within [-h, h] (face
/// depths within [h / 2, 3 h / 2], positivity as above) and the concentration's is zero (an
/// extrapolated face value could leave its bounds). Zero when either cell is dry.
template <class T>
SILT_HD Slopes<T> muscl_boundary_slopes_k(const NormalState<T>& c, T zc, const NormalState<T>& n,
                                          T zn, T dry, bool n_east) {
  if (!(c.h > dry && n.h > dry)) return Slopes<T>{T(0), T(0), T(0), T(0), T(0)};
  const T k = n_east ? T(1) : T(-1);
  const T dh = k * (n.h - c.h);
  const T sh = math::min(math::max(dh, -c.h), c.h);
  const T seta = dh + k * (zn - zc);
  return Slopes<T>{sh, seta - sh, k * (n.un - c.un), k * (n.ut - c.ut), T(0)};
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

/// Adds half of the centred bed source of a cell (state c, slopes s) to the one-sided momentum flux
/// of its face f: its east/north face (east, where it is the edge's left cell) or its west/south
/// face.
template <class T>
SILT_HD SILT_FORCEINLINE void add_centred_source_k(EdgeFlux<T>& f, const NormalState<T>& c,
                                                   const Slopes<T>& s, T g, bool east) {
  const T half = T(0.5) * g * c.h * (s.h + s.z);
  if (east)
    f.un_left += half;
  else
    f.un_right -= half;
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
  add_centred_source_k(f, L, sL, g, true);
  add_centred_source_k(f, R, sR, g, false);
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
