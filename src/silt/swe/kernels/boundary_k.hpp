// Physical boundaries as ghost states (or, for an imposed discharge, an imposed flux) built from
// the interior cell next to the edge, in the edge's normal frame. `ghost_left` says on which side
// of the edge the ghost lies: true on west and south boundaries (the interior cell is the right
// cell of the edge), false on east and north ones. The ghost has the interior cell's bed, so the
// hydrostatic reconstruction is the identity there and, as in bed_source_k.hpp, the flux returned
// for the interior cell excludes its own pressure g h^2 / 2.
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/scalar.hpp"
#include "silt/swe/kernels/bed_source_k.hpp"
#include "silt/swe/kernels/roe_flux_k.hpp"

namespace silt::swe {

/// Boundary codes, in the order of swe::BoundaryKind.
enum BoundaryCode : int { kWall = 0, kOpen = 1, kDischarge = 2, kLevel = 3 };

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

/// Imposed unit discharge q (m^2/s, positive into the domain) as a flux: mass exactly q, normal
/// momentum q^2 / hb carried by water entering perpendicular to the edge, no tangential momentum.
/// hb is the interior depth but at least the critical depth (q^2/g)^(1/3), so water entering a dry
/// cell does so at most at the critical velocity (not with q^2 / h -> infinity). The boundary
/// pressure equals the interior's, which the cell update leaves out. A negative q withdraws water
/// (with the interior's concentration) from a wet cell; a dry cell gives nothing.
template <class T>
SILT_HD EdgeFlux<T> discharge_flux_k(const NormalState<T>& in, T q, T conc, T g, T dry,
                                     bool ghost_left) {
  T mom = T(0), c = conc;
  if (q > T(0)) {
    const T hb = math::max(in.h, math::cbrt_pos(q * q / g));
    mom = q * q / hb;
  } else if (q < T(0)) {
    if (!(in.h > dry)) q = T(0);
    mom = q * q / math::max(in.h, dry);
    c = in.c;
  }
  const T s = ghost_left ? T(1) : T(-1);  // into the domain is +normal on west/south edges
  return EdgeFlux<T>{s * q, mom, mom, T(0), s * q * c};
}

/// Flux through a boundary edge of kind `code` for the interior state `in` (normal frame) with bed
/// z_in. `eta` is the imposed level (kLevel), `q` the unit discharge into the domain (kDischarge),
/// `conc` the concentration of water entering (kLevel, kDischarge).
template <class T>
SILT_HD EdgeFlux<T> boundary_edge_flux_k(int code, const NormalState<T>& in, T z_in, T eta, T q,
                                         T conc, T g, T dry, bool ghost_left) {
  if (code == kDischarge) return discharge_flux_k(in, q, conc, g, dry, ghost_left);
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
