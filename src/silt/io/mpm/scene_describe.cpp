// The summary `silt validate` prints for an MPM scene.
#include <fmt/format.h>

#include <cmath>

#include "silt/io/mpm/scene_file.hpp"
#include "silt/mpm/sampling/sample_source.hpp"
#include "silt/mpm/wave_speed.hpp"

namespace silt::io {

namespace {

std::string wall_text(const mpm::Wall& w) {
  return w.friction > 0 && w.kind != mpm::WallKind::sticky
             ? fmt::format("{} (friction {})", to_string(w.kind), w.friction)
             : to_string(w.kind);
}

// "slip walls", or face by face: "walls x- slip, x+ slip, y- separate (friction 0.6), ...".
std::string walls_text(const mpm::Scene& s) {
  static const char* kFaces[6] = {"x-", "x+", "y-", "y+", "z-", "z+"};
  bool same = true;
  for (int f = 1; f < 2 * s.dimensions; ++f)
    same = same && s.walls[f].kind == s.walls[0].kind && s.walls[f].friction == s.walls[0].friction;
  if (same) return wall_text(s.walls[0]) + " walls";
  std::string out = "walls";
  for (int f = 0; f < 2 * s.dimensions; ++f)
    out += fmt::format("{} {} {}", f ? "," : "", kFaces[f], wall_text(s.walls[std::size_t(f)]));
  return out;
}

}  // namespace

std::string describe(const MpmJob& job) {
  const mpm::Scene& s = job.scene;
  std::string out =
      fmt::format("scene '{}' (MPM){}\n", s.name, job.path.empty() ? "" : " from " + job.path);
  const mpm::Vec3d &a = s.domain_min, &b = s.domain_max;
  if (s.dimensions == 2)
    out += fmt::format(
        "  domain     2D (plane strain) [{}, {}] x [{}, {}] m, dx = {} m ({:.0f} x {:.0f} cells), "
        "{}\n",
        a[0], b[0], a[1], b[1], s.dx, (b[0] - a[0]) / s.dx, (b[1] - a[1]) / s.dx, walls_text(s));
  else
    out += fmt::format(
        "  domain     [{}, {}] x [{}, {}] x [{}, {}] m, dx = {} m ({:.0f} x {:.0f} x {:.0f} "
        "cells), {}\n",
        a[0], b[0], a[1], b[1], a[2], b[2], s.dx, (b[0] - a[0]) / s.dx, (b[1] - a[1]) / s.dx,
        (b[2] - a[2]) / s.dx, walls_text(s));
  if (s.damping > 0) out += fmt::format("  damping    local, alpha = {}\n", s.damping);
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
    static const char* kinds[] = {"plane", "sphere", "box", "cylinder", "mesh"};
    out += fmt::format("  collider   {}: {} ({})\n", c.name, kinds[int(c.kind)], to_string(c.wall));
  }
  if (s.contact.enabled())
    out += fmt::format(
        "  contact    '{}' against '{}': a velocity field each (friction {}, gap {} "
        "cell)\n",
        s.contact.bodies[0], s.contact.bodies[1], s.contact.friction, s.contact.gap);
  out += fmt::format("  particles  ~{:.0f} in all\n", total);
  out += fmt::format("  time       {} frames of {:.6g} s to t = {:.6g} s; dt {}\n", job.run.frames,
                     s.frame_dt, job.run.end_time,
                     s.fixed_dt > 0 ? fmt::format("fixed {} s", s.fixed_dt)
                                    : fmt::format("adaptive (cfl {}, elastic_cfl {}, max {} s)",
                                                  s.cfl, s.elastic_cfl, s.max_dt));
  out += fmt::format("  transfer   {}, rebuild every {} steps{}{}\n",
                     s.transfer == mpm::Transfer::asflip ? "ASFLIP" : "APIC", s.rebuild_period,
                     s.g2p2g ? ", fused G2P2G" : "",
                     s.deterministic ? ", deterministic (fixed-point P2G sums)" : "");
  std::string formats;
  for (ParticleFormat f : job.outputs.formats)
    formats += f == ParticleFormat::ply ? " ply" : f == ParticleFormat::vtp ? " vtp" : " vdb";
  const MpmOutputSettings& o = job.outputs;
  if (o.volume)
    formats += fmt::format(" volume ({} voxels of {} m)",
                           o.volume_density == VolumeDensity::mass ? "mass density" : "fraction",
                           o.volume_voxel);
  out += fmt::format(
      "  outputs   {}{}{}{}\n", formats.empty() ? " none" : formats,
      job.outputs.png ? fmt::format(" png {}x{}", job.outputs.png_width, job.outputs.png_height)
                      : "",
      job.outputs.with_stress ? ", with stress" : "", o.up_axis == UpAxis::z ? ", z up" : "");
  for (const auto& w : job.warnings) out += "  warning    " + w + "\n";
  return out;
}

}  // namespace silt::io
