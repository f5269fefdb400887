// The finite-volume update of one cell from the fluxes through its four edges (paper 001: the
// first-order Roe scheme, U_new = U - dt/dx sum_edges F_edge . n), followed by rain, the wet/dry
// treatment and Manning friction. Cell-local: the plain parallel_for path computes the four edge
// fluxes itself, a tiled kernel reads them from shared memory; both call this function.
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/scalar.hpp"
#include "silt/swe/kernels/bed_source_k.hpp"
#include "silt/swe/kernels/friction_k.hpp"
#include "silt/swe/kernels/wet_dry_k.hpp"

namespace silt::swe {

/// Device fault codes (FaultFlags slot 0).
enum FaultCode : int { kFaultNone = 0, kFaultNaN = 1, kFaultNegativeDepth = 2, kFaultTimeStep = 3 };

template <class T>
struct CellUpdateParams {
  T dtdx;        // dt / dx, s/m
  T dt;          // s
  T rain_depth;  // rain falling on the cell during the step, m
  T g;           // m/s^2
  T dry;         // dry depth, m
  T manning;     // Manning n of the cell, s m^-1/3
};

/// Updates `s` in place from the fluxes through its west, east, south and north edges (x edges:
/// normal = x, tangential = y; y edges: normal = y, tangential = x). The cell is the right cell of
/// its west and south edges and the left cell of its east and north edges. Returns a FaultCode and
/// leaves `s` unchanged on a fault. T is float, double or a host pack of cells (float_pack.hpp),
/// each lane its cell's scalar update; a pack reports a fault when any lane has one (the row step
/// then updates its cells one by one, row_update.cpp).
template <class T>
SILT_HD int update_cell_k(CellState<T>& s, const EdgeFlux<T>& w, const EdgeFlux<T>& e,
                          const EdgeFlux<T>& so, const EdgeFlux<T>& n,
                          const CellUpdateParams<T>& p) {
  const T k = p.dtdx;
  T h = s.h - k * ((e.h - w.h) + (n.h - so.h)) + p.rain_depth;
  T hu = s.hu - k * ((e.un_left - w.un_right) + (n.ut - so.ut));
  T hv = s.hv - k * ((n.un_left - so.un_right) + (e.ut - w.ut));
  T hc = s.hc - k * ((e.c - w.c) + (n.c - so.c));
  if (math::any(!(h == h && hu == hu && hv == hv && hc == hc))) return kFaultNaN;
  const T scale =
      s.h + p.rain_depth + k * (math::abs(e.h) + math::abs(w.h) + math::abs(n.h) + math::abs(so.h));
  if (!clamp_depth_k(h, scale)) return kFaultNegativeDepth;
  // The pollutant follows the water: round-off below zero, or an emptied cell, holds none.
  hc = math::select(hc < T(0) || h == T(0), T(0), hc);
  s = CellState<T>{h, hu, hv, hc};
  dry_out_k(s, p.dry);
  const T f = manning_factor_k(s.h, s.hu, s.hv, p.manning, p.g, p.dt);
  s.hu *= f;
  s.hv *= f;
  return kFaultNone;
}

}  // namespace silt::swe
