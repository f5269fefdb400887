// mpm::Solver: frames of device-resident steps (paper 000 §3-4). A step is
//   pre      dt kernel (dt from the speed G2P folded in, clock, rebuild decision on the device)
//   rebuild  only every rebuild_period steps or when the free-zone guard fired (rebuild.cpp)
//   step     P2G, grid update, G2P (transfer.cpp)
// On CUDA a frame is one graph launch (step_graph.hpp); the host reads StepControl and the fault
// flags once per frame.
#include <fmt/format.h>

#include <chrono>
#include <cmath>

#include "silt/core/error.hpp"
#include "silt/core/parallel_for.hpp"
#include "silt/mpm/solver_impl.hpp"
#include "silt/mpm/transfer_body.hpp"

namespace silt::mpm {

Solver::Impl::Impl(const Scene& s, const Exec& e, const SolverOptions& o, bool emit_initial)
    : scene(s), options(o), exec(e) {
  validate();
  if (exec.is_cuda()) {
    // Capture needs a stream other than the legacy default one; the solver owns its stream.
    own_stream = StepGraph::create_stream(exec);
    exec.stream = own_stream;
  }
  ctl = DeviceBuffer<StepControl>(exec, 1, "mpm step control");
  StepControl init;
  init.since_rebuild = scene.rebuild_period;  // the first step rebuilds
  ctl.set(0, init);
  faults = FaultFlags(exec);
  particles = ParticleStore(exec, 0);
  grid = SparseGrid(exec, scene.transfer == Transfer::asflip,
                    scene.transfer == Transfer::asflip || scene.g2p2g);
  build_tables();
  if (emit_initial) emit_due(0.0);
  refresh_args();
}

Solver::Impl::~Impl() {
  graph.reset();
  // Buffers free themselves after this; the stream goes once the work on it is done.
  if (own_stream) {
    fence(exec);
    StepGraph::destroy_stream(exec, own_stream);
  }
}

void Solver::Impl::enqueue_pre(const StepHandles& h, bool allow_pause) {
  StepParams sp = step_params;
  if (!allow_pause) sp.grow_blocks = 0x7fffffff;
  // The dt kernel of a step whose values are current: one device, or parts that have agreed just
  // before it (a lagged part's graphs decide in enqueue_agree_step instead).
  sp.lagged = 0;
  launch_dt_kernel(exec, control(), sp, h, faults.view());
}

void Solver::Impl::enqueue_rebuild_phase() {
  enqueue_rebuild(exec, rargs, particles.view(), particles.sort_view(), grid.view(), control(),
                  faults.view());
  // G2P2G scattered the particles into the old mapping (or could not scatter those that left
  // their zone): after a rebuild every particle scatters again, F already current.
  if (scene.g2p2g)
    enqueue_p2g(exec, targs, particles.view(), grid.view(), control(), faults.view(),
                &control()->rebuild, false);
}

void Solver::Impl::enqueue_step_phase() {
  const ParticleView p = particles.view();
  const GridView g = grid.view();
  if (scene.g2p2g) {
    enqueue_grid_update(exec, gargs, g, control());
    enqueue_g2p2g(exec, targs, p, g, control(), faults.view());
    return;
  }
  enqueue_p2g(exec, targs, p, g, control(), faults.view(), &control()->active, true);
  enqueue_grid_update(exec, gargs, g, control());
  enqueue_g2p(exec, targs, p, g, control(), faults.view());
}

void Solver::Impl::request_rebuild() {
  StepControl c = ctl.get(0);
  c.since_rebuild = scene.rebuild_period;
  ctl.set(0, c);
}

void Solver::Impl::enqueue_step(const StepHandles& h, bool allow_pause) {
  enqueue_pre(h, allow_pause);
  enqueue_rebuild_phase();
  enqueue_step_phase();
}

int Solver::Impl::step_launches() const {
  // Mirrors enqueue_pre and enqueue_step_phase: the dt kernel, then P2G, grid update, G2P (or the
  // grid update and G2P2G).
  return 1 + (scene.g2p2g ? 2 : 3);
}

int Solver::Impl::rebuild_launches() const {
  // Mirrors enqueue_rebuild_phase: the rebuild, plus the re-scatter under G2P2G.
  return rebuild_launch_count(rargs) + (scene.g2p2g ? 1 : 0);
}

void Solver::Impl::prepare(bool emit, bool for_frame) {
  if (emit && emit_due(read_control().time) > 0) speed_stale = true;
  // A grid that moved has lost its blocks (and, under G2P2G, the scattered particles).
  if (grid.ensure(last_num_blocks)) request_rebuild();
  refresh_args();
  if (speed_stale) {
    // New particles have not been through a G2P: one reduction over all of them (it combines
    // with, and covers, the speeds the last G2P folded in).
    reduce_max_speed(exec, particles.view().v, particles.size(), control());
    speed_stale = false;
  }
  if (!for_frame || !exec.is_cuda() || !options.cuda_graph || graph_failed) return;
  const long long key = (long long)particles.size() * 1000003LL +
                        particles.reallocations() * 1009LL + grid.reallocations();
  if (graph && key == graph_key) return;
  graph.reset();
  try {
    graph = std::make_unique<StepGraph>(
        exec, [this](const StepHandles& h) { enqueue_pre(h, true); },
        [this] { enqueue_rebuild_phase(); }, [this](const StepHandles&) { enqueue_step_phase(); },
        options.graph_steps_per_iteration);
    graph_key = key;
  } catch (const Error& e) {
    graph_failed = true;
    if (options.log)
      options.log(fmt::format("MPM: CUDA graph unavailable, using plain launches ({})", e.what()));
  }
}

StepControl Solver::Impl::read_control() const {
  return ctl.get(0);
}

void Solver::Impl::throw_on_fault(const StepControl& c) const {
  const Fault f = faults.read();
  if (!f) return;
  const std::string where = fmt::format("scene '{}', frame {} (t = {:.6g} s, step {} of the frame)",
                                        scene.name, frame, c.time, c.steps);
  switch (f.code) {
    case kFaultNaN:
      throw Error(
          fmt::format("MPM: particle id {} has a non-finite position or velocity in {}; "
                      "the smallest stable dt met was {:.3g} s",
                      f.index, where, c.dt_limit_min));
    case kFaultHashFull:
      throw Error(fmt::format("MPM: block hash table full ({} slots, {} blocks needed) in {}",
                              f.index, c.num_blocks, where));
    case kFaultBlockOverflow:
      throw Error(
          fmt::format("MPM: sparse grid overflow in {}: a rebuild needed {} blocks, the "
                      "capacity is {} (it grows 4x between frames; the active region "
                      "more than doubled within one frame)",
                      where, c.num_blocks, f.index));
    case kFaultZoneEscape:
      throw Error(
          fmt::format("MPM: particle id {} left the 3x3x3 blocks around its block in one "
                      "step in {} (moved more than 3 cells: dt too large?)",
                      f.index, where));
    case kFaultStepLimit:
      throw Error(
          fmt::format("MPM: more than {} steps in {}: dt collapsed", step_params.max_steps, where));
    case kFaultBadDt:
      throw Error(fmt::format("MPM: dt is not a positive number in {}", where));
    case kFaultBarrier:
      throw Error(
          fmt::format("MPM: the cross-GPU barrier after P2G timed out in {} (another GPU "
                      "never arrived)",
                      where));
    default:
      throw Error(fmt::format("MPM: device fault {} (index {}) in {}", f.code, f.index, where));
  }
}

void Solver::Impl::warn(FrameStats& stats, const std::string& msg) const {
  stats.warnings.push_back(msg);
  if (options.log) options.log(msg);
}

void Solver::Impl::warn_unstable_dt(FrameStats& stats, const StepControl& c, const Scene& scene,
                                    long long frame) const {
  if (c.unstable_steps > 0)
    warn(stats, fmt::format("MPM: fixed_dt = {:.3g} s exceeds the CFL-stable dt {:.3g} s (cfl {}, "
                            "elastic_cfl {}) in {} of {} steps of frame {}; expect instability",
                            scene.fixed_dt, c.dt_limit_min, scene.cfl, scene.elastic_cfl,
                            c.unstable_steps, c.steps, frame));
}

FrameStats frame_stats(const StepControl& c, double ms, std::int64_t particles,
                       std::int64_t active_blocks) {
  FrameStats s;
  s.steps = c.steps;
  s.time = c.time;
  s.ms_per_step = c.steps > 0 ? ms / c.steps : 0.0;
  s.particles = particles;
  s.active_blocks = active_blocks;
  s.rebuilds = c.rebuilds;
  s.forced_rebuilds = c.forced_rebuilds;
  s.sorts = c.sorts;
  s.dt_min = c.steps > 0 ? c.dt_min : 0.0;
  s.dt_max = c.dt_max;
  s.stable_dt = c.dt_limit_min;
  s.unstable_steps = c.unstable_steps;
  return s;
}

Solver::Solver(const Scene& scene, const Exec& exec) : Solver(scene, exec, SolverOptions{}) {}
Solver::Solver(const Scene& scene, const Exec& exec, const SolverOptions& options)
    : impl_(std::make_unique<Impl>(scene, exec, options)) {}
Solver::~Solver() = default;
Solver::Solver(Solver&&) noexcept = default;
Solver& Solver::operator=(Solver&&) noexcept = default;

void Solver::Impl::run_steps() {
  if (graph) {
    graph->launch();
  } else if (exec.is_cuda()) {
    // Plain launches: batches of steps, each gated on the device's `more` flag, with one host
    // read per batch (one per frame once the step count is known from the previous frame).
    int batch = last_frame_steps > 0 ? last_frame_steps : 8;
    for (;;) {
      for (int i = 0; i < batch; ++i) enqueue_step(StepHandles{}, true);
      if (!read_control().more) break;
      batch = batch / 4 > 1 ? batch / 4 : 1;
    }
  } else {
    // Host backend: StepControl is host memory, read directly.
    do {
      enqueue_step(StepHandles{}, true);
    } while (control()->more);
  }
}

FrameStats Solver::advance_frame() {
  Impl& m = *impl_;
  m.stepping = false;
  m.prepare(true, true);
  begin_frame(m.exec, m.control(), m.scene.frame_dt);
  const auto t0 = std::chrono::steady_clock::now();
  StepControl c;
  int pauses = 0;
  for (;;) {
    m.run_steps();
    c = m.read_control();
    if (!c.paused || m.faults.read()) break;
    // The active region grew past 3/4 of the grid within the frame: grow it between two steps
    // (the next step rebuilds into the new storage) and carry on.
    m.last_num_blocks = c.num_blocks;
    m.prepare(false, true);
    resume_frame(m.exec, m.control());
    ++pauses;
  }
  const auto t1 = std::chrono::steady_clock::now();
  m.throw_on_fault(c);
  ++m.frame;
  m.last_frame_steps = c.steps;
  m.last_num_blocks = c.num_blocks;

  FrameStats s = frame_stats(c, std::chrono::duration<double, std::milli>(t1 - t0).count(),
                             m.particles.size(), c.num_blocks);
  m.warn_unstable_dt(s, c, m.scene, m.frame);
  if (pauses > 0)
    m.warn(s, fmt::format("MPM: frame {} paused {} time(s) to grow the sparse grid to {} blocks",
                          m.frame, pauses, m.grid.block_capacity()));
  return s;
}

void Solver::step() {
  Impl& m = *impl_;
  if (!m.stepping) {
    m.prepare(false, false);
    begin_frame(m.exec, m.control(), 0.0);
    m.stepping = true;
  }
  m.enqueue_step(StepHandles{}, false);
}

void Solver::check() {
  const StepControl c = impl_->read_control();
  impl_->throw_on_fault(c);
  impl_->last_num_blocks = c.num_blocks;
}

double Solver::time() const {
  return impl_->read_control().time;
}
std::int64_t Solver::particle_count() const {
  return impl_->particles.size();
}
const Scene& Solver::scene() const {
  return impl_->scene;
}
const SolverOptions& Solver::options() const {
  return impl_->options;
}
bool Solver::uses_graph() const {
  return impl_->graph != nullptr;
}
StepLaunches Solver::launches() const {
  return StepLaunches{impl_->step_launches(), impl_->rebuild_launches()};
}

}  // namespace silt::mpm
