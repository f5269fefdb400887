// The fastest elastic wave of a scene material and the time step it allows (the elastic CFL,
// dt <= elastic_cfl dx / c; cfl_k.hpp). For scene checks and reports on the host; the solver
// takes the same speed from the device parameters (material_k.hpp: material_wave_speed).
#pragma once

#include "silt/mpm/scene.hpp"

namespace silt::mpm {

/// Wave speed at rest, m/s: sqrt((lambda + 2 mu) / rho) for solids, sqrt(K / rho) for the fluid.
double material_wave_speed(const Material& m);

/// elastic_cfl dx / c (s), dx in m; infinite when the material carries no waves.
double elastic_dt_limit(const Material& m, double dx, double elastic_cfl);

}  // namespace silt::mpm
