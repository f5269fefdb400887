// mpm::Solver: frames of device-resident steps over N parts (solver.hpp). A step is a short list
// of phases over the parts with the exchange between them (mpm/exchange/exchange.hpp):
//   agree -> decide -> rebuild -> P2G -> after_p2g -> grid update -> G2P
// On CUDA a frame is one graph launch per part (core/loop_graph.hpp); the host reads each part's
// StepControl and fault flags once per frame.
#include "silt/mpm/solver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cmath>

#include "silt/core/error.hpp"
#include "silt/mpm/frame_gather.hpp"
#include "silt/mpm/solver_impl.hpp"

namespace silt::mpm {

namespace {

constexpr int kTagFault = 7306;

constexpr const char* kAxisName[3] = {"x", "y", "z"};

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

/// One rank's message to every rank (the first faulty rank's, so that all throw the same).
std::string broadcast_message(const partition::World& w, int from, const std::string& msg) {
  std::vector<char> chars(msg.begin(), msg.end());
  if (w.rank() != from) chars.clear();
  std::vector<std::vector<char>> to(std::size_t(w.size()));
  if (w.rank() == from)
    for (int r = 0; r < w.size(); ++r) to[std::size_t(r)] = chars;
  const std::vector<std::vector<char>> got = w.exchange_all(std::move(to), kTagFault);
  const std::vector<char>& m = got[std::size_t(from)];
  return std::string(m.begin(), m.end());
}

}  // namespace

void Solver::Impl::step_plain(bool allow_pause) {
  exchange->agree(allow_pause);
  each([&](Part& p, int) { p.decide(StepHandles{}, allow_pause); });
  each([&](Part& p, int) { p.rebuild(); });
  each([&](Part& p, int) { p.p2g(); });
  exchange->after_p2g();
  each([&](Part&, int k) { exchange->grid_update(k); });
  each([&](Part& p, int) { p.g2p(); });
}

void Solver::Impl::run_steps() {
  if (!graphs.empty()) {
    // One graph per part: every part loops over the frame's steps on its own, meeting the others
    // at the in-kernel barriers; the loops end together (the agreed dt and frame end). Parts that
    // share one stream: one graph steps them all.
    for (std::size_t k = 0; k < graphs.size(); ++k) {
      activate(parts[k]->exec());
      graphs[k]->launch();
    }
    return;
  }
  if (parts.front()->exec().is_cuda()) {
    // Plain launches: batches of steps, each gated on the device's `more` flag, with one host
    // read per batch (one per frame once the step count is known from the previous frame).
    int batch = last_frame_steps > 0 ? last_frame_steps : 8;
    for (;;) {
      for (int i = 0; i < batch; ++i) step_plain(true);
      if (!parts.front()->read_control().more) break;
      batch = batch / 4 > 1 ? batch / 4 : 1;
    }
    return;
  }
  // Host backend: StepControl is host memory.
  do {
    step_plain(true);
  } while (parts.front()->control()->more);
}

void Solver::Impl::check_faults() {
  int failed = -1;
  std::string msg;
  for (std::size_t k = 0; k < parts.size() && failed < 0; ++k) {
    try {
      parts[k]->throw_on_fault(parts[k]->read_control(), frame);
    } catch (const Error& e) {
      failed = global[k];
      msg = name_part(e, int(k));
    }
  }
  double any = double(failed);
  if (world.distributed()) world.allreduce_max_sum(&any, 1, 1);
  if (any < 0) return;
  if (world.distributed()) msg = broadcast_message(world, int(any), msg);
  throw PartFault(msg);
}

Solver::Solver(const Scene& scene, const std::vector<Exec>& execs, const SolverOptions& options,
               const partition::World& world)
    : impl_(std::make_unique<Impl>(scene, execs, options, world)) {}
Solver::Solver(const Scene& scene, const Exec& exec, const SolverOptions& options)
    : Solver(scene, std::vector<Exec>{exec}, options) {}
Solver::~Solver() = default;
Solver::Solver(Solver&&) noexcept = default;
Solver& Solver::operator=(Solver&&) noexcept = default;

FrameStats Solver::advance_frame() {
  Impl& m = *impl_;
  m.stepping = false;
  m.host_time = FrameHostTime{};
  m.prepare(true, true);
  m.each([&](Part& p, int) { p.begin_frame(m.scene.frame_dt); });
  const auto t0 = std::chrono::steady_clock::now();
  int pauses = 0;
  for (;;) {
    m.run_steps();
    bool fault = false, paused = false;
    for (auto& p : m.parts) {
      // Every part's end_frame, also after one said paused: it records the part's block count,
      // which its grid grows to before the frame resumes.
      const bool part_paused = p->end_frame().paused != 0;
      paused = paused || part_paused;
      fault = fault || p->faulted();
    }
    // A pause is agreed (StepControl::agreed.pause), and a fault anywhere halts every part
    // unpaused. The active region grew past 3/4 of a grid within the frame: grow it between two
    // steps (the next step rebuilds into the new storage) and carry on.
    if (!paused || fault) break;
    m.prepare(false, true);
    m.each([](Part& p, int) { p.resume_frame(); });
    ++pauses;
  }
  const auto t1 = std::chrono::steady_clock::now();
  m.check_faults();
  ++m.frame;
  const StepControl c = m.parts.front()->read_control();
  m.last_frame_steps = c.steps;
  double blocks = 0;
  for (auto& p : m.parts) blocks += p->end_frame().num_blocks;
  if (m.world.distributed()) m.world.allreduce_sum(&blocks, 1);
  FrameStats s = frame_stats(c, std::chrono::duration<double, std::milli>(t1 - t0).count(),
                             m.total_particles, std::int64_t(blocks));
  double motion[2] = {0, 0};  // kinetic energy, mass
  for (auto& p : m.parts) {
    const Motion pm = p->motion();
    motion[0] += pm.kinetic_energy, motion[1] += pm.mass;
  }
  if (m.world.distributed()) m.world.allreduce_sum(motion, 2);
  s.kinetic_energy = motion[0];
  s.rms_speed = motion[1] > 0 ? std::sqrt(2.0 * motion[0] / motion[1]) : 0.0;
  auto warn = [&](const std::string& msg) {
    s.warnings.push_back(msg);
    m.log(msg);
  };
  if (c.unstable_steps > 0)
    warn(
        fmt::format("MPM: fixed_dt = {:.3g} s exceeds the CFL-stable dt {:.3g} s (cfl {}, "
                    "elastic_cfl {}) in {} of {} steps of frame {}; expect instability",
                    m.scene.fixed_dt, c.dt_limit_min, m.scene.cfl, m.scene.elastic_cfl,
                    c.unstable_steps, c.steps, m.frame));
  if (pauses > 0)
    warn(fmt::format("MPM: frame {} paused {} time(s) to grow the sparse grid", m.frame, pauses));
  s.host = m.host_time;
  s.host.finish_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t1).count();
  return s;
}

