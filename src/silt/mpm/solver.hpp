// The MPM solver on one device (CPU or CUDA). All per-device state sits in one object so that a
// multi-GPU run instantiates one per device. dt, particle counts and overflow flags stay on the
// device; the host looks once per frame.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "silt/core/exec.hpp"
#include "silt/mpm/particle_frame.hpp"
#include "silt/mpm/scene.hpp"

namespace silt::mpm {

struct FrameStats {
  long long steps = 0;     // steps taken in the frame
  double time = 0;         // simulated time at the end of the frame, s
  double ms_per_step = 0;  // wall time
  std::int64_t particles = 0;
  std::int64_t active_blocks = 0;
  int rebuilds = 0;         // particle-block rebuilds in the frame
  int forced_rebuilds = 0;  // of those, rebuilds the free-zone guard asked for before the period
  int sorts = 0;            // of those, rebuilds that sorted the particles (SolverOptions)
  double dt_min = 0;        // s, smallest dt of the frame (the last, clipped step included)
  double dt_max = 0;        // s, largest dt of the frame
  double stable_dt = 0;     // s, smallest CFL-stable dt met in the frame
  int unstable_steps = 0;   // steps whose fixed dt exceeded stable_dt
  std::vector<std::string> warnings;  // also sent to SolverOptions::log
};

/// Launch shapes of the P2G, G2P and G2P2G kernels (paper 000 §3 principle 2, occupancy): threads
/// per CUDA block and the minimum resident blocks per SM given to __launch_bounds__, which caps
/// the registers per thread at 65536 / (threads * blocks). standard: the generic 256-thread
/// launch with no bound (92-95 registers on sm_90).
enum class TransferLaunch : int { standard = 0, t128_b4, t256_b2, t256_b3, t256_b4, t128_b8 };
constexpr int kTransferLaunches = 6;
/// "standard", "128x4", "256x2", ... (threads x minimum blocks per SM).
const char* to_string(TransferLaunch l);

/// The order particles take within their block when sorted at a rebuild (the blocks' own order is
/// that of their numbering). block: as binned (atomic order); cell: by the cell of their nearest
/// node (x fastest), so a warp's particles share cells; interleaved: one particle of each cell in
/// turn, cells x fastest, so a warp's 32 particles sit in 32 neighbouring cells.
enum class SortOrder : int { block = 0, cell = 1, interleaved = 2 };
const char* to_string(SortOrder o);

/// Run-time switches of the solver (the physics comes from the Scene). The defaults are the
/// fastest measured configuration; the others exist for ablations (bench/mpm_bench).
struct SolverOptions {
  bool cuda_graph = true;  // CUDA: run each frame as one CUDA graph (false: plain launches)
  /// CUDA graph: steps per iteration of the frame's device-side loop (the loop body repeated),
  /// so the loop's per-iteration cost is shared by that many steps.
  int graph_steps_per_iteration = 2;
  bool sort_particles = true;  // reorder particles by block at each rebuild (false: bin only)
  SortOrder sort_order = SortOrder::cell;  // within a block, when sorting
  /// Sort at every n-th rebuild only (the first included); the others bin without moving
  /// particles. 1: every rebuild. 16 (every 128 steps at the default rebuild period) measured
  /// 0.205 ms/step on the cube against 0.230 with 1, and 1.99 against 1.78 G particle-steps/s on
  /// 1M sand after 2000 steps (bench/results/mpm-2026-11-29-h200.md).
  int sort_every = 16;
  bool vector_atomics = true;  // P2G: one float4 atomic per node on sm_90+ (false: 4 scalar)
  /// P2G on CUDA: the lanes of a warp whose particles share a stencil base (the same 27 nodes,
  /// as particles sorted by cell do) sum their shares with shuffles and one lane issues the
  /// atomics (lane_group.hpp). false: every lane adds its own share.
  bool warp_reduce = true;
  /// P2G: stage each CUDA block's particles in a shared-memory arena of the 3x3x3 blocks around
  /// its first particle's block, then flush with global atomics (the prior-works scheme paper 000
  /// §4.3 replaces; false: every node straight to global atomics).
  bool shared_p2g = false;
  /// P2G/G2P/G2P2G launch shape. 256 threads with 3 blocks per SM (80 registers) measured
  /// 8-12% faster than the unbounded launch (96 registers) once P2G had the warp pre-reduction
  /// (bench/results/mpm-2026-11-29-h200.md).
  TransferLaunch transfer_launch = TransferLaunch::t256_b3;
  /// Receives warnings (e.g. an unstable fixed dt); the library never prints.
  std::function<void(const std::string&)> log;
};

/// Kernel launches per step (paper 000 §3 principle 1), counted from the solver's configuration.
struct StepLaunches {
  int per_step = 0;     // a step that does not rebuild
  int per_rebuild = 0;  // added by a step that rebuilds the particle-block mapping
};

class Solver {
 public:
  Solver(const Scene& scene, const Exec& exec);
  Solver(const Scene& scene, const Exec& exec, const SolverOptions& options);
  ~Solver();
  Solver(Solver&&) noexcept;
  Solver& operator=(Solver&&) noexcept;

  /// Advances by scene.frame_dt. Throws silt::Error naming the particle id and frame on NaN, and
  /// the numbers on capacity overflow.
  FrameStats advance_frame();
  /// Exactly one step with the current dt (tests and benchmarks). It is only enqueued: faults
  /// surface at the next call that reads back (time(), particles(), advance_frame(), check()).
  void step();
  /// Waits for the enqueued work and throws silt::Error on a device fault (NaN, overflow).
  void check();

  double time() const;
  std::int64_t particle_count() const;
  ParticleFrame particles(bool with_stress = false) const;
  const Scene& scene() const;
  const SolverOptions& options() const;
  /// True when frames run as CUDA graphs (cuda backend, graphs asked for and recordable).
  bool uses_graph() const;
  /// The launches a step makes with this scene and these options (not counting the one speed
  /// reduction at the start of a frame that added particles).
  StepLaunches launches() const;

 private:
  friend class MultiSolver;  // runs one Impl per partition (multi_solver.hpp)
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace silt::mpm
