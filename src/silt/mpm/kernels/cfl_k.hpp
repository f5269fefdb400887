// Adaptive time step (Fang et al. 2018 style): the particle-velocity CFL dt <= cfl dx / |v|max and
// the elastic CFL dt <= elastic_cfl dx / c (c the fastest wave speed among the materials present),
// capped by max_dt. Everything stays on the device: the pipeline reduces max |v| with
// parallel_reduce_max and calls this in a one-thread launch (paper 000: no host sync inside a step;
// DESIGN.md §3).
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/scalar.hpp"

namespace silt::mpm {

/// dx (m), max_speed (m/s), max_wave_speed (m/s), cfl and elastic_cfl (-), max_dt (s). Zero
/// speeds impose no limit.
template <class T>
SILT_HD SILT_FORCEINLINE T cfl_dt(T dx, T max_speed, T max_wave_speed, T cfl, T elastic_cfl,
                                  T max_dt) {
  T dt = max_dt;
  if (max_speed * max_dt > cfl * dx) dt = math::div(cfl * dx, max_speed);
  if (max_wave_speed * dt > elastic_cfl * dx) dt = math::div(elastic_cfl * dx, max_wave_speed);
  return dt;
}

}  // namespace silt::mpm
