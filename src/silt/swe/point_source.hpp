// A point source acting on its cell's state after the edge update: the inflowing volume (with its
// concentration), or a withdrawal of at most the water present, carrying the cell's own
// concentration. Shared by the plain and the fused (tiled) paths.
#pragma once

#include "silt/core/config.hpp"
#include "silt/swe/kernels/transport_k.hpp"
#include "silt/swe/views.hpp"

namespace silt::swe::detail {

/// Volume (m^3) and pollutant mass per area change (kg/m^2) of source `src` this step, for a cell
/// holding depth h (m) and pollutant hc (kg/m^2). Returns the volume; writes the depth change dh
/// (m) and pollutant change dhc (kg/m^2).
template <class T>
SILT_HD double point_source_k(const SolverView<T>& v, const SourceCell& src, double dt, T h, T hc,
                              double& dh, double& dhc) {
  const double area = v.dx * v.dx;
  double volume = v.series(src.series, v.clock[kTMid]) * dt;  // m^3
  double conc = src.conc;
  if (volume < 0.0) {
    const double present = double(h) * area;
    volume = -(present < -volume ? present : -volume);
    conc = double(concentration_k(h, hc));
  }
  dh = volume / area;
  dhc = dh * conc;
  return volume;
}

/// Index of the first of v.sources at or after cell (i, j) in the order (j, i) in which a part
/// keeps them (v.n_sources: none): a cell's sources are [first_source, while at (i, j)), found by
/// bisection, so an inflow line's many cells cost each cell's update a few steps, not one per
/// source.
template <class T>
SILT_HD Index first_source(const SolverView<T>& v, Index i, Index j) {
  Index lo = 0, hi = v.n_sources;
  while (lo < hi) {
    const Index mid = lo + (hi - lo) / 2;
    const SourceCell& s = v.sources[mid];
    if (s.j < j || (s.j == j && s.i < i))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

}  // namespace silt::swe::detail
