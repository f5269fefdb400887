// Scene -> device tables, particle emission and argument structs of the MPM solver.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "silt/core/error.hpp"
#include "silt/mpm/sampling/sample_source.hpp"
#include "silt/mpm/scene_params.hpp"
#include "silt/mpm/solver_impl.hpp"

namespace silt::mpm {

namespace {
constexpr const char* kAxis[3] = {"x", "y", "z"};
/// Particles are kept this many cells inside the domain walls, so that a particle's stencil never
/// reaches past a wall (the grid update applies the walls in a band of kWallBandCells cells).
constexpr double kClampCells = 1.0;
constexpr double kWallBandCells = 2.0;
/// Nodes lighter than this fraction of the lightest particle count as empty.
constexpr double kMinNodeMassFraction = 1e-9;
}  // namespace

void Solver::Impl::validate() const {
  const Scene& s = scene;
  auto fail = [&](const std::string& key, const std::string& why) {
    throw Error(fmt::format("MPM scene '{}': {} {}", s.name, key, why));
  };
  if (!(s.dx > 0)) fail("dx", fmt::format("must be > 0 (got {})", s.dx));
  if (!(s.frame_dt > 0)) fail("frame_dt", fmt::format("must be > 0 (got {})", s.frame_dt));
  if (!(s.max_dt > 0)) fail("max_dt", fmt::format("must be > 0 (got {})", s.max_dt));
  if (!(s.fixed_dt >= 0)) fail("fixed_dt", fmt::format("must be >= 0 (got {})", s.fixed_dt));
  if (!(s.cfl > 0)) fail("cfl", fmt::format("must be > 0 (got {})", s.cfl));
  if (!(s.elastic_cfl > 0)) fail("elastic_cfl", fmt::format("must be > 0 (got {})", s.elastic_cfl));
  if (s.rebuild_period < 1)
    fail("rebuild_period", fmt::format("must be >= 1 (got {})", s.rebuild_period));
  for (int a = 0; a < 3; ++a) {
    const double cells = (s.domain_max[a] - s.domain_min[a]) / s.dx;
    if (!(cells >= 2 * kWallBandCells))
      fail(fmt::format("domain_max.{}", kAxis[a]),
           fmt::format("must exceed domain_min.{} by at least {} cells (got {} cells)", kAxis[a],
                       2 * kWallBandCells, cells));
    if (cells / kBlockEdge > kBlockCoordMax)
      fail(fmt::format("domain.{}", kAxis[a]),
           fmt::format("spans {} cells, more than the block hash addresses ({})", cells,
                       double(kBlockCoordMax) * kBlockEdge));
  }
  if (s.materials.empty()) fail("materials", "must list at least one material");
  for (std::size_t i = 0; i < s.sources.size(); ++i) {
    const Source& src = s.sources[i];
    const std::string key = fmt::format("sources[{}] ('{}')", i, src.name);
    if (src.material < 0 || src.material >= int(s.materials.size()))
      fail(key + ".material",
           fmt::format("is {}, but the scene has {} materials", src.material, s.materials.size()));
    if (!(src.particles_per_cell > 0))
      fail(key + ".particles_per_cell",
           fmt::format("must be > 0 (got {})", src.particles_per_cell));
    if (s.g2p2g && src.emit_interval > 0)
      fail("g2p2g", fmt::format("cannot be used with the emitter {}: the fused kernel has no place "
                                "to add particles between G2P and P2G (paper 000 §4.2)",
                                key));
  }
  for (std::size_t i = 0; i < s.materials.size(); ++i)
    if (!(s.materials[i].density > 0))
      fail(fmt::format("materials[{}] ('{}').density", i, s.materials[i].name),
           fmt::format("must be > 0 (got {})", s.materials[i].density));
}

void Solver::Impl::build_tables() {
  const double cell = scene.dx * scene.dx * scene.dx;
  classes_host.clear();
  double wave = 0, min_mass = 1e300;
  for (const Source& src : scene.sources) {
    ParticleClass c;
    c.material = make_material_params<float>(scene.materials[std::size_t(src.material)]);
    c.volume0 = float(cell / src.particles_per_cell);
    c.mass =
        float(scene.materials[std::size_t(src.material)].density * cell / src.particles_per_cell);
    c.scene_material = src.material;
    classes_host.push_back(c);
    wave = std::max(wave, double(c.material.wave_speed));
    min_mass = std::min(min_mass, double(c.mass));
  }
  if (!classes_host.empty()) {
    classes = DeviceBuffer<ParticleClass>(exec, Index(classes_host.size()), "mpm materials");
    classes.upload(classes_host);
  }
  std::vector<ColliderParams<float>> col;
  for (const Collider& c : scene.colliders) col.push_back(make_collider_params<float>(c));
  if (!col.empty()) {
    colliders = DeviceBuffer<ColliderParams<float>>(exec, Index(col.size()), "mpm colliders");
    colliders.upload(col);
  }

  step_params.dx = float(scene.dx);
  step_params.cfl = float(scene.cfl);
  step_params.elastic_cfl = float(scene.elastic_cfl);
  step_params.wave_speed = float(wave);
  step_params.max_dt = float(scene.max_dt);
  step_params.fixed_dt = float(scene.fixed_dt);
  step_params.rebuild_period = scene.rebuild_period;

  GridUpdateParams<float>& u = gargs.update;
  u.gravity = to_vec3<float>(scene.gravity);
  u.domain_min = to_vec3<float>(scene.domain_min);
  u.domain_max = to_vec3<float>(scene.domain_max);
  u.band = float(kWallBandCells * scene.dx);
  u.domain_wall = scene.domain_wall;
  u.domain_friction = float(scene.domain_friction);
  u.min_mass = float(kMinNodeMassFraction * (min_mass < 1e300 ? min_mass : 0.0));
  gargs.n_colliders = int(col.size());

  for (int a = 0; a < 3; ++a) {
    targs.origin[a] = rargs.origin[a] = gargs.origin[a] = float(scene.domain_min[a]);
    targs.clamp_lo[a] = float(scene.domain_min[a] + kClampCells * scene.dx);
    targs.clamp_hi[a] = float(scene.domain_max[a] - kClampCells * scene.dx);
  }
  targs.dx = gargs.dx = float(scene.dx);
  targs.inv_dx = rargs.inv_dx = float(1.0 / scene.dx);
  targs.asflip = scene.transfer == Transfer::asflip;
  targs.flip = float(scene.asflip_flip);
  targs.advect = float(scene.asflip_advect);
  rargs.sort = options.sort_particles;
  rargs.order = static_cast<int>(options.sort_order);
  rargs.sort_every = options.sort_every;
  targs.vector_atomics = options.vector_atomics;
  targs.warp_reduce = options.warp_reduce;
  targs.shared_p2g = options.shared_p2g;
  targs.launch = int(options.transfer_launch);
  targs.split_force = scene.transfer == Transfer::asflip || scene.g2p2g;

  emissions.clear();
  for (const Source& src : scene.sources) emissions.push_back(emission_times(src));
  next_emission.assign(scene.sources.size(), 0);
}

NewParticles Solver::Impl::collect_due(double t) {
  NewParticles add;
  for (std::size_t s = 0; s < scene.sources.size(); ++s) {
    const Source& src = scene.sources[s];
    const float plastic = material_initial_plastic(classes_host[s].material);
    // 1e-9 s absorbs the round-off between frame times and emission times.
    while (next_emission[s] < emissions[s].size() && emissions[s][next_emission[s]] <= t + 1e-9) {
      ++next_emission[s];
      const std::vector<Vec3d> pts = sample_source(src, scene.dx);
      for (const Vec3d& p : pts) {
        for (int a = 0; a < 3; ++a) {
          add.x.push_back(std::clamp(float(p[a]), targs.clamp_lo[a], targs.clamp_hi[a]));
          add.v.push_back(float(src.velocity[a]));
        }
        add.plastic.push_back(plastic);
        add.material.push_back(int(s));
      }
    }
  }
  return add;
}

void Solver::Impl::append_new(const NewParticles& add, double t, bool check_max) {
  const Index count = Index(add.count());
  if (count == 0) return;
  const long long total = (long long)particles.size() + count;
  if (check_max && scene.max_particles > 0 && total > scene.max_particles)
    throw Error(
        fmt::format("MPM scene '{}': particle capacity overflow at t = {} s: {} particles "
                    "needed ({} present + {} emitted), max_particles is {}",
                    scene.name, t, total, particles.size(), count, scene.max_particles));
  // Room for the new particles' blocks before they are binned (a rebuild follows at once).
  const double origin[3] = {scene.domain_min[0], scene.domain_min[1], scene.domain_min[2]};
  grid.ensure(last_num_blocks + SparseGrid::count_blocks(add.x, origin, scene.dx));
  particles.append(add);
  request_rebuild();  // new particles have no block yet
}

void Solver::Impl::replace_particles(const HostParticles& p) {
  const double origin[3] = {scene.domain_min[0], scene.domain_min[1], scene.domain_min[2]};
  grid.ensure(SparseGrid::count_blocks(p.x, origin, scene.dx));
  particles.replace(p);
  request_rebuild();   // the particles have no block yet
  speed_stale = true;  // nor has any G2P folded their speeds in
}

Index Solver::Impl::emit_due(double t) {
  const NewParticles add = collect_due(t);
  append_new(add, t, true);
  return Index(add.count());
}

void Solver::Impl::refresh_args() {
  step_params.grow_blocks = grid.block_capacity() / 4 * 3;
  targs.particles = particles.size();
  targs.classes = classes.data();
  targs.wave_max = &control()->cmax;
  rargs.particles = particles.size();
  gargs.colliders = colliders.data();
}

void Solver::Impl::configure_lagged(bool on, bool split_force) {
  if (split_force && !targs.split_force) {
    grid = SparseGrid(exec, scene.transfer == Transfer::asflip, true);
    targs.split_force = true;
  }
  grid.set_double_accum(on);
  step_params.lagged = on ? 1 : 0;
  targs.zone_margin = on ? 1 : 0;
  // The shared-arena P2G writes the first accumulator only.
  targs.shared_p2g = on ? false : options.shared_p2g;
}

}  // namespace silt::mpm
