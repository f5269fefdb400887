// Scene -> a part's device tables and kernel arguments; scene validation; particles in and out.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "silt/core/error.hpp"
#include "silt/mpm/mesh/sdf.hpp"
#include "silt/mpm/part.hpp"
#include "silt/mpm/scene_params.hpp"

namespace silt::mpm {

namespace {
constexpr const char* kAxis[3] = {"x", "y", "z"};
/// Fewest cells a domain spans along each of its axes.
constexpr double kMinDomainCells = 2.0;
/// A node this many cells from a wall's face or a collider's surface counts as on it (the last node
/// inside a face that is a whole number of cells from the origin is on it, up to round-off).
constexpr double kFaceToleranceCells = 1e-3;
/// Nodes lighter than this fraction of the lightest particle count as empty.
constexpr double kMinNodeMassFraction = 1e-9;
}  // namespace

/// Scene::contact: what the multi-field contact (contact.hpp) takes.
template <class Fail>
void validate_contact(const Scene& s, const Fail& fail) {
  const Contact& c = s.contact;
  if (!c.enabled()) return;
  if (c.bodies.size() != 2) fail("contact.bodies", "must name two bodies");
  if (c.first_body.size() != s.sources.size())
    fail("contact.bodies", fmt::format("assigns {} sources to a body; the scene has {}",
                                       c.first_body.size(), s.sources.size()));
  if (!(c.friction >= 0))
    fail("contact.friction", fmt::format("must be >= 0 (got {})", c.friction));
  if (!(c.gap >= 0 && c.gap <= 1))
    fail("contact.gap", fmt::format("must lie in [0, 1] cell (got {})", c.gap));
  if (s.g2p2g)
    fail("contact",
         "cannot be combined with performance.g2p2g (the fused kernel has one velocity "
         "field per node); set g2p2g to false");
  if (s.deterministic)
    fail("contact",
         "cannot be combined with performance.deterministic (the contact grid sums in "
         "floating point); set deterministic to false");
}

void validate(const Scene& s) {
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
  if (s.dimensions != 2 && s.dimensions != 3)
    fail("dimensions", fmt::format("must be 2 or 3 (got {})", s.dimensions));
  if (!(s.damping >= 0 && s.damping < 1))
    fail("damping", fmt::format("must lie in [0, 1) (got {})", s.damping));
  for (std::size_t f = 0; f < s.walls.size(); ++f)
    if (!(s.walls[f].friction >= 0))
      fail(fmt::format("walls[{}].friction", f),
           fmt::format("must be >= 0 (got {})", s.walls[f].friction));
  for (int a = 0; a < s.dimensions; ++a) {
    const double cells = (s.domain_max[a] - s.domain_min[a]) / s.dx;
    if (!(cells >= kMinDomainCells))
      fail(fmt::format("domain_max.{}", kAxis[a]),
           fmt::format("must exceed domain_min.{} by at least {} cells (got {} cells)", kAxis[a],
                       kMinDomainCells, cells));
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
  validate_contact(s, fail);
}

SourceTables source_tables(const Scene& scene) {
  SourceTables t;
  for (const Source& src : scene.sources)
    t.initial_plastic.push_back(material_initial_plastic(
        make_material_params<float>(scene.materials[std::size_t(src.material)])));
  // Particles stay in the box, faces included; a 2D scene's stay in its plane.
  for (int a = 0; a < 3; ++a) {
    t.clamp_lo[a] = float(scene.domain_min[a]);
    t.clamp_hi[a] = float(a < scene.dimensions ? scene.domain_max[a] : scene.domain_min[a]);
  }
  return t;
}

void Part::build_tables() {
  const Scene& s = scene_;
  const double cell = s.dx * s.dx * s.dx;
  double wave = 0, min_mass = 1e300;
  for (std::size_t i = 0; i < s.sources.size(); ++i) {
    const Source& src = s.sources[i];
    ParticleClass c;
    c.material = make_material_params<float>(s.materials[std::size_t(src.material)]);
    c.volume0 = float(cell / src.particles_per_cell);
    c.mass = float(s.materials[std::size_t(src.material)].density * cell / src.particles_per_cell);
    c.scene_material = src.material;
    c.first_body = s.contact.enabled() ? s.contact.first_body[i] : 0;
    classes_host_.push_back(c);
    wave = std::max(wave, double(c.material.wave_speed));
    min_mass = std::min(min_mass, double(c.mass));
  }
  if (!classes_host_.empty()) {
    classes_ = DeviceBuffer<ParticleClass>(exec_, Index(classes_host_.size()), "mpm materials");
    classes_.upload(classes_host_);
  }
  meshes_.clear();
  meshes_.resize(s.colliders.size());
  for (std::size_t i = 0; i < s.colliders.size(); ++i) {
    Collider& c = scene_.colliders[i];
    if (c.kind != ColliderKind::mesh) continue;
    if (!c.sdf) c.sdf = build_mesh_sdf(c, s);  // a part made without a solver (tests)
    const MeshSdf& m = *c.sdf;
    MeshTables& t = meshes_[i];
    t.frames = DeviceBuffer<SdfFrame>(exec_, Index(m.frames.size()), "mpm mesh sdf frames");
    t.frames.upload(m.frames);
    t.bricks = DeviceBuffer<int>(exec_, Index(m.bricks.size()), "mpm mesh sdf bricks");
    t.bricks.upload(m.bricks);
    t.voxels = DeviceBuffer<float>(exec_, Index(m.voxels.size()), "mpm mesh sdf voxels");
    t.voxels.upload(m.voxels);
    if (!m.keys.empty()) {
      t.keys = DeviceBuffer<RigidSegment>(exec_, Index(m.keys.size()), "mpm mesh keys");
      t.keys.upload(m.keys);
    }
    t.view = mesh_view(m, t.frames.data(), t.bricks.data(), t.voxels.data(),
                       m.keys.empty() ? nullptr : t.keys.data());
  }
  const std::vector<ColliderParams<float>> col = collider_table(s.colliders);
  if (!col.empty()) {
    colliders_ = DeviceBuffer<ColliderParams<float>>(exec_, Index(col.size()), "mpm colliders");
    colliders_.upload(col);
  }

  step_params_.dx = float(s.dx);
  step_params_.cfl = float(s.cfl);
  step_params_.elastic_cfl = float(s.elastic_cfl);
  step_params_.wave_speed = float(wave);
  step_params_.max_dt = float(s.max_dt);
  step_params_.fixed_dt = float(s.fixed_dt);
  step_params_.rebuild_period = s.rebuild_period;

  GridUpdateParams<float>& u = gargs_.update;
  u.gravity = to_vec3<float>(s.gravity);
  u.domain_min = to_vec3<float>(s.domain_min);
  u.domain_max = to_vec3<float>(s.domain_max);
  u.face_tolerance = float(kFaceToleranceCells * s.dx);
  for (std::size_t f = 0; f < s.walls.size(); ++f)
    u.walls[f] = WallParams<float>{s.walls[f].kind, float(s.walls[f].friction)};
  u.dims = s.dimensions;
  u.damping = float(s.damping);
  u.min_mass = float(kMinNodeMassFraction * (min_mass < 1e300 ? min_mass : 0.0));
  gargs_.n_colliders = int(col.size());

  const SourceTables t = source_tables(s);
  for (int a = 0; a < 3; ++a) {
    targs_.clamp_lo[a] = t.clamp_lo[a];
    targs_.clamp_hi[a] = t.clamp_hi[a];
  }
  GridGeometry geo;
  for (int a = 0; a < 3; ++a) geo.origin[a] = float(s.domain_min[a]);
  geo.dx = float(s.dx);
  geo.inv_dx = float(1.0 / s.dx);
  targs_.geo = gargs_.geo = rargs_.geo = geo;
  targs_.asflip = s.transfer == Transfer::asflip;
  targs_.flip = float(s.asflip_flip);
  targs_.advect = float(s.asflip_advect);
  targs_.split_force = split_force_channels(s);
  targs_.dims = rargs_.dims = s.dimensions;
  targs_.n_colliders = gargs_.n_colliders;
}

std::vector<ColliderParams<float>> Part::collider_table(
    const std::vector<Collider>& colliders) const {
  std::vector<ColliderParams<float>> col;
  for (std::size_t i = 0; i < colliders.size(); ++i) {
    col.push_back(make_collider_params<float>(colliders[i]));
    if (colliders[i].kind == ColliderKind::mesh) col.back().mesh = meshes_[i].view;
  }
  return col;
}

void Part::set_colliders(const std::vector<Collider>& colliders) {
  if (colliders.size() != scene_.colliders.size())
    throw Error(fmt::format("MPM scene '{}': {} colliders for a table of {}", scene_.name,
                            colliders.size(), scene_.colliders.size()));
  scene_.colliders = colliders;
  const std::vector<ColliderParams<float>> col = collider_table(colliders);
  if (col.empty()) return;
  colliders_.upload(col);
  fence(exec_);  // col is a temporary
}

void Part::set_physics(const Vec3d& gravity, const std::vector<Material>& materials) {
  fence(exec_);  // no step still reads the table
  scene_.gravity = gravity;
  scene_.materials = materials;
  double wave = 0;
  for (std::size_t k = 0; k < classes_host_.size(); ++k) {
    ParticleClass& c = classes_host_[k];
    c.material = make_material_params<float>(materials[std::size_t(c.scene_material)]);
    wave = std::max(wave, double(c.material.wave_speed));
  }
  if (!classes_host_.empty()) {
    classes_.upload(classes_host_);
    fence(exec_);
  }
  step_params_.wave_speed = float(wave);
  gargs_.update.gravity = to_vec3<float>(gravity);
}

void Part::refresh_args() {
  step_params_.grow_blocks = grid_.block_capacity() / 4 * 3;
  targs_.particles = particles_.size();
  targs_.classes = classes_.data();
  targs_.wave_max = &control()->cmax;
  rargs_.particles = particles_.size();
  gargs_.colliders = targs_.colliders = colliders_.data();
}

void Part::add(const NewParticles& p) {
  if (p.count() == 0) return;
  // Room for the new particles' blocks before they are binned (a rebuild follows at once).
  const double origin[3] = {scene_.domain_min[0], scene_.domain_min[1], scene_.domain_min[2]};
  grid_.ensure(last_num_blocks_ +
               SparseGrid::count_blocks(p.x, origin, scene_.dx, scene_.dimensions));
  particles_.append(p);
  request_rebuild();  // new particles have no block yet
  speed_stale_ = true;
}

void Part::add_emissions(const std::vector<Emission>& e, const Emitter& emitter) {
  if (e.empty()) return;
  const double origin[3] = {scene_.domain_min[0], scene_.domain_min[1], scene_.domain_min[2]};
  // The rows of a sample a piece takes, on the host (all of it when rows is empty).
  const auto positions = [&](const Emission& piece) {
    const std::vector<float>& x = emitter.sample(piece.copies_of).x;
    if (piece.rows.empty()) return x;
    std::vector<float> some;
    some.reserve(3 * piece.rows.size());
    for (int r : piece.rows)
      some.insert(some.end(), &x[3 * std::size_t(r)], &x[3 * std::size_t(r) + 3]);
    return some;
  };
  samples_.resize(scene_.sources.size());
  for (const Emission& piece : e) {
    if (piece.copies_of < 0) continue;
    DeviceSample& d = samples_[std::size_t(piece.copies_of)];
    const SourceSample& from = emitter.sample(piece.copies_of);
    if (d.x.size() == 0 && !from.x.empty()) {
      d.x = DeviceBuffer<float>(exec_, Index(from.x.size()), "emitter sample x");
      d.x.upload(from.x);
      d.blocks = SparseGrid::count_blocks(from.x, origin, scene_.dx, scene_.dimensions);
    }
    if (!piece.rows.empty() && piece.rows != d.rows_host) {
      d.rows_host = piece.rows;
      d.rows = DeviceBuffer<int>(exec_, Index(piece.rows.size()), "emitter sample rows");
      d.rows.upload(piece.rows);
      d.rows_blocks =
          SparseGrid::count_blocks(positions(piece), origin, scene_.dx, scene_.dimensions);
    }
  }
  // Room for the blocks of everything added, counted once where pieces overlap (as one add of
  // all of them counts): a sample's own count when copies of it are all there is.
  const Emission& first = e.front();
  const bool one_sample = std::all_of(e.begin(), e.end(), [&first](const Emission& p) {
    return first.copies_of >= 0 && p.copies_of == first.copies_of;
  });
  Index blocks = 0;
  if (one_sample) {
    const DeviceSample& d = samples_[std::size_t(first.copies_of)];
    blocks = first.rows.empty() ? d.blocks : d.rows_blocks;
  } else {
    std::vector<float> x;
    std::vector<bool> seen(scene_.sources.size(), false);
    for (const Emission& piece : e) {
      if (piece.copies_of < 0) {
        x.insert(x.end(), piece.given.x.begin(), piece.given.x.end());
        continue;
      }
      if (seen[std::size_t(piece.copies_of)]) continue;  // the same rows again
      seen[std::size_t(piece.copies_of)] = true;
      const std::vector<float> px = positions(piece);
      x.insert(x.end(), px.begin(), px.end());
    }
    blocks = SparseGrid::count_blocks(x, origin, scene_.dx, scene_.dimensions);
  }
  grid_.ensure(last_num_blocks_ + blocks);
  for (const Emission& piece : e) {
    if (piece.copies_of < 0) {
      particles_.append(piece.given);
      continue;
    }
    const SourceSample& from = emitter.sample(piece.copies_of);
    const DeviceSample& d = samples_[std::size_t(piece.copies_of)];
    const bool some = !piece.rows.empty();
    particles_.append_copies(d.x.data(), some ? d.rows.data() : nullptr,
                             Index(some ? piece.rows.size() : from.count()), from.v, from.plastic,
                             from.material, piece.first_id);
  }
  request_rebuild();  // new particles have no block yet
  speed_stale_ = true;
}

void Part::replace(const HostParticles& p) {
  const double origin[3] = {scene_.domain_min[0], scene_.domain_min[1], scene_.domain_min[2]};
  grid_.ensure(SparseGrid::count_blocks(p.x, origin, scene_.dx, scene_.dimensions));
  particles_.replace(p);
  request_rebuild();    // the particles have no block yet
  speed_stale_ = true;  // nor has any G2P folded their speeds in
}

HostParticles Part::download_all() const {
  fence(exec_);
  return particles_.download_all();
}

void Part::configure_lagged(bool on, bool split_force) {
  if (split_force && !targs_.split_force) {
    grid_ = make_grid(true);
    targs_.split_force = true;
  }
  grid_.set_double_accum(on);
  step_params_.lagged = on ? 1 : 0;
  targs_.zone_margin = on ? 1 : 0;
}

}  // namespace silt::mpm