void Solver::step() {
  Impl& m = *impl_;
  if (!m.stepping) {
    m.exchange->single_steps();
    m.prepare(false, false);
    m.each([](Part& p, int) { p.begin_frame(0.0); });
    m.stepping = true;
  }
  m.step_plain(false);
}

void Solver::check() {
  impl_->check_faults();
  for (auto& p : impl_->parts) p->end_frame();
}

double Solver::time() const {
  return impl_->parts.front()->read_control().time;
}
std::int64_t Solver::particle_count() const {
  return impl_->total_particles;
}
ParticlesCopy Solver::particles_async(unsigned attributes, bool id_order) const {
  Impl& m = *impl_;
  // Particles are never removed: one part holding every id the emitter gave holds 0 .. n - 1.
  const bool dense = m.nparts == 1 && m.emitter.progress().next_id == m.total_particles;
  if (!m.world.distributed()) return m.frames.copy(m.parts, attributes, id_order, dense);
  // The other ranks' particles come as messages (collective): the waiting path.
  const ParticleFrame local = m.frames.copy(m.parts, attributes, false).get();
  return ParticlesCopy(gather_to_root(local, m.world), id_order);
}
ParticleFrame Solver::particles(bool with_stress) const {
  return particles_async(with_stress ? attributes::all : attributes::motion).get();
}
ParticleFrame Solver::particles_unordered(bool with_stress) const {
  return particles_async(with_stress ? attributes::all : attributes::motion, false).get();
}
const Scene& Solver::scene() const {
  return impl_->scene;
}
bool Solver::uses_graph() const {
  return !impl_->graphs.empty();
}
StepLaunches Solver::launches() const {
  const Part& p = *impl_->parts.front();
  return StepLaunches{p.step_launches(), p.rebuild_launches()};
}
int Solver::parts() const {
  return impl_->nparts;
}
std::vector<std::int64_t> Solver::part_counts() const {
  return impl_->counts;
}
int Solver::rebalances() const {
  return impl_->balancer.rebalances();
}
int Solver::cut_moves() const {
  return impl_->balancer.cut_moves();
}

std::vector<PartInfo> Solver::part_info() const {
  std::vector<PartInfo> out;
  for (std::size_t k = 0; k < impl_->parts.size(); ++k) {
    Part& p = *impl_->parts[k];
    PartInfo i;
    i.part = impl_->global[k];
    i.where = p.where();
    i.particles = p.particle_count();
    i.blocks = p.read_control().num_blocks;
    i.shared_blocks = impl_->exchange->shared_blocks(int(k));
    out.push_back(i);
  }
  return out;
}

std::string Solver::layout() const {
  const Impl& m = *impl_;
  const int axis = m.balancer.axis();
  std::string s = m.nparts == 1 ? std::string("one part: ")
                                : fmt::format("{} parts along {}: ", m.nparts,
                                              axis >= 0 ? kAxisName[axis] : "-");
  for (std::size_t q = 0; q < m.counts.size(); ++q)
    s += fmt::format("{}{}", q ? " | " : "", m.counts[q]);
  const int r = m.balancer.rebalances();
  const int c = m.balancer.cut_moves();
  s += fmt::format(" particles, {} rebalance{}, {} cut move{}:", r, r == 1 ? "" : "s", c,
                   c == 1 ? "" : "s");
  for (const PartInfo& i : part_info())
    s += fmt::format(" [{}: {} particles, {} blocks, {} shared]", i.where, i.particles, i.blocks,
                     i.shared_blocks);
  return s;
}

}  // namespace silt::mpm
