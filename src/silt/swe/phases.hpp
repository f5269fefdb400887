// The launches of one shallow-water step and of the solver's bookkeeping. Free functions (nvcc
// allows extended lambdas only outside private members), explicitly instantiated for float and
// double in phases.cpp. Each takes the views by value and launches one labelled kernel.
#pragma once

#include "silt/core/exec.hpp"
#include "silt/core/parallel_for.hpp"
#include "silt/swe/scene.hpp"
#include "silt/swe/views.hpp"

namespace silt::swe::detail {

/// One thread: turns the CFL reduction into this step's dt (bounded by max_dt and by the speed of
/// the inflows and sources during the step, then clipped to the target time; 0 past the target or
/// after a fault, or once the time has reached kStopAfter), advances the device time and step count, samples
/// rain and boundary series at mid-step, counts the rain as inflow, resets the per-step scalars.
template <class T>
void phase_clock(const Exec& exec, const SolverView<T>& v);

/// Counts the wet cells of each discharge segment into seg_wet (zeroed first): Q is spread over
/// them, and the clock bounds the step by the speed of what each takes. Before phase_clock.
template <class T>
void phase_wet_count(const Exec& exec, const SolverView<T>& v);

/// The conveyance h^(5/3) / n of each owned rating-segment cell into slots[its slot] (0 when dry
/// or inactive); a rating segment shares its table's discharge by it.
template <class T>
void phase_conveyance(const Exec& exec, const SolverView<T>& v, double* slots);
/// After phase_clock: each rating segment's sum of its slots, in slot order (the same bits on one
/// part and on any split), into seg_aux.
template <class T>
void phase_conveyance_sum(const Exec& exec, const SolverView<T>& v, const double* slots);

/// Fluxes through the four edges of every cell, the cell update, rain, wet/dry and friction;
/// reads the current state, writes the next one; tracks max depth; raises NaN / negative-depth
/// faults.
template <class T>
void phase_update(const Exec& exec, const SolverView<T>& v);

/// phase_update over a box of local cells, which may reach into a subdomain's halo (ghost cell
/// expansion recomputes the halo's inner layers); faults are raised only for owned cells, with
/// their global index. phase_update is this over the owned cells, labelled "swe.update".
template <class T>
void phase_update_box(const Exec& exec, const SolverView<T>& v, Box2 box, const char* label);

/// Adds the volume that crossed open, level and discharge boundaries this step to the clock's
/// inflow (a sum reduction over the boundary cells, from the same edge fluxes as the update), times
/// weight; the fluxes of `scheme` (muscl_edges.hpp): Scheme::muscl's of v.e's state, which adds
/// each of its two stages' fluxes with weight 1/2; Scheme::muscl_hancock's between the predicted
/// face states of v.e's state over the step's dt. mask: over the mask edges of boundary lines
/// (SolverView::mask_cells) rather than the global grid's edge cells; each edge's volume also goes
/// to its flow slot.
template <class T>
void phase_boundary_flow(const Exec& exec, const SolverView<T>& v, double weight = 1.0,
                         Scheme scheme = Scheme::first_order, bool mask = false);

/// The sum of each chunk c of flow slots: partial[c] = sum of the clock's flow slots
/// slot[chunk[c]] .. slot[chunk[c + 1] - 1], in order (step peaks, engine_peaks.cpp).
void phase_flow_chunks(const Exec& exec, const double* clock, const Index* slot, const Index* chunk,
                       Index n_chunks, double* partial);
/// After each step, per series s: its volume v, the sum of values[index[c]] for c in
/// series[s] .. series[s + 1] - 1, in order (values null: the clock's flow slots; index null: c
/// itself, the chunks' sums of phase_flow_chunks); unless `seed`, when the step moved (dt > 0),
/// its discharge |v - state[3s]| / dt against the peak state[3s + 1] (replaced when larger by
/// more than 1e-9 of it, the round-off of v's differences; then state[3s + 2] = the step's end
/// time); state[3s] = v. seed: only state[3s] = v (tracking begins, a restore).
void phase_flow_peaks(const Exec& exec, const double* clock, const double* values,
                      const Index* index, const Index* series, Index n_series, double* state,
                      bool seed);

/// Point sources: volume (and pollutant) added to (or withdrawn from) their cells' next state.
template <class T>
void phase_sources(const Exec& exec, const SolverView<T>& v);

/// Largest wave speed of the next state into *v.smax (parallel_reduce_into<MaxOp>, no host wait).
template <class T>
void phase_cfl(const Exec& exec, const SolverView<T>& v);
/// phase_cfl inside a step: adds nothing after a no-op step (clock dt == 0), whose state and
/// *v.smax phase_clock left as they were.
template <class T>
void phase_cfl_step(const Exec& exec, const SolverView<T>& v);

/// Copies state, max depth and clock between two sets of buffers (checkpoint and restore).
template <class T>
struct StateCopy {
  const T *h, *hu, *hv, *hc, *max_depth;
  const double* clock;
  T *h_out, *hu_out, *hv_out, *hc_out, *max_depth_out;
  double* clock_out;
  Index n;        // elements of each field (halo included)
  Index n_clock;  // slots of the clock (clock_size())
};
template <class T>
void phase_copy(const Exec& exec, const StateCopy<T>& c);

/// The state (h, hu, hv, hc) of the cells at offsets off[0, n) of v's fields into out[4 k, 4 k + 4),
/// as double: a gauge sample in one launch and one copy rather than four copies a cell.
template <class T>
void phase_gather_cells(const Exec& exec, const EdgeView<T>& v, const Index* off, Index n,
                        double* out);

/// Gauges on the device, after a step (clock dt > 0) whose end time reaches clock[kGaugeNext]:
/// the row (the time, then h, hu, hv, hc of the cells at offsets off[0, n) of v's fields) at row
/// clock[kGaugeRows] of `rows` (1 + 4 n values a row; none beyond `capacity` rows: the host reads
/// them before), the row count, and the next sample time (+ interval, > 0, until past the time).
/// One thread: a few gauges. The host reads the rows once per batch of steps, not per sample.
template <class T>
void phase_gauge_sample(const Exec& exec, const EdgeView<T>& v, double* clock, const Index* off,
                        Index n, double* rows, Index capacity, double interval);

/// Sums over active cells (waits for the device): water depth and pollutant mass per area, m and
/// kg/m^2 (times dx^2 gives m^3 and kg).
template <class T>
double sum_depth(const Exec& exec, const EdgeView<T>& v);
template <class T>
double sum_pollutant(const Exec& exec, const EdgeView<T>& v);

}  // namespace silt::swe::detail
