// The engine's construction and its step (engine_parts.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "silt/core/error.hpp"
#include "silt/swe/engine_parts.hpp"
#include "silt/swe/fused_step.hpp"
#include "silt/swe/phases.hpp"
#include "silt/swe/row_step.hpp"

namespace silt::swe::detail {

namespace {

partition::Shape to_shape(SplitShape s) {
  return s == SplitShape::strips   ? partition::Shape::strips
         : s == SplitShape::blocks ? partition::Shape::blocks
                                   : partition::Shape::automatic;
}

// The tile kernel when every exec can run it, the row step when every exec is the host. The
// second-order scheme steps by tiles (muscl_tile.hpp) in both cases: CUDA kernels, or the same
// tiles in an OpenMP loop on the host.
template <class Path>
Path step_path(const Scene& s, const Split& split, const SolverOptions& options) {
  if (options.plain_phases) return Path::plain;
  bool tile = true, host = true;
  for (const Exec& e : split.execs) {
    tile = tile && fused_step_available(e);
    host = host && !e.is_cuda();
  }
  if (s.scheme != Scheme::first_order) return tile || host ? Path::tile : Path::plain;
  return tile ? Path::tile : host ? Path::rows : Path::plain;
}

const partition::World& world_of(const Split& split) {
  return split.this_process_only ? partition::World::self() : partition::World::get();
}

// Halo layers of a split run: the second-order reconstruction reads two cells beyond an updated
// one, so a muscl stage or a MUSCL-Hancock step needs at least 2.
int halo_layers(const Scene& s, const Split& split) {
  return s.scheme != Scheme::first_order ? std::max(split.halo, 2) : split.halo;
}

partition::Decomposition decompose(const Scene& s, const Layout& layout, const Split& split,
                                   int parts) {
  if (split.execs.empty())
    throw Error(fmt::format("swe scene '{}': a run needs at least one exec", s.name));
  if (split.halo < 1)
    throw Error(fmt::format("swe scene '{}': halo width {} (must be >= 1)", s.name, split.halo));
  partition::SplitOptions o;
  o.parts = parts;
  o.halo = parts > 1 ? halo_layers(s, split) : 1;  // one part: the whole grid, whatever its size
  o.shape = to_shape(split.shape);
  try {
    return partition::split(s.grid.nx, s.grid.ny, layout.active, o);
  } catch (const Error& e) {
    throw Error(fmt::format("swe scene '{}': {}", s.name, e.what()));
  }
}

}  // namespace

template <class T>
Engine<T>::Engine(const Scene& s, const Split& split, const SolverOptions& options)
    : scene_(s),
      layout_(prepare(s)),
      world_(world_of(split)),
      per_rank_(int(split.execs.size())),
      muscl_(s.scheme != Scheme::first_order),
      hancock_(s.scheme == Scheme::muscl_hancock),
      k_(halo_layers(s, split)),
      has_discharge_(!layout_.discharge_cells.empty()),
      has_rating_(!layout_.rating_cells.empty()),
      path_(step_path<Path>(s, split, options)),
      hazard_pass_(options.hazard_pass) {
  dec_ = decompose(s, layout_, split, per_rank_ * world_.size());
  make_parts(split, options);
  exchange_ = std::make_unique<Exchange<T>>(parts_, dec_, world_, per_rank_, k_);
  if (path_ == Path::tile && !muscl_ && dec_.size() == 1) make_tile_list();  // first order
  update_speed();
  // Cells wet at the start were first wet at t = 0 (restore() replaces the fields of a restart).
  if (scene_.hazard.accumulates())
    for (auto& p : parts_) {
      activate(p->exec);
      phase_hazard_start(p->exec, p->hazard_view(cur_), 0.0);
    }
}

template <class T>
Engine<T>::~Engine() {
  // Streams go before the parts' buffers: wait for what they still run.
  try {
    fence_all();
  } catch (...) {
  }
}

// Every CUDA part computes on a stream of its own (a split run copies its halos on others,
// part_exchange.hpp), never on the exec's legacy default stream: that stream is one per device for
// the whole process, so solvers driven by other host threads (an ensemble's members in flight,
// run/member_pool.cpp) would queue their steps behind each other's, and each of their waits (a
// clock read, a sum) would wait for all of them. One part has a ring of one inactive cell beyond
// the grid's edge; several, a ring of k layers.
template <class T>
void Engine<T>::make_parts(const Split& split, const SolverOptions& options) {
  const bool several = dec_.size() > 1;
  if (options.stream != nullptr && (several || !split.execs.front().is_cuda()))
    throw Error(
        fmt::format("swe scene '{}': SolverOptions::stream is for a CUDA run of one part "
                    "(this run: {} part(s) on {})",
                    scene_.name, dec_.size(), to_string(split.execs.front().backend)));
  std::vector<int> devices;
  for (const Exec& e : split.execs)
    if (e.is_cuda() && std::find(devices.begin(), devices.end(), e.device) == devices.end())
      devices.push_back(e.device);
  if (devices.size() > 1) enable_peer_access(devices);
  for (int k = 0; k < per_rank_; ++k) {
    if (options.stream != nullptr) {
      Exec e = split.execs[size_t(k)];
      e.stream = options.stream;
      compute_.push_back(Stream::borrowed(e));  // the caller's
    } else {
      compute_.emplace_back(split.execs[size_t(k)]);  // the host exec itself on the CPU
    }
    const Exec ce = compute_.back().exec();
    const int id = world_.rank() * per_rank_ + k;
    parts_.push_back(
        std::make_unique<Part<T>>(scene_, layout_, dec_.parts[size_t(id)], several ? k_ : 1, ce));
  }
}

// The tiles of the whole grid that hold an active cell, listed once (a changed mask, set_bed or a
// rebuilt scene, builds a new engine): tiles of nodata only are never launched.
template <class T>
void Engine<T>::make_tile_list() {
  Part<T>& p = *parts_.front();
  const Box2 box{0, p.nx, 0, p.ny};
  const Index nx = scene_.grid.nx;
  const std::vector<std::uint32_t> list = active_tiles<T>(box, [&](Index i, Index j) {
    return layout_.active[size_t(j) * size_t(nx) + size_t(i)] != 0;
  });
  p.all_tiles =
      ((p.nx + tile_cols() - 1) / tile_cols()) * ((p.ny + tile_rows<T>() - 1) / tile_rows<T>());
  if (list.empty()) return;  // a grid too large for the list (or without an active cell): all
  p.tiles = DeviceBuffer<std::uint32_t>(p.exec, Index(list.size()), "swe.active_tiles");
  p.tiles.upload(list);
  p.tile_list = TileList{p.tiles.data(), unsigned(list.size()), box};
}

template <class T>
Box2 Engine<T>::grown(const Part<T>& p, Index r) const {
  const partition::Subdomain& d = p.sub;
  return Box2{d.shared(-1, 0) ? -r : 0, p.nx + (d.shared(1, 0) ? r : 0), d.shared(0, -1) ? -r : 0,
              p.ny + (d.shared(0, 1) ? r : 0)};
}

template <class T>
void Engine<T>::fence_all() const {
  for (const auto& p : parts_) fence(p->exec);
  exchange_->fence_lanes();
}

// One step of every part: no host synchronisation unless MPI is involved.
template <class T>
void Engine<T>::launch_step() {
  clock_known_ = false;
  if (hancock_) {
    launch_hancock_step();
    return;
  }
  if (muscl_) {
    launch_muscl_step();
    return;
  }
  const bool refreshing = exchange_->begin_if_due(cur_);  // the halos, while the interior updates
  exchange_->agree_on_dt();
  advance_clocks();
  // Ghost cell expansion: the step updates r halo layers, still valid after it.
  const Index r = exchange_->use_layer();
  if (refreshing)
    update_overlapping_exchange(r);
  else
    update_all(r, path_ == Path::tile ? "swe.fused_update" : "swe.update");
  end_step();
}

template <class T>
void Engine<T>::end_step() {
  finish_parts();
  accumulate_sections();
  accumulate_mask_edges();
  accumulate_hazard();
  sample_gauges_on_device();
  accumulate_step_peaks();
  cur_ = 1 - cur_;
}

// This step's dt on every part; one part counts its discharge segments' wet cells (before the
// clock, which needs them) and sums its rating segments' conveyances itself.
template <class T>
void Engine<T>::advance_clocks() {
  for (auto& p : parts_) {
    activate(p->exec);
    const SolverView<T> v = p->view(cur_, 1 - cur_);
    if (coupled()) phase_unpack_speed(*p);
    // The wet cells over which each discharge spreads this step: the clock bounds the step by the
    // speed of the inflow they take.
    if (has_discharge_) {
      if (coupled())
        phase_unpack_wet(*p);
      else
        phase_wet_count(p->exec, v);
    }
    phase_clock(p->exec, v);  // dt from the last CFL reduction and the forcing's speed
    if (has_rating_) phase_rating_conveyance(*p, cur_, coupled());
  }
}

template <class T>
void Engine<T>::update_all(Index r, const char* label) {
  for (auto& p : parts_) {
    activate(p->exec);
    update(*p, grown(*p, r), label);
  }
}

// Interior cells first (their stencil stays in the owned cells) while the halos travel, then the
// rest of each grown box: south and north strips, then west and east.
template <class T>
void Engine<T>::update_overlapping_exchange(Index r) {
  std::vector<Box2> inner;
  for (auto& p : parts_) {
    const partition::Subdomain& d = p->sub;
    inner.push_back(Box2{d.shared(-1, 0) ? 1 : 0, p->nx - (d.shared(1, 0) ? 1 : 0),
                         d.shared(0, -1) ? 1 : 0, p->ny - (d.shared(0, 1) ? 1 : 0)});
    activate(p->exec);
    update(*p, inner.back(), "swe.update.interior");
  }
  exchange_->finish();
  for (size_t k = 0; k < parts_.size(); ++k) {
    Part<T>& p = *parts_[k];
    const Box2 b = grown(p, r), in = inner[k];
    activate(p.exec);
    if (in.count() == 0) {
      update(p, b, "swe.update.edges");
      continue;
    }
    update(p, Box2{b.i0, b.i1, b.j0, in.j0}, "swe.update.edges");
    update(p, Box2{b.i0, b.i1, in.j1, b.j1}, "swe.update.edges");
    update(p, Box2{b.i0, in.i0, in.j0, in.j1}, "swe.update.edges");
    update(p, Box2{in.i1, b.i1, in.j0, in.j1}, "swe.update.edges");
  }
}

// Fluxes, update, rain and friction over box (the tile kernel and the row step: all of
// finish_parts()'s plain phases too, over the same box).
template <class T>
void Engine<T>::update(Part<T>& p, Box2 box, const char* label) {
  if (box.count() == 0) return;
  if (path_ == Path::tile)
    phase_fused_update(p.exec, tile_view(p), box, label, p.tile_list);
  else if (path_ == Path::rows)
    phase_row_update(p.view(cur_, 1 - cur_), box, p.rows);
  else
    phase_update_box(p.exec, p.view(cur_, 1 - cur_), box, label);
}

// The view of p's first-order tile update: with the hazard fields where the kernel accumulates
// them (hazard_in_tiles()).
template <class T>
SolverView<T> Engine<T>::tile_view(const Part<T>& p) const {
  SolverView<T> v = p.view(cur_, 1 - cur_);
  if (hazard_in_tiles()) v.hazard = p.hazard_fold();
  return v;
}

// The plain phases after the update (the tile kernel or the row step did them), then, with
// several parts, the values of the next step's reduction.
template <class T>
void Engine<T>::finish_parts() {
  if (one_pass() && !coupled()) return;  // one part in one pass: nothing left
  for (auto& p : parts_) {
    activate(p->exec);
    const SolverView<T> v = p->view(cur_, 1 - cur_);
    if (!one_pass()) {
      if (v.n_flow_cells > 0) phase_boundary_flow(p->exec, v);  // volume through open boundaries
      if (v.n_sources > 0) phase_sources(p->exec, v);
      phase_cfl_step(p->exec, v);  // after a no-op step, *smax still holds the global speed
    }
    if (coupled()) phase_step_scalars(*p, 1 - cur_);
  }
}

// The volume through each cross-section edge this step (sections.hpp), from the fluxes the update
// took, on the part that owns the edge: the first order's of the state the step started from; the
// second order's (second_order) the mean of its two stages', of U^n and of U* (buffer 2), as
// finish_muscl_parts counts the boundaries' volumes; MUSCL-Hancock's its one step's, between the
// predicted face states of U^n.
template <class T>
void Engine<T>::accumulate_sections(bool second_order) {
  if (layout_.sections.edges.empty()) return;
  for (auto& p : parts_) {
    activate(p->exec);
    SectionFlowView<T> v = p->section_view(cur_);
    if (hancock_) {
      phase_hancock_section_flow(p->exec, v, p->view(cur_, 1 - cur_));
      continue;
    }
    if (!second_order) {
      phase_section_flow(p->exec, v);
      continue;
    }
    phase_section_flow(p->exec, v, 0.5, true);
    v.e = p->edge_view(2);
    phase_section_flow(p->exec, v, 0.5, true);
  }
}

// The volume through the boundary lines' mask edges this step (edges beside inactive cells inside
// the grid, which the tile kernel and the row step do not count inline), from the fluxes of the
// state the step started from, on the part that owns the edge's cell.
template <class T>
void Engine<T>::accumulate_mask_edges() {
  if (layout_.mask_cells.empty()) return;
  for (auto& p : parts_) {
    activate(p->exec);
    phase_boundary_flow(p->exec, p->view(cur_, 1 - cur_), 1.0, Scheme::first_order,
                        /*mask=*/true);
  }
}

// Hazard maxima, first wetting and wet time of the state this step left, on each part's owned
// cells (hazard.hpp); nothing when the scene asks for no hazard outputs, or when the tile kernel
// accumulated them in its update (hazard_in_tiles(): the first order's float64 tile path).
template <class T>
void Engine<T>::accumulate_hazard() {
  if (!scene_.hazard.accumulates() || hazard_in_tiles()) return;
  for (auto& p : parts_) {
    activate(p->exec);
    phase_hazard(p->exec, p->hazard_view(1 - cur_));
  }
}

template <class T>
void Engine<T>::update_speed() {
  for (auto& p : parts_) {
    activate(p->exec);
    p->smax.set(0, T(0));
    phase_cfl(p->exec, p->view(cur_, cur_));
    if (coupled()) phase_step_scalars(*p, cur_);
  }
}

template <class T>
void Engine<T>::set_target(double t, double after) {
  // Only the slots that moved (each a small synchronous copy): between gauge samples only `after`.
  for (auto& p : parts_) {
    if (t != target_on_device_) p->clock.set(kTarget, t);
    if (after != stop_after_on_device_) p->clock.set(kStopAfter, after);
  }
  target_on_device_ = t;
  stop_after_on_device_ = after;
  clock_seen_[kTarget] = t;
  clock_seen_[kStopAfter] = after;
}

template <class T>
void Engine<T>::step() {
  step_many(1);
}

template <class T>
void Engine<T>::step_many(long long count) {
  queue_steps(count);
  for (long long k = 0; k < count; ++k) {
    before_queued_step();
    launch_step();
    after_queued_step(k);
  }
}

template <class T>
void Engine<T>::queue_steps(long long count) {
  const double inf = std::numeric_limits<double>::infinity();
  set_target(inf, inf);
  faults_unread_ = faults_unread_ || count > 0;
}

template <class T>
void Engine<T>::before_queued_step() {
  // Rain rasters: the bracket of each step's start (a wait for the device per step; steps
  // queued this way are for tests and benchmarks, runs go through advance_to).
  if (!scene_.rain.empty()) select_rain(clock()[kTime]);
}

template <class T>
void Engine<T>::after_queued_step(long long k) {
  // Device gauges hold one batch of rows: read them before the next batch could overflow.
  if (gauges_.on && (k + 1) % kMaxBatch == 0) read_gauge_rows(clock());
}

template <class T>
double Engine<T>::select_rain(double t) {
  double end = std::numeric_limits<double>::infinity();
  for (auto& p : parts_) {
    activate(p->exec);
    end = p->forcing.select(t);
  }
  return end;
}

// With rain rasters the run stops at every frame time on the way (as at an output time), so each
// step lies within one bracket of frames and the device blends the two it holds.
template <class T>
bool Engine<T>::advance_to(double t_end, const std::function<bool()>& stop, double after) {
  if (!std::isfinite(t_end))
    throw Error(
        fmt::format("swe scene '{}': advance_to({}) needs a finite time", scene_.name, t_end));
  if (scene_.rain.empty()) return advance_within(t_end, stop, after);
  for (;;) {
    const double t = clock()[kTime];
    const double until = std::min(t_end, select_rain(t));
    if (!advance_within(until, stop, after)) return false;
    if (!(until < t_end) || !(clock()[kTime] < after)) return true;
  }
}

// Steps land exactly on t_end; with `after` < t_end they end at the first step end at or past it
// (not shortened for it: the steps the run would take anyway).
template <class T>
bool Engine<T>::advance_within(double t_end, const std::function<bool()>& stop, double after) {
  Clock c;
  if (!within_begin(t_end, after, c)) return true;
  const double end = std::min(t_end, after);
  for (;;) {
    within_backup();
    // Every rank computes the same count from the same clock, so all take part in the same
    // collectives.
    const long long n = batch_steps(end - c[kTime], c[kCflDt], kMaxBatch);
    for (long long k = 0; k < n; ++k) launch_step();
    c = within_check();
    if (!(c[kTime] < end)) return true;
    if (stop && stop()) return false;
  }
}

template <class T>
bool Engine<T>::within_begin(double t_end, double after, Clock& c) {
  c = clock();
  // A fault left by step() calls: no checkpoint to go back to (a batch of advance_within reads its
  // own faults, so after one nothing is left to read).
  if (faults_unread_) check_faults(c, false);
  read_gauge_rows(c);  // rows of step() calls
  const double end = std::min(t_end, after);
  if (!(end > c[kTime])) return false;
  set_target(t_end, after);
  return true;
}

template <class T>
void Engine<T>::within_backup() {
  for (auto& p : parts_) {
    activate(p->exec);  // launches go to the current device (fault reads move it)
    p->copy_state(cur_, /*to_backup=*/true);
  }
}

template <class T>
Clock Engine<T>::within_check() {
  const Clock c = clock();
  check_faults(c, true);
  read_gauge_rows(c);
  return c;
}

template <class T>
Clock Engine<T>::clock() const {
  // Every part keeps the same clock (the same dt each step); inflow is summed in totals(). With
  // several parts, waiting for every device first makes the clock a point where all of them have
  // finished; one part's download waits for its device.
  if (clock_known_) return clock_seen_;
  if (coupled()) fence_all();
  Clock c;
  parts_.front()->clock.download(c.data(), kClockSize);
  clock_seen_ = c;
  clock_known_ = true;
  return c;
}

template class Engine<float>;
template class Engine<double>;

std::unique_ptr<EngineBase> make_engine(const Scene& scene, const Split& split,
                                        const SolverOptions& options) {
  if (scene.precision == Precision::f64)
    return std::make_unique<Engine<double>>(scene, split, options);
  return std::make_unique<Engine<float>>(scene, split, options);
}

}  // namespace silt::swe::detail
