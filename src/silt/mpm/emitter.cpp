#include "silt/mpm/emitter.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "silt/core/error.hpp"

#include "silt/mpm/part.hpp"
#include "silt/mpm/sampling/sample_source.hpp"

namespace silt::mpm {

Emitter::Emitter(const Scene& scene) : scene_(&scene) {
  const SourceTables t = source_tables(scene);
  initial_plastic_ = t.initial_plastic;
  std::copy(t.clamp_lo, t.clamp_lo + 3, clamp_lo_);
  std::copy(t.clamp_hi, t.clamp_hi + 3, clamp_hi_);
  for (const Source& src : scene.sources) times_.push_back(emission_times(src));
  next_.assign(scene.sources.size(), 0);
}

NewParticles Emitter::take_due(double t) {
  NewParticles add;
  for (std::size_t s = 0; s < scene_->sources.size(); ++s) {
    const Source& src = scene_->sources[s];
    // 1e-9 s absorbs the round-off between frame times and emission times.
    while (next_[s] < times_[s].size() && times_[s][next_[s]] <= t + 1e-9) {
      ++next_[s];
      for (const Vec3d& p : sample_source(src, scene_->dx, scene_->dimensions)) {
        for (int a = 0; a < 3; ++a) {
          add.x.push_back(std::clamp(float(p[a]), clamp_lo_[a], clamp_hi_[a]));
          add.v.push_back(float(src.velocity[a]));
        }
        add.plastic.push_back(initial_plastic_[s]);
        add.material.push_back(int(s));
        add.id.push_back(next_id_++);
      }
    }
  }
  return add;
}

void Emitter::restore(const Progress& p) {
  if (p.next.size() != next_.size() || p.next_id < 0)
    throw Error(fmt::format("MPM scene '{}': emitter state of {} sources for {} sources",
                            scene_->name, p.next.size(), next_.size()));
  for (std::size_t s = 0; s < next_.size(); ++s)
    if (p.next[s] > times_[s].size())
      throw Error(fmt::format("MPM scene '{}': source {} has {} emissions, not {}", scene_->name, s,
                              times_[s].size(), p.next[s]));
  next_ = p.next;
  next_id_ = p.next_id;
}

}  // namespace silt::mpm
