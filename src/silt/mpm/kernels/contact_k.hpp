// Contact between two bodies that each keep a velocity field on the nodes where they meet
// (multi-field MPM, Bardenhagen et al. 2000; gap check after Nairn 2013). At a node both bodies
// reach, each body's velocity comes from its own P2G sums and grid update; then
//   - the contact normal n (unit, out of body A into body B) is the difference of the two bodies'
//     volume moments q = sum_p V_p w_ip (x_i - x_p): q points out of a body, so n ~ q_A - q_B, the
//     average of A's outward and B's inward normal (Homel & Herbold 2017 average the two too);
//   - the gap between the two surfaces along n is estimated from each body's volume fraction of the
//     node, f = sum_p V_p w_ip / dx^3: a flat half-space whose surface lies d cells beyond the node
//     fills the fraction F(d) = integral of the quadratic B-spline up to d, so its surface lies at
//     F^-1(f) (surface_offset); the gap is -(F^-1(f_A) + F^-1(f_B)) cells, 0 for touching half-
//     spaces (within 0.05 cell for 8 particles a cell, docs/NOTES.md 2026-12-04);
//   - where the bodies approach ((v_A - v_B) . n > 0) and the gap is below the tolerance, the
//     impulse that would give both the centre-of-mass velocity is applied along n (no
//     interpenetration), and tangentially up to mu times its normal part (Coulomb friction);
//     separating bodies, and bodies whose surfaces are further apart, keep their own velocities.
// Momentum is conserved: what A gains B loses.
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/scalar.hpp"
#include "silt/core/math/vec.hpp"

namespace silt::mpm {

template <class T>
struct ContactParams {
  T friction;  // Coulomb coefficient between the two bodies, -
  T gap;       // cells: surfaces closer than this (along n) are in contact
};

/// Signed distance (cells) from a node to the flat surface of a half-space of material that fills
/// the fraction f of the node's quadratic B-spline: the inverse of
///   F(d) = (d + 1.5)^3 / 6                 d in [-1.5, -0.5]
///          1/2 + 3/4 d - d^3 / 3           d in [-0.5, 0.5]
///          1 - (1.5 - d)^3 / 6             d in [0.5, 1.5]
/// (-1.5 for an empty node, 1.5 for a full one; symmetric: F^-1(1 - f) = -F^-1(f)).
template <class T>
SILT_HD SILT_FORCEINLINE T surface_offset(T f) {
  const T lo = T(1) / T(6);
  if (!(f > T(0))) return T(-1.5);
  if (f >= T(1)) return T(1.5);
  if (f <= lo) return math::cbrt_pos(T(6) * f) - T(1.5);
  if (f >= T(1) - lo) return T(1.5) - math::cbrt_pos(T(6) * (T(1) - f));
  // Newton on the middle cubic, whose slope 3/4 - d^2 stays in [1/2, 3/4].
  T d = (f - T(0.5)) * (T(4) / T(3));
  for (int k = 0; k < 4; ++k) {
    const T r = T(0.5) + T(0.75) * d - d * d * d * (T(1) / T(3)) - f;
    d -= r / (T(0.75) - d * d);
  }
  return d;
}

/// The gap (cells) between two bodies' surfaces at a node whose volume fractions they fill are
/// f_a and f_b (< 0: they overlap).
template <class T>
SILT_HD SILT_FORCEINLINE T contact_gap(T f_a, T f_b) {
  return -(surface_offset(f_a) + surface_offset(f_b));
}

/// The contact of body A (mass m_a, kg; velocity v_a, m/s) with body B at one node, n the unit
/// normal out of A into B. Where they approach, both velocities change by the impulse that
/// stops their normal approach, with its tangential part capped at friction times the normal part.
/// Returns whether the contact acted.
template <class T>
SILT_HD SILT_FORCEINLINE bool contact_pair(T m_a, Vec3<T>& v_a, T m_b, Vec3<T>& v_b,
                                           const Vec3<T>& n, T friction) {
  const Vec3<T> dv = v_a - v_b;
  const T vn = dot(dv, n);
  if (!(vn > T(0))) return false;  // separating, or sliding past: free
  const T reduced = m_a * m_b / (m_a + m_b);
  // The impulse on A that gives both the centre-of-mass velocity, -reduced dv, split along n.
  const T pn = -reduced * vn;
  Vec3<T> pt = (dv - n * vn) * (-reduced);
  const T t2 = norm2(pt), cap = friction * (-pn);
  if (t2 > cap * cap) pt *= cap * math::rsqrt(t2);
  const Vec3<T> p = n * pn + pt;
  v_a += p * math::rcp(m_a);
  v_b -= p * math::rcp(m_b);
  return true;
}

/// One node's two bodies after their own grid updates: masses (kg), velocities (m/s, changed in
/// place), volume fractions (-) and volume moments q (m^4, sum V w (x_node - x_p)). Returns whether
/// the contact acted.
template <class T>
SILT_HD SILT_FORCEINLINE bool contact_node(T m_a, Vec3<T>& v_a, T f_a, const Vec3<T>& q_a, T m_b,
                                           Vec3<T>& v_b, T f_b, const Vec3<T>& q_b,
                                           const ContactParams<T>& c) {
  const Vec3<T> d = q_a - q_b;
  const T len2 = norm2(d);
  if (!(len2 > T(0))) return false;  // no direction to push along
  if (!(contact_gap(f_a, f_b) < c.gap)) return false;
  return contact_pair(m_a, v_a, m_b, v_b, d * math::rsqrt(len2), c.friction);
}

}  // namespace silt::mpm
