// MPM on several partitions: CPU partitions or GPUs of one process, or MPI ranks (paper 000 §5,
// DESIGN.md §3 "MPM, several GPUs"; docs/multi-gpu-mpm.md).
//
// The initial particles are split into pieces of equal count along the longest axis of their
// bounding box; each part keeps its piece (and the emitted particles that start in its slab), with
// its own sparse grid over the blocks its particles touch, and runs the one-device pipeline
// (Solver::Impl) on it. When emitters make one part hold too many particles, the cuts move back to
// equal counts between two frames and the particles go to the parts of the pieces they lie in
// (MultiOptions::balance_tolerance). Per step:
//   agree    each part publishes its largest speed, free-zone guard, grid fill and fault flag; the
//            parts combine them by max (partition::ScalarReduce: host loop, peer copies + events,
//            or MPI_Allreduce; in the CUDA graphs in-kernel, fused with the dt decision), so all
//            take the same dt, rebuild together and stop together
//   P2G      per part into its own grid
//   sync     CUDA: every GPU waits for the others' P2G (events or an atomic barrier; in the
//            graphs inside the grid update, where only the blocks holding shared blocks wait);
//            MPI: the P2G sums of the shared blocks go to the ranks that share them (pinned host
//            buffers, MPI_Isend/Irecv)
//   tag      on rebuild steps only: each part looks its blocks up in the others' block hashes
//            (in-kernel over the peer link; MPI: the block lists, exchanged)
//   update   the grid update sums every part's copy of a shared block, in part order, then
//            updates the node as on one device; shared sums stay untouched until every part has
//            read them (cleared after the next agreement)
//   G2P      per part.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "silt/core/error.hpp"
#include "silt/core/exec.hpp"
#include "silt/mpm/scene.hpp"
#include "silt/mpm/solver.hpp"
#include "silt/partition/world.hpp"

