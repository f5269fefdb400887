// First-order Roe flux of the 2D shallow-water equations across one edge, written for the
// x-normal edge; y edges reuse it by rotation (the caller swaps u and v, see wet_dry_k.hpp).
// State and flux are in the edge's normal frame: (h, h un, h ut) with un along the normal, from
// the left (L) cell to the right (R) cell.
//
// - Roe (1981) linearisation with the eigenstructure of the rotated 1D system plus the passive
//   shear wave (Toro, "Riemann Solvers and Numerical Methods for Fluid Dynamics", 3rd ed., §11).
// - Harten–Hyman (1983) entropy fix: a transonic rarefaction (characteristic speed negative on
//   its left, positive on its right) is split into two waves (LeVeque, "Finite Volume Methods for
//   Hyperbolic Problems", §15.3.5), which removes the stationary expansion shock of plain Roe.
// - Positivity: Roe is not positive near dry states (Einfeldt et al., J. Comput. Phys. 92, 1991).
//   Where the Roe intermediate depth is not positive, or either side is a thin film, the flux
//   falls back to HLLE (Einfeldt 1988), which keeps depths non-negative under the CFL condition
//   with the wave-speed estimates below (they never exceed the cells' |u| + c).
//
// T is float or double (host and device) or, on the host, a pack of several edges' values
// (core/math/float_pack.hpp): the branches are written as `if (!any(c)) ...; x = select(c, a, b)`,
// which for a scalar is the plain branch and for a pack computes each lane's own branch, so every
// lane gives the bits of the scalar flux of its edge (tests/unit/swe_pack_test.cpp).
#pragma once

#include <type_traits>

#include "silt/core/config.hpp"
#include "silt/core/math/float_pack.hpp"
#include "silt/core/math/minmax_nan.hpp"
#include "silt/core/math/scalar.hpp"
#include "silt/swe/kernels/transport_k.hpp"

