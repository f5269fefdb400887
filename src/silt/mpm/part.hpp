// One part of an MPM run: one device's particles, sparse grid and step control, and the phases of
// a step (paper 000 §4.2). A run on one device is one part; a split run (solver.hpp) holds several,
// with an exchange between them (mpm/exchange/exchange.hpp). Every phase is stream-ordered on the
// part's exec and gated on the device's own decisions (StepControl), so the host never waits inside
// a step.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "silt/core/buffer.hpp"
#include "silt/core/exec.hpp"
#include "silt/core/fault.hpp"
#include "silt/mpm/contact.hpp"
#include "silt/mpm/emitter.hpp"
#include "silt/mpm/motion.hpp"
#include "silt/mpm/particles.hpp"
#include "silt/mpm/pipeline.hpp"
#include "silt/mpm/rebuild.hpp"
#include "silt/mpm/scene.hpp"
#include "silt/mpm/sparse_grid.hpp"
#include "silt/mpm/step_control.hpp"

namespace silt::mpm {

/// Where Part::pack puts a frame's attributes, in memory the part's exec writes (its device's, or
/// the host's for a CPU part); nullptr: not asked for. Material and id are always written.
struct ParticlePack {
  float* position = nullptr;         // [3n] m
  float* velocity = nullptr;         // [3n] m/s
  std::int32_t* material = nullptr;  // [n] index into scene.materials
  std::int32_t* id = nullptr;        // [n] stable id
  float* plastic = nullptr;          // [n] -
  float* stress = nullptr;           // [9n] Cauchy stress, row-major, Pa
  /// Each particle's row is its id (the part's ids are exactly 0 .. n - 1): the frame comes in id
  /// order from the device. Otherwise rows are in storage order.
  bool by_id = false;
};

class Part {
 public:
  /// exec: the device and stream the part runs on (CUDA: a stream other than the legacy one, so
  /// that its frames can be recorded as graphs). where: "cuda device 1", "cpu partition 0", ...
  Part(const Scene& scene, const Exec& exec, std::string where);
  Part(const Part&) = delete;
  Part& operator=(const Part&) = delete;

  // The phases of a step (no host wait; each reads the decision of the dt kernel on the device).
  /// The dt kernel: dt, clock, whether the step runs and rebuilds. allow_pause: a frame may stop
  /// before a step for the host to grow the grid (single steps may not).
  void decide(const StepHandles& handles, bool allow_pause);
  /// The particle-block mapping, on the steps the decision picked.
  void rebuild();
  /// P2G into the part's own grid (nothing under G2P2G, whose last launch scattered already).
  void p2g();
  /// The grid update of a part that shares no block (an exchange sums shared blocks instead).
  void grid_update();
  /// G2P with advection (under G2P2G: this step's G2P and the next step's P2G in one launch).
  void g2p();
  /// Launches of decide + p2g + grid_update + g2p, and of a rebuild.
  int step_launches() const;
  int rebuild_launches() const;

  // Between frames, or while a frame is paused: everything that may allocate.
  /// Appends particles (room in the grid first); a rebuild and a speed reduction follow.
  void add(const NewParticles& p);
  /// The same for what an emitter hands out, in its order: a repeating source's sample is put
  /// on the device at its first emission and copied there at every one (one launch, no upload).
  void add_emissions(const std::vector<Emission>& e, const Emitter& emitter);
  /// Replaces every particle (moving particles between parts).
  void replace(const HostParticles& p);
  /// Grows the grid to the blocks of the last frame, refreshes the kernel arguments and, after
  /// new particles, folds their speeds into the control.
  void prepare();
  /// Replaces the collider table (same count) in place: recorded graphs keep its pointer.
  void set_colliders(const std::vector<Collider>& colliders);
  /// Gravity and the materials' parameters (the same kinds and densities: the particles' mass
  /// stays) from now on: the material table re-uploaded in place, the step's wave speed and the
  /// grid update's gravity set (kernel arguments: recorded graphs must be recorded again).
  void set_physics(const Vec3d& gravity, const std::vector<Material>& materials);
  /// Makes the next step rebuild (a host write between frames).
  void request_rebuild();
  void begin_frame(double span);
  void resume_frame();
  /// The part's state at the end of a frame (waits for the device); remembers its grid fill.
  StepControl end_frame();
  /// Several GPUs with one synchronisation per step (mpm/exchange/peer.cpp): decisions from agreed
  /// values (StepParams::lagged), two P2G accumulators, the free-zone guard a cell early, and with
  /// split_force the stress force in channels of its own (an adaptive dt is agreed after P2G).
  void configure_lagged(bool on, bool split_force);

