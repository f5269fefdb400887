// Solver internals shared by solver.cpp (frames and steps) and solver_setup.cpp (scene -> device
// tables, particle emission). Not part of the public interface.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "silt/core/buffer.hpp"
#include "silt/core/exec.hpp"
#include "silt/core/fault.hpp"
#include "silt/mpm/particles.hpp"
#include "silt/mpm/pipeline.hpp"
#include "silt/mpm/rebuild.hpp"
#include "silt/mpm/solver.hpp"
#include "silt/mpm/sparse_grid.hpp"
#include "silt/mpm/step_control.hpp"
#include "silt/mpm/step_graph.hpp"

namespace silt::mpm {

/// The statistics of a frame that ended with control c after ms milliseconds of wall time, with
/// its particle and active-block counts (over every part of a multi-partition run).
FrameStats frame_stats(const StepControl& c, double ms, std::int64_t particles,
                       std::int64_t active_blocks);

struct Solver::Impl {
  /// emit_initial: add the particles due at t = 0 (false: a part of a multi-partition run, whose
  /// driver hands each part its piece, multi_solver.cpp).
  Impl(const Scene& scene, const Exec& exec, const SolverOptions& options,
       bool emit_initial = true);
  ~Impl();

  Scene scene;
  SolverOptions options;
  Exec exec;  // the caller's device with the solver's own stream
  CUstream_st* own_stream = nullptr;

  std::vector<ParticleClass> classes_host;  // one per source
  DeviceBuffer<ParticleClass> classes;
  DeviceBuffer<ColliderParams<float>> colliders;
  ParticleStore particles;
  SparseGrid grid;
  DeviceBuffer<StepControl> ctl;
  FaultFlags faults;

  StepParams step_params;
  TransferArgs targs;
  GridArgs gargs;
  RebuildArgs rargs;

  std::unique_ptr<StepGraph> graph;
  long long graph_key = -1;
  bool graph_failed = false;

  std::vector<std::vector<double>> emissions;  // per source: emission times, s
  std::vector<std::size_t> next_emission;      // per source: first emission not yet done
  long long frame = 0;                         // frames completed
  int last_frame_steps = 0;
  int last_num_blocks = 0;
  bool stepping = false;  // single-step mode started (step())
  /// Particles were added since the last G2P folded the speeds into StepControl::vmax: the next
  /// frame or step starts with one reduction over all particles (prepare()).
  bool speed_stale = true;

  // solver_setup.cpp
  void validate() const;
  void build_tables();
  /// Appends the particles of every emission due at or before time t (s). Returns the count.
  Index emit_due(double t);
  /// The particles of every emission due at or before t (s), in emission order, without ids;
  /// advances the emission cursors.
  NewParticles collect_due(double t);
  /// Appends particles (room in the grid first) and asks for a rebuild. check_max: enforce
  /// scene.max_particles on this store's count (a multi-partition driver checks the total).
  void append_new(const NewParticles& add, double t, bool check_max);
  /// Replaces the particles with p (a multi-partition driver moving particles between parts):
  /// room in the grid first, then a rebuild and a fresh speed reduction are due.
  void replace_particles(const HostParticles& p);
  void refresh_args();
  /// A part of several GPUs with one synchronisation per step (multi_kernels.hpp): decisions
  /// from agreed values (StepParams::lagged), two P2G accumulators, the free-zone guard a cell
  /// early; split_force also moves the stress force into its own channels, so that P2G needs no
  /// dt (an adaptive dt is agreed after P2G). Before the first particles, or with a rebuild due.
  void configure_lagged(bool on, bool split_force);

  // solver_output.cpp
  ParticleFrame download(bool with_stress);

  // solver.cpp
  StepControl* control() { return ctl.data(); }
  /// allow_pause: frames may pause for the host to grow the grid (single steps may not). Decides
  /// from current values (never StepParams::lagged).
  void enqueue_pre(const StepHandles& h, bool allow_pause);
  void enqueue_rebuild_phase();
  void enqueue_step_phase();
  void enqueue_step(const StepHandles& h, bool allow_pause);
  /// Kernel launches of a step that does not rebuild, and the extra ones of a rebuild.
  int step_launches() const;
  int rebuild_launches() const;
  /// Runs the frame's steps until it completes or pauses (graph, plain batches or host loop).
  void run_steps();
  /// Makes the next step rebuild the mapping (between frames: a host write).
  void request_rebuild();
  /// Emission (emit), capacities and the CUDA graph (for frames): everything that may allocate,
  /// between frames or while a frame is paused.
  void prepare(bool emit, bool for_frame);
  StepControl read_control() const;
  void throw_on_fault(const StepControl& c) const;
  void warn(FrameStats& stats, const std::string& msg) const;
  /// Warns (warn()) when a fixed dt exceeded the CFL-stable dt in some steps of the frame-th frame
  /// of scene, which ended with control c.
  void warn_unstable_dt(FrameStats& stats, const StepControl& c, const Scene& scene,
                        long long frame) const;
};

}  // namespace silt::mpm
