#include "silt/swe/solver.hpp"

#include <fmt/format.h>

#include <limits>
#include <utility>

#include "silt/core/error.hpp"
#include "silt/swe/engine.hpp"
#include "silt/swe/setup.hpp"
#include "silt/swe/solver_impl.hpp"

namespace silt::swe {

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
  impl_->split = split;
  impl_->options = options;
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
bool Solver::sample_gauges(const std::vector<Index>& cells, double next, double interval) {
  const bool on = impl_->engine->sample_gauges(cells, next, interval);
  impl_->gauge_cells = on ? cells : std::vector<Index>{};
  impl_->gauge_interval = interval;
  return on;
}

std::vector<GaugeRow> Solver::take_gauge_rows() {
  std::vector<GaugeRow> rows = std::exchange(impl_->pending_rows, {});
  for (GaugeRow& r : impl_->engine->take_gauge_rows()) rows.push_back(std::move(r));
  return rows;
}

double Solver::next_gauge() const {
  return impl_->engine->next_gauge();
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
bool Solver::track_step_peaks(const StepPeaks& from) {
  impl_->track_peaks = impl_->engine->track_step_peaks(from);
  return impl_->track_peaks;
}
StepPeaks Solver::step_peaks() const {
  return impl_->engine->step_peaks();
}
CommTimes Solver::measure_communication(int repetitions) {
  return impl_->engine->measure_communication(repetitions);
}
RestartState Solver::state() const {
  const Impl& m = *impl_;
  if (m.changed_at >= 0)
    throw Error(fmt::format(
        "swe scene '{}': {} at t = {} s; a checkpoint holds the scene as given and would restart "
        "differently, so none is written after a change (restore() puts the scene back)",
        m.scene.name, m.changed, m.changed_at));
  return m.current_state();
}
RestartState Solver::Impl::current_state() const {
  const detail::Clock c = engine->clock();
  RestartState s;
  s.fields = engine->fields(arrays::all);
  s.time = c[detail::kTime];
  s.steps = static_cast<long long>(c[detail::kSteps]);
  const Totals t = engine->totals();
  s.inflow = t.net_inflow_volume;
  s.rain = t.rain_volume;
  s.flows = t.flows;
  s.last_dt = c[detail::kLastDt];
  s.cfl_dt = c[detail::kCflDt];
  return s;
}
void Solver::restore(const RestartState& s) {
  Impl& m = *impl_;
  if (m.changed_at < 0) return m.engine->restore(s);
  m.scene.boundaries = m.scene_boundaries;
  m.scene.sources = m.scene_sources;
  if (m.scene_gravity) m.scene.gravity = *std::exchange(m.scene_gravity, std::nullopt);
  if (m.scene_rainfall) m.scene.rainfall = *std::exchange(m.scene_rainfall, std::nullopt);
  if (m.scene_rain) m.scene.rain = *std::exchange(m.scene_rain, std::nullopt);
  if (m.scene_bed) m.scene.bed = *std::exchange(m.scene_bed, std::nullopt);
  m.changed.clear();
  m.changed_at = -1;
  m.rebuild(s);
}

std::string Solver::layout() const {
  return impl_->engine->layout();
}

}  // namespace silt::swe
