// The kinetic energy and mass of a set of particles: what a part sums for a frame's statistics and
// the solver adds over its parts.
#pragma once

namespace silt::mpm {

/// Kinetic energy (J) and mass (kg) of a set of particles.
struct Motion {
  double kinetic_energy = 0;
  double mass = 0;
};

}  // namespace silt::mpm
