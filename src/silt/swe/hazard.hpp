// Hazard accumulation (kernels/hazard_k.hpp) after every step: one named phase of the step,
// phase_hazard, over each part's owned cells, reading the state the step left (after point sources
// and boundaries), so the maximum of a wave that passes between two frames is kept. A part holds
// the accumulated fields only when the scene asks for hazard outputs (Scene::hazard.enabled).
#pragma once

#include <cstdint>
#include <vector>

#include "silt/core/buffer.hpp"
#include "silt/core/exec.hpp"
#include "silt/swe/kernels/hazard_k.hpp"
#include "silt/swe/scene.hpp"

namespace silt::swe::detail {

template <class T>
struct HazardView {
  Grid2<const T> h, hu, hv, hc;  // the state after the step
  Grid2<const std::uint8_t> active;
  Grid2<T> max_speed, max_depth_speed, max_conc, max_rating;
  Grid2<double> first_wet, wet_time;
  const double* clock;  // ClockSlot: kTime (end of the step), kDt (0: a no-op step)
  HazardParams<T> params;
  Index nx = 0, ny = 0;  // owned cells
};

/// The accumulated fields of one part and their copies at the last good check (a fault goes back
/// to them with the state). Empty when the scene asks for no hazard outputs.
template <class T>
struct HazardBuffers {
  DeviceBuffer<T> max_speed, max_depth_speed, max_conc, max_rating;
  DeviceBuffer<double> first_wet, wet_time;
  DeviceBuffer<T> bk_max_speed, bk_max_depth_speed, bk_max_conc, bk_max_rating;
  DeviceBuffer<double> bk_first_wet, bk_wet_time;

  bool enabled() const { return max_speed.size() > 0; }
  /// n cells each (halo included): maxima 0, first wetting -1 (never), wet time 0.
  void allocate(const Exec& exec, Index n);
  /// Live -> backup (to_backup) or backup -> live.
  void copy(const Exec& exec, bool to_backup);
};

/// The hazard fields of state (h, hu, hv, hc) after a step; cells of `active` only.
template <class T>
void phase_hazard(const Exec& exec, const HazardView<T>& v);
/// The hazard fields of the state a run starts from, at time t (s): a cell wet then was first wet
/// at t (not at the end of the first step) and its maxima include that state; no wet time.
template <class T>
void phase_hazard_start(const Exec& exec, const HazardView<T>& v, double t);

}  // namespace silt::swe::detail