namespace silt::mpm {

/// The synchronisation after P2G between the GPUs of one process.
enum class PartBarrier : int {
  event = 0,   // each GPU's stream waits for the others' P2G events (cudaStreamWaitEvent)
  atomic = 1,  // in-kernel, no host, no event: each GPU writes its arrival into every GPU's
               // inbox over the peer link and spins on its own inbox; times out into a fault
               // after ~10 s
};
const char* to_string(PartBarrier b);

/// Accumulated wall time per phase (ms) of an instrumented run (MultiOptions::time_phases): every
/// phase is followed by a wait for all parts, so the sum exceeds the uninstrumented step time.
struct PhaseTimes {
  double agree = 0;    // publish, combine over the parts, clear shared sums, dt
  double rebuild = 0;  // particle-block mapping (rebuild steps)
  double p2g = 0;
  double sync = 0;    // barrier after P2G (CUDA), or the exchange of shared sums (MPI)
  double tag = 0;     // shared-block tagging (rebuild steps; MPI: inside sync)
  double update = 0;  // grid update with the shared-block reduction
  double g2p = 0;
  long long steps = 0;
};

struct MultiOptions {
  /// Per part (cuda_graph is not used: parts run plain launches in batches).
  SolverOptions solver;
  /// false: skip the shared-block sum (each part updates its grid from its own particles alone).
  /// Wrong physics; exists so that tests can show the sum matters.
  bool reduce_shared = true;
  /// The default (atomic barrier, graphs) measured fastest on two H200s at every size: 50.4%
  /// efficiency at 55K particles (one synchronisation a step) against 14.7% with events, 96.2%
  /// at 3.1M against 86.1% (bench/results/mpm-2026-11-30-h200x2.md, -29-h200x2.md). Used between
  /// GPUs of one process only.
  PartBarrier barrier = PartBarrier::atomic;
  /// Several GPUs of one process with PartBarrier::atomic: each GPU's frame is one CUDA graph
  /// (the step loop of step_graph.hpp), agreeing in-kernel through the atomic barrier, so the
  /// host launches one graph per GPU per frame. Falls back to plain launches (with a log line)
  /// when a graph cannot be recorded. Ignored elsewhere and with time_phases.
  bool cuda_graph = true;
  /// With the graphs: a step is 4 launches as on one device. The agreement, the dt decision and
  /// the clearing of the shared sums are one launch (enqueue_agree_step), and the barrier after
  /// P2G is folded into the grid update, where only the CUDA blocks holding shared blocks wait
  /// (enqueue_grid_update_after_peers). false: 7 launches (agreement, clearing, dt, P2G,
  /// barrier, grid update, G2P), the ablation.
  bool fused_sync = true;
  /// With fused_sync: one synchronisation per step, right after P2G (paper 000 §5). The values
  /// the parts must agree on (largest speed, free-zone guard, grid fill, fault) travel with the
  /// barrier after P2G and decide the next step; the free-zone guard fires a cell early to make
  /// up for that step; an adaptive dt is agreed there too, so P2G keeps the stress force in
  /// channels of its own (twice the atomics; a fixed dt keeps one); the P2G accumulators
  /// alternate by step so that nothing waits before the next P2G. false: a second
  /// synchronisation before each step (enqueue_agree_step), the ablation.
  bool single_sync = true;
  /// Parts of one process: instead of reading the other parts' P2G sums in-kernel over the peer
  /// link, each part packs the sums of its shared blocks and copies them to the parts that share
  /// them (cudaMemcpyPeerAsync; memcpy on the host), as MPI ranks do through host buffers. The
  /// block lists are then linked on the host at rebuilds, so the host waits for every step's P2G
  /// (plain launches only). The ablation of paper 000 §5's in-kernel peer access.
  bool peer_copies = false;
  /// Wait for every part after each phase and accumulate PhaseTimes (benchmarks).
  bool time_phases = false;
  /// Between frames, after the frame's emission: when the part holding the most particles holds
  /// more than (1 + balance_tolerance) times the mean count, the cuts move so that the pieces
  /// hold equal counts again, and every particle goes to the part of the piece it lies in (an
  /// emitter otherwise fills the part of its slab alone). <= 0: never; each part then keeps its
  /// particles, and the emitted ones that start in its slab, for the whole run.
  double balance_tolerance = 0.1;
};

/// One local part as the host sees it between frames.
struct PartInfo {
  int part = 0;  // index over all ranks
  std::string where;
  std::int64_t particles = 0;
  std::int64_t blocks = 0;         // active blocks after the last rebuild
  std::int64_t shared_blocks = 0;  // of those, blocks another part also holds
};

class MultiSolver {
 public:
  /// One part per exec of this process (CPU partitions: Exec::host() repeated; CUDA: one exec
  /// per device, distinct devices, peer access required); under MPI (world.distributed()) one
  /// exec per rank. Collective under MPI.
  MultiSolver(const Scene& scene, const std::vector<Exec>& execs, const MultiOptions& options = {},
              const partition::World& world = partition::World::self());
  ~MultiSolver();
  MultiSolver(MultiSolver&&) noexcept;
  MultiSolver& operator=(MultiSolver&&) noexcept;

  /// Advances by scene.frame_dt; throws PartFault naming the part (device, rank), particle id and
  /// frame on a fault. Collective under MPI (every rank throws the same message).
  FrameStats advance_frame();
  /// Exactly one step with the agreed dt (tests); faults surface at check().
  void step();
  void check();

  double time() const;
  /// All particles of all parts (collective under MPI).
  std::int64_t particle_count() const;
  /// Every particle of every part, ordered by stable id (as one device writes them after a
  /// sort by id). Under MPI rank 0 gets them all and the others an empty frame (collective).
  ParticleFrame particles(bool with_stress = false) const;
  /// Parts over all ranks.
  int parts() const;
  std::vector<PartInfo> part_info() const;
  /// Particles per part over all ranks, in part order, as of the start of the last frame (after
  /// its emission and any rebalancing) or of the run. Not collective.
  std::vector<std::int64_t> part_counts() const;
  /// Times the parts were rebalanced (MultiOptions::balance_tolerance).
  int rebalances() const;
  /// "3 parts along x: 1200 | 1200 | 1201 particles, 0 rebalances: [cpu partition 0: ...] ...",
  /// for logs (the bracketed details are this process's parts).
  std::string layout() const;
  const Scene& scene() const;
  /// True when frames run as one CUDA graph per GPU (MultiOptions::cuda_graph took effect).
  bool uses_graph() const;
  PhaseTimes phase_times() const;
  void reset_phase_times();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// A fault in one part (NaN, overflow, a collapsed dt): every part of every rank throws it with
/// the same message, which names the part, its device or rank, the particle id and the frame.
class PartFault : public Error {
 public:
  using Error::Error;
};

/// A ParticleFrame reordered by stable id (one device keeps particles in block order).
ParticleFrame sort_by_id(const ParticleFrame& f);

}  // namespace silt::mpm
