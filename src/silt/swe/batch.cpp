// swe::Batch (batch.hpp): the members' engines stepped in lock step through their batch hooks
// (engine_parts.hpp), with one launch of the tile kernel for all of them on CUDA.
#include "silt/swe/batch.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "silt/core/error.hpp"
#include "silt/swe/batch_phases.hpp"
#include "silt/swe/engine_parts.hpp"
#include "silt/swe/fused_step.hpp"
#include "silt/swe/solver_impl.hpp"

namespace silt::swe {

namespace {

using detail::Clock;
using detail::Engine;
using detail::SolverView;

constexpr double kInf = std::numeric_limits<double>::infinity();

const char* precision_name(Precision p) {
  return p == Precision::f64 ? "float64" : "float32";
}

// The TileFeature bits as words, for a refusal.
std::string feature_names(unsigned f) {
  std::string s;
  const auto add = [&](unsigned bit, const char* name) {
    if (!(f & bit)) return;
    s += s.empty() ? "" : ", ";
    s += name;
  };
  add(detail::kTileForcing, "rain rasters or infiltration");
  add(detail::kTileFlowEdges, "flow boundaries");
  add(detail::kTileSources, "point sources");
  add(detail::kTileHazard, "hazard outputs");
  return s.empty() ? "none" : s;
}

// The members' engines of one precision, and how they step.
template <class T>
struct Lockstep {
  std::vector<Engine<T>*> engines;
  std::vector<const Solver*> solvers;
  bool tiles = false;
  std::vector<SolverView<T>> views;  // one step's, reused

  std::string who(size_t k) const {
    return fmt::format("swe batch: member {} ('{}')", k, solvers[k]->scene().name);
  }

  // One step of the members `on` (indices): one launch of their clocks, one of the tile kernel,
  // the rest of their steps; or each member's whole step in turn.
  void step(const std::vector<size_t>& on) {
    if (!tiles) {
      for (size_t k : on) engines[k]->batch_step();
      return;
    }
    views.clear();
    for (size_t k : on) views.push_back(engines[k]->batch_view());
    const Engine<T>& first = *engines[on.front()];
    for (size_t k : on) engines[k]->batch_clock_before();
    detail::phase_clock_batch(first.batch_exec(), views);
    for (size_t k : on) engines[k]->batch_clock_after();
    detail::phase_fused_update_batch(first.batch_exec(), views, first.batch_box(),
                                     "swe.fused_update.batch", first.batch_tiles());
    for (size_t k : on) engines[k]->batch_step_tail();
  }

  void step_many(long long count) {
    std::vector<size_t> all(engines.size());
    for (size_t k = 0; k < all.size(); ++k) all[k] = k;
    for (Engine<T>* e : engines) e->queue_steps(count);
    for (long long s = 0; s < count; ++s) {
      for (Engine<T>* e : engines) e->before_queued_step();
      step(all);
      for (Engine<T>* e : engines) e->after_queued_step(s);
    }
  }

  // Engine::advance_within for the members `on`, member k to until[k]: batches of steps queued
  // for every member still short of its target, as many as the member furthest from its own asks
  // (the others' overshoot is no-op steps), then every member's clock, faults and gauge rows.
  bool within(const std::vector<size_t>& on, const std::vector<double>& until,
              const std::function<bool()>& stop) {
    std::vector<Clock> c(engines.size());
    std::vector<size_t> active;
    for (size_t k : on)
      if (engines[k]->within_begin(until[k], kInf, c[k])) active.push_back(k);
    while (!active.empty()) {
      long long n = 1;
      for (size_t k : active) {
        engines[k]->within_backup();
        n = std::max(n, detail::batch_steps(until[k] - c[k][detail::kTime], c[k][detail::kCflDt],
                                            detail::kMaxBatch));
      }
      for (long long s = 0; s < n; ++s) step(active);
      // Every member's check, then the first fault (each faulting member back at its backup).
      std::string fault;
      for (size_t k : active) {
        try {
          c[k] = engines[k]->within_check();
        } catch (const Error& e) {
          if (fault.empty()) fault = fmt::format("{}: {}", who(k), e.what());
        }
      }
      if (!fault.empty()) throw Error(fault);
      std::vector<size_t> left;
      for (size_t k : active)
        if (c[k][detail::kTime] < until[k]) left.push_back(k);
      active = std::move(left);
      if (!active.empty() && stop && stop()) return false;
    }
    return true;
  }

