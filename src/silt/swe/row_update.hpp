// The row step's update pass (row_step.hpp): each cell of a row updated from its four edge fluxes
// (update_cell_k: fluxes summed, rain, wet/dry thresholds, Manning friction), its maximum depth,
// faults, the boundary inflow and the CFL speed of the new state. Full packs of cells go through
// packed_cell_updates (the widest the CPU has: SSE2, AVX2 or AVX-512F), the rest cell by cell
// with the same functions; each lane computes exactly its cell's scalar update, so the row step
// still matches
// the plain phases bit for bit (SweSolver.RowStepMatchesThePlainPathBitForBit,
// tests/unit/swe_pack_update_test.cpp). Host only: row_update.cpp and row_update_isa.cpp (once
// per wider instruction set, cmake/SiltIsaUnits.cmake) are built by the host compiler in every
// build (nvcc never parses the packs).
#pragma once

#include "silt/core/config.hpp"
#include "silt/swe/kernels/cell_update_k.hpp"
#include "silt/swe/row_step.hpp"
#include "silt/swe/views.hpp"

namespace silt::swe::detail {

/// What one row step needs besides the views: the box's columns and the step's constants.
template <class T>
struct RowPass {
  const SolverView<T>& v;
  Index i0, i1;           // the box's columns; staged index s = i - i0 + 1
  CellUpdateParams<T> p;  // manning filled in per cell
  double dt;              // s
  int step;               // the step's number, for faults
};

/// Updates row j from its edge fluxes (fx: west edges, fs: south, fn: north) as phase_update_box
/// does, with the maximum depth and faults; adds the boundary inflow of its owned cells to
/// *inflow. Returns the largest CFL speed (wave_speed_k) of its owned active cells in the new state
/// (before point sources). `left` is scratch for i1 - i0 flags.
template <class T>
T update_row(const RowPass<T>& rp, Index j, const StagedRow<T>& r, const FluxRow<T>& fx,
             const FluxRow<T>& fs, const FluxRow<T>& fn, unsigned char* left, double& inflow);

/// One row's cells for the packed update, element k being cell k of the run.
template <class T>
struct CellRow {
  const T *h, *hu, *hv, *hc;            // state at the step's start
  T *h_new, *hu_new, *hv_new, *hc_new;  // and at its end
  T* max_depth;                         // m
  const T* manning;                     // Manning n, s m^-1/3 (null: frictionless)
  const unsigned char* active;          // staged masks (0 or 1)
};

/// Updates the cells of full packs k in [0, n) (west edge x[k], east x[k + 1], south s[k], north
/// n[k]) whose cells are all active and none of which faults, with p (manning from c.manning);
/// sets left[k] = 0 for each cell so updated and leaves the others alone. Returns the largest
/// wave_speed_k of the updated cells (+0 if none). No rain rasters, infiltration or point sources.
// The same per instruction set, each built from row_update_isa.cpp: sse2, avx2 and avx512.
// AVX-512F's packs are 16 float / 8 double lanes, then one of 8 / 4 where that many cells remain
// (the AVX2 form's cells, in fewer packs).
namespace sse2 {
float packed_cell_updates(const CellRow<float>& c, const FluxRow<float>& x, const FluxRow<float>& s,
                          const FluxRow<float>& n, Index count, const CellUpdateParams<float>& p,
                          unsigned char* left);
double packed_cell_updates(const CellRow<double>& c, const FluxRow<double>& x,
                           const FluxRow<double>& s, const FluxRow<double>& n, Index count,
                           const CellUpdateParams<double>& p, unsigned char* left);
}  // namespace sse2
namespace avx2 {
float packed_cell_updates(const CellRow<float>& c, const FluxRow<float>& x, const FluxRow<float>& s,
                          const FluxRow<float>& n, Index count, const CellUpdateParams<float>& p,
                          unsigned char* left);
double packed_cell_updates(const CellRow<double>& c, const FluxRow<double>& x,
                           const FluxRow<double>& s, const FluxRow<double>& n, Index count,
                           const CellUpdateParams<double>& p, unsigned char* left);
}  // namespace avx2
namespace avx512 {
float packed_cell_updates(const CellRow<float>& c, const FluxRow<float>& x, const FluxRow<float>& s,
                          const FluxRow<float>& n, Index count, const CellUpdateParams<float>& p,
                          unsigned char* left);
double packed_cell_updates(const CellRow<double>& c, const FluxRow<double>& x,
                           const FluxRow<double>& s, const FluxRow<double>& n, Index count,
                           const CellUpdateParams<double>& p, unsigned char* left);
}  // namespace avx512

}  // namespace silt::swe::detail
