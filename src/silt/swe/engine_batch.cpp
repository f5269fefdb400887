// The engine's hooks of swe::Batch (engine_parts.hpp): launch_step() cut around the tile update.
#include <fmt/format.h>

#include "silt/swe/engine_parts.hpp"

namespace silt::swe::detail {

template <class T>
std::string Engine<T>::batch_refusal() const {
  if (dec_.size() != 1) return fmt::format("it is split into {} parts", dec_.size());
  if (muscl_) return "it uses the second-order scheme";
  if (path_ != Path::tile)
    return parts_.front()->exec.is_cuda() ? "it steps with the plain phases"
                                          : "it steps on the CPU";
  return {};
}

// launch_step() before its update, for one part: nothing to exchange, nothing to agree on (its
// Exchange's calls are no-ops), advance_clocks() around the batch's clock.
template <class T>
void Engine<T>::batch_clock_before() {
  clock_known_ = false;
  Part<T>& p = *parts_.front();
  activate(p.exec);
  if (has_discharge_) phase_wet_count(p.exec, p.view(cur_, 1 - cur_));
}

template <class T>
void Engine<T>::batch_clock_after() {
  if (has_rating_) phase_rating_conveyance(*parts_.front(), cur_, false);
}

template <class T>
SolverView<T> Engine<T>::batch_view() const {
  return tile_view(*parts_.front());  // the hazard too: batch_step_tail() leaves it to the kernel
}

// The box launch_step() updates on one part: its cells (grown() by no layer: no shared side).
template <class T>
Box2 Engine<T>::batch_box() const {
  return grown(*parts_.front(), 0);
}

#define SILT_SWE_ENGINE_BATCH(T)                         \
  template std::string Engine<T>::batch_refusal() const; \
  template void Engine<T>::batch_clock_before();         \
  template void Engine<T>::batch_clock_after();          \
  template SolverView<T> Engine<T>::batch_view() const;  \
  template Box2 Engine<T>::batch_box() const;
SILT_SWE_ENGINE_BATCH(float)
SILT_SWE_ENGINE_BATCH(double)
#undef SILT_SWE_ENGINE_BATCH

}  // namespace silt::swe::detail
