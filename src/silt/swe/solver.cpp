#include "silt/swe/solver.hpp"

#include <fmt/format.h>

#include <limits>

#include "silt/core/error.hpp"
#include "silt/swe/engine.hpp"
#include "silt/swe/setup.hpp"

namespace silt::swe {

// The scene is kept here (the engine refers to it) and the engine holds the state of its parts in
// the precision the scene asks for. On CUDA the engine steps with the tile kernel of fused_step.hpp
// unless SolverOptions::plain_phases; on the CPU with the plain parallel_for phases, which stay the
// tile kernel's test oracle.
struct Solver::Impl {
  Scene scene;
  Exec exec;
  std::unique_ptr<detail::EngineBase> engine;
  // The scene's boundaries and sources as given, and the time of the last set_series() (< 0:
  // none since the start or the last restore): a checkpoint would restart with the scene's.
  std::vector<Boundary> scene_boundaries;
  std::vector<PointSource> scene_sources;
  double series_set_at = -1;
};

namespace {
Split whole_grid_on(const Exec& exec) {
  Split s;
  s.execs = {exec};
  s.this_process_only = true;
  return s;
}
}  // namespace

Solver::Solver(const Scene& scene, const Exec& exec, const SolverOptions& options)
    : Solver(scene, whole_grid_on(exec), options) {}
Solver::Solver(const Scene& scene, const Split& split, const SolverOptions& options)
    : impl_(std::make_unique<Impl>()) {
  impl_->scene = scene;
  impl_->exec = split.execs.empty() ? Exec::host() : split.execs.front();
  impl_->engine = detail::make_engine(impl_->scene, split, options);
  impl_->scene_boundaries = scene.boundaries;
  impl_->scene_sources = scene.sources;
}
Solver::~Solver() = default;
Solver::Solver(Solver&&) noexcept = default;
Solver& Solver::operator=(Solver&&) noexcept = default;

void Solver::advance_to(double t_end) {
  impl_->engine->advance_to(t_end, {}, std::numeric_limits<double>::infinity());
}
bool Solver::advance_to(double t_end, const std::function<bool()>& stop) {
  return impl_->engine->advance_to(t_end, stop, std::numeric_limits<double>::infinity());
}
bool Solver::advance_to(double t_end, const std::function<bool()>& stop, double after) {
  return impl_->engine->advance_to(t_end, stop, after);
}
void Solver::step() {
  impl_->engine->step();
}
void Solver::step(long long count) {
  impl_->engine->step_many(count);
}
double Solver::time() const {
  return impl_->engine->clock()[detail::kTime];
}
long long Solver::steps() const {
  return static_cast<long long>(impl_->engine->clock()[detail::kSteps]);
}
double Solver::last_dt() const {
  return impl_->engine->clock()[detail::kLastDt];
}
const Scene& Solver::scene() const {
  return impl_->scene;
}
const Exec& Solver::exec() const {
  return impl_->exec;
}
Fields Solver::fields(unsigned arrays) const {
  return impl_->engine->fields(arrays);
}
FieldsCopy Solver::fields_async(unsigned arrays) const {
  return impl_->engine->fields_async(arrays);
}
std::vector<Probe> Solver::probe(const std::vector<Index>& cells) const {
  return impl_->engine->probe(cells);
}
Totals Solver::totals() const {
  return impl_->engine->totals();
}
CommTimes Solver::measure_communication(int repetitions) {
  return impl_->engine->measure_communication(repetitions);
}
RestartState Solver::state() const {
  if (impl_->series_set_at >= 0)
    throw Error(fmt::format(
        "swe scene '{}': a series was replaced at t = {} s; a checkpoint holds the scene's "
        "series and would restart differently, so none is written after set_series",
        impl_->scene.name, impl_->series_set_at));
  const detail::Clock c = impl_->engine->clock();
  RestartState s;
  s.fields = impl_->engine->fields(arrays::all);
  s.time = c[detail::kTime];
  s.steps = static_cast<long long>(c[detail::kSteps]);
  const Totals t = impl_->engine->totals();
  s.inflow = t.net_inflow_volume;
  s.rain = t.rain_volume;
  s.flows = t.flows;
  s.last_dt = c[detail::kLastDt];
  s.cfl_dt = c[detail::kCflDt];
  return s;
}
void Solver::restore(const RestartState& s) {
  Impl& m = *impl_;
  if (m.series_set_at >= 0) {
    m.scene.boundaries = m.scene_boundaries;
    m.scene.sources = m.scene_sources;
    m.engine->set_series(detail::prepare(m.scene));
    m.series_set_at = -1;
  }
  m.engine->restore(s);
}

void Solver::set_series(const std::string& name, const Series& series) {
  Impl& m = *impl_;
  Scene& sc = m.scene;
  std::vector<Series*> targets;
  for (Boundary& b : sc.boundaries)
    if (b.name == name) {
      if (!boundary_has_series(b.kind))
        throw Error(
            fmt::format("swe scene '{}': set_series: boundary '{}' is a {} boundary, "
                        "which has no series (discharge and level boundaries have one)",
                        sc.name, name, boundary_kind_name(b.kind)));
      targets.push_back(&b.series);
    }
  for (PointSource& p : sc.sources)
    if (p.name == name) targets.push_back(&p.discharge);
  if (targets.size() != 1) {
    std::string names;
    for (const Boundary& b : sc.boundaries)
      if (boundary_has_series(b.kind)) names += (names.empty() ? "'" : ", '") + b.name + "'";
    for (const PointSource& p : sc.sources) names += (names.empty() ? "'" : ", '") + p.name + "'";
    if (names.empty()) names = "none";
    if (targets.empty())
      throw Error(fmt::format(
          "swe scene '{}': set_series: no boundary or source is named '{}' (series: {})", sc.name,
          name, names));
    throw Error(
        fmt::format("swe scene '{}': set_series: '{}' names several boundaries or sources ({})",
                    sc.name, name, names));
  }
  // The scene's own checks (times increasing, finite samples) on the scene with the new series;
  // the tables then hold it in the place of the old, every other index unchanged.
  Series old = std::move(*targets.front());
  *targets.front() = series;
  detail::Layout l;
  try {
    if (series.empty())
      throw Error(fmt::format("swe scene '{}': set_series: '{}': the series has no samples",
                              sc.name, name));
    l = detail::prepare(sc);
  } catch (...) {
    *targets.front() = std::move(old);
    throw;
  }
  m.engine->set_series(l);
  m.series_set_at = time();
}
std::string Solver::layout() const {
  return impl_->engine->layout();
}

}  // namespace silt::swe
