// The state of mpm::Solver (solver.hpp) shared by solver.cpp (steps and frames) and
// solver_setup.cpp (parts, emission, preparation between frames). Not part of the interface.
#pragma once

#include <fmt/format.h>

#include <memory>
#include <string>
#include <vector>

#include "silt/core/device_set.hpp"
#include "silt/core/loop_graph.hpp"
#include "silt/mpm/balance.hpp"
#include "silt/mpm/emitter.hpp"
#include "silt/mpm/exchange/exchange.hpp"
#include "silt/mpm/frame_copy.hpp"
#include "silt/mpm/part.hpp"
#include "silt/mpm/solver.hpp"

namespace silt::mpm {

struct Solver::Impl {
  Impl(const Scene& s, const std::vector<Exec>& execs, const SolverOptions& o,
       const partition::World& w);
  ~Impl() {
    for (auto& p : parts) fence(p->exec());
  }

  Scene scene;
  SolverOptions options;
  const partition::World& world;
  int nparts = 0;
  std::vector<int> global;      // this process's parts' indices over all ranks
  std::vector<Stream> streams;  // one per CUDA device of this process (kept first)
  Parts parts;
  std::unique_ptr<Exchange> exchange;
  Emitter emitter;
  Balancer balancer;
  // When frames run as graphs: one per part, or one for all parts sharing one stream.
  std::vector<std::unique_ptr<LoopGraph>> graphs;
  long long graph_key = -1;
  bool graph_failed = false;
  long long total_particles = 0;     // all parts, all ranks
  std::vector<std::int64_t> counts;  // per part over all ranks, after the last emission/balance
  long long frame = 0;
  int last_frame_steps = 0;
  // Host time of the frame being prepared (FrameStats::host).
  FrameHostTime host_time;
  bool stepping = false;
  /// The scene's colliders, and the time of the last move_collider() (< 0: none since the start
  /// or the last restore): a checkpoint would restart with the scene's.
  std::vector<Collider> scene_colliders;
  double collider_moved_at = -1;
  /// The scene's gravity and materials, and the time of the last set_physics() (< 0: none since
  /// the start or the last restore).
  Vec3d scene_gravity{};
  std::vector<Material> scene_materials;
  double physics_set_at = -1;
  // Frames on their way to the host (particles_async): staging kept from frame to frame.
  FrameCopier frames;

  /// f(part, k) for each of this process's parts, with its device current.
  template <class F>
  void each(F f) {
    for (std::size_t k = 0; k < parts.size(); ++k) {
      activate(parts[k]->exec());
      f(*parts[k], int(k));
    }
  }
  /// e's message with the part named (a split run).
  std::string name_part(const std::exception& e, int k) const {
    if (nparts == 1) return e.what();
    return fmt::format("{} [part {} of {}, {}]", e.what(), global[std::size_t(k)], nparts,
                       parts[std::size_t(k)]->where());
  }
  void log(const std::string& m) const {
    if (options.log && !m.empty() && world.is_root()) options.log(m);
  }

  void make_parts(const std::vector<Exec>& execs);
  void emit(double t);
  /// Hands new particles to the parts of their pieces (one part: all); `how` ("emitted",
  /// "added") words the capacity error.
  void distribute(NewParticles all, double t, const char* how);
  /// A split run: the particles of `all` per local part, by the piece each lies in (those of
  /// other ranks' pieces are left out; the first call chooses the cuts).
  std::vector<NewParticles> by_part(const NewParticles& all);
  /// silt::Error when n more particles would pass scene.max_particles.
  void check_capacity(std::size_t n, double t, const char* how) const;
  /// A split run: per local part, the rows of repeating source s's sample in its piece (kept
  /// while the balancer's axis and cuts stay).
  const std::vector<std::vector<int>>& rows_of_sample(int s);
  struct SampleRows {
    int axis = -1;
    std::vector<double> cuts;
    std::vector<std::vector<int>> rows;
  };
  std::vector<SampleRows> sample_rows;
  void prepare(bool emit_new, bool for_frame);
  void agree_rebuild();
  /// Records the graphs again when what they baked in changed; true when it did.
  bool prepare_graphs();
  /// One graph per part (parts on their own streams: one part, or parts on distinct GPUs).
  void record_part_graphs();
  /// One graph for every part (parts sharing one stream, Exchange::one_stream()).
  void record_stream_graph();
  void step_plain(bool allow_pause);
  void run_steps();
  void check_faults();
};

}  // namespace silt::mpm
