// The CPU step built the way the tile kernel (fused_step.hpp) is, by rows. The box's rows are cut
// into bands of kRowBand rows, taken by the OpenMP threads one at a time. Along a band each row's
// cells are staged once (depth, velocities and concentration as normal_state_k() derives them, bed,
// mask, and the roots of the depth that the edge fluxes take, as the tile kernel stages them; a
// branch-free loop that g++ vectorises), every x edge flux of the row and every y edge flux between
// two rows is computed once (the north fluxes of a row are the south fluxes of the next; only a
// band's first south row is computed twice, by it and by the band below; in packs of edges,
// row_fluxes.hpp), then each cell of the row is updated from its four edge fluxes with
// update_cell_k() and the CFL speed of the new state taken in the same pass (in packs of cells,
// row_update.hpp), the boundary inflow is counted and point sources are applied (a row with one
// takes its CFL speed again). A step is then one parallel region (small boxes: none, they run on
// the calling thread). It calls exactly the functions of the plain parallel_for path (edges.hpp,
// cell_update_k.hpp, cfl_k.hpp, point_source.hpp), which stays its test oracle
// (SolverOptions::plain_phases) and which it matches bit for bit (only the inflow volume is summed
// in another order).
#pragma once

#include <vector>

#include "silt/core/config.hpp"
#include "silt/core/parallel_for.hpp"
#include "silt/swe/kernels/bed_source_k.hpp"
#include "silt/swe/views.hpp"

namespace silt::swe::detail {

/// Rows per band: the unit of work of one thread, and of the inflow sum (summed band by band in
/// band order, so the total does not depend on the thread count or on which thread took a band).
constexpr Index kRowBand = 16;

/// Boxes of fewer cells run on the calling thread: below this a step costs less than waking the
/// other threads (tens of microseconds idle, a scheduler time slice on a loaded machine;
/// bench/results/swe-cpu-2026-12-01-cpu.md).
constexpr Index kRowSerialCells = 32768;

/// The staged cells of one row, i in [i0 - 1, i1 + 1), structure of arrays: the primitive state,
/// the bed and the depth's roots (depth_roots_k: once per cell, not once per edge side).
template <class T>
struct StagedRow {
  T *h, *u, *v, *c, *z, *sqrt_h, *celerity;
  unsigned char* active;
};

/// One row of edge fluxes, structure of arrays (EdgeFlux's fields), so that a pack of edges
/// (row_fluxes.hpp) stores each field with one instruction.
template <class T>
struct FluxRow {
  T *h, *un_left, *un_right, *ut, *c;

  EdgeFlux<T> operator[](Index k) const {
    return EdgeFlux<T>{h[k], un_left[k], un_right[k], ut[k], c[k]};
  }
  void set(Index k, const EdgeFlux<T>& f) const {
    h[k] = f.h;
    un_left[k] = f.un_left;
    un_right[k] = f.un_right;
    ut[k] = f.ut;
    c[k] = f.c;
  }
};

/// Buffers of the row step, sized once for the largest box of a part (never inside a step): per
/// thread two staged rows and three rows of edge fluxes; per band its inflow volume.
template <class T>
class RowScratch {
 public:
  /// Room for boxes up to `width` cells wide and `rows` rows high, on up to `threads` threads.
  /// Allocates only when something grows.
  void reserve(Index width, Index rows, int threads);
  int threads() const { return threads_; }
  StagedRow<T> staged(int thread, int k);
  FluxRow<T> fluxes(int thread, int k);
  /// The update pass's flags of one row's cells (row_update.hpp).
  unsigned char* left(int thread);
  double* band_inflow() { return band_inflow_.data(); }
  T* thread_speed() { return thread_speed_.data(); }

 private:
  Index width_ = 0, rows_ = 0;
  int threads_ = 0;
  std::vector<T> values_;              // per thread: 2 staged rows of kStagedFields fields
  std::vector<unsigned char> active_;  // per thread: 2 staged masks
  std::vector<unsigned char> left_;    // per thread: the cells the update pass left to do
  std::vector<T> fluxes_;  // per thread: west/east (x), south and north (y) rows of 5 fields
  std::vector<double> band_inflow_;
  std::vector<T> thread_speed_;
};

/// Flux + update + sources + max depth + faults + boundary inflow + CFL maximum over box on the
/// host, in one parallel region: what phase_update_box, phase_boundary_flow, phase_sources and
/// phase_cfl_step do together, with the same ownership rules as phase_fused_update (halo cells are
/// updated, only owned cells report faults, count inflow and enter the CFL maximum).
template <class T>
void phase_row_update(const SolverView<T>& v, Box2 box, RowScratch<T>& scratch);

}  // namespace silt::swe::detail
