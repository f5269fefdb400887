#include "silt/swe/solver.hpp"

#include "silt/swe/engine.hpp"

namespace silt::swe {

// The scene is kept here (the engine refers to it) and the engine holds the state in the
// precision the scene asks for. On CUDA with scene.fused_kernel the engine steps with the tile
// kernel of fused_step.hpp; otherwise (and on the CPU) with the plain parallel_for phases, which
// stay its test oracle.
struct Solver::Impl {
  Scene scene;
  Exec exec;
  std::unique_ptr<detail::EngineBase> engine;
};

Solver::Solver(const Scene& scene, const Exec& exec) : impl_(std::make_unique<Impl>()) {
  impl_->scene = scene;
  impl_->exec = exec;
  impl_->engine = detail::make_engine(impl_->scene, impl_->exec);
}
Solver::Solver(const Scene& scene, const Split& split) : impl_(std::make_unique<Impl>()) {
  impl_->scene = scene;
  impl_->exec = split.execs.empty() ? Exec::host() : split.execs.front();
  impl_->engine = detail::make_multi_engine(impl_->scene, split);
}
Solver::~Solver() = default;
Solver::Solver(Solver&&) noexcept = default;
Solver& Solver::operator=(Solver&&) noexcept = default;

void Solver::advance_to(double t_end) {
  impl_->engine->advance_to(t_end);
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
std::string Solver::layout() const {
  return impl_->engine->layout();
}

}  // namespace silt::swe
