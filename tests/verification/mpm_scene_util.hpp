// Small MPM scenes and particle moments shared by the MPM verification tests. Scenes are built in
// code (no files) and kept small enough for a 2-core CPU.
#pragma once

#include <array>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "silt/mpm/scene.hpp"
#include "silt/mpm/solver.hpp"

namespace silt::test::mpm {

using silt::mpm::Material;
using silt::mpm::MaterialKind;
using silt::mpm::Scene;
using silt::mpm::Source;

/// A scene named `name` in the box [0, domain_max] (m) with cells of dx (m), walls of the given
/// kind and gravity along -y; its materials, sources and frames are the caller's.
inline Scene box_scene(std::string name, double dx, std::array<double, 3> domain_max,
                       silt::mpm::WallKind wall = silt::mpm::WallKind::separate) {
  Scene s;
  s.name = std::move(name);
  s.dx = dx;
  s.domain_min = {0, 0, 0};
  s.domain_max = domain_max;
  s.walls.fill(silt::mpm::Wall{wall, 0.0});
  s.gravity = {0, -9.81, 0};
  return s;
}

inline Material jelly(double youngs = 1e4, double poisson = 0.3, double density = 1000) {
  Material m;
  m.name = "jelly";
  m.kind = MaterialKind::fixed_corotated;
  m.youngs_modulus = youngs;
  m.poisson_ratio = poisson;
  m.density = density;
  return m;
}

inline Material water(double bulk = 1e5, double viscosity = 0.0) {
  Material m;
  m.name = "water";
  m.kind = MaterialKind::fluid;
  m.bulk_modulus = bulk;
  m.gamma = 7.0;
  m.viscosity = viscosity;
  m.density = 1000;
  return m;
}

inline Material sand(double friction_angle = 30.0) {
  Material m;
  m.name = "sand";
  m.kind = MaterialKind::drucker_prager;
  m.youngs_modulus = 3.5e5;
  m.poisson_ratio = 0.3;
  m.density = 1600;
  m.friction_angle = friction_angle;
  return m;
}

inline Source box_source(std::array<double, 3> lo, std::array<double, 3> hi, int material = 0,
                         std::array<double, 3> velocity = {0, 0, 0}, double ppc = 8) {
  Source s;
  s.name = "box";
  s.box_min = lo;
  s.box_max = hi;
  s.material = material;
  s.velocity = velocity;
  s.particles_per_cell = ppc;
  return s;
}

/// Total mass-weighted moments of the particles (equal particle masses within one source, so
/// the tests weight every particle alike and use single-source scenes).
struct Moments {
  double count = 0;
  std::array<double, 3> com{};     // centre of mass, m
  std::array<double, 3> mean_v{};  // mean velocity, m/s
  std::array<double, 3> second{};  // mean (x - com)^2 per axis, m^2
  double kinetic = 0;              // mean |v|^2 / 2, m^2/s^2
  double max_speed = 0;            // m/s
};

inline Moments moments(const silt::mpm::ParticleFrame& p) {
  Moments m;
  const std::size_t n = p.count();
  m.count = double(n);
  if (n == 0) return m;
  for (std::size_t i = 0; i < n; ++i)
    for (int a = 0; a < 3; ++a) {
      m.com[a] += p.position[3 * i + a];
      m.mean_v[a] += p.velocity[3 * i + a];
    }
  for (int a = 0; a < 3; ++a) m.com[a] /= double(n), m.mean_v[a] /= double(n);
  for (std::size_t i = 0; i < n; ++i) {
    double v2 = 0;
    for (int a = 0; a < 3; ++a) {
      const double d = p.position[3 * i + a] - m.com[a];
      m.second[a] += d * d;
      v2 += double(p.velocity[3 * i + a]) * p.velocity[3 * i + a];
    }
    m.kinetic += 0.5 * v2;
    m.max_speed = std::max(m.max_speed, std::sqrt(v2));
  }
  for (int a = 0; a < 3; ++a) m.second[a] /= double(n);
  m.kinetic /= double(n);
  return m;
}

}  // namespace silt::test::mpm
