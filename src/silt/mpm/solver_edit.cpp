// mpm::Solver's changes between frames (solver.hpp): particles added, colliders moved, gravity and
// material parameters set by the caller (the Python package's add_particles, set_collider,
// set_gravity and set_material).
#include <fmt/format.h>

#include <cmath>

#include "silt/core/error.hpp"
#include "silt/mpm/solver_impl.hpp"

namespace silt::mpm {

int Solver::add_particles(int source, const std::vector<float>& x, const std::vector<float>& v) {
  Impl& m = *impl_;
  const double t = m.parts.front()->read_control().time;
  const Emitter::Progress before = m.emitter.progress();
  NewParticles add = m.emitter.take_given(source, x, v);
  const int first = before.next_id;
  try {
    m.distribute(std::move(add), t, "added");
  } catch (...) {
    m.emitter.restore(before);  // ids are not used up by particles that were refused
    throw;
  }
  m.counts = m.balancer.counts(m.parts);
  m.stepping = false;  // a single step() prepares the parts again first
  return first;
}

void Solver::move_collider(std::size_t index, const Vec3d& at, const Vec3d& velocity) {
  Impl& m = *impl_;
  const std::string what = fmt::format("MPM scene '{}': move_collider", m.scene.name);
  if (index >= m.scene.colliders.size())
    throw Error(fmt::format("{}: collider {} does not exist (the scene has {})", what, index,
                            m.scene.colliders.size()));
  for (int a = 0; a < 3; ++a)
    if (!std::isfinite(at[std::size_t(a)]) || !std::isfinite(velocity[std::size_t(a)]))
      throw Error(fmt::format("{}: collider '{}': position and velocity must be finite", what,
                              m.scene.colliders[index].name));
  if (m.scene.colliders[index].kind == ColliderKind::mesh)
    throw Error(
        fmt::format("{}: collider '{}' is a mesh, which moves by its keyframes or frames "
                    "(colliders[{}].keys, .frames), not by move_collider",
                    what, m.scene.colliders[index].name, index));
  const double t = m.parts.front()->read_control().time;
  Collider& c = m.scene.colliders[index];
  // The kernels place a collider at initial + velocity t: store the initial position that puts
  // it at `at` now.
  Vec3d initial;
  for (std::size_t a = 0; a < 3; ++a) initial[a] = at[a] - velocity[a] * t;
  switch (c.kind) {
    case ColliderKind::plane:
      c.point = initial;
      break;
    case ColliderKind::sphere:
    case ColliderKind::cylinder:
      c.center = initial;
      break;
    case ColliderKind::mesh:
      break;  // refused above
    case ColliderKind::box:
      for (std::size_t a = 0; a < 3; ++a) {
        c.box_max[a] += initial[a] - c.box_min[a];
        c.box_min[a] = initial[a];
      }
      break;
  }
  c.velocity = velocity;
  m.each([&](Part& p, int k) {
    try {
      p.set_colliders(m.scene.colliders);
    } catch (const Error& e) {
      throw Error(m.name_part(e, k));
    }
  });
  m.collider_moved_at = t;
}

void Solver::set_physics(const Vec3d& gravity, const std::vector<Material>& materials) {
  Impl& m = *impl_;
  const std::string what = fmt::format("MPM scene '{}': set_physics", m.scene.name);
  for (int a = 0; a < 3; ++a)
    if (!std::isfinite(gravity[std::size_t(a)]))
      throw Error(fmt::format("{}: gravity must be finite", what));
  if (materials.size() != m.scene.materials.size())
    throw Error(fmt::format("{}: {} materials for a scene of {}", what, materials.size(),
                            m.scene.materials.size()));
  for (std::size_t i = 0; i < materials.size(); ++i) {
    const Material& now = m.scene.materials[i];
    if (materials[i].kind != now.kind)
      throw Error(fmt::format("{}: materials[{}] ('{}') cannot change its kind mid-run", what, i,
                              now.name));
    if (materials[i].density != now.density)
      throw Error(
          fmt::format("{}: materials[{}] ('{}').density cannot change mid-run: the "
                      "particles' mass was set from it ({} kg/m^3)",
                      what, i, now.name, now.density));
  }
  if (m.physics_set_at < 0) {
    m.scene_gravity = m.scene.gravity;
    m.scene_materials = m.scene.materials;
  }
  m.each([&](Part& p, int) { p.set_physics(gravity, materials); });
  m.scene.gravity = gravity;
  m.scene.materials = materials;
  m.graph_key = -1;  // the graphs baked in the gravity and wave speed: record them again
  m.physics_set_at = m.parts.front()->read_control().time;
}

}  // namespace silt::mpm