namespace silt::swe {

/// Primitive state seen by an edge, in its normal frame.
template <class T>
struct NormalState {
  T h;   // depth, m
  T un;  // velocity along the edge normal (L -> R), m/s
  T ut;  // velocity along the edge, m/s
  T c;   // pollutant concentration, kg/m^3
};

/// Flux through an edge per unit edge length, in the normal frame.
template <class T>
struct Flux {
  T h;   // mass: m^2/s
  T un;  // normal momentum: m^3/s^2 (includes the pressure g h^2 / 2)
  T ut;  // tangential momentum: m^3/s^2
  T c;   // pollutant: kg/(m s)
};

/// The square roots of one side's depth that an edge flux takes: sqrt(h) (m^1/2, the Roe
/// weight) and the celerity sqrt(g h) (m/s). A tiled kernel computes them once per cell instead of
/// once per edge side; computed by depth_roots_k(), the flux is the same to the bit either way.
template <class T>
struct DepthRoots {
  T sqrt_h;    // m^1/2
  T celerity;  // m/s
};
template <class T>
SILT_HD SILT_FORCEINLINE DepthRoots<T> depth_roots_k(T h, T g) {
  return DepthRoots<T>{math::sqrt(h), math::sqrt(g * h)};
}
/// Lane by lane c ? a : b (a scalar c picks the whole struct).
template <class M, class T>
SILT_HD SILT_FORCEINLINE DepthRoots<T> select_roots_k(const M& c, const DepthRoots<T>& a,
                                                      const DepthRoots<T>& b) {
  return DepthRoots<T>{math::select(c, a.sqrt_h, b.sqrt_h),
                       math::select(c, a.celerity, b.celerity)};
}

/// Lane by lane c ? a : b (a scalar c picks the whole struct).
template <class M, class T>
SILT_HD SILT_FORCEINLINE Flux<T> select_flux_k(const M& c, const Flux<T>& a, const Flux<T>& b) {
  return Flux<T>{math::select(c, a.h, b.h), math::select(c, a.un, b.un),
                 math::select(c, a.ut, b.ut), math::select(c, a.c, b.c)};
}

/// Physical flux F(U) of one state.
template <class T>
SILT_HD SILT_FORCEINLINE Flux<T> physical_flux_k(const NormalState<T>& s, T g) {
  const T q = s.h * s.un;
  return Flux<T>{q, q * s.un + T(0.5) * g * s.h * s.h, q * s.ut, q * s.c};
}

/// Roe averages of two states (either may be dry, not both).
template <class T>
struct RoeAverage {
  T u, v, c;
};
template <class T>
SILT_HD SILT_FORCEINLINE RoeAverage<T> roe_average_k(const NormalState<T>& L,
                                                     const NormalState<T>& R,
                                                     const DepthRoots<T>& rl,
                                                     const DepthRoots<T>& rr, T g) {
  const T sl = rl.sqrt_h, sr = rr.sqrt_h;
  const T w = math::fdiv(T(1), sl + sr);
  return RoeAverage<T>{(sl * L.un + sr * R.un) * w, (sl * L.ut + sr * R.ut) * w,
                       math::sqrt(T(0.5) * g * (L.h + R.h))};
}

template <class T>
SILT_HD SILT_FORCEINLINE RoeAverage<T> roe_average_k(const NormalState<T>& L,
                                                     const NormalState<T>& R, T g) {
  return roe_average_k(L, R, depth_roots_k(L.h, g), depth_roots_k(R.h, g), g);
}

/// HLLE flux for h, h un, h ut (pollutant left to the caller). Wave speeds after Einfeldt (1988):
/// sL = min(uL - cL, u~ - c~), sR = max(uR + cR, u~ + c~), which bound the Roe speeds and stay
/// within the cells' own |u| + c, so the CFL time step also bounds them. rl, rr: the roots of
/// L.h and R.h (depth_roots_k).
template <class T>
SILT_HD Flux<T> hlle_flux_k(const NormalState<T>& L, const NormalState<T>& R,
                            const DepthRoots<T>& rl, const DepthRoots<T>& rr, T g) {
  const Flux<T> zero{T(0), T(0), T(0), T(0)};
  const math::MaskOf<T> dry = !(L.h > T(0)) && !(R.h > T(0));
  if (math::all(dry)) return zero;
  const RoeAverage<T> a = roe_average_k(L, R, rl, rr, g);
  const T cl = rl.celerity, cr = rr.celerity;
  const T sl = math::min(L.un - cl, a.u - a.c);
  const T sr = math::max(R.un + cr, a.u + a.c);
  const Flux<T> fl = physical_flux_k(L, g), fr = physical_flux_k(R, g);
  const math::MaskOf<T> left = sl >= T(0),
                        right = sr <= T(0);  // every wave to the right / to the left
  if (math::all(left)) return select_flux_k(dry, zero, fl);
  if (math::all(right)) return select_flux_k(dry, zero, select_flux_k(left, fl, fr));
  const T w = math::fdiv(T(1), sr - sl);
  const T k = sl * sr;
  const Flux<T> m{(sr * fl.h - sl * fr.h + k * (R.h - L.h)) * w,
                  (sr * fl.un - sl * fr.un + k * (R.h * R.un - L.h * L.un)) * w,
                  (sr * fl.ut - sl * fr.ut + k * (R.h * R.ut - L.h * L.ut)) * w, T(0)};
  return select_flux_k(dry, zero, select_flux_k(left, fl, select_flux_k(right, fr, m)));
}
template <class T>
SILT_HD Flux<T> hlle_flux_k(const NormalState<T>& L, const NormalState<T>& R, T g) {
  return hlle_flux_k(L, R, depth_roots_k(L.h, g), depth_roots_k(R.h, g), g);
}

/// Whether lam_l < 0 < lam_r with lam between them (a transonic rarefaction, harten_hyman_abs_k).
/// On the device in float32 the test lam_l < min(0, lam) && max(0, lam) < lam_r (NaN-propagating
/// min and max, math::min_nan): the same answer, four instructions where four compares and two
/// predicate operations took six.
template <class T>
SILT_HD SILT_FORCEINLINE math::MaskOf<T> transonic_k(T lam, T lam_l, T lam_r) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (std::is_same_v<T, float>) {
    const float lo = math::min_nan(0.0f, lam), hi = math::max_nan(0.0f, lam);
    return lam_l < lo && hi < lam_r;
  } else
#endif
  {
    return (lam_l < T(0)) && (lam_r > T(0)) && (lam_l < lam) && (lam < lam_r);
  }
}

/// Dissipation coefficient |lambda|* of one acoustic wave with the Harten–Hyman fix. lam is the
/// Roe speed, lam_l and lam_r the characteristic speeds on the wave's two sides. In a transonic
/// rarefaction (lam_l < 0 < lam_r) the wave is split with fraction beta going left at lam_l and
/// 1 - beta going right at lam_r; A^- gets mu = beta lam_l, A^+ gets lam - mu, and the symmetric
/// flux form needs A^+ - A^- = lam - 2 mu: the linear interpolation of |lambda| between lam_l and
/// lam_r, which is >= |lam| and symmetric under mirroring. Outside (lam_l, lam_r) the Roe speed
/// already points the wave away from the edge and needs no fix.
template <class T>
SILT_HD SILT_FORCEINLINE T harten_hyman_abs_k(T lam, T lam_l, T lam_r) {
  const math::MaskOf<T> transonic = transonic_k(lam, lam_l, lam_r);
  if (math::any(transonic)) {
    const T beta = math::fdiv(lam_r - lam, lam_r - lam_l);
    return math::select(transonic, lam - T(2) * beta * lam_l, math::abs(lam));
  }
  return math::abs(lam);
}

