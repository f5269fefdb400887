// mpm::Solver: frames of device-resident steps over N parts (solver.hpp). A step is a short list
// of phases over the parts with the exchange between them (exchange.hpp):
//   agree -> decide -> rebuild -> P2G -> after_p2g -> grid update -> G2P
// On CUDA a frame is one graph launch per part (step_graph.hpp); the host reads each part's
// StepControl and fault flags once per frame.
#include "silt/mpm/solver.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>

#include "silt/core/error.hpp"
#include "silt/mpm/balance.hpp"
#include "silt/mpm/emitter.hpp"
#include "silt/mpm/exchange.hpp"
#include "silt/mpm/exchange_kernels.hpp"
#include "silt/mpm/frame_gather.hpp"
#include "silt/mpm/part.hpp"
#include "silt/mpm/step_graph.hpp"
#include "silt/partition/streams.hpp"

namespace silt::mpm {

namespace {

constexpr int kTagFault = 7306;
/// Steps per iteration of a frame graph's device-side loop (the body repeated), so the loop's
/// per-iteration cost is shared by two steps (bench/results/mpm-2026-11-29-h200.md).
constexpr int kGraphStepsPerIteration = 2;

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
  std::vector<int> global;                 // this process's parts' indices over all ranks
  std::vector<partition::Stream> streams;  // one per CUDA device of this process (kept first)
  Parts parts;
  std::unique_ptr<Exchange> exchange;
  Emitter emitter;
  Balancer balancer;
  std::vector<std::unique_ptr<StepGraph>> graphs;  // one per part, when frames run as graphs
  long long graph_key = -1;
  bool graph_failed = false;
  long long total_particles = 0;     // all parts, all ranks
  std::vector<std::int64_t> counts;  // per part over all ranks, after the last emission/balance
  long long frame = 0;
  int last_frame_steps = 0;
  bool stepping = false;

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
  void prepare(bool emit_new, bool for_frame);
  void agree_rebuild();
  void prepare_graphs();
  void step_plain(bool allow_pause);
  void run_steps();
  void check_faults();
};

namespace {
/// Parts over all ranks, and the indices of this process's among them.
int part_total(const std::vector<Exec>& execs, const partition::World& w) {
  return w.distributed() ? w.size() : int(execs.size());
}
std::vector<int> local_indices(const std::vector<Exec>& execs, const partition::World& w) {
  if (w.distributed()) return {w.rank()};
  std::vector<int> g(execs.size());
  for (std::size_t k = 0; k < g.size(); ++k) g[k] = int(k);
  return g;
}
}  // namespace

Solver::Impl::Impl(const Scene& s, const std::vector<Exec>& execs, const SolverOptions& o,
                   const partition::World& w)
    : scene(s),
      options(o),
      world(w),
      nparts(part_total(execs, w)),
      global(local_indices(execs, w)),
      emitter(scene),
      balancer(scene, nparts, global, w, o.balance_tolerance) {
  validate(scene);
  if (execs.empty()) throw Error("MPM: no device given");
  if (nparts > kMaxParts)
    throw Error(fmt::format("MPM on several parts: {} parts, at most {}", nparts, kMaxParts));
  if (nparts > 1 && scene.g2p2g)
    throw Error(fmt::format(
        "MPM scene '{}': g2p2g runs on one part only (the fused kernel has no place for the "
        "shared-block reduction); set g2p2g to false",
        scene.name));
  make_parts(execs);
  exchange = make_exchange(parts, world);
  if (!options.cuda_graph || !exchange->records_graphs()) exchange->use_plain_steps();
  emit(0.0);
  counts = balancer.counts(parts);
}

void Solver::Impl::make_parts(const std::vector<Exec>& execs) {
  const bool cuda = execs.front().is_cuda();
  for (const Exec& e : execs)
    if (e.is_cuda() != cuda) throw Error("MPM on several parts: CPU and CUDA parts mixed");
  if (world.distributed() && execs.size() != 1)
    throw Error(fmt::format(
        "MPM on several MPI ranks: each rank drives one part ({} devices given on rank {})",
        execs.size(), world.rank()));
  // One stream per device: parts on one GPU run their phases in turn on it. Capture (the frame
  // graphs) needs a stream other than the legacy one.
  std::vector<int> devices;
  for (const Exec& e : execs)
    if (cuda && std::find(devices.begin(), devices.end(), e.device) == devices.end()) {
      devices.push_back(e.device);
      streams.emplace_back(e);
    }
  for (std::size_t k = 0; k < execs.size(); ++k) {
    Exec e = execs[k];
    const std::string dev = cuda ? fmt::format("cuda device {}", e.device) : std::string("cpu");
    std::string where = dev;
    if (world.distributed())
      where = fmt::format("MPI rank {}, {}", world.rank(), dev);
    else if (!cuda && execs.size() > 1)
      where = fmt::format("cpu partition {}", k);
    else if (cuda && devices.size() < execs.size())
      where = fmt::format("{}, part {}", dev, k);
    if (cuda)
      e = streams[std::size_t(std::find(devices.begin(), devices.end(), e.device) -
                              devices.begin())]
              .exec();
    activate(e);
    try {
      parts.push_back(std::make_unique<Part>(scene, e, std::move(where)));
    } catch (const Error& err) {
      throw Error(nparts == 1 ? std::string(err.what())
                              : fmt::format("{} [part {} of {}]", err.what(), global[k], nparts));
    }
  }
}

void Solver::Impl::emit(double t) {
  NewParticles all = emitter.take_due(t);
  const std::size_t n = all.count();
  if (n == 0) return;
  if (scene.max_particles > 0 && total_particles + (long long)n > scene.max_particles)
    throw Error(fmt::format(
        "MPM scene '{}': particle capacity overflow at t = {} s: {} particles "
        "needed ({} present + {} emitted), max_particles is {}",
        scene.name, t, total_particles + (long long)n, total_particles, n, scene.max_particles));
  total_particles += (long long)n;
  std::vector<NewParticles> piece_of(parts.size());
  if (nparts == 1) {
    piece_of[0] = std::move(all);
  } else {
    // Each particle to the part of its piece (over all ranks; others' pieces are theirs).
    const std::vector<int> piece = balancer.pieces(all);
    for (std::size_t i = 0; i < n; ++i) {
      const auto at = std::find(global.begin(), global.end(), piece[i]);
      if (at == global.end()) continue;
      NewParticles& d = piece_of[std::size_t(at - global.begin())];
      for (int a = 0; a < 3; ++a) {
        d.x.push_back(all.x[3 * i + a]);
        d.v.push_back(all.v[3 * i + a]);
      }
      d.plastic.push_back(all.plastic[i]);
      d.material.push_back(all.material[i]);
      d.id.push_back(all.id[i]);
    }
  }
  each([&](Part& p, int k) {
    try {
      p.add(piece_of[std::size_t(k)]);
    } catch (const Error& e) {
      throw Error(name_part(e, k));
    }
  });
}

void Solver::Impl::agree_rebuild() {
  // A part that was handed particles or whose grid moved asked for a rebuild: all rebuild.
  if (nparts == 1) return;
  double any = 0;
  for (auto& p : parts)
    if (p->read_control().since_rebuild >= scene.rebuild_period) any = 1;
  if (world.distributed()) world.allreduce_max_sum(&any, 1, 1);
  if (any > 0)
    for (auto& p : parts) p->request_rebuild();
}

void Solver::Impl::prepare(bool emit_new, bool for_frame) {
  if (emit_new) {
    const double t = parts.front()->read_control().time;
    emit(t);
    log(balancer.balance(parts, t));  // between frames only, never at a pause inside one
    counts = balancer.counts(parts);
  }
  each([&](Part& p, int k) {
    try {
      p.prepare();  // grows the grid: may run out of device memory
    } catch (const Error& e) {
      throw Error(name_part(e, k));
    }
  });
  exchange->prepare();
  agree_rebuild();
  if (for_frame) prepare_graphs();
}

void Solver::Impl::prepare_graphs() {
  if (!options.cuda_graph || graph_failed || !exchange->records_graphs()) return;
  // The graphs bake in every part's pointers (peer grids included) and particle counts.
  long long key = exchange->storage_key();
  for (auto& p : parts) key = key * 1000003LL + p->storage_key();
  if (key == graph_key && !graphs.empty()) return;
  graphs.clear();
  Exchange* x = exchange.get();
  try {
    each([&](Part& p, int k) {
      Part* pp = &p;
      graphs.push_back(std::make_unique<StepGraph>(
          p.exec(), [x, k](const StepHandles& h) { x->graph_decide(k, h); },
          [x, k] { x->graph_rebuild(k); },
          [x, pp, k](const StepHandles& h) {
            pp->p2g();
            x->graph_grid_update(k, h);
            pp->g2p();
          },
          kGraphStepsPerIteration));
    });
    graph_key = key;
  } catch (const Error& e) {
    graph_failed = true;
    graphs.clear();
    exchange->use_plain_steps();
    log(fmt::format("MPM: CUDA graphs unavailable, using plain launches ({})", e.what()));
  }
}

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
    // at the in-kernel barriers; the loops end together (the agreed dt and frame end).
    for (std::size_t k = 0; k < parts.size(); ++k) {
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
  m.prepare(true, true);
  m.each([&](Part& p, int) { p.begin_frame(m.scene.frame_dt); });
  const auto t0 = std::chrono::steady_clock::now();
  int pauses = 0;
  for (;;) {
    m.run_steps();
    bool fault = false, paused = false;
    for (auto& p : m.parts) {
      paused = paused || p->end_frame().paused != 0;
      fault = fault || p->faulted();
    }
    // A pause is agreed (pause_request), and a fault anywhere halts every part unpaused. The
    // active region grew past 3/4 of a grid within the frame: grow it between two steps (the
    // next step rebuilds into the new storage) and carry on.
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
ParticleFrame Solver::particles(bool with_stress) const {
  return gather_frame(impl_->parts, impl_->world, with_stress);
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
  s += fmt::format(" particles, {} rebalance{}:", r, r == 1 ? "" : "s");
  for (const PartInfo& i : part_info())
    s += fmt::format(" [{}: {} particles, {} blocks, {} shared]", i.where, i.particles, i.blocks,
                     i.shared_blocks);
  return s;
}

}  // namespace silt::mpm
