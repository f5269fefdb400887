// Zero-copy access to a part's particles between frames (solver.hpp, PartParticles): the
// pointers of its ParticleStore, after the device has finished the frame's work on them.
#include <fmt/format.h>

#include "silt/core/error.hpp"
#include "silt/mpm/solver.hpp"
#include "silt/mpm/solver_impl.hpp"

namespace silt::mpm {

PartParticles Solver::part_particles(int k) const {
  const Impl& m = *impl_;
  if (k < 0 || k >= int(m.parts.size()))
    throw Error(fmt::format("MPM scene '{}': part {} does not exist ({} part{} in this process)",
                            m.scene.name, k, m.parts.size(), m.parts.size() == 1 ? "" : "s"));
  Part& p = *m.parts[std::size_t(k)];
  fence(p.exec());
  const ParticleView v = p.particle_view();
  PartParticles out;
  out.exec = p.exec();
  out.count = p.particle_count();
  out.position = v.x;
  out.velocity = v.v;
  out.deformation_gradient = v.f;
  out.plastic = v.plastic;
  out.material = v.material;
  out.id = v.id;
  return out;
}

}  // namespace silt::mpm
