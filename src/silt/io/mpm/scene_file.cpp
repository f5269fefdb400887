#include "silt/io/mpm/scene_file.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>

#include "silt/core/error.hpp"
#include "silt/io/image/splat_png.hpp"
#include "silt/io/memory_limit.hpp"
#include "silt/io/mpm/scene_parts.hpp"
#include "silt/io/particles/vdb.hpp"
#include "silt/mpm/mesh/sdf.hpp"
#include "silt/mpm/sampling/sample_source.hpp"
#include "silt/mpm/sampling/shape_region.hpp"
#include "silt/mpm/step_control.hpp"
#include "silt/mpm/wave_speed.hpp"

namespace silt::io {

namespace {

using mpm_detail::read_vec3;
using mpm_detail::read_wall;

// A fixed dt may exceed the elastic CFL limit elastic_cfl dx / c by at most this factor: with the
// default elastic_cfl = 0.5 that is dt = dx / c, the explicit stability bound (CFL number 1).
constexpr double kFixedDtFactor = 2.0;
// Below this elastic dt limit (s) a material is flagged as making the run slow (1e-5 s is 1,667
// steps per 60 Hz frame).
constexpr double kTinyDt = 1.0e-5;
// Most grid cells along one axis of the domain (keeps block coordinates well inside int32).
constexpr double kMaxCellsPerAxis = 1 << 20;
// G2P2G (one fused kernel) pays off only for small particle counts (DESIGN.md §3, paper 000).
constexpr double kG2p2gMaxParticles = 1.0e5;
// Most frames a run may have (run.frames, or run.end_time / frame_dt).
constexpr double kMaxFrames = 1e7;
// Particles are indexed by silt::Index (int32).
constexpr double kMaxParticles = 2147483647.0;
// Host memory a run takes per particle, B: the sampled positions, the CPU backend's particle arrays
// (position, velocity, F, C, plastic state, material, id), the grid blocks around them and an
// output frame. Measured (2026-12-01): peak RSS of `silt run --backend cpu` on a sand box grows by
// 315 B per particle from 0.5M to 1M particles; rounded up for emitters' growth and stress outputs.
constexpr double kMpmBytesPerParticle = 512;

// "walls": one condition for every face, or {"x-": ..., "y+": ...} face by face (faces left out
// are "separate"); each with the domain's "friction" unless it gives its own.
void read_walls(Keys& d, mpm::Scene& s) {
  static const char* kFaces[6] = {"x-", "x+", "y-", "y+", "z-", "z+"};
  const double friction =
      d.number("friction", mpm_detail::kDefaultWallFriction, Range::non_negative());
  const Json* v = d.take("walls");
  if (!v || !v->is_object()) {
    const mpm::Wall w = read_wall(d, "walls", friction);
    s.walls.fill(w);
    return;
  }
  Keys faces = d.object("walls");
  for (int f = 0; f < 6; ++f) {
    if (f >= 2 * s.dimensions && faces.has(kFaces[f]))
      faces.fail(kFaces[f], "names a z face, which a 2D scene (domain.dimensions = 2) has not");
    if (f < 2 * s.dimensions) s.walls[std::size_t(f)] = read_wall(faces, kFaces[f], friction);
  }
  faces.finish();
}

void read_domain(Keys& root, mpm::Scene& s) {
  Keys d = root.object("domain", /*required=*/true);
  s.dimensions = d.has("dimensions") ? d.integer("dimensions", 2, 3) : 3;
  d.resolved("dimensions") = s.dimensions;
  s.dx = d.number("dx", Range::positive());
  s.domain_min = read_vec3(d, "min", {0, 0, 0}, "m", s.dimensions);
  s.domain_max = read_vec3(d, "max", "m", s.dimensions);
  for (int a = 0; a < s.dimensions; ++a) {
    const double cells = (s.domain_max[a] - s.domain_min[a]) / s.dx;
    if (!(cells >= 4))
      d.fail("max", fmt::format("must lie at least 4 dx = {} m beyond 'min' along {} (MPM needs "
                                "cells around the material), got {} m",
                                4 * s.dx, "xyz"[a], s.domain_max[a] - s.domain_min[a]));
    if (cells > kMaxCellsPerAxis)
      d.fail("dx", fmt::format("= {} m gives {:.0f} cells along {}, more than {:.0f}", s.dx, cells,
                               "xyz"[a], kMaxCellsPerAxis));
  }
  read_walls(d, s);
  d.finish();
}

void read_physics(Keys& root, mpm::Scene& s) {
  Keys p = root.object("physics");
  s.gravity = read_vec3(p, "gravity", s.gravity, "m/s^2", s.dimensions);
  s.damping = p.number("damping", 0.0, Range{0.0, 1.0, false, true});
  s.transfer = p.choice("transfer", "apic", {"apic", "asflip"}) == "asflip" ? mpm::Transfer::asflip
                                                                            : mpm::Transfer::apic;
  s.asflip_flip = p.number("asflip_flip", s.asflip_flip, Range{0.0, 1.0});
  s.asflip_advect = p.number("asflip_advect", s.asflip_advect, Range{0.0, 1.0});
  s.cfl = p.number("cfl", s.cfl, Range{0.0, 1.0, true, false});
  s.elastic_cfl = p.number("elastic_cfl", s.elastic_cfl, Range{0.0, 1.0, true, false});
  s.max_dt = p.number("max_dt", s.max_dt, Range::positive());
  const Json* fixed = p.take("fixed_dt");
  if (fixed && !fixed->is_null() && !(fixed->is_number() && fixed->get<double>() == 0.0)) {
    s.fixed_dt = p.number("fixed_dt", Range::positive());
  } else {
    p.resolved("fixed_dt") = nullptr;  // adaptive
  }
  p.finish();
}

void read_performance(Keys& root, mpm::Scene& s) {
  Keys p = root.object("performance");
  s.rebuild_period =
      p.has("rebuild_period") ? p.integer("rebuild_period", 1, 1000) : s.rebuild_period;
  p.resolved("rebuild_period") = s.rebuild_period;
  s.g2p2g = p.boolean("g2p2g", s.g2p2g);
  s.cuda_graphs = p.boolean("cuda_graphs", s.cuda_graphs);
  s.deterministic = p.boolean("deterministic", s.deterministic);
  s.max_particles =
      p.has("max_particles") ? p.integer("max_particles", 0, std::numeric_limits<int>::max()) : 0;
  p.resolved("max_particles") = s.max_particles;
  p.finish();
}

void read_run(Keys& root, mpm::Scene& s, MpmRunSettings& run) {
  Keys r = root.object("run", /*required=*/true);
  // A key set to null (e.g. --set run.frames=null) counts as absent.
  auto given = [&r](const char* key) {
    return r.has(key) && !r.take(key)->is_null();
  };
  const bool fps = given("fps"), frame_dt = given("frame_dt");
  if (fps && frame_dt) r.fail("fps", "and 'frame_dt' are both given; give one");
  if (fps)
    s.frame_dt = 1.0 / r.number("fps", Range{0.0, 1e6, true, false});
  else if (frame_dt)
    s.frame_dt = r.number("frame_dt", Range::positive());
  const bool frames = given("frames"), end_time = given("end_time");
  if (frames == end_time)
    r.fail("frames", "or 'end_time' (s) must be given, not both and not neither");
  if (frames) {
    run.frames = r.integer("frames", 0, int(kMaxFrames));
  } else {
    const double t = r.number("end_time", Range::positive());
    // A frame that ends within 1e-9 frame_dt of end_time is the last one (round-off in t / dt).
    const double n = std::ceil(t / s.frame_dt - 1e-9);
    if (!(n <= kMaxFrames))
      r.fail("end_time", fmt::format("= {} s is {:.4g} frames of {} s, more than {:.0f}", t, n,
                                     s.frame_dt, kMaxFrames));
    run.frames = static_cast<int>(n);
  }
  run.end_time = run.frames * s.frame_dt;
  const Json* rest = r.take("rest_speed");
  if (rest && !rest->is_null()) run.rest_speed = r.number("rest_speed", Range::positive());
  // The resolved form is always frame_dt + frames, so it loads back as it stands.
  Json& out = root.resolved("run");
  out = Json{{"frame_dt", s.frame_dt}, {"frames", run.frames}};
  if (run.rest_speed > 0) out["rest_speed"] = run.rest_speed;
  r.finish();
}

// outputs.volume: null (none) or {"voxel_size": m, "density": "mass" | "fraction"}.
void read_volume(Keys& o, MpmJob& job) {
  MpmOutputSettings& out = job.outputs;
  const mpm::Scene& s = job.scene;
  if (!o.has("volume") || o.take("volume")->is_null()) {
    o.resolved("volume") = nullptr;
    return;
  }
  if (!vdb_available())
    o.fail("volume", "needs a build of silt with OpenVDB (libopenvdb-dev); this one has none");
  Keys v = o.object("volume");
  out.volume = true;
  out.volume_voxel = v.number("voxel_size", s.dx, Range::positive());
  double widest = s.domain_max[0] - s.domain_min[0];  // the widest axis bounds the voxels
  for (int a = 1; a < 3; ++a) widest = std::max(widest, s.domain_max[a] - s.domain_min[a]);
  if (widest / out.volume_voxel > kMaxCellsPerAxis)
    v.fail("voxel_size",
           fmt::format("= {} m gives {:.4g} voxels across the domain, more than {:.0f}",
                       out.volume_voxel, widest / out.volume_voxel, kMaxCellsPerAxis));
  out.volume_density = v.choice("density", "mass", {"mass", "fraction"}) == "fraction"
                           ? VolumeDensity::fraction
                           : VolumeDensity::mass;
  v.finish();
  // The splat weighs a particle by its material's mass; sources of one material sampled at
  // different densities give particles of different masses, which the files do not carry.
  for (std::size_t m = 0; m < s.materials.size(); ++m) {
    double ppc = 0;
    for (const mpm::Source& src : s.sources)
      if (std::size_t(src.material) == m) {
        if (ppc > 0 && src.particles_per_cell != ppc)
          job.warnings.push_back(fmt::format(
              "outputs.volume: material '{}' is sampled at {} and {} particles per cell; the "
              "density grid weighs all its particles as the first source's ({} per cell)",
              s.materials[m].name, ppc, src.particles_per_cell, ppc));
        if (ppc == 0) ppc = src.particles_per_cell;
      }
  }
}

void read_outputs(Keys& root, MpmJob& job) {
  Keys o = root.object("outputs");
  MpmOutputSettings& out = job.outputs;
  out.formats.clear();
  const Json* f = o.take("formats");
  std::vector<std::string> names;
  const std::vector<std::string> known{"ply", "vtp", "vdb"};
  if (!f)
    names = {"ply"};
  else if (!f->is_array())
    o.fail("formats", fmt::format("must be a list of \"ply\", \"vtp\", \"vdb\", got {}", show(*f)));
  else
    for (std::size_t i = 0; i < f->size(); ++i) {
      const Json& e = (*f)[i];
      if (!e.is_string() ||
          std::find(known.begin(), known.end(), e.get<std::string>()) == known.end())
        o.fail(fmt::format("formats[{}]", i),
               fmt::format("must be \"ply\", \"vtp\" or \"vdb\", got {}", show(e)));
      if (e.get<std::string>() == "vdb" && !vdb_available())
        o.fail(fmt::format("formats[{}]", i),
               "\"vdb\" needs a build of silt with OpenVDB (libopenvdb-dev); this one has none");
      if (std::find(names.begin(), names.end(), e.get<std::string>()) == names.end())
        names.push_back(e.get<std::string>());
    }
  for (const auto& n : names)
    out.formats.push_back(n == "vtp"   ? ParticleFormat::vtp
                          : n == "vdb" ? ParticleFormat::vdb
                                       : ParticleFormat::ply);
  o.resolved("formats") = names;
  out.up_axis = o.choice("up_axis", "y", {"y", "z"}) == "z" ? UpAxis::z : UpAxis::y;
  read_volume(o, job);
  out.vtp_encoding = o.choice("vtp_encoding", "raw", {"raw", "base64"}) == "base64"
                         ? VtpEncoding::inline_base64
                         : VtpEncoding::appended_raw;
  out.with_stress = o.boolean("with_stress", false);
  out.png = o.boolean("png", false);
  if (out.png && !png_previews_available()) {
    job.warnings.push_back("outputs.png: this build of silt has no libpng; no PNG previews");
    out.png = false;
  }
  if (o.has("png_size")) {
    const Json* v = o.take("png_size");
    if (!v->is_array() || v->size() != 2 || !(*v)[0].is_number_integer() ||
        !(*v)[1].is_number_integer() || (*v)[0].get<long>() < 16 || (*v)[1].get<long>() < 16 ||
        (*v)[0].get<long>() > 16384 || (*v)[1].get<long>() > 16384)
      o.fail("png_size",
             fmt::format("must be [width, height] in pixels, 16..16384, got {}", show(*v)));
    out.png_width = (*v)[0].get<int>();
    out.png_height = (*v)[1].get<int>();
  }
  o.resolved("png_size") = Json::array({out.png_width, out.png_height});
  if (o.has("camera") && !o.take("camera")->is_null()) {
    Keys c = o.object("camera");
    out.custom_camera = true;
    out.camera.eye = read_vec3(c, "eye", "m");
    out.camera.target = read_vec3(c, "target", "m");
    const mpm::Vec3d& g = job.scene.gravity;
    const bool no_g = g[0] == 0 && g[1] == 0 && g[2] == 0;
    out.camera.up =
        read_vec3(c, "up", no_g ? mpm::Vec3d{0, 1, 0} : mpm::Vec3d{-g[0], -g[1], -g[2]}, "-");
    out.camera.fov_deg = c.number("fov", 40.0, Range{0.0, 170.0, true, true});
    c.finish();
  } else {
    o.take("camera");
    o.resolved("camera") = nullptr;  // the default view of the domain
  }
  o.finish();
}

// Emissions of source i, bounded before mpm::emission_times builds their list.
double checked_emissions(Keys& top, const mpm::Source& src, std::size_t i, double per_emission) {
  const double n = mpm::emission_count(src);
  if (src.emit_interval > 0 && n > 1 && !(n * per_emission <= kMaxParticles))
    top.fail(fmt::format("sources[{}].emit.interval", i),
             fmt::format("= {} s from start = {} s to end = {} s gives {:.4g} emissions of {:.4g} "
                         "particles each (source '{}'), more than the {:.4g} particles a run holds",
                         src.emit_interval, src.emit_start, src.emit_end, n, per_emission, src.name,
                         kMaxParticles));
  return n;
}

// The particle count fits the index type and memory.
void check_particle_budget(Keys& top, const mpm::Scene& s, double total) {
  const std::string what = fmt::format("hold ~{:.4g} particles at dx = {} m", total, s.dx);
  if (total > kMaxParticles)
    top.fail("sources", fmt::format("{}, more than the {:.0f} particles a run holds (2^31 - 1); "
                                    "raise domain.dx or lower particles_per_cell",
                                    what, kMaxParticles));
  if (!fits_in_memory(total, kMpmBytesPerParticle))
    top.fail("sources", fmt::format("{}, which {}; raise domain.dx or lower particles_per_cell",
                                    what, memory_text(total, kMpmBytesPerParticle)));
}

// The first frame's step count, from the dt limits known before the run (max_dt or fixed_dt, the
// elastic CFL of each material used, the particle CFL of the initial velocities), must stay within
// the solver's limit per frame (beyond it the run stops with "dt collapsed").
void check_steps(Keys& top, const MpmJob& job, const std::vector<bool>& used) {
  const mpm::Scene& s = job.scene;
  const double max_steps = mpm::StepParams{}.max_steps;
  double dt = s.fixed_dt > 0 ? s.fixed_dt : s.max_dt;
  std::string key = s.fixed_dt > 0 ? "physics.fixed_dt" : "physics.max_dt";
  std::string why = fmt::format("dt = {} s", dt);
  if (s.fixed_dt <= 0) {
    for (std::size_t m = 0; m < s.materials.size(); ++m) {
      const double limit = mpm::elastic_dt_limit(s.materials[m], s.dx, s.elastic_cfl);
      if (used[m] && limit < dt) {
        dt = limit;
        key = fmt::format("materials[{}]", m);
        why = fmt::format(
            "material '{}' limits dt to elastic_cfl dx / c = {:.3g} s (wave speed "
            "c = {:.4g} m/s)",
            s.materials[m].name, limit, mpm::material_wave_speed(s.materials[m]));
      }
    }
    for (std::size_t i = 0; i < s.sources.size(); ++i) {
      const mpm::Vec3d& v = s.sources[i].velocity;
      const double speed = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
      if (speed > 0 && s.cfl * s.dx / speed < dt) {
        dt = s.cfl * s.dx / speed;
        key = fmt::format("sources[{}].velocity", i);
        why = fmt::format(
            "source '{}' moves at {:.4g} m/s, which limits dt to cfl dx / v = "
            "{:.3g} s",
            s.sources[i].name, speed, dt);
      }
    }
  }
  const double steps = std::ceil(s.frame_dt / dt);
  if (!(steps <= max_steps))
    top.fail(key,
             fmt::format("makes a frame of {:.4g} s take {:.4g} steps ({}), more than the {:.0f} "
                         "a frame may take; lower the stiffness, raise dx or shorten frames",
                         s.frame_dt, steps, why, max_steps));
}

// Host memory a mesh collider's field takes per band voxel while it is built, B: silt's bricks (a
// distance and a velocity, 16 B) and OpenVDB's distance and closest-triangle grids beside them.
constexpr double kSdfBytesPerVoxel = 32;

// Mesh colliders as their field will read them (the same checks as `silt run`, so that validate
// reads every file run reads), and the field's size bounded before it is built.
void check_mesh_colliders(Keys& top, const mpm::Scene& s) {
  double widest = 0;
  for (int a = 0; a < 3; ++a) widest = std::max(widest, s.domain_max[a] - s.domain_min[a]);
  for (std::size_t i = 0; i < s.colliders.size(); ++i) {
    const mpm::Collider& c = s.colliders[i];
    if (c.kind != mpm::Collider::Kind::mesh) continue;
    const std::string key = fmt::format("colliders[{}]", i);
    // Grown by more than the domain is wide, the collider fills it; the band would be built
    // over a volume far larger than the run's.
    if (c.grow > widest)
      top.fail(key + ".grow",
               fmt::format("= {} m grows collider '{}' past the domain, {} m across at most: "
                           "grow is a thickness for thin parts, about one dx ({} m)",
                           c.grow, c.name, widest, s.dx));
    std::vector<mpm::TriangleMesh> meshes;
    try {
      meshes = mpm::load_collider_meshes(c, s);
    } catch (const Error& e) {
      top.fail(key, e.what());
    }
    const double voxel = c.voxel > 0 ? c.voxel : 0.5 * s.dx;
    const double w = mpm::mesh_band_width(c, s);
    for (const mpm::TriangleMesh& m : meshes)
      for (int a = 0; a < 3; ++a) {
        const double across = (m.upper()[a] - m.lower()[a] + 2 * w) / voxel;
        if (!(across <= kMaxCellsPerAxis))
          top.fail(key + ".voxel",
                   fmt::format("= {} m gives collider '{}' {:.4g} voxels along {} (its mesh at "
                               "scale {} spans {:.4g} m), more than {:.0f}",
                               voxel, c.name, across, "xyz"[a], c.mesh_scale,
                               m.upper()[a] - m.lower()[a], kMaxCellsPerAxis));
      }
    const double voxels = mpm::mesh_sdf_voxels(c, s, meshes);
    if (!fits_in_memory(voxels, kSdfBytesPerVoxel))
      top.fail(key + ".voxel",
               fmt::format("= {} m gives collider '{}' (scale {}, grow {} m) a distance field of "
                           "~{:.4g} voxels, which {}; raise voxel or lower scale or grow",
                           voxel, c.name, c.mesh_scale, c.grow, voxels,
                           memory_text(voxels, kSdfBytesPerVoxel)));
  }
}

// Cross-checks that need the whole scene: sources inside the domain, particle counts, dt limits.
void check_scene(Keys& top, MpmJob& job) {
  mpm::Scene& s = job.scene;
  const double cell = std::pow(s.dx, 3);
  std::vector<bool> used(s.materials.size(), false);
  bool emitters = false;
  double total = 0;
  for (std::size_t i = 0; i < s.sources.size(); ++i) {
    const mpm::Source& src = s.sources[i];
    const std::string key = fmt::format("sources[{}]", i);
    used[std::size_t(src.material)] = true;
    emitters = emitters || src.emit_interval > 0;
    mpm::ShapeRegion region = [&] {
      try {
        return mpm::source_region(src, s.dimensions, s.dx);
      } catch (const Error& e) {
        top.fail(key, e.what());
      }
    }();
    for (int a = 0; a < s.dimensions; ++a)
      if (region.lower()[a] < s.domain_min[a] || region.upper()[a] > s.domain_max[a])
        top.fail(key, fmt::format("(source '{}') reaches outside the domain along {}: it spans "
                                  "[{:.6g}, {:.6g}] m, the domain [{:.6g}, {:.6g}] m",
                                  src.name, "xyz"[a], region.lower()[a], region.upper()[a],
                                  s.domain_min[a], s.domain_max[a]));
    const double n = src.shape == mpm::Shape::points
                         ? double(src.point_count())
                         : src.particles_per_cell * region.volume() / cell;
    if (n < 1)
      top.fail(key, fmt::format("(source '{}') holds {:.3g} particles at dx = {} m and {} per "
                                "cell: make it larger or raise particles_per_cell",
                                src.name, n, s.dx, src.particles_per_cell));
    job.expected_particles.push_back(n);
    total += n * checked_emissions(top, src, i, n);
  }
  check_particle_budget(top, s, total);
  check_mesh_colliders(top, s);
  if (s.max_particles > 0 && double(s.max_particles) < total)
    top.fail(
        "performance.max_particles",
        fmt::format("= {} is below the {:.0f} particles the sources add", s.max_particles, total));
  if (s.g2p2g && emitters)
    top.fail("performance.g2p2g",
             "cannot be used with emitters (a source has \"emit\"); the fused "
             "kernel assumes a fixed particle set");
  if (s.g2p2g && total > kG2p2gMaxParticles)
    job.warnings.push_back(
        fmt::format("performance.g2p2g with {:.0f} particles: the fused kernel "
                    "pays off below about {:.0f}",
                    total, kG2p2gMaxParticles));
  if (s.fixed_dt > s.frame_dt)
    top.fail("physics.fixed_dt", fmt::format("= {} s is longer than a frame (frame_dt = {} s)",
                                             s.fixed_dt, s.frame_dt));
  for (std::size_t m = 0; m < s.materials.size(); ++m) {
    const mpm::Material& mat = s.materials[m];
    if (!used[m]) {
      job.warnings.push_back(fmt::format("material '{}' is used by no source", mat.name));
      continue;
    }
    const double c = mpm::material_wave_speed(mat);
    const double limit = mpm::elastic_dt_limit(mat, s.dx, s.elastic_cfl);
    if (s.fixed_dt > kFixedDtFactor * limit)
      top.fail("physics.fixed_dt",
               fmt::format("= {} s exceeds {}x the elastic CFL limit of material '{}': elastic_cfl "
                           "dx / c = {:.3g} s (wave speed c = {:.4g} m/s); the run would blow up. "
                           "Lower fixed_dt or the material's stiffness",
                           s.fixed_dt, kFixedDtFactor, mat.name, limit, c));
    if (limit < kTinyDt)
      job.warnings.push_back(fmt::format(
          "material '{}' is stiff: its wave speed {:.4g} m/s limits dt to elastic_cfl dx / c = "
          "{:.3g} s (below {} s; {:.0f} steps per frame). Lower its modulus if the look allows",
          mat.name, c, limit, kTinyDt, std::ceil(s.frame_dt / limit)));
  }
  check_steps(top, job, used);
}

MpmJob parse_json(Json root, const SceneSource& src, const std::string& default_name,
                  const std::string& path) {
  for (const auto& o : src.overrides) apply_override(root, o, src);
  MpmJob job;
  job.path = path;
  Keys top(root, "", src, &job.resolved);
  const std::string solver = top.string("solver", "");
  if (solver.empty()) top.fail("solver", "is missing: set \"solver\": \"mpm\"");
  if (solver != "mpm")
    top.fail("solver", fmt::format("is \"{}\"; this loader reads MPM scenes (\"mpm\")", solver));
  mpm::Scene& s = job.scene;
  s.name = top.name("name", default_name, "it names the output folder");
  top.string("description", "");
  top.take("provenance");  // written next to outputs (build, backend); not part of the scene
  read_domain(top, s);
  mpm_detail::read_materials(top, s);
  mpm_detail::read_sources(top, s);
  mpm_detail::read_colliders(top, s);
  mpm_detail::read_contact(top, s);
  read_physics(top, s);
  read_performance(top, s);
  read_run(top, s, job.run);
  read_outputs(top, job);
  top.finish();
  check_scene(top, job);
  return job;
}

std::string stem_of(const std::string& name) {
  std::string stem = std::filesystem::path(name).stem().string();
  return stem.empty() ? "scene" : stem;
}

}  // namespace

std::string to_string(mpm::MaterialKind k) {
  switch (k) {
    case mpm::MaterialKind::fixed_corotated:
      return "fixed_corotated";
    case mpm::MaterialKind::fluid:
      return "fluid";
    case mpm::MaterialKind::drucker_prager:
      return "drucker_prager";
    case mpm::MaterialKind::nacc:
      return "nacc";
  }
  return "fixed_corotated";
}

std::string to_string(mpm::Shape s) {
  switch (s) {
    case mpm::Shape::box:
      return "box";
    case mpm::Shape::sphere:
      return "sphere";
    case mpm::Shape::cylinder:
      return "cylinder";
    case mpm::Shape::mesh:
      return "mesh";
    case mpm::Shape::points:
      return "points";
  }
  return "box";
}

std::string to_string(mpm::WallKind w) {
  switch (w) {
    case mpm::WallKind::sticky:
      return "sticky";
    case mpm::WallKind::slip:
      return "slip";
    case mpm::WallKind::separate:
      return "separate";
  }
  return "separate";
}

MpmJob parse_mpm_job(const std::string& text, const std::string& name, const std::string& base_dir,
                     const std::vector<std::string>& overrides, const SceneArrays* arrays) {
  SceneSource src{name, base_dir, overrides, {}, arrays};
  return parse_json(parse_scene_text(text, name), src, stem_of(name), "");
}

MpmJob load_mpm_job(const std::string& path, const std::vector<std::string>& overrides) {
  return load_mpm_job(path, overrides, {});
}

MpmJob load_mpm_job(const std::string& path, const std::vector<std::string>& overrides,
                    const std::vector<std::string>& labels) {
  require_utf8(path, "scene file name");
  const std::string text = read_text_file(path, "scene file");
  const std::string dir = std::filesystem::path(path).parent_path().string();
  SceneSource src{path, dir, overrides, labels};
  return read_mpm_job(parse_scene_text(text, path), src);
}

MpmJob read_mpm_job(Json tree, const SceneSource& src) {
  require_utf8(src.name, "scene file name");
  return parse_json(std::move(tree), src, stem_of(src.name), src.name);
}

}  // namespace silt::io
