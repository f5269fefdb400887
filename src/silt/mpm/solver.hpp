// The MPM solver (paper 000): N >= 1 parts, one device's particles and sparse grid each (part.hpp),
// and one exchange between them (mpm/exchange/exchange.hpp). One part is the ordinary run on one
// device; several split a run over the GPUs or CPU partitions of this process, over one GPU, or
// over MPI ranks (docs/multi-gpu-mpm.md). dt, particle counts and fault flags stay on the devices;
// the host looks once per frame.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "silt/core/error.hpp"
#include "silt/core/exec.hpp"
#include "silt/core/stop_check.hpp"
#include "silt/mpm/motion.hpp"
#include "silt/mpm/particle_frame.hpp"
#include "silt/mpm/particles_copy.hpp"
#include "silt/mpm/restart_state.hpp"
#include "silt/mpm/scene.hpp"
#include "silt/partition/world.hpp"

namespace silt::mpm {

/// Host work of a frame outside its steps, ms of wall time (where a frame's time goes beyond the
/// steps: `silt run` sums it over the run).
struct FrameHostTime {
  double emit_ms = 0;     // emitters' new particles sampled, uploaded and rebalanced
  double prepare_ms = 0;  // grids grown for the frame (and after pauses)
  double record_ms = 0;   // CUDA graphs recorded again (pointers or particle counts changed)
  int recordings = 0;     // times they were
  int graph_updates = 0;  // of those, part graphs updated in place instead of instantiated
  double finish_ms = 0;   // after the steps: faults, step control and motion read back
};

struct FrameStats {
  long long steps = 0;     // steps taken in the frame
  double time = 0;         // simulated time at the end of the frame, s
  double ms_per_step = 0;  // wall time
  std::int64_t particles = 0;
  std::int64_t active_blocks = 0;
  int rebuilds = 0;         // particle-block rebuilds in the frame
  int forced_rebuilds = 0;  // of those, rebuilds the free-zone guard asked for before the period
  int sorts = 0;            // of those, rebuilds that sorted the particles (kSortEvery)
  double dt_min = 0;        // s, smallest dt of the frame (the last, clipped step included)
  double dt_max = 0;        // s, largest dt of the frame
  double stable_dt = 0;     // s, smallest CFL-stable dt met in the frame
  int unstable_steps = 0;   // steps whose fixed dt exceeded stable_dt
  /// Kinetic energy of all particles at the end of the frame, J (2D: of the slab one dx deep),
  /// and their root-mean-square speed sqrt(2 KE / M), m/s: the "at rest" measure.
  double kinetic_energy = 0;
  double rms_speed = 0;
  FrameHostTime host;                 // host work of the frame outside its steps
  std::vector<std::string> warnings;  // also sent to SolverOptions::log
};

/// Run-time settings of the solver (the physics comes from the Scene).
struct SolverOptions {
  /// CUDA: every frame as one CUDA graph per part (a device-side loop over the frame's steps).
  /// false: plain launches, the fallback when a graph cannot be recorded (benchmarks compare).
  bool cuda_graph = true;
  /// Several parts: between frames, after emission, rebalance when the largest part holds more
  /// than (1 + balance_tolerance) times the mean count or that share of the particles has left
  /// its part's piece (balance.hpp). <= 0: each part keeps its piece for the whole run.
  double balance_tolerance = 0.1;
  /// Receives warnings (an unstable fixed dt, a paused frame) and rebalancing lines; the library
  /// never prints.
  std::function<void(const std::string&)> log;
  /// Polled during set-up (between mesh colliders' distance fields, inside them, between parts);
  /// when it says yes the constructor throws silt::Stopped (stop_check.hpp).
  StopCheck stop;
};

/// Kernel launches per step (paper 000 §3 principle 1), counted from the solver's configuration.
struct StepLaunches {
  int per_step = 0;     // a step that does not rebuild
  int per_rebuild = 0;  // added by a step that rebuilds the particle-block mapping
};

/// One part as the host sees it between frames.
struct PartInfo {
  int part = 0;  // index over all ranks
  std::string where;
  std::int64_t particles = 0;
  std::int64_t blocks = 0;         // active blocks after the last rebuild
  std::int64_t shared_blocks = 0;  // of those, blocks another part also holds
};

/// One part's particles where they live (its device, or host memory on the CPU), in storage
/// order: for zero-copy views of them (the Python package's DLPack arrays).
struct PartParticles {
  Exec exec;
  std::int64_t count = 0;
  const float* position = nullptr;              // [3 count] x y z, m
  const float* velocity = nullptr;              // [3 count] x y z, m/s
  const float* deformation_gradient = nullptr;  // [9 count] elastic F, row-major, -
  const float* plastic = nullptr;               // [count] log J_p (sand) or alpha (snow), -
  const std::int32_t* material = nullptr;       // [count] index into scene.materials
  const std::int32_t* id = nullptr;             // [count] stable particle id
};

class Solver {
 public:
  /// One part per exec: one exec is the ordinary run on one device; several split the run over
  /// CPU partitions (Exec::host() repeated), GPUs (each listed once; peer access required) or one
  /// GPU listed several times (several parts sharing it). Under MPI (world.distributed()) one
  /// exec per rank, and every member below is collective.
  Solver(const Scene& scene, const std::vector<Exec>& execs, const SolverOptions& options = {},
         const partition::World& world = partition::World::self());
  Solver(const Scene& scene, const Exec& exec, const SolverOptions& options = {});
  ~Solver();
  Solver(Solver&&) noexcept;
  Solver& operator=(Solver&&) noexcept;

