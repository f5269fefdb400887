// The one-stage MUSCL-Hancock step (physics.scheme = "muscl_hancock"; its design: docs/NOTES.md,
// "MUSCL-Hancock prototype"): the muscl scheme's slopes and face states (muscl_k.hpp), each
// cell's state advanced by half a step with the flux difference of its own four face states and
// the centred bed source (the predictor; van Leer 1984, Toro's "Riemann Solvers and Numerical
// Methods for Fluid Dynamics", section 14.4), then one first-order update on the fluxes of
// muscl_flux_k between the predicted face states (Audusse's hydrostatic reconstruction, the
// centred source of the predicted depth). Second order in space and time with one Riemann solve
// per edge and step, where Heun's two stages of the muscl scheme take two.
//
// - Predictor: the conservative change dU = -dt / (2 dx) (F(U_E) - F(U_W) + G(U_N) - G(U_S)) of
//   the cell's centre, F of the face states without their pressure, which goes with the bed:
//   g (h_E^2 - h_W^2) / 2 plus the centred bed source g (h_E + h_W) / 2 (z_E - z_W) is
//   g h (eta_E - eta_W) = g h (s_h + s_z), the same term as add_centred_source_k's. The predicted
//   face states are the predicted centre's primitive state plus the unchanged slopes (the same
//   change at every face), the face beds unchanged, so the surface moves with the depth.
// - Boundaries: at a face on a boundary (an inactive neighbour, the grid's edge) the predictor
//   takes the boundary flux the update will take there (on the face state before the predictor;
//   muscl_edges.hpp, hancock_cell_difference), not the face's own flux: with its own flux the
//   predictor ignored what the boundary imposes, and SWASHES's subcritical rain channel grew an
//   inflow at its level boundary at cfl 0.35 (200 cells).
// - Sources: the predictor takes half the step's rain and Manning friction (fully implicit over
//   dt / 2, manning_implicit_factor_k), as the update does over dt: a steady flow's flux
//   difference balances its rain and friction, and a predictor without them moved its faces by
//   O(dt) and made the steady state's error first order (SWASHES's MacDonald channels with rain:
//   L1 orders 0.95-0.98 of h and q without them).
// - Well-balanced: a lake at rest has zero velocities and eta slopes of round-off, so every term
//   of dU is zero but g h (s_h + s_z), round-off: the predicted faces are the muscl scheme's and
//   the update keeps the lake at rest as the muscl stage does.
// - Wet/dry: a dry cell and a cell with zero slopes (a dry neighbour along both directions,
//   muscl_slopes_k's rule) have dU = 0: at fronts the step is the first-order update of the
//   muscl scheme's face states.
// - Positivity: the predictor is dropped (dU = 0, the muscl stage's faces) where it would leave
//   a predicted face depth below half of that face's depth before it, or the predicted centre
//   dry; so every predicted face depth is >= 0 (>= h / 4: the muscl slopes' faces are >= h / 2). It is
//   dropped too where the predicted centre is faster (max(|u|, |v|) + sqrt(g h)) than the first
//   order's Courant limit, 0.5 dx / dt: the step's dt bounds U^n's speed, and gravity can
//   accelerate a thin film on a slope far beyond it within half a step (rain on a dry plane: 5 mm
//   at rest on a 5% slope reached 5 m/s at dt = 21 s, dx = 20 m, and the update emptied a cell
//   below zero); in smooth flow the speed would have to rise within half a step by 2x at cfl 0.25,
//   by 11% at the bound 0.45. The update's positivity is not proven for the predicted faces
//   (their mean is no longer the cell's depth); tests check it at cfl 0.25 (the default, muscl's
//   bound) and 0.45 (the reader's bound for this scheme).
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/scalar.hpp"
#include "silt/swe/kernels/friction_k.hpp"
#include "silt/swe/kernels/muscl_k.hpp"