  /// Between frames: the particles' asked-for attributes into `to`, in storage order, queued on
  /// the part's stream (no wait); a frame's snapshot, which later steps do not touch.
  void pack(const ParticlePack& to);

  // Reading back (each waits for the device).
  StepControl read_control() const;
  /// Throws silt::Error naming the particle id or the counts, the scene, frame and step.
  void throw_on_fault(const StepControl& c, long long frame) const;
  bool faulted() const { return bool(faults_.read()); }
  /// The part's kinetic energy and mass (a reduction over its particles).
  Motion motion();
  HostParticles download_all() const;

  // What exchanges and graphs read.
  const Exec& exec() const { return exec_; }
  const std::string& where() const { return where_; }
  const Scene& scene() const { return scene_; }
  StepControl* control() { return ctl_.data(); }
  FaultView fault() { return faults_.view(); }
  GridView grid_view() { return grid_.view(); }
  SparseGrid& grid() { return grid_; }
  ParticleView particle_view() { return particles_.view(); }
  const GridArgs& grid_args() const { return gargs_; }
  const StepParams& step_params() const { return step_params_; }
  Index particle_count() const { return particles_.size(); }
  /// Changes whenever pointers or sizes a recorded graph baked in change.
  long long storage_key() const;

 private:
  void build_tables();
  /// The part's grid: ASFLIP's old velocities, force channels, fixed point as the scene asks.
  SparseGrid make_grid(bool split_force) const;
  /// "node (i, j, k) at (x, y, z) m" for node index `node` of the grid (a device read).
  std::string describe_node(int node) const;
  void refresh_args();
  /// The device collider table of `colliders` (mesh colliders point into meshes_).
  std::vector<ColliderParams<float>> collider_table(const std::vector<Collider>& colliders) const;

  /// A mesh collider's distance field on this part's device (mesh_sdf_k.hpp).
  struct MeshTables {
    DeviceBuffer<SdfFrame> frames;
    DeviceBuffer<int> bricks;
    DeviceBuffer<float> voxels;
    DeviceBuffer<RigidSegment> keys;
    MeshColliderView view;
  };

  Scene scene_;
  Exec exec_;
  std::string where_;
  std::vector<ParticleClass> classes_host_;  // one per source
  DeviceBuffer<ParticleClass> classes_;
  DeviceBuffer<ColliderParams<float>> colliders_;
  std::vector<MeshTables> meshes_;  // one per scene collider (empty for analytic ones)
  ParticleStore particles_;
  SparseGrid grid_;
  ContactGrid contact_;  // multi-field contact (Scene::contact), or off
  DeviceBuffer<StepControl> ctl_;
  FaultFlags faults_;
  StepParams step_params_;
  TransferArgs targs_;
  GridArgs gargs_;
  RebuildArgs rargs_;
  int last_num_blocks_ = 0;
  /// Per repeating source: its sample on this part's device and the blocks it touches; in a
  /// split run, also the rows this part takes (as last handed) and the blocks they touch.
  struct DeviceSample {
    DeviceBuffer<float> x;
    Index blocks = 0;
    std::vector<int> rows_host;
    DeviceBuffer<int> rows;
    Index rows_blocks = 0;
  };
  std::vector<DeviceSample> samples_;
  /// Particles were added since the last G2P folded their speeds into StepControl::vmax.
  bool speed_stale_ = true;
};

/// The initial plastic state and the clamp box particles are kept in, shared by emission.
struct SourceTables {
  std::vector<float> initial_plastic;  // per source
  float clamp_lo[3] = {}, clamp_hi[3] = {};
};
SourceTables source_tables(const Scene& scene);

/// Throws silt::Error naming the scene and key of the first invalid setting.
void validate(const Scene& scene);

}  // namespace silt::mpm
