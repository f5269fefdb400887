// Boundary depths from the Riemann invariant that leaves the domain (characteristic boundary
// conditions; Toro, "Shock-Capturing Methods for Free-Surface Shallow Flows", 2001, §12.3; Hirsch,
// "Numerical Computation of Internal and External Flows" vol. 2, §19.1). Across a boundary edge a
// subcritical flow carries one invariant out of the domain, w - 2c into an inflow edge, w + 2c into
// an outflow edge (w the velocity into or out of the domain, c = sqrt(g h)); the boundary state
// keeps it, and one imposed quantity (the discharge, or a stage-discharge relation) fixes the
// rest. A supercritical flow carries both invariants one way: an inflow then needs two imposed
// quantities, an outflow none. All depths in m, velocities in m/s, unit discharges in m^2/s.
//
// The equations are solved by Newton's method in s = sqrt(h), where both are convex for every
// s > 0 (second derivative 6 q / s^4), started on the side from which Newton's iterates move
// monotonically to the root; the iteration stops when an iterate no longer moves toward it
// (round-off), so the result is the root to the last bits, without a tolerance to choose.
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/scalar.hpp"

namespace silt::swe {

/// Newton steps at most (near the critical depth the outflow equation has a double root and
/// converges linearly, halving the error per step: 26 steps reach double's round-off from any
/// start measured; float stops earlier).
constexpr int kCharacteristicIterations = 32;

/// Critical depth (q^2 / g)^(1/3) of the unit discharge q.
template <class T>
SILT_HD SILT_FORCEINLINE T critical_depth_k(T q, T g) {
  return math::cbrt_pos(q * q / g);
}

/// Depth at an inflow edge where the unit discharge q > 0 enters and only q is imposed. The
/// interior edge state is (h, w), w its velocity into the domain. Subcritical interior (wet,
/// w < c): the outgoing invariant gives q / h_b - 2 sqrt(g h_b) = w - 2 c, but not below the
/// critical depth (the invariant cannot pull water in faster than critical: the inflow chokes).
/// Dry or supercritical interior: no invariant reaches the edge and the water enters at the
/// critical depth (a steep channel fed from a pool is controlled there).
template <class T>
SILT_HD T inflow_depth_k(T h, T w, T q, T g, T dry) {
  const T hc = critical_depth_k(q, g);
  if (!(h > dry)) return hc;
  const T sg = math::sqrt(g), c = math::sqrt(g * h);
  if (!(w < c)) return hc;
  const T r = w - T(2) * c;
  // f(s) = q / s^2 - 2 sqrt(g) s - r decreases; a start where f > 0 lies left of the root, and
  // both sqrt(hc) and -r / (2 sqrt(g)) (where f = q / s^2) are such starts when the root > hc.
  auto f = [&](T s) {
    return q / (s * s) - T(2) * sg * s - r;
  };
  T s = math::max(math::sqrt(hc), -r / (T(2) * sg));
  if (!(f(s) > T(0))) return hc;
  for (int k = 0; k < kCharacteristicIterations; ++k) {
    const T next = s + f(s) / (T(2) * q / (s * s * s) + T(2) * sg);
    if (!(next > s)) break;
    s = next;
  }
  return math::max(hc, s * s);
}

/// Boundary state of a subcritical outflow edge.
template <class T>
struct OutflowState {
  T h;  // depth at the edge, m
  T q;  // unit discharge out of the domain, m^2/s
};

/// Outflow edge whose interior edge state is (h, w), w its velocity out of the domain (w < c:
/// subcritical, or flowing in), that would pass the unit discharge q_want >= 0 (a stage-discharge
/// relation; +infinity for a critical outflow). The outgoing invariant R = w + 2c passes at most
/// the critical discharge (R / 3)^3 / g, at depth (R / 3)^2 / g (Froude 1 at the edge: the free
/// overfall); a smaller q leaves at the subcritical root of q / h_b + 2 sqrt(g h_b) = R.
template <class T>
SILT_HD OutflowState<T> outflow_state_k(T h, T w, T q_want, T g, T dry) {
  if (!(h > dry)) return OutflowState<T>{T(0), T(0)};
  const T sg = math::sqrt(g);
  const T r = w + T(2) * math::sqrt(g * h);
  if (!(r > T(0))) return OutflowState<T>{T(0), T(0)};
  const T cb = r / T(3);
  const T q_crit = cb * cb * cb / g;
  if (!(q_want < q_crit)) return OutflowState<T>{cb * cb / g, q_crit};
  const T q = math::max(q_want, T(0));
  // phi(s) = q / s^2 + 2 sqrt(g) s - r increases for s above the critical root; it is >= 0 at
  // s = r / (2 sqrt(g)), right of the subcritical root, where Newton starts and descends.
  auto phi = [&](T s) {
    return q / (s * s) + T(2) * sg * s - r;
  };
  T s = r / (T(2) * sg);
  const T s_crit = math::sqrt(cb * cb / g);
  for (int k = 0; k < kCharacteristicIterations; ++k) {
    const T slope = T(2) * sg - T(2) * q / (s * s * s);
    if (!(slope > T(0))) break;
    const T next = s - phi(s) / slope;
    if (!(next < s)) break;
    s = math::max(next, s_crit);
  }
  return OutflowState<T>{s * s, q};
}

}  // namespace silt::swe
