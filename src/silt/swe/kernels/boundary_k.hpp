// Physical boundaries as ghost states (wall, open, level) or boundary states at the edge (discharge,
// supercritical inflow, critical, normal-depth and rating-curve outflow: characteristic_k.hpp)
// built from the interior cell next to the edge, in the edge's normal frame. `ghost_left` says on
// which side of the edge the ghost lies: true on west and south boundaries (the interior cell is
// the right cell of the edge), false on east and north ones. A ghost state has the interior cell's
// bed, so the hydrostatic reconstruction is the identity there; a boundary state sits on the bed
// extrapolated across the edge (flow_boundary_flux_k). As in bed_source_k.hpp, the flux returned
// for the interior cell excludes its own pressure g h^2 / 2.
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/scalar.hpp"
#include "silt/swe/kernels/bed_source_k.hpp"
#include "silt/swe/kernels/characteristic_k.hpp"
#include "silt/swe/kernels/roe_flux_k.hpp"

namespace silt::swe {

/// Boundary codes, in the order of swe::BoundaryKind.
enum BoundaryCode : int {
  kWall = 0,
  kOpen = 1,
  kDischarge = 2,
  kLevel = 3,
  kInflowDepth = 4,
  kInflowVelocity = 5,
  kCritical = 6,
  kNormalDepth = 7,
  kRating = 8
};

/// Reflective wall: mirror image with the normal velocity reversed.
template <class T>
SILT_HD SILT_FORCEINLINE NormalState<T> wall_ghost_k(const NormalState<T>& in) {
  return NormalState<T>{in.h, -in.un, in.ut, in.c};
}

/// Transmissive (zero-gradient) outflow: the ghost copies the interior, so the edge flux is the
/// interior's physical flux.
template <class T>
SILT_HD SILT_FORCEINLINE NormalState<T> open_ghost_k(const NormalState<T>& in) {
  return in;
}

/// Imposed water level eta (m, same datum as z_in): ghost depth eta - z (>= 0), interior velocity
/// (zero gradient), and the boundary's concentration for water that flows in.
template <class T>
SILT_HD SILT_FORCEINLINE NormalState<T> level_ghost_k(const NormalState<T>& in, T z_in, T eta,
                                                      T conc) {
  return NormalState<T>{math::max(T(0), eta - z_in), in.un, in.ut, conc};
}

/// Withdrawal of the unit discharge -q >= 0 (q <= 0, m^2/s, positive into the domain) from a wet
/// cell, with the interior's concentration; a dry cell gives nothing. Normal momentum q^2 / h;
/// the boundary pressure equals the interior's, which the cell update leaves out.
template <class T>
SILT_HD EdgeFlux<T> withdrawal_flux_k(const NormalState<T>& in, T q, T dry, bool ghost_left) {
  if (!(in.h > dry)) q = T(0);
  const T mom = q * q / math::max(in.h, dry);
  const T s = ghost_left ? T(1) : T(-1);  // into the domain is +normal on west/south edges
  return EdgeFlux<T>{s * q, mom, mom, T(0), s * q * in.c};
}

/// What a flow segment (kDischarge and the codes after kLevel) imposes at one edge cell.
template <class T>
struct EdgeForcing {
  T q;     // m^2/s: unit discharge into the domain (kDischarge, kInflowDepth, kInflowVelocity),
           // or what the stage-discharge relation passes out (kNormalDepth, kRating)
  T aux;   // kInflowDepth: depth, m; kInflowVelocity: velocity into the domain, m/s (> 0)
  T conc;  // concentration of water entering, kg/m^3
  T dz;    // bed of the ghost cell minus the cell's, m (the bed extrapolated from the cell and
           // the next one inward: z0 - z1)
};

/// Flux through a flow-segment edge from the boundary state (h_b, q) at the edge: mass exactly q,
/// normal momentum q^2 / h_b + g h_b^2 / 2. The ghost cell's bed is the bed extrapolated across the
/// edge, and the hydrostatic reconstruction of bed_source_k.hpp applies against it: the cell's
/// depth at the edge is h* = h - max(dz, 0), its pressure g h*^2 / 2 is left out (as
/// well_balanced_flux_k leaves out g h*^2 / 2), and the invariants are those of (h*, u). So a cell
/// on a bed falling away from the edge gets the bed-slope force an interior cell gets from its
/// upstream edge (without it the first cell of a uniform flow on a slope lacks that force, and a
/// near-critical inflow amplifies the error by 1 / (1 - Fr^2)), and a lake at rest stays at rest.
///   kDischarge, q > 0: h_b by inflow_depth_k (characteristic or critical); q <= 0: a withdrawal.
///   kInflowDepth / kInflowVelocity: h_b given (or q / velocity): supercritical inflow.
///   kCritical: outflow_state_k with no limit on q (Froude 1 at the edge).
///   kNormalDepth, kRating: outflow_state_k with the relation's q.
/// Outflow through a supercritical edge state takes the interior's physical flux (no condition).
/// Entering water carries no tangential momentum and the segment's concentration; leaving water
/// the interior's.
template <class T>
SILT_HD EdgeFlux<T> flow_boundary_flux_k(int code, const NormalState<T>& in,
                                         const EdgeForcing<T>& f, T g, T dry, bool ghost_left) {
  const T s = ghost_left ? T(1) : T(-1);  // into the domain is +normal on west/south edges
  const T he = reconstructed_depth_k(in.h, f.dz);
  const T w = s * in.un;                         // velocity into the domain
  T hb = T(0), m = T(0), ut = T(0), c = f.conc;  // boundary depth, mass flux into the domain
  if (code == kDischarge || code == kInflowDepth || code == kInflowVelocity) {
    if (code == kDischarge && !(f.q > T(0))) return withdrawal_flux_k(in, f.q, dry, ghost_left);
    hb = code == kDischarge     ? inflow_depth_k(he, w, f.q, g, dry)
         : code == kInflowDepth ? f.aux
         : f.aux > T(0)         ? f.q / f.aux
                                : T(0);  // no velocity yet: nothing enters
    m = hb > T(0) && f.q > T(0) ? f.q : T(0);
  } else {
    ut = in.ut;
    c = in.c;
    const T ce = math::sqrt(g * he);
    if (he > dry && !(-w < ce)) {
      hb = he;  // supercritical outflow: every characteristic leaves
      m = he * w;
    } else {
      const T want = code == kCritical ? T(3.0e38) : f.q;  // above any critical discharge
      const OutflowState<T> o = outflow_state_k(he, -w, want, g, dry);
      hb = o.h;
      m = -o.q;
    }
  }
  const T half_g = T(0.5) * g;
  const T mom = (hb > T(0) ? m * m / hb + half_g * hb * hb : T(0)) - half_g * he * he;
  const T fh = s * m;
  return EdgeFlux<T>{fh, mom, mom, fh * ut, fh * c};
}

/// Conveyance of a wet cell per unit width, K = h^(5/3) / n (Manning's q = K sqrt(S) at a common
/// energy slope S), by which a rating segment shares its table's discharge among its cells; h^(5/3)
/// where n = 0 (a frictionless segment, whose cells all have n = 0: setup checks it); 0 when dry.
template <class T>
SILT_HD SILT_FORCEINLINE T conveyance_k(T h, T n, T dry) {
  if (!(h > dry)) return T(0);
  const T c = math::cbrt_pos(h);
  return n > T(0) ? h * c * c / n : h * c * c;
}

/// Fastest wave speed (m/s) of the states an inflow segment imposes during a step in which its unit
/// discharge stays at most q (m^2/s) and its aux (EdgeForcing::aux) within [aux_lo, aux_hi]
/// (> 0): a bound of u_b + c_b, which the CFL time step must bound as it bounds the cells' (on a
/// dry bed there is no other). A discharge enters at most at the critical velocity, with c_b at
/// most the interior's; outflow states are bounded by their cells'.
template <class T>
SILT_HD T inflow_speed_k(int code, T q, T aux_lo, T aux_hi, T g) {
  if (!(q > T(0))) return T(0);
  if (code == kDischarge) return T(2) * math::cbrt_pos(g * q);
  if (code == kInflowDepth) return q / aux_lo + math::sqrt(g * aux_hi);
  if (code == kInflowVelocity) return aux_hi + math::sqrt(g * q / aux_lo);
  return T(0);
}

/// inflow_speed_k for a step with the constant unit discharge q and aux.
template <class T>
SILT_HD T inflow_speed_k(int code, T q, T aux, T g) {
  return inflow_speed_k(code, q, aux, aux, g);
}

/// Wave speed (m/s) of the column a point source of at most Q (m^3/s) pours into its cell of
/// width dx (m) in a step of dt (s): sqrt(g Q dt / dx^2), the speed of a dam break of that depth
/// (what the cell gets beyond the water it holds, whose speed the cells' CFL bounds).
SILT_HD inline double source_speed_k(double q_max, double dt, double dx, double g) {
  return q_max > 0.0 ? math::sqrt(g * q_max * dt / (dx * dx)) : 0.0;
}

/// Flux through a boundary edge of kind `code` for the interior state `in` (normal frame) with bed
/// z_in, for the ghost-state codes kWall, kOpen and kLevel (the ghost has the interior's bed).
/// `eta` is the imposed level (kLevel), `conc` the concentration of water entering (kLevel).
template <class T>
SILT_HD EdgeFlux<T> boundary_edge_flux_k(int code, const NormalState<T>& in, T z_in, T eta, T conc,
                                         T g, T dry, bool ghost_left) {
  NormalState<T> ghost;
  if (code == kOpen)
    ghost = open_ghost_k(in);
  else if (code == kLevel)
    ghost = level_ghost_k(in, z_in, eta, conc);
  else
    ghost = wall_ghost_k(in);
  EdgeFlux<T> f = ghost_left ? well_balanced_flux_k(ghost, z_in, in, z_in, g, dry)
                             : well_balanced_flux_k(in, z_in, ghost, z_in, g, dry);
  if (code == kWall) {
    // Nothing crosses a wall; the mirror makes these zero up to round-off, make them exact.
    f.h = T(0);
    f.ut = T(0);
    f.c = T(0);
  }
  return f;
}

}  // namespace silt::swe
