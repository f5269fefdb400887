// Wet/dry treatment. A cell whose depth is below dry_depth (m) is dry: it has no velocity (no
// spurious velocities from dividing a tiny discharge by a tiny depth) and its edges use the
// positive HLLE flux (roe_flux_k.hpp). Depths stay non-negative under the CFL condition because
// the edge fluxes are positivity-preserving (Einfeldt et al. 1991; with hydrostatic reconstruction,
// Audusse et al. 2004, Theorem 2.1): what remains is round-off, which clamp_depth_k removes, and
// anything larger is reported as a fault instead of being hidden.
#pragma once

#include <limits>
#include <type_traits>

#include "silt/core/config.hpp"
#include "silt/core/math/scalar.hpp"
#include "silt/swe/kernels/roe_flux_k.hpp"
#include "silt/swe/kernels/transport_k.hpp"

namespace silt::swe {

/// Conserved variables of one cell.
template <class T>
struct CellState {
  T h;   // depth, m
  T hu;  // unit discharge along x, m^2/s
  T hv;  // unit discharge along y, m^2/s
  T hc;  // pollutant mass per area, kg/m^2
};

/// Edge orientation: x edges have their normal along +x, y edges along +y.
enum class Dir { x, y };

/// Velocity component hq / h, zero in dry cells (h <= dry).
template <class T>
SILT_HD SILT_FORCEINLINE T velocity_k(T h, T hq, T dry) {
  return h > dry ? math::fdiv(hq, h) : T(0);
}

/// The cell's primitive state in the frame of an x or y edge (the rotation that lets y edges use
/// the x-normal Roe flux: un = v, ut = u).
template <class T>
SILT_HD SILT_FORCEINLINE NormalState<T> normal_state_k(const CellState<T>& s, Dir d, T dry) {
  const T u = velocity_k(s.h, s.hu, dry), v = velocity_k(s.h, s.hv, dry);
  const T c = concentration_k(s.h, s.hc);
  return d == Dir::x ? NormalState<T>{s.h, u, v, c} : NormalState<T>{s.h, v, u, c};
}

/// The cell's primitive state in the x-edge frame (normal_state_k(s, Dir::x, dry)) with one
/// division: (hu, hv, hc) times r = 1 / h. Round-off apart from normal_state_k(): r is within half
/// an ulp of 1/h and the product adds another half, so each of u, v, c lies within eps (relative,
/// plus eps^2 / 4) of the exact quotient, against eps / 2 for the division: at most two ulps from
/// normal_state_k()'s value. Films (0 < h <= dry) divide, so r is only taken for h > dry, where
/// it is finite (dry is a normal number of T). The tile kernel stages its cells with this.
template <class T>
SILT_HD SILT_FORCEINLINE NormalState<T> primitive_state_k(const CellState<T>& s, T dry) {
  if (!(s.h > dry)) return NormalState<T>{s.h, T(0), T(0), concentration_k(s.h, s.hc)};
  const T r = math::fdiv(T(1), s.h);
  return NormalState<T>{s.h, s.hu * r, s.hv * r, s.hc * r};
}

/// The type of one value of T: T for float and double, the lanes' type for a host pack (whose
/// math::Tiny is its lanes', float_pack.hpp).
template <class T>
using ScalarOf = std::remove_const_t<decltype(math::Tiny<T>::value)>;

/// Depth after an update that should be non-negative up to round-off. `scale` (m) is the sum of
/// the magnitudes that entered the update (old depth plus every flux and source term), so
/// |error| <= kRoundoff * eps * scale. Returns false when h is negative beyond round-off (for a
/// pack: in any lane; h is then unchanged).
template <class T>
SILT_HD SILT_FORCEINLINE bool clamp_depth_k(T& h, T scale) {
  // 64 ulps of the largest term: a cell update sums at most ~8 terms.
  using S = ScalarOf<T>;
  constexpr S kRoundoff = S(64) * std::numeric_limits<S>::epsilon();
  const auto negative = !(h >= T(0));
  if (!math::any(negative)) return true;
  if (math::any(negative && !(h >= T(-kRoundoff) * scale))) return false;
  h = math::select(negative, T(0), h);
  return true;
}

/// Dry cells carry no momentum.
template <class T>
SILT_HD SILT_FORCEINLINE void dry_out_k(CellState<T>& s, T dry) {
  const auto dry_cell = !(s.h > dry);
  if (!math::any(dry_cell)) return;
  s.hu = math::select(dry_cell, T(0), s.hu);
  s.hv = math::select(dry_cell, T(0), s.hv);
}

}  // namespace silt::swe
