// What moves between the parts of a split shallow-water run (paper 001, multi-GPU section;
// docs/multi-gpu-swe.md), owned in one place as mpm/exchange/ owns it for MPM. The engine
// (engine_parts.hpp) asks it, by name:
//   agree_on_dt      before the clocks: every part's step scalars (largest wave speed, wet cells
//                    and conveyances of the boundary segments) combined over all parts, so that
//                    all take one dt (partition::ScalarReduce);
//   begin_if_due     a first-order step: the halos of the current state (h, hu, hv, hc, and the
//   finish           cumulative infiltration F when the scene infiltrates) refreshed from the
//                    neighbours (partition::HaloExchange, on halo lanes of its own) when the last
//                    steps used them up; started before the update, finished after the interior
//                    cells, so that the transfer overlaps them;
//   use_layer        the halo layers the step updates around the owned cells;
//   stage_layers     a second-order step: the halo layers of U^n and of U* each stage may update,
//   star_layers      refreshing a state first (waited for) when fewer than the two a stage reads
//   keep_layers      beyond the cells it updates are valid.
// It keeps the cadence of ghost cell expansion: the halo layers of the current state still valid
// (k after an exchange; a first-order step uses one, a second-order stage two). One part has
// nothing to exchange or reduce: every call returns at once.
#pragma once

#include <memory>
#include <vector>

#include "silt/core/device_set.hpp"
#include "silt/partition/decompose.hpp"
#include "silt/partition/halo_exchange.hpp"
#include "silt/partition/scalar_reduce.hpp"
#include "silt/partition/world.hpp"
#include "silt/swe/part.hpp"
#include "silt/swe/solver.hpp"

namespace silt::swe::detail {

template <class T>
class Exchange {
 public:
  using Parts = std::vector<std::unique_ptr<Part<T>>>;

  /// This process's parts of decomposition `dec` (per_rank a rank), with halos `layers` wide.
  Exchange(Parts& parts, const partition::Decomposition& dec, const partition::World& world,
           int per_rank, int layers);
  Exchange(const Exchange&) = delete;
  Exchange& operator=(const Exchange&) = delete;

  /// Several parts: there is something to exchange and reduce.
  bool coupled() const { return halo_ != nullptr; }

  /// Combines the parts' step scalars in place (queued; the host waits only under MPI).
  void agree_on_dt();

  // A first-order step (engine.cpp).
  /// Starts refreshing the halos of state `cur` when the steps since the last exchange used them
  /// up; true when it did (finish() completes it).
  bool begin_if_due(int cur);
  /// Completes the exchange begin_if_due() started: work queued on the parts after this sees it.
  void finish();
  /// The halo layers a step updates around the owned cells, one fewer than were valid: those
  /// valid after it (0 on one part).
  Index use_layer();

  // A second-order step (engine_muscl.cpp): each stage reads two layers beyond those it updates.
  /// Valid halo layers of U^n (state cur), refreshed first (with F) when fewer than two; 2 on one
  /// part, which updates its owned cells.
  Index stage_layers(int cur);
  /// Valid halo layers of U* (state 2), `valid` of them updated by the first stage; refreshed
  /// first when fewer than two.
  Index star_layers(Index valid);
  /// The step's end: `valid` halo layers of the new state hold valid values.
  void keep_layers(Index valid) { valid_ = valid; }

  /// The halos no longer hold the neighbours' cells (a restored state): refresh before the next
  /// step.
  void invalidate() { valid_ = 0; }
  /// Waits for the halo lanes' copies.
  void fence_lanes() const;
  /// `repetitions` halo exchanges and reductions of state cur, each timed on its own; the state
  /// and the step scalars are left as they were (Solver::measure_communication).
  CommTimes measure(int repetitions, int cur);

 private:
  /// The halos of state `which` (with_infiltration: its F too), waited for.
  void refresh(int which, bool with_infiltration);
  std::vector<double*> scalar_ptrs();
  std::vector<std::vector<void*>> storage(int which);
  std::vector<std::vector<void*>> infiltration_storage(int which);
  void fence_all() const;

  Parts& parts_;
  const partition::World& world_;
  int k_;
  // Halo layers of the current state still valid (0: refresh before the next step).
  Index valid_ = 0;
  // Several parts only (null / empty with one): the copies run on a halo lane of each part's
  // device, so that they overlap the interior cells' update on the part's own stream.
  std::vector<Stream> lanes_;
  std::unique_ptr<partition::HaloExchange> halo_;
  // The cumulative infiltration F (double, whatever T) has an exchange of its own; null when the
  // scene does not infiltrate.
  std::unique_ptr<partition::HaloExchange> halo_F_;
  partition::ScalarReduce reduce_;
};

}  // namespace silt::swe::detail