  /// Advances by scene.frame_dt. Throws PartFault naming the particle id and frame on NaN, and
  /// the numbers on capacity overflow (with the part, its device or rank, when there are several).
  FrameStats advance_frame();
  /// Exactly one step with the current (agreed) dt (tests and benchmarks). It is only enqueued:
  /// faults surface at the next call that reads back (time(), particles(), advance_frame(),
  /// check()).
  void step();
  /// Waits for the enqueued work and throws PartFault on a device fault (NaN, overflow).
  void check();

  double time() const;
  /// All particles of all parts.
  std::int64_t particle_count() const;
  /// Every particle of every part in stable id order, with stress and plastic state when
  /// with_stress. Under MPI rank 0 gets them all and the others an empty frame.
  ParticleFrame particles(bool with_stress = false) const;
  /// The same in storage order, part after part: sort_by_id(particles_unordered()) equals
  /// particles().
  ParticleFrame particles_unordered(bool with_stress = false) const;
  /// The particles' asked-for attributes (mpm::attributes; material and id always) as they are
  /// now, copied behind the steps: the next frames may step before ParticlesCopy::get(), on any
  /// thread (`silt run`'s writer), waits for the copies and orders by id (id_order) or not.
  /// particles() is particles_async(...).get(). Under MPI the copy is gathered to rank 0 here
  /// (collective) and the handle holds it.
  ParticlesCopy particles_async(unsigned attributes = attributes::motion,
                                bool id_order = true) const;
  const Scene& scene() const;
  /// True when frames run as CUDA graphs.
  bool uses_graph() const;
  /// The launches a step of one part makes (not counting the one speed reduction at the start of
  /// a frame that added particles, nor an exchange's).
  StepLaunches launches() const;

  /// The state to continue from, between frames (solver_restart.cpp): on rank 0 every part's,
  /// empty parts elsewhere. Collective.
  RestartState state() const;
  /// Continues from s, before the first advance_frame() (every rank passes the whole state). On
  /// as many parts each part takes its particles, binning and step control as they were (one
  /// part on the CPU then steps bit for bit as the run it continues); on another part count the
  /// particles are split anew and every part rebuilds. Collective.
  void restore(const RestartState& s);
  /// state_hash.hpp's hash of every particle attribute now, between frames (`silt run --hash`):
  /// equal values mean bit-identical states. On rank 0; 0 elsewhere. Collective.
  std::uint64_t state_hash() const;

  // Between frames (solver_edit.cpp).
  /// Adds particles at x (m) with velocities v (m/s), 3 floats per particle, of scene source
  /// `source` (its material and initial plastic state), numbered with the next stable ids (the
  /// emitter's counter, which checkpoints keep) and handed to the parts as an emission is. Returns
  /// the first id; the others follow in order. silt::Error names the first row that is not finite
  /// or outside the domain, or the capacity as an emission's overflow does. Collective under MPI
  /// (every rank passes the same particles).
  int add_particles(int source, const std::vector<float>& x, const std::vector<float>& v);
  /// Collider `index` of scene().colliders is at `at` now (its reference point: a plane's point, a
  /// sphere's or cylinder's center, a box's box_min, the box keeping its size) and moves on with
  /// `velocity` (m/s). Colliders move as initial + velocity t, so the initial position is stored
  /// shifted and the same device table re-uploaded on every part. A checkpoint holds the scene's
  /// colliders only: state() refuses after a move; restore() puts the scene's colliders back.
  void move_collider(std::size_t index, const Vec3d& at, const Vec3d& velocity);
  /// Between frames: gravity (m/s^2) and the materials' parameters become these, from the current
  /// time on (the stiffness, friction, cohesion, viscosity, ... of each material; the time step
  /// follows the new wave speeds). Each material keeps its kind and density (the particles' mass
  /// was set from it): silt::Error names the material otherwise. Every part's table is replaced
  /// in place and the CUDA graphs are recorded again. As for moved colliders, a checkpoint holds
  /// the scene's values: state() refuses after a change; restore() puts them back.
  void set_physics(const Vec3d& gravity, const std::vector<Material>& materials);

  /// Part k of this process's parts (solver_views.cpp), after waiting for its device. The
  /// pointers hold until the next call that steps, adds or moves particles (advance_frame(),
  /// step(), restore()): a step sorts the particles in place and growth moves the storage.
  PartParticles part_particles(int k) const;

  /// Parts over all ranks.
  int parts() const;
  /// This process's parts.
  std::vector<PartInfo> part_info() const;
  /// Particles per part over all ranks, in part order, as of the start of the last frame (after
  /// its emission and any rebalancing) or of the run. Not collective.
  std::vector<std::int64_t> part_counts() const;
  /// Times the parts were rebalanced (SolverOptions::balance_tolerance).
  int rebalances() const;
  /// Times the cuts moved with parts that stayed apart along the split's axis instead (a body
  /// crossing the cuts as a whole): no particle changed part, nothing went to the host.
  int cut_moves() const;
  /// "3 parts along x: 1200 | 1200 | 1201 particles, 0 rebalances, 2 cut moves: [cpu partition
  /// 0: ...] ...", for logs (the bracketed details are this process's parts); "one part: ..."
  /// for one.
  std::string layout() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

/// A fault in a part (NaN, overflow, a collapsed dt): under MPI every rank throws it with the
/// same message, which names the part, its device or rank, the particle id and the frame.
class PartFault : public Error {
 public:
  using Error::Error;
};

/// A ParticleFrame reordered by stable id.
ParticleFrame sort_by_id(const ParticleFrame& f);

}  // namespace silt::mpm