  // within() with each member's own `after`, stop and faults (advance_each): a member that
  // reaches min(until[k], after), is stopped or faults leaves `on`; the others go on.
  void within_each(const std::vector<size_t>& on, const std::vector<double>& until,
                   const std::vector<Batch::Leg>& legs, std::vector<Batch::LegEnd>& ends) {
    std::vector<Clock> c(engines.size());
    std::vector<size_t> active;
    const auto end = [&](size_t k) {
      return std::min(until[k], legs[k].after);
    };
    for (size_t k : on) {
      try {
        if (engines[k]->within_begin(until[k], legs[k].after, c[k])) active.push_back(k);
      } catch (...) {
        ends[k].fault = std::current_exception();
      }
    }
    while (!active.empty()) {
      long long n = 1;
      for (size_t k : active) {
        engines[k]->within_backup();
        n = std::max(n, detail::batch_steps(end(k) - c[k][detail::kTime], c[k][detail::kCflDt],
                                            detail::kMaxBatch));
      }
      for (long long s = 0; s < n; ++s) step(active);
      std::vector<size_t> left;
      for (size_t k : active) {
        try {
          c[k] = engines[k]->within_check();
        } catch (...) {
          ends[k].fault = std::current_exception();  // back at its backup, as alone
          continue;
        }
        if (!(c[k][detail::kTime] < end(k))) continue;
        if (legs[k].stop && legs[k].stop()) {
          ends[k].stopped = true;
          continue;
        }
        left.push_back(k);
      }
      active = std::move(left);
    }
  }

  // Engine::advance_to for member k to legs[k] (with rain rasters through its rain brackets).
  void advance_each(const std::vector<Batch::Leg>& legs, std::vector<Batch::LegEnd>& ends) {
    const size_t n = engines.size();
    std::vector<double> until(n);
    std::vector<size_t> on(n);
    for (size_t k = 0; k < n; ++k) on[k] = k;
    while (!on.empty()) {
      for (size_t k : on)
        until[k] = solvers[k]->scene().rain.empty()
                       ? legs[k].t_end
                       : std::min(legs[k].t_end,
                                  engines[k]->rain_bracket(engines[k]->clock()[detail::kTime]));
      within_each(on, until, legs, ends);
      std::vector<size_t> left;
      for (size_t k : on) {
        if (ends[k].fault || ends[k].stopped) continue;
        if (until[k] < legs[k].t_end && engines[k]->clock()[detail::kTime] < legs[k].after)
          left.push_back(k);
        else
          ends[k].reached = true;
      }
      on = std::move(left);
    }
  }

  // Engine::advance_to for every member: with rain rasters each member stops at the end of each
  // of its rain brackets on the way (its own frames' times), as it does alone.
  bool advance_to(double t_end, const std::function<bool()>& stop) {
    const size_t n = engines.size();
    std::vector<double> until(n, t_end);
    std::vector<size_t> on(n);
    for (size_t k = 0; k < n; ++k) on[k] = k;
    while (!on.empty()) {
      for (size_t k : on)
        if (!solvers[k]->scene().rain.empty())
          until[k] = std::min(t_end, engines[k]->rain_bracket(engines[k]->clock()[detail::kTime]));
      if (!within(on, until, stop)) return false;
      std::vector<size_t> left;
      for (size_t k : on)
        if (until[k] < t_end) left.push_back(k);
      on = std::move(left);
    }
    return true;
  }
};

}  // namespace

struct Batch::Impl {
  std::vector<Solver*> members;
  // The engines checked last (a member's scene change builds it a new engine: checked again).
  std::vector<const detail::EngineBase*> checked;
  Lockstep<float> f32;
  Lockstep<double> f64;

