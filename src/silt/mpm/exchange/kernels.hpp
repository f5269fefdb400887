// Kernels of the exchange between parts (mpm/exchange/exchange.hpp; paper 000 §5): the agreement on
// dt and on the rebuild, the tagging of the blocks a part shares with others (rebuild steps only),
// and the grid update that first sums every part's P2G copy of a shared block. Internal to
// silt::mpm.
#pragma once

#include "silt/core/exec.hpp"
#include "silt/core/fault.hpp"
#include "silt/core/peer_barrier.hpp"
#include "silt/mpm/pipeline.hpp"
#include "silt/mpm/sparse_grid.hpp"
#include "silt/mpm/step_control.hpp"

namespace silt::mpm {

/// Most parts one run holds.
constexpr int kMaxParts = kMaxPeers;

/// Values each part publishes before a step; all are combined by max over the parts.
enum AgreeSlot : int {
  kAgreeVmax = 0,    // largest particle speed the last G2P (or a speed reduction) saw, m/s
  kAgreeEscape = 1,  // the free-zone guard fired: everyone rebuilds
  kAgreePause = 2,   // the part's grid is more than 3/4 full: everyone pauses for the host
  kAgreeFault = 3,   // the part has a fault: everyone stops
  kAgreeWave = 4,    // fastest wave through compressed fluid in the part's last P2G, m/s
  kAgreeSlots = 5
};

/// Where the parts' P2G sums are, passed to kernels by value.
struct PartGrids {
  int parts = 0;  // all parts of the run
  int self = 0;   // the part running the kernel
  /// accum[p]: part p's P2G sums (a peer's grid, read in-kernel over the peer link), or the
  /// received copy of the blocks shared with p (MPI); own entry: this part's grid.
  const float* accum[kMaxParts] = {};
  /// accum_alt[p]: part p's second accumulator (GridView::accum_alt), or null; steps with
  /// StepControl::accum_parity 1 read it instead of accum[p].
  const float* accum_alt[kMaxParts] = {};
  /// The same for the fixed-point sums (GridView::fixed, fixed_alt; deterministic mode).
  const long long* fixed[kMaxParts] = {};
  const long long* fixed_alt[kMaxParts] = {};
  /// hash[p]: part p's block hash (in-process tagging reads it over the peer link).
  BlockHashView hash[kMaxParts] = {};
  /// [capacity * parts]: for own block b and part p, p's index of the block (or of its copy),
  /// -1 when p does not hold it; entry self is b.
  int* peer_block = nullptr;
  int* shared_list = nullptr;   // [capacity] own blocks some other part holds
  int* shared_count = nullptr;  // [1]
};

/// values[kAgree*] from this part's control, fault flags and grid fill (grow_blocks as the dt
/// kernel uses it).
void enqueue_publish(const Exec& exec, const StepControl* ctl, FaultView fault, int grow_blocks,
                     double* values);
/// The combined values back into the control: vmax, zone_escape, cmax, agreed.pause, agreed.halt.
void enqueue_combine(const Exec& exec, const double* values, StepControl* ctl);
/// Zeroes the P2G sums of the shared blocks, which the last grid update left for the other parts
/// to read. Queue it after the agreement (every part has finished the previous step), before the
/// dt kernel (the accumulator of ctl->accum_parity is the last step's).
void enqueue_clear_shared(const Exec& exec, GridView g, const PartGrids& pg,
                          const StepControl* ctl);
/// On a rebuild step (ctl->rebuild): for every own block, looks its key up in every other part's
/// hash and records the block's index there; lists the shared blocks.
void enqueue_tag(const Exec& exec, GridView g, StepControl* ctl, const PartGrids& pg);
/// The grid update with the shared-block reduction in front: each node sums the parts' P2G sums
/// in part order (so every holder of a node computes the same bits), then updates as on one
/// device. Non-shared accumulators are cleared at once, shared ones by enqueue_clear_shared.
void enqueue_grid_update_shared(const Exec& exec, const GridArgs& a, GridView g, StepControl* ctl,
                                const PartGrids& pg, FaultView fault);

/// Per-part device state of the barriers of the graph step; zero at start.
struct BarrierState {
  unsigned long long passed = 0;  // barriers this part has arrived at (its arrival epoch)
  // The epoch of the barrier after P2G (set by the step's decision).
  unsigned long long p2g_epoch = 0;
  // enqueue_grid_update_lagged: the epoch whose agreement its extra first block has applied.
  unsigned long long agreed_epoch = 0;
  // enqueue_tag_after_barrier: the last epoch a block claimed, and the one the first block has
  // passed.
  unsigned long long tag_claim = 0;
  unsigned long long tag_done = 0;
};

/// The host-free synchronisation of the GPUs of one process: the barrier (every part's inbox) and
/// this part's BarrierState.
struct DeviceSync {
  PeerBarrier barrier;
  BarrierState* state = nullptr;  // this part's
};

/// Cross-GPU barrier without the host (one thread): arrives and waits for every part. Raises
/// kFaultBarrier after ~10 s (a GPU that never arrives) instead of hanging. CUDA only.
void enqueue_atomic_barrier(const Exec& exec, const DeviceSync& sync, FaultView fault);

// The graph step with one synchronisation per step (paper 000 §5; CUDA only). The values the parts
// agree on travel with the barrier after P2G and decide the next step (StepParams::lagged).
/// The dt kernel of a lagged step: decides from the values agreed after the last P2G.
void enqueue_lagged_decide(const Exec& exec, StepControl* ctl, FaultView fault,
                           const StepParams& params, const StepHandles& handles,
                           const DeviceSync& sync);
/// On a rebuild step: the barrier after the rebuild (every part's hash is complete) and
/// enqueue_tag in one launch.
void enqueue_tag_after_barrier(const Exec& exec, GridView g, StepControl* ctl, const PartGrids& pg,
                               const DeviceSync& sync, FaultView fault);
/// The grid update: an extra first CUDA block, holding no nodes, publishes this part's values
/// (largest speed and free-zone guard of the last G2P, grid fill, fault, this P2G's wave speed)
/// with its arrival, waits for every part and applies the agreed values (StepControl::agreed),
/// deciding an adaptive dt here (choose_dt; the P2G before needs none with split force channels)
/// and ending the frame's loop on its last step or a halt. With a fixed dt only the blocks holding
/// shared blocks wait; with an adaptive dt every block waits for the decision. The accumulators
/// alternate by step (GridView::accum_alt), so no second barrier is needed before the next P2G:
/// past the barrier, a shared node clears its sums of the last step, which every part has read by
/// then.
void enqueue_grid_update_lagged(const Exec& exec, const GridArgs& a, GridView g, StepControl* ctl,
                                const PartGrids& pg, const DeviceSync& sync, FaultView fault,
                                const StepParams& params, const StepHandles& handles);

/// How many of n particles (positions x, 3 floats each) lie outside [lo, hi) along axis; waits
/// for the device (between frames only: the rebalancing check).
double count_outside(const Exec& exec, const float* x, Index n, int axis, double lo, double hi);
/// The lowest and highest of n particles' coordinates along axis (m); lo > hi when n is 0.
struct AxisExtent {
  double lo = 1e300, hi = -1e300;
};
/// Waits for the device (between frames only: the rebalancing check).
AxisExtent axis_extent(const Exec& exec, const float* x, Index n, int axis);
/// MPI: gathers the P2G sums of the listed own blocks, block after block, into out.
void enqueue_pack_blocks(const Exec& exec, GridView g, const int* blocks, Index count, float* out);

}  // namespace silt::mpm
