#include "silt/run/mpm_measures.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "silt/mpm/solver.hpp"

namespace silt::run {

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double dot(const std::array<double, 3>& a, double x, double y, double z) {
  return a[0] * x + a[1] * y + a[2] * z;
}

// -gravity as a unit vector (+y when there is no gravity).
std::array<double, 3> up_of(const mpm::Scene& s) {
  const mpm::Vec3d& g = s.gravity;
  const double norm = std::sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
  if (!(norm > 0)) return {0, 1, 0};
  return {-g[0] / norm, -g[1] / norm, -g[2] / norm};
}

}  // namespace

ParticleExtent extent_of(const mpm::ParticleFrame& p, const std::array<double, 3>& d,
                         const mpm::Scene& scene) {
  const std::size_t n = p.count();
  if (n == 0 || p.position.size() < 3 * n) return {kNaN, kNaN, kNaN};
  const std::array<double, 3> up = up_of(scene);
  double floor = std::numeric_limits<double>::infinity();
  for (int c = 0; c < 8; ++c) {
    const double x = (c & 1) ? scene.domain_max[0] : scene.domain_min[0];
    const double y = (c & 2) ? scene.domain_max[1] : scene.domain_min[1];
    const double z = (c & 4) ? scene.domain_max[2] : scene.domain_min[2];
    floor = std::min(floor, dot(up, x, y, z));
  }
  ParticleExtent e{-std::numeric_limits<double>::infinity(),
                   std::numeric_limits<double>::infinity(),
                   -std::numeric_limits<double>::infinity()};
  for (std::size_t i = 0; i < n; ++i) {
    const double x = p.position[3 * i], y = p.position[3 * i + 1], z = p.position[3 * i + 2];
    const double along = dot(d, x, y, z);
    e.front = std::max(e.front, along);
    e.back = std::min(e.back, along);
    e.height = std::max(e.height, dot(up, x, y, z));
  }
  e.height -= floor;
  return e;
}

void EnergySeries::add(const mpm::FrameStats& s) {
  time.push_back(s.time);
  kinetic_energy.push_back(s.kinetic_energy);
  rms_speed.push_back(s.rms_speed);
}

double time_at_rest(const EnergySeries& e, double rest_speed) {
  double at = kNaN;
  for (std::size_t k = e.rms_speed.size(); k-- > 0;) {
    if (!(e.rms_speed[k] < rest_speed)) break;
    at = e.time[k];
  }
  return at;
}

const std::vector<MeasureText>& measure_names() {
  static const std::vector<MeasureText> names = {
      {"front_start", "m", "farthest particle along the spread direction at the start"},
      {"front", "m", "farthest particle along the spread direction at the end"},
      {"runout", "m", "travel of the front along the spread direction (front - front_start)"},
      {"extent_start", "m", "initial extent along the spread direction (L0)"},
      {"relative_runout", "1", "runout / extent_start, (L_inf - L0) / L0"},
      {"height_start", "m", "highest particle above the floor at the start"},
      {"height", "m", "highest particle above the floor at the end (final height)"},
      {"kinetic_energy_end", "J", "kinetic energy at the end"},
      {"kinetic_energy_max", "J", "largest kinetic energy of the frames"},
      {"time_kinetic_energy_max", "s", "time of the largest kinetic energy"},
      {"time_at_rest", "s", "first time from which the rms speed stays below the rest speed"},
  };
  return names;
}

std::vector<double> measures_of(const ParticleExtent& start, const ParticleExtent& end,
                                const EnergySeries& energy, double rest_speed) {
  const double runout = end.front - start.front;
  const double extent = start.front - start.back;
  double ke_max = kNaN, t_max = kNaN;
  for (std::size_t k = 0; k < energy.kinetic_energy.size(); ++k)
    if (std::isnan(ke_max) || energy.kinetic_energy[k] > ke_max) {
      ke_max = energy.kinetic_energy[k];
      t_max = energy.time[k];
    }
  const double ke_end = energy.kinetic_energy.empty() ? kNaN : energy.kinetic_energy.back();
  return {start.front, end.front, runout, extent, extent > 0 ? runout / extent : kNaN, start.height,
          end.height,  ke_end,    ke_max, t_max,  time_at_rest(energy, rest_speed)};
}

}  // namespace silt::run