  detail::EngineBase* engine(size_t k) const { return members[k]->impl_->engine.get(); }
  void check();
  template <class T>
  void check_as(Lockstep<T>& l);
};

template <class T>
void Batch::Impl::check_as(Lockstep<T>& l) {
  const size_t n = members.size();
  l.engines.assign(n, nullptr);
  l.solvers.assign(members.begin(), members.end());
  for (size_t k = 0; k < n; ++k) {
    l.engines[k] = dynamic_cast<Engine<T>*>(engine(k));
    if (!l.engines[k]) throw Error(fmt::format("{}: not an engine of its precision", l.who(k)));
  }
  const Engine<T>& e0 = *l.engines[0];
  const std::string refusal0 = e0.batch_refusal();
  const SolverView<T> v0 = e0.batch_view();
  const unsigned features0 = detail::tile_features(v0);
  for (size_t k = 1; k < n; ++k) {
    const Engine<T>& e = *l.engines[k];
    const std::string refusal = e.batch_refusal();
    if (refusal.empty() != refusal0.empty())
      throw Error(fmt::format(
          "{} {} the tile kernel with the others and member 0 {}: a batch's members step alike",
          l.who(k), refusal.empty() ? "can share" : "cannot share (" + refusal + ")",
          refusal0.empty() ? "can" : "cannot (" + refusal0 + ")"));
    const unsigned features = detail::tile_features(e.batch_view());
    if (features != features0)
      throw Error(fmt::format(
          "{}: its tile kernel's features are {} and member 0's {}: a batch's members share one "
          "instantiation of the tile kernel",
          l.who(k), feature_names(features), feature_names(features0)));
    if (e.batch_active() != e0.batch_active())
      throw Error(fmt::format(
          "{}: its active cells differ from member 0's: a batch's members share the tile list",
          l.who(k)));
    const Exec& x = e.batch_exec();
    const Exec& x0 = e0.batch_exec();
    if (x.backend != x0.backend ||
        (x.is_cuda() && (x.device != x0.device || x.stream != x0.stream)))
      throw Error(fmt::format(
          "{}: it steps on {} device {} and member 0 on {} device {}, or on another stream: a "
          "batch's members share one device and one stream (SolverOptions::stream)",
          l.who(k), to_string(x.backend), x.device, to_string(x0.backend), x0.device));
  }
  l.tiles = refusal0.empty();
}

void Batch::Impl::check() {
  if (members.empty()) throw Error("swe batch: no members");
  std::vector<const detail::EngineBase*> now(members.size());
  for (size_t k = 0; k < members.size(); ++k) now[k] = engine(k);
  if (now == checked) return;
  const Scene& s0 = members[0]->scene();
  for (size_t k = 1; k < members.size(); ++k) {
    const Scene& s = members[k]->scene();
    const std::string who = fmt::format("swe batch: member {} ('{}')", k, s.name);
    if (s.precision != s0.precision)
      throw Error(
          fmt::format("{} is {} and member 0 ('{}') {}: a batch's members share the "
                      "precision",
                      who, precision_name(s.precision), s0.name, precision_name(s0.precision)));
    if (s.grid.nx != s0.grid.nx || s.grid.ny != s0.grid.ny)
      throw Error(
          fmt::format("{} has a {} x {} grid and member 0 ('{}') {} x {}: a batch's "
                      "members share the grid's size",
                      who, s.grid.nx, s.grid.ny, s0.name, s0.grid.nx, s0.grid.ny));
  }
  checked.clear();
  if (s0.precision == Precision::f64)
    check_as(f64);
  else
    check_as(f32);
  checked = std::move(now);
}

Batch::Batch(std::vector<std::reference_wrapper<Solver>> members)
    : impl_(std::make_unique<Impl>()) {
  for (Solver& s : members) impl_->members.push_back(&s);
  impl_->check();
}
Batch::~Batch() = default;
Batch::Batch(Batch&&) noexcept = default;
Batch& Batch::operator=(Batch&&) noexcept = default;

int Batch::size() const {
  return int(impl_->members.size());
}

bool Batch::batched() const {
  impl_->check();
  return impl_->members[0]->scene().precision == Precision::f64 ? impl_->f64.tiles
                                                                : impl_->f32.tiles;
}

void Batch::step_many(long long count) {
  impl_->check();
  if (impl_->members[0]->scene().precision == Precision::f64)
    impl_->f64.step_many(count);
  else
    impl_->f32.step_many(count);
}

bool Batch::advance_to(double t_end, const std::function<bool()>& stop) {
  if (!std::isfinite(t_end))
    throw Error(fmt::format("swe batch: advance_to({}) needs a finite time", t_end));
  impl_->check();
  return impl_->members[0]->scene().precision == Precision::f64
             ? impl_->f64.advance_to(t_end, stop)
             : impl_->f32.advance_to(t_end, stop);
}

std::vector<Batch::LegEnd> Batch::advance_each(const std::vector<Leg>& legs) {
  if (legs.size() != impl_->members.size())
    throw Error(fmt::format("swe batch: advance_each with {} legs for {} members", legs.size(),
                            impl_->members.size()));
  for (const Leg& l : legs)
    if (!std::isfinite(l.t_end))
      throw Error(fmt::format("swe batch: advance_each to {} needs a finite time", l.t_end));
  impl_->check();
  std::vector<LegEnd> ends(legs.size());
  if (impl_->members[0]->scene().precision == Precision::f64)
    impl_->f64.advance_each(legs, ends);
  else
    impl_->f32.advance_each(legs, ends);
  return ends;
}

std::string Batch::refusal() const {
  if (batched()) return {};
  return impl_->members[0]->scene().precision == Precision::f64
             ? impl_->f64.engines[0]->batch_refusal()
             : impl_->f32.engines[0]->batch_refusal();
}

}  // namespace silt::swe
