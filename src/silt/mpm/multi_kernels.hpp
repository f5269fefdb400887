// Kernels of the multi-partition MPM step (multi_solver.hpp; paper 000 §5): agreeing on dt and on
// the rebuild, tagging the blocks a part shares with the others (on rebuilds only), and the grid
// update that first sums every part's P2G copy of a shared block. Internal to silt::mpm.
#pragma once

#include "silt/core/exec.hpp"
#include "silt/core/fault.hpp"
#include "silt/mpm/pipeline.hpp"
#include "silt/mpm/sparse_grid.hpp"
#include "silt/mpm/step_control.hpp"

namespace silt::mpm {

/// Most parts one run holds (kernel arguments carry one pointer per part).
constexpr int kMaxParts = 16;

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
/// The combined values back into the control: vmax, zone_escape, pause_request, halt, cmax.
void enqueue_combine(const Exec& exec, const double* values, StepControl* ctl);
/// Zeroes the P2G sums of the shared blocks, which the last grid update left for the other parts
/// to read. Queue it after the agreement (every part has finished the previous step), before the
/// dt kernel (the accumulator of ctl->accum_parity is the last step's).
void enqueue_clear_shared(const Exec& exec, GridView g, const PartGrids& pg,
                          const StepControl* ctl);
/// On a rebuild step (ctl->rebuild): for every own block, looks its key up in every other part's
/// hash and records the block's index there; lists the shared blocks. reduce = false records no
/// other part (every part then updates its grid from its own sums alone: wrong, for tests).
void enqueue_tag(const Exec& exec, GridView g, StepControl* ctl, const PartGrids& pg, bool reduce);
/// The grid update with the shared-block reduction in front: each node sums the parts' P2G sums
/// in part order (so every holder of a node computes the same bits), then updates as on one
/// device. Non-shared accumulators are cleared at once, shared ones by enqueue_clear_shared.
void enqueue_grid_update_shared(const Exec& exec, const GridArgs& a, GridView g, StepControl* ctl,
                                const PartGrids& pg);
/// Per-part device state of the host-free synchronisation (PartBarrier::atomic); zero at start.
struct BarrierState {
  unsigned long long passed = 0;  // barriers this part has arrived at (its arrival epoch)
  // enqueue_agree_step: every CUDA block takes a ticket (launch k holds tickets k*blocks ..);
  // the first block of a launch agrees and decides, and raises done to k + 1 for the others.
  unsigned long long tickets = 0;
  unsigned long long done = 0;
  // enqueue_grid_update_after_peers: the epoch of the barrier after P2G (set by the agreement),
  // and the last epoch a block arrived for (the first block to swap it in arrives for the part).
  unsigned long long p2g_epoch = 0;
  unsigned long long p2g_claim = 0;
  // enqueue_grid_update_lagged: the epoch whose agreement its extra first block has applied.
  unsigned long long agreed_epoch = 0;
  // enqueue_tag_after_barrier: the last epoch a block claimed, and the one the first block has
  // passed.
  unsigned long long tag_claim = 0;
  unsigned long long tag_done = 0;
};

/// 8-byte words of one arrival (SyncInbox): flags (free-zone guard, grid fill, fault), the
/// largest speed and the compressed-fluid wave speed (float bits).
constexpr int kSyncWords = 3;

/// Each part's inbox, in its own memory: the others write into it over the peer link (posted
/// stores), the part polls it locally, so a barrier costs one one-way write and no remote read.
/// Part p's arrival at epoch e fills word[p][e & 1]: each word holds e's low 32 bits over 32 bits
/// of payload and is stored whole (8-byte stores are single-copy atomic), so a word that shows
/// the epoch shows its payload too, and the arrival needs no fence between values and flag.
struct SyncInbox {
  unsigned long long word[kMaxParts][2][kSyncWords];
};

/// The host-free synchronisation of the GPUs of one process: every part's inbox (the others'
/// reached over the peer link) and this part's BarrierState.
struct DeviceSync {
  SyncInbox* inbox[kMaxParts] = {};
  BarrierState* state = nullptr;  // this part's
  int parts = 0;
  int self = 0;
};

/// Cross-GPU barrier without the host: one thread writes its arrival epoch into every part's
/// inbox and waits until every part's epoch in its own inbox has reached it. Raises
/// kFaultBarrier after ~10 s (a GPU that never arrives) instead of hanging. No-op on the host
/// backend (parts run in turn).
void enqueue_atomic_barrier(const Exec& exec, const DeviceSync& sync, FaultView fault);
/// enqueue_publish + the barrier + enqueue_combine in one one-thread kernel, without the host:
/// writes this part's values with its arrival into every part's inbox (alternate sets, so that
/// a fast writer never overwrites values a slow reader has yet to combine), waits for every
/// part, combines the values in its own inbox.
/// The agreement of the 7-launch CUDA-graph step (MultiOptions::fused_sync = false).
void enqueue_agree_in_kernel(const Exec& exec, StepControl* ctl, FaultView fault, int grow_blocks,
                             const DeviceSync& sync);
/// The first kernel of a CUDA-graph step on several GPUs (CUDA only): the agreement of
/// enqueue_agree_in_kernel, the dt decision of the one-device dt kernel (decide_step, with the
/// frame graph's conditionals), and, once every part has passed the agreement, the clearing of
/// the shared sums the others read in the last step (enqueue_clear_shared), all in one launch.
/// The agreement doubles as the wait of the clearing, so a step has one launch before P2G.
/// params.lagged (one synchronisation per step): one thread decides from the values agreed after
/// the last P2G (enqueue_grid_update_lagged, which also clears the shared sums).
void enqueue_agree_step(const Exec& exec, StepControl* ctl, FaultView fault,
                        const StepParams& params, const StepHandles& handles,
                        const DeviceSync& sync, GridView g, const PartGrids& pg);
/// On a rebuild step with one synchronisation per step (CUDA only): the barrier after the
/// rebuild (every part's hash is complete) and enqueue_tag in one launch.
void enqueue_tag_after_barrier(const Exec& exec, GridView g, StepControl* ctl, const PartGrids& pg,
                               const DeviceSync& sync, FaultView fault, bool reduce);
/// The grid update of a step with one synchronisation (paper 000 §5; CUDA only): an extra first
/// CUDA block, holding no nodes, publishes this part's values (largest speed and free-zone guard
/// of the last G2P, grid fill, fault, this P2G's wave speed) with its arrival, waits for every
/// part and applies the agreed values (StepControl::*_agreed, pause_request, halt), deciding an
/// adaptive dt here (choose_dt; the P2G before needs none with split force channels) and ending the
/// frame's loop on its last step or a halt. With a fixed dt only the blocks holding shared blocks
/// wait; with an adaptive dt every block waits for the decision. The accumulators alternate by step
/// (GridView::accum_alt), so no second barrier is needed before the next P2G: past the barrier,
/// a shared node clears its sums of the last step, which every part has read by then.
void enqueue_grid_update_lagged(const Exec& exec, const GridArgs& a, GridView g, StepControl* ctl,
                                const PartGrids& pg, const DeviceSync& sync, FaultView fault,
                                const StepParams& params, const StepHandles& handles);
/// enqueue_grid_update_shared with the barrier after P2G folded in (CUDA only): the first CUDA
/// block arrives for this part (its P2G is complete: stream order); only the blocks that hold a
/// shared block wait for the other parts, the others update their nodes at once, so the wait
/// overlaps the local work (paper 000 §5). Replaces enqueue_atomic_barrier +
/// enqueue_grid_update_shared in the graph step.
void enqueue_grid_update_after_peers(const Exec& exec, const GridArgs& a, GridView g,
                                     StepControl* ctl, const PartGrids& pg, const DeviceSync& sync,
                                     FaultView fault);
/// How many of n particles (positions x, 3 floats each) lie outside [lo, hi) along axis; waits
/// for the device (between frames only: the rebalancing check).
double count_outside(const Exec& exec, const float* x, Index n, int axis, double lo, double hi);
/// MPI: gathers the P2G sums of the listed own blocks, block after block, into out.
void enqueue_pack_blocks(const Exec& exec, GridView g, const int* blocks, Index count, float* out);

}  // namespace silt::mpm
