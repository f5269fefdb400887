// How the parts of a run meet (paper 000 §5; docs/multi-gpu-mpm.md). A solver holds N >= 1 parts
// (part.hpp) and one exchange, which puts its phases around the parts' own:
//   agree       before the dt kernels: the parts combine their largest speed, free-zone guard, grid
//               fill and fault flag, so that all take the same dt, rebuild together, stop together
//   after_p2g   every part's P2G sums readable by the parts that share its blocks; on rebuild
//               steps each part tags the blocks another part also holds
//   grid_update the update of a shared node first sums every holder's P2G copy, in part order
// The strategies: one part (nothing to exchange); parts of one process (in-kernel peer reads of
// the other parts' grids, mpm/exchange/peer.cpp); MPI ranks (packed sums through host buffers,
// mpm/exchange/host.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <vector>

#include "silt/mpm/part.hpp"
#include "silt/mpm/step_control.hpp"
#include "silt/partition/world.hpp"

namespace silt::mpm {

using Parts = std::vector<std::unique_ptr<Part>>;

class Exchange {
 public:
  virtual ~Exchange() = default;

  /// Between frames, once the parts are prepared: buffers that follow the grids' capacity.
  virtual void prepare() {}

  // A step from plain launches, phase by phase over the parts (solver.cpp).
  virtual void agree(bool allow_pause) { (void)allow_pause; }
  virtual void after_p2g() {}
  virtual void grid_update(int k) = 0;

  // A frame as one CUDA graph per part: the phases of part k's step loop (core/loop_graph.hpp).
  /// True when this exchange's frames can be recorded (CUDA: a barrier without the host between
  /// GPUs, or parts on one stream).
  virtual bool records_graphs() const = 0;
  /// Several parts on one stream (several parts on one GPU), whose order synchronises them: a
  /// frame is one graph stepping every part as the plain step does (graph_* are not used).
  virtual bool one_stream() const { return false; }
  virtual void graph_decide(int k, const StepHandles& h) = 0;
  virtual void graph_rebuild(int k) = 0;
  virtual void graph_grid_update(int k, const StepHandles& h) = 0;
  /// Frames run from plain launches from now on (graphs off, or their recording failed).
  virtual void use_plain_steps() {}
  /// Single steps (Solver::step) follow: decisions from current values from now on.
  virtual void single_steps() {}

  /// Part k's blocks that another part also holds (after the last rebuild).
  virtual std::int64_t shared_blocks(int k) const {
    (void)k;
    return 0;
  }
  /// Changes when buffers that a recorded graph baked in move.
  virtual long long storage_key() const { return 0; }
};

/// The exchange for these parts: none for one part, peer reads for parts of one process, host
/// copies under MPI (world.distributed(); one part per rank).
std::unique_ptr<Exchange> make_exchange(Parts& parts, const partition::World& world);

}  // namespace silt::mpm
