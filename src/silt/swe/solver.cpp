#include "silt/swe/solver.hpp"

#include "silt/swe/engine.hpp"

namespace silt::swe {

// The scene is kept here (the engine refers to it) and the engine holds the state of its parts in
// the precision the scene asks for. On CUDA the engine steps with the tile kernel of fused_step.hpp
// unless SolverOptions::plain_phases; on the CPU with the plain parallel_for phases, which stay the
// tile kernel's test oracle.
struct Solver::Impl {
  Scene scene;
  Exec exec;
  std::unique_ptr<detail::EngineBase> engine;
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
}
Solver::~Solver() = default;
Solver::Solver(Solver&&) noexcept = default;
Solver& Solver::operator=(Solver&&) noexcept = default;

void Solver::advance_to(double t_end) {
  impl_->engine->advance_to(t_end, {});
}
bool Solver::advance_to(double t_end, const std::function<bool()>& stop) {
  return impl_->engine->advance_to(t_end, stop);
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
Fields Solver::fields() const {
  return impl_->engine->fields();
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
  const detail::Clock c = impl_->engine->clock();
  RestartState s;
  s.fields = impl_->engine->fields();
  s.time = c[detail::kTime];
  s.steps = static_cast<long long>(c[detail::kSteps]);
  s.inflow = impl_->engine->totals().inflow_volume;
  s.last_dt = c[detail::kLastDt];
  s.cfl_dt = c[detail::kCflDt];
  return s;
}
void Solver::restore(const RestartState& s) {
  impl_->engine->restore(s);
}
std::string Solver::layout() const {
  return impl_->engine->layout();
}

}  // namespace silt::swe