/// Roe flux for h, h un, h ut. Returns false (and leaves *out untouched) when the linearised
/// intermediate depth is not positive: the caller then uses HLLE. Both depths must be > 0. rl, rr:
/// the roots of L.h and R.h (depth_roots_k). For a pack: the lanes where it is positive; *out is
/// written when any lane is (the others' values are to be discarded).
template <class T>
SILT_HD math::MaskOf<T> roe_flux_k(const NormalState<T>& L, const NormalState<T>& R,
                                   const DepthRoots<T>& rl, const DepthRoots<T>& rr, T g,
                                   Flux<T>* out, bool entropy_fix = true) {
  const RoeAverage<T> a = roe_average_k(L, R, rl, rr, g);
  const T dh = R.h - L.h;
  const T dqn = R.h * R.un - L.h * L.un;
  const T dqt = R.h * R.ut - L.h * L.ut;
  const T l1 = a.u - a.c, l2 = a.u, l3 = a.u + a.c;
  const T inv2c = math::fdiv(T(0.5), a.c);
  // Wave strengths: dU = a1 r1 + a2 r2 + a3 r3 with r1 = (1, u~ - c~, v~), r2 = (0, 0, 1),
  // r3 = (1, u~ + c~, v~).
  const T a1 = (l3 * dh - dqn) * inv2c;
  const T a3 = (dqn - l1 * dh) * inv2c;
  const T a2 = dqt - a.v * dh;
  // Intermediate state between the two acoustic waves (the shear wave leaves h and h un alone).
  const T hm = L.h + a1;
  const math::MaskOf<T> positive = hm > T(0);
  if (!math::any(positive)) return positive;
  T d1 = math::abs(l1), d3 = math::abs(l3);
  if (entropy_fix) {
    const T um = math::fdiv(L.h * L.un + a1 * l1, hm);
    const T cm = math::sqrt(g * hm);
    d1 = harten_hyman_abs_k(l1, L.un - rl.celerity, um - cm);
    d3 = harten_hyman_abs_k(l3, um + cm, R.un + rr.celerity);
  }
  const T d2 = math::abs(l2);
  const Flux<T> fl = physical_flux_k(L, g), fr = physical_flux_k(R, g);
  const T w1 = d1 * a1, w3 = d3 * a3;
  out->h = T(0.5) * (fl.h + fr.h) - T(0.5) * (w1 + w3);
  out->un = T(0.5) * (fl.un + fr.un) - T(0.5) * (w1 * l1 + w3 * l3);
  out->ut = T(0.5) * (fl.ut + fr.ut) - T(0.5) * ((w1 + w3) * a.v + d2 * a2);
  out->c = T(0);
  return positive;
}
template <class T>
SILT_HD math::MaskOf<T> roe_flux_k(const NormalState<T>& L, const NormalState<T>& R, T g,
                                   Flux<T>* out, bool entropy_fix = true) {
  return roe_flux_k(L, R, depth_roots_k(L.h, g), depth_roots_k(R.h, g), g, out, entropy_fix);
}

/// The edge flux used by the solver: Roe with the Harten–Hyman fix between wet cells, HLLE where
/// either side is a film thinner than `dry` (m) or Roe's intermediate depth is not positive; the
/// pollutant flux is the mass flux times the upwind concentration (transport_k.hpp). rl, rr: the
/// roots of L.h and R.h (depth_roots_k).
template <class T>
SILT_HD Flux<T> numerical_flux_k(const NormalState<T>& L, const NormalState<T>& R,
                                 const DepthRoots<T>& rl, const DepthRoots<T>& rr, T g, T dry) {
  const Flux<T> zero{T(0), T(0), T(0), T(0)};
  const math::MaskOf<T> no_water = !(L.h > T(0)) && !(R.h > T(0));
  if (math::all(no_water)) return zero;
  // For a pack, && evaluates roe_flux_k on every lane; lanes not wet on both sides are discarded.
  Flux<T> f = zero;
  const math::MaskOf<T> roe = L.h > dry && R.h > dry && roe_flux_k(L, R, rl, rr, g, &f);
  if (!math::all(roe)) f = select_flux_k(roe, f, hlle_flux_k(L, R, rl, rr, g));
  f.c = upwind_pollutant_flux_k(f.h, L.c, R.c);
  return select_flux_k(no_water, zero, f);
}
template <class T>
SILT_HD Flux<T> numerical_flux_k(const NormalState<T>& L, const NormalState<T>& R, T g, T dry) {
  return numerical_flux_k(L, R, depth_roots_k(L.h, g), depth_roots_k(R.h, g), g, dry);
}

}  // namespace silt::swe
