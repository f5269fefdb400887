#include "silt/swe/multi_engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "silt/core/error.hpp"
#include "silt/swe/fused_step.hpp"
#include "silt/swe/kernels/cell_update_k.hpp"
#include "silt/swe/kernels/cfl_k.hpp"
#include "silt/swe/phases.hpp"

namespace silt::swe::detail {

namespace {

// Steps between two host reads of the clocks and fault flags (as on one device, engine.cpp).
constexpr long long kMaxBatch = 256;

partition::Shape to_shape(SplitShape s) {
  return s == SplitShape::strips   ? partition::Shape::strips
         : s == SplitShape::blocks ? partition::Shape::blocks
                                   : partition::Shape::automatic;
}

bool all_fused(const Scene& s, const Split& split) {
  if (!s.fused_kernel || !split.fused) return false;
  for (const Exec& e : split.execs)
    if (!fused_step_available(e)) return false;
  return true;
}

}  // namespace

template <class T>
MultiEngine<T>::MultiEngine(const Scene& s, const Split& split)
    : scene_(s),
      layout_(prepare(s)),
      world_(split.this_process_only ? partition::World::self() : partition::World::get()),
      per_rank_(int(split.execs.size())),
      k_(split.halo),
      since_exchange_(split.halo),
      has_discharge_(!layout_.discharge_cells.empty()),
      fused_(all_fused(s, split)),
      graphs_(split.graphs && partition::StreamGraph::supported() && split.execs.size() > 1 &&
              !world_.distributed() &&
              std::all_of(split.execs.begin(), split.execs.end(),
                          [](const Exec& e) { return e.is_cuda(); })) {
  if (split.execs.empty())
    throw Error(fmt::format("swe scene '{}': a split run needs at least one exec", s.name));
  if (split.halo < 1)
    throw Error(fmt::format("swe scene '{}': halo width {} (must be >= 1)", s.name, split.halo));
  partition::SplitOptions o;
  o.parts = per_rank_ * world_.size();
  o.halo = split.halo;
  o.shape = to_shape(split.shape);
  try {
    dec_ = partition::split(s.grid.nx, s.grid.ny, layout_.active, o);
  } catch (const Error& e) {
    throw Error(fmt::format("swe scene '{}': {}", s.name, e.what()));
  }
  std::vector<int> devices;
  for (const Exec& e : split.execs)
    if (e.is_cuda() && std::find(devices.begin(), devices.end(), e.device) == devices.end())
      devices.push_back(e.device);
  if (devices.size() > 1) partition::enable_peer_access(devices);
  partition::LocalParts local;
  local.per_rank = per_rank_;
  for (int k = 0; k < per_rank_; ++k) {
    const Exec& e = split.execs[size_t(k)];
    // Several CUDA subdomains: each computes on a stream of its own and copies halos on another.
    const bool own_streams = e.is_cuda() && (per_rank_ > 1 || world_.distributed());
    compute_.emplace_back(own_streams ? partition::Stream(e) : partition::Stream());
    halo_lane_.emplace_back(own_streams ? partition::Stream(e) : partition::Stream());
    const Exec ce = own_streams ? compute_.back().exec() : e;
    const Exec he = own_streams ? halo_lane_.back().exec() : e;
    const int id = world_.rank() * per_rank_ + k;
    parts_.push_back(std::make_unique<Part<T>>(s, layout_, dec_.parts[size_t(id)], k_, ce));
    local.ids.push_back(id);
    local.compute.push_back(ce);
    local.halo_lane.push_back(he);
  }
  halo_ = std::make_unique<partition::HaloExchange>(dec_, local, k_, 4, sizeof(T), world_);
  halo_->use_peer_kernels(split.halo_kernels);
  reduce_ = partition::ScalarReduce(local.compute, 1 + int(layout_.seg_kind.size()), 1, world_);
  update_speed();
}

template <class T>
MultiEngine<T>::~MultiEngine() {
  // Streams go before the parts' buffers: wait for what they still run.
  try {
    fence_all();
  } catch (...) {
  }
}

template <class T>
std::vector<double*> MultiEngine<T>::scalar_ptrs() {
  std::vector<double*> v;
  for (auto& p : parts_) v.push_back(p->scalars.data());
  return v;
}

template <class T>
std::vector<std::vector<void*>> MultiEngine<T>::storage(int which) {
  std::vector<std::vector<void*>> s;
  for (auto& p : parts_) s.push_back(p->exchanged(which));
  return s;
}

template <class T>
Box2 MultiEngine<T>::grown(const Part<T>& p, Index r) const {
  const partition::Subdomain& d = p.sub;
  return Box2{d.shared(-1, 0) ? -r : 0, p.nx + (d.shared(1, 0) ? r : 0), d.shared(0, -1) ? -r : 0,
              p.ny + (d.shared(0, 1) ? r : 0)};
}

template <class T>
void MultiEngine<T>::fence_all() const {
  for (const auto& p : parts_) fence(p->exec);
  for (const auto& s : halo_lane_) fence(s.exec());
}

template <class T>
void MultiEngine<T>::update(Part<T>& p, Box2 box, const char* label) {
  if (box.count() == 0) return;
  if (fused_)
    phase_fused_update(p.exec, p.view(cur_, 1 - cur_), default_tile_shape(), box, label);
  else
    phase_update_box(p.exec, p.view(cur_, 1 - cur_), box, label);
}

template <class T>
void MultiEngine<T>::finish_step(Part<T>& p) {
  const SolverView<T> v = p.view(cur_, 1 - cur_);
  // The tile kernel already counted boundary inflow, applied the sources and reduced the wave
  // speed of the owned cells (over the boxes of update()).
  if (!fused_) {
    if (v.n_flow_cells > 0) phase_boundary_flow(p.exec, v);
    if (v.n_sources > 0) phase_sources(p.exec, v);
    phase_cfl_step(p.exec, v);  // after a no-op step, *smax still holds the global speed
  }
  phase_step_scalars(p, 1 - cur_);
}

template <class T>
void MultiEngine<T>::update_speed() {
  for (auto& p : parts_) {
    activate(p->exec);
    p->smax.set(0, T(0));
    phase_cfl(p->exec, p->view(cur_, cur_));
    phase_step_scalars(*p, cur_);
  }
}

template <class T>
void MultiEngine<T>::begin_exchange() {
  halo_->begin(storage(cur_));
}

// One step of every subdomain (no host synchronisation unless MPI is involved).
template <class T>
void MultiEngine<T>::launch_step() {
  const bool exchange = since_exchange_ >= k_ && dec_.size() > 1;
  if (exchange) begin_exchange();
  reduce_.run(scalar_ptrs());  // global wave speed and wet counts: every part takes one dt
  for (auto& p : parts_) {
    activate(p->exec);
    const SolverView<T> v = p->view(cur_, 1 - cur_);
    phase_unpack_speed(*p);
    phase_clock(p->exec, v);
    if (has_discharge_) phase_unpack_wet(*p);
  }
  // Ghost cell expansion: r halo layers are still valid after this step.
  const Index r = std::max(0, k_ - 1 - (exchange ? 0 : since_exchange_));
  if (exchange) {
    // Interior cells first (their stencil stays in the owned cells) while the halos travel.
    std::vector<Box2> inner;
    for (auto& p : parts_) {
      const partition::Subdomain& d = p->sub;
      const Box2 in{d.shared(-1, 0) ? 1 : 0, p->nx - (d.shared(1, 0) ? 1 : 0),
                    d.shared(0, -1) ? 1 : 0, p->ny - (d.shared(0, 1) ? 1 : 0)};
      inner.push_back(in);
      activate(p->exec);
      update(*p, in, "swe.update.interior");
    }
    halo_->finish();
    for (size_t k = 0; k < parts_.size(); ++k) {
      Part<T>& p = *parts_[k];
      const Box2 b = grown(p, r), in = inner[k];
      activate(p.exec);
      if (in.count() == 0) {
        update(p, b, "swe.update.edges");
        continue;
      }
      // The rest of the grown box: south and north strips, then west and east.
      update(p, Box2{b.i0, b.i1, b.j0, in.j0}, "swe.update.edges");
      update(p, Box2{b.i0, b.i1, in.j1, b.j1}, "swe.update.edges");
      update(p, Box2{b.i0, in.i0, in.j0, in.j1}, "swe.update.edges");
      update(p, Box2{in.i1, b.i1, in.j0, in.j1}, "swe.update.edges");
    }
  } else {
    for (auto& p : parts_) {
      activate(p->exec);
      update(*p, grown(*p, r), "swe.update");
    }
  }
  for (auto& p : parts_) {
    activate(p->exec);
    finish_step(*p);
  }
  since_exchange_ = exchange ? 1 : since_exchange_ + 1;
  cur_ = 1 - cur_;
}

template <class T>
partition::StreamGraph* MultiEngine<T>::period_graph() {
  if (!graphs_ || !graph_error_.empty()) return nullptr;
  if (graph_) return graph_.get();
  std::vector<Exec> streams;
  for (const auto& c : compute_) streams.push_back(c.exec());
  for (const auto& h : halo_lane_) streams.push_back(h.exec());
  const int since = since_exchange_, cur = cur_;
  graph_parity_ = reduce_.parity();
  try {
    graph_ = std::make_unique<partition::StreamGraph>(streams.front(), streams, [&] {
      for (int k = 0; k < 2 * k_; ++k) launch_step();
    });
  } catch (const Error& e) {
    graph_error_ = e.what();
  }
  // Recording ran the host side of 2k steps (back where it started when it succeeded).
  since_exchange_ = since;
  cur_ = cur;
  reduce_.set_parity(graph_parity_);  // 2k reductions: where it started, also after a failure
  return graph_.get();
}

template <class T>
void MultiEngine<T>::launch_steps(long long count) {
  long long left = count;
  if (graphs_ && graph_error_.empty()) {
    const long long period = 2LL * k_;
    // The cycle starts at an exchange step with buffer 0 current.
    while (left > 0 && !(since_exchange_ >= k_ && cur_ == 0)) {
      launch_step();
      --left;
    }
    if (left >= period) {
      if (partition::StreamGraph* g = period_graph()) {
        if (reduce_.parity() != graph_parity_) {
          // A reduction outside the steps (measure_communication) moved the slot sets.
          fence_all();
          reduce_.set_parity(graph_parity_);
        }
        for (; left >= period; left -= period) g->launch();
        since_exchange_ = k_;  // the replays end where the period began
        cur_ = 0;
      }
    }
  }
  for (; left > 0; --left) launch_step();
}

template <class T>
void MultiEngine<T>::set_target(double t) {
  if (t == target_on_device_) return;
  for (auto& p : parts_) p->clock.set(kTarget, t);
  target_on_device_ = t;
}

template <class T>
void MultiEngine<T>::step() {
  set_target(std::numeric_limits<double>::infinity());
  launch_step();
}

template <class T>
void MultiEngine<T>::step_many(long long count) {
  set_target(std::numeric_limits<double>::infinity());
  launch_steps(count);
}

template <class T>
void MultiEngine<T>::advance_to(double t_end) {
  if (!std::isfinite(t_end))
    throw Error(
        fmt::format("swe scene '{}': advance_to({}) needs a finite time", scene_.name, t_end));
  Clock c = clock();
  check_faults(c, false);  // a fault left by step() calls: no checkpoint to go back to
  if (!(t_end > c[kTime])) return;
  set_target(t_end);
  for (;;) {
    for (auto& p : parts_) p->copy_state(cur_, /*to_backup=*/true);
    // As on one device (engine.hpp). Every rank computes the same count from the same clock, so
    // all take part in the same collectives.
    const long long n = batch_steps(t_end - c[kTime], c[kCflDt], kMaxBatch);
    launch_steps(n);
    c = clock();
    check_faults(c, true);
    if (!(c[kTime] < t_end)) return;
  }
}

template <class T>
Clock MultiEngine<T>::clock() const {
  // Every subdomain keeps the same clock (the same dt each step); inflow is summed in totals().
  // Waiting for every device first makes the clock a point where all of them have finished.
  fence_all();
  Clock c;
  parts_.front()->clock.download(c.data(), kClockSize);
  return c;
}

template <class T>
std::string MultiEngine<T>::where(int part, int device) const {
  const int rank = part / per_rank_;
  return fmt::format("subdomain {} of {} (rank {} of {}, {})", part, dec_.size(), rank,
                     world_.size(), device >= 0 ? fmt::format("cuda device {}", device) : "cpu");
}

// Collective: every rank learns the earliest fault of any subdomain (its step, then the lowest
// subdomain), and every rank throws the same error, so none waits for another.
template <class T>
void MultiEngine<T>::check_faults(const Clock& c, bool restore) {
  constexpr int kFields = 5;  // step, subdomain, code, global cell, device
  const double none = std::numeric_limits<double>::infinity();
  double mine[kFields] = {none, 0, 0, -1, -1};
  for (auto& p : parts_) {
    const Fault f = p->fault.read();
    if (!f) continue;
    const double step = f.aux, id = p->sub.id;
    if (step < mine[0] || (step == mine[0] && id < mine[1])) {
      mine[0] = step;
      mine[1] = id;
      mine[2] = f.code;
      mine[3] = f.index;
      mine[4] = p->exec.is_cuda() ? p->exec.device : -1;
    }
  }
  const std::vector<double> all = world_.allgather(mine, kFields);
  const double* best = nullptr;
  for (size_t r = 0; r < all.size(); r += kFields) {
    const double* f = all.data() + r;
    if (f[0] == none) continue;
    if (!best || f[0] < best[0] || (f[0] == best[0] && f[1] < best[1])) best = f;
  }
  if (!best) return;
  const int code = int(best[2]);
  const char* what = code == kFaultNaN             ? "NaN in the state"
                     : code == kFaultNegativeDepth ? "negative depth"
                     : code == kFaultTimeStep      ? "collapsing time step"
                                                   : "unknown device fault";
  long long cell = static_cast<long long>(best[3]);
  int part = int(best[1]), device = int(best[4]);
  std::string extra;
  if (code == kFaultTimeStep) {
    // Every subdomain raises it alike: name the fastest owned cell, which sets the step.
    double fastest[4] = {-1.0, -1.0, 0.0, -1.0};  // speed, cell, subdomain, device
    for (auto& p : parts_) {
      const auto h = owned(*p, p->h[cur_]), hu = owned(*p, p->hu[cur_]),
                 hv = owned(*p, p->hv[cur_]);
      const partition::Subdomain& d = p->sub;
      for (Index j = 0; j < p->ny; ++j)
        for (Index i = 0; i < p->nx; ++i) {
          const size_t k = size_t(j) * size_t(p->nx) + size_t(i);
          const size_t g = size_t(j + d.cells.j0) * size_t(scene_.grid.nx) + size_t(i + d.cells.i0);
          if (!layout_.active[g]) continue;
          const double sp = wave_speed_k(h[k], hu[k], hv[k], scene_.gravity, scene_.dry_depth);
          if (sp > fastest[0] || (sp == fastest[0] && double(g) < fastest[1]))
            fastest[0] = sp, fastest[1] = double(g), fastest[2] = d.id,
            fastest[3] = p->exec.is_cuda() ? p->exec.device : -1;
        }
    }
    const std::vector<double> speeds = world_.allgather(fastest, 4);
    // Ties go to the lowest global cell, as one device scanning the grid in order finds it.
    for (size_t r = 0; r < speeds.size(); r += 4)
      if (speeds[r] > fastest[0] || (speeds[r] == fastest[0] && speeds[r + 1] < fastest[1]))
        std::copy(speeds.begin() + r, speeds.begin() + r + 4, fastest);
    cell = static_cast<long long>(fastest[1]);
    part = int(fastest[2]);
    device = int(fastest[3]);
    extra = fmt::format(" (CFL step {:.3g} s < min_dt = {:.3g} s; wave speed {:.6g} m/s there)",
                        scene_.cfl * scene_.grid.dx / std::max(fastest[0], 1e-300), scene_.min_dt,
                        fastest[0]);
  }
  const Index nx = scene_.grid.nx;
  const Index i = cell >= 0 ? Index(cell % nx) : -1, j = cell >= 0 ? Index(cell / nx) : -1;
  const std::string msg = fmt::format(
      "swe scene '{}': {} in cell ({}, {}) at x = {:.6g} m, y = {:.6g} m, step {}, t = {:.9g} s, "
      "in {}{}{}",
      scene_.name, what, i, j, scene_.grid.x0 + (i + 0.5) * scene_.grid.dx,
      scene_.grid.y0 + (j + 0.5) * scene_.grid.dx, static_cast<long long>(best[0]), c[kTime],
      where(part, device), extra, restore ? "; the state of the last good check is kept" : "");
  if (restore) {
    for (auto& p : parts_) p->copy_state(cur_, /*to_backup=*/false);
    update_speed();
    since_exchange_ = k_;  // halos of the restored state: exchange again
  }
  for (auto& p : parts_) p->fault.clear();
  throw SplitFault(msg);
}

template class MultiEngine<float>;
template class MultiEngine<double>;

std::unique_ptr<EngineBase> make_multi_engine(const Scene& scene, const Split& split) {
  if (scene.precision == Precision::f64) return std::make_unique<MultiEngine<double>>(scene, split);
  return std::make_unique<MultiEngine<float>>(scene, split);
}

}  // namespace silt::swe::detail
