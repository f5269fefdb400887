// The summary `silt validate` prints for an MPM scene.
#include <fmt/format.h>

#include <cmath>

#include "silt/io/mpm_scene.hpp"
#include "silt/mpm/sampling/sample_source.hpp"
#include "silt/mpm/wave_speed.hpp"

namespace silt::io {

std::string describe(const MpmJob& job) {
  const mpm::Scene& s = job.scene;
  std::string out =
      fmt::format("scene '{}' (MPM){}\n", s.name, job.path.empty() ? "" : " from " + job.path);
  const mpm::Vec3d &a = s.domain_min, &b = s.domain_max;
  out += fmt::format(
      "  domain     [{}, {}] x [{}, {}] x [{}, {}] m, dx = {} m ({:.0f} x {:.0f} x {:.0f} "
      "cells), {} walls\n",
      a[0], b[0], a[1], b[1], a[2], b[2], s.dx, (b[0] - a[0]) / s.dx, (b[1] - a[1]) / s.dx,
      (b[2] - a[2]) / s.dx, to_string(s.domain_wall));
  for (const auto& m : s.materials)
    out += fmt::format("  material   {}: {}, {} kg/m^3, dt <= {:.3g} s (elastic CFL)\n", m.name,
                       to_string(m.kind), m.density, mpm::elastic_dt_limit(m, s.dx, s.elastic_cfl));
  double total = 0;
  for (std::size_t i = 0; i < s.sources.size(); ++i) {
    const auto& src = s.sources[i];
    const auto emissions = mpm::emission_times(src).size();
    const double n = i < job.expected_particles.size() ? job.expected_particles[i] : 0.0;
    total += n * double(emissions);
    out += fmt::format("  source     {}: {} of {}, ~{:.0f} particles ({} per cell, {}){}\n",
                       src.name, to_string(src.shape), s.materials[std::size_t(src.material)].name,
                       n, src.particles_per_cell,
                       src.sampling == mpm::Sampling::poisson ? "Poisson-disk" : "jittered",
                       emissions > 1 ? fmt::format(", emitted {} times", emissions) : "");
  }
  for (const auto& c : s.colliders) {
    static const char* kinds[] = {"plane", "sphere", "box", "cylinder"};
    out += fmt::format("  collider   {}: {} ({})\n", c.name, kinds[int(c.kind)], to_string(c.wall));
  }
  out += fmt::format("  particles  ~{:.0f} in all\n", total);
  out += fmt::format("  time       {} frames of {:.6g} s to t = {:.6g} s; dt {}\n", job.run.frames,
                     s.frame_dt, job.run.end_time,
                     s.fixed_dt > 0 ? fmt::format("fixed {} s", s.fixed_dt)
                                    : fmt::format("adaptive (cfl {}, elastic_cfl {}, max {} s)",
                                                  s.cfl, s.elastic_cfl, s.max_dt));
  out += fmt::format("  transfer   {}, rebuild every {} steps{}\n",
                     s.transfer == mpm::Transfer::asflip ? "ASFLIP" : "APIC", s.rebuild_period,
                     s.g2p2g ? ", fused G2P2G" : "");
  std::string formats;
  for (ParticleFormat f : job.outputs.formats)
    formats += f == ParticleFormat::ply ? " ply" : " vtp";
  out += fmt::format("  outputs   {}{}{}\n", formats.empty() ? " none" : formats,
                     job.outputs.png
                         ? fmt::format(" png {}x{}", job.outputs.png_width, job.outputs.png_height)
                         : "",
                     job.outputs.with_stress ? ", with stress" : "");
  for (const auto& w : job.warnings) out += "  warning    " + w + "\n";
  return out;
}

}  // namespace silt::io