namespace silt::swe {

/// Difference of the flux of a cell's east/north face state and its west/south face state along
/// one direction (its normal frame), the pressure with the centred bed source.
template <class T>
struct FluxDifference {
  T h;   // mass, m^2/s
  T un;  // normal momentum, m^3/s^2
  T ut;  // tangential momentum, m^3/s^2
  T c;   // pollutant, kg/(m s)
};

/// The flux difference across cell c (slopes s, its normal frame) of its own face states: the
/// one-sided fluxes of the update (EdgeFlux::un_left / un_right: the numerical flux less the face's
/// own pressure, plus half the centred source each) where both sides of a face agree.
template <class T>
SILT_HD SILT_FORCEINLINE FluxDifference<T> hancock_flux_difference_k(const NormalState<T>& c,
                                                                     const Slopes<T>& s, T g) {
  const FaceState<T> w = face_state_k(c, T(0), s, false), e = face_state_k(c, T(0), s, true);
  const T qw = w.s.h * w.s.un, qe = e.s.h * e.s.un;
  return FluxDifference<T>{qe - qw, qe * e.s.un - qw * w.s.un + g * c.h * (s.h + s.z),
                           qe * e.s.ut - qw * w.s.ut, qe * e.s.c - qw * w.s.c};
}

/// Parameters of the predictor: k = dt / (2 dx) (s/m), limit = 0.5 dx / dt (m/s), half_dt
/// (s), the cell's rain over half the step (m) and Manning n (s m^-1/3; 0: none).
template <class T>
struct HancockParams {
  T g, k, limit, half_dt, rain, manning, dry;
};

/// The predicted (half-step) primitive state of cell c, in the x frame (un = u, ut = v), from its
/// slopes along x (sx, x frame) and y (sy, y frame) and its flux differences along them (fx, fy:
/// hancock_flux_difference_k's, or at a boundary the update's boundary flux in place of a face's
/// own). c itself where the predictor is dropped (a face would lose more than half its depth, the
/// centre would be dry, or faster than p.limit).
template <class T>
SILT_HD NormalState<T> hancock_predict_k(const NormalState<T>& c, const Slopes<T>& sx,
                                         const Slopes<T>& sy, const FluxDifference<T>& fx,
                                         const FluxDifference<T>& fy, const HancockParams<T>& p) {
  const T g = p.g, k = p.k;
  const T h = c.h - k * (fx.h + fy.h) + p.rain;
  const T dh = h - c.h;
  // Each face's depth moves by dh; the lowest face lies reach below the centre.
  const T reach = T(0.5) * math::max(math::abs(sx.h), math::abs(sy.h));
  if (!(h > p.dry && h - reach >= T(0.5) * (c.h - reach))) return c;
  // The centre's conservative change as a change of its primitive state (u' = (h u + dq) / h').
  const T r = math::fdiv(T(1), h);
  const T dqx = -k * (fx.un + fy.ut), dqy = -k * (fy.un + fx.ut), dhc = -k * (fx.c + fy.c);
  T u = c.un + (dqx - c.un * dh) * r, v = c.ut + (dqy - c.ut * dh) * r;
  // h > dry > 0 here; the speed from the velocities (manning_implicit_speed_factor_k).
  const T speed = math::sqrt(u * u + v * v);
  if (p.manning > T(0) && p.half_dt > T(0) && speed > T(0)) {
    const T f = manning_implicit_speed_factor_k(h, speed, p.manning, g, p.half_dt);
    u *= f;
    v *= f;
  }
  // max(|u|, |v|) + sqrt(g h) <= limit, squared (no square root): room >= 0, room^2 >= g h.
  const T room = p.limit - math::max(math::abs(u), math::abs(v));
  if (!(room >= T(0) && room * room >= g * h)) return c;
  return NormalState<T>{h, u, v, c.c + (dhc - c.c * dh) * r};
}

}  // namespace silt::swe
