// What an MPM ensemble measures on each member (docs/ensembles.md, "MPM sweeps"), from its
// particles at the start and at the end and from the kinetic energy of every frame:
//   - front, back: the farthest and nearest particle along the spread direction d (max and min of
//     x . d), m; runout = front(end) - front(start), the front's travel; relative runout =
//     runout / L0 with L0 = front(start) - back(start), the initial extent along d (a column's
//     (L_inf - L0) / L0, up to the particle spacing);
//   - height: the highest particle above the floor (max of x . up minus the lowest corner of the
//     domain along up, up = -gravity), at the start and at the end, m;
//   - the kinetic energy (J, 2D: of the slab one dx deep) at the end and its peak, with the time
//     of the peak;
//   - the time at rest: the first frame time from which the rms speed sqrt(2 KE / M) stays below
//     the rest speed, i.e. the kinetic energy stays under M v_rest^2 / 2 (NaN: never at rest).
// Plain arithmetic on the host: the same bits for the same particles on every backend.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "silt/mpm/particle_frame.hpp"
#include "silt/mpm/scene.hpp"
#include "silt/run/measure_table.hpp"

namespace silt::mpm {
struct FrameStats;
}

namespace silt::run {

/// The extent of a set of particles along the spread direction and against gravity.
struct ParticleExtent {
  double front = 0, back = 0, height = 0;  // NaN when there are no particles
};
ParticleExtent extent_of(const mpm::ParticleFrame& p, const std::array<double, 3>& direction,
                         const mpm::Scene& scene);

/// Every frame after the first: its time (s), kinetic energy (J) and rms speed (m/s).
struct EnergySeries {
  std::vector<double> time, kinetic_energy, rms_speed;
  void add(const mpm::FrameStats& s);
};

/// The first frame time from which rms_speed stays below rest_speed (NaN: never).
double time_at_rest(const EnergySeries& e, double rest_speed);

/// A member's measures, in the order of measure_names().
std::vector<double> measures_of(const ParticleExtent& start, const ParticleExtent& end,
                                const EnergySeries& energy, double rest_speed);

/// The measures' names (measure_table.hpp), in the order of measures_of().
const std::vector<MeasureText>& measure_names();

}  // namespace silt::run
