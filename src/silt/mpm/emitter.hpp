// The particles a scene's sources add: every source once at t = 0, emitters again every
// emit_interval s (scene.hpp). The solver hands them to its parts (one part: all of them). A
// source that emits more than once emits the same sample each time: a part keeps it on its device
// and copies it there (Part::add_emissions), so an emission uploads nothing.
#pragma once

#include <cstddef>
#include <vector>

#include "silt/mpm/particles.hpp"
#include "silt/mpm/scene.hpp"

namespace silt::mpm {

/// One piece of what is due, in emission order: particles made on the host, or a copy of a
/// repeating source's sample (Emitter::sample), row r with id first_id + r.
struct Emission {
  NewParticles given;     // copies_of < 0: these particles
  int copies_of = -1;     // >= 0: a copy of this source's sample
  int first_id = 0;       // the copy's first id
  std::vector<int> rows;  // a split run's part: the rows it takes, ascending (empty: all)
};

/// A repeating source's sample, as every one of its emissions adds it.
struct SourceSample {
  std::vector<float> x;   // 3 per particle, m, clamped to the domain
  float v[3] = {};        // m/s, the source's velocity
  std::vector<float> vs;  // m/s, 3 per particle where they differ (a points source), else empty
  float plastic = 0;      // initial plastic state
  int material = 0;       // material-table index (the source's)
  std::size_t count() const { return x.size() / 3; }
};

class Emitter {
 public:
  explicit Emitter(const Scene& scene);
  /// The particles of every emission due at or before t (s) not yet taken, in emission order,
  /// with stable ids numbered on from the last call (a particle's index at creation).
  NewParticles take_due(double t);
  /// The same, with a repeating source's emissions as copies of its sample (not expanded).
  std::vector<Emission> take_due_emissions(double t);
  /// The particles of `e`, as take_due gives them.
  NewParticles expand(std::vector<Emission> e) const;
  /// A repeating source's sample (made at its first emission by take_due_emissions).
  const SourceSample& sample(int s) const { return samples_[std::size_t(s)]; }
  /// Particles given by the caller between frames (Solver::add_particles): x and v, 3 floats per
  /// particle, take source s's material and initial plastic state and the next stable ids. A 2D
  /// scene's are put in its plane. silt::Error names the first row that is not finite or lies
  /// outside the domain.
  NewParticles take_given(int s, const std::vector<float>& x, const std::vector<float>& v);

  /// Where the emissions stand (a checkpoint): per source the first emission not yet taken, and
  /// the next particle id.
  struct Progress {
    std::vector<std::size_t> next;
    int next_id = 0;
  };
  Progress progress() const { return Progress{next_, next_id_}; }
  /// Continues from p (silt::Error when it is not of this scene's sources).
  void restore(const Progress& p);

 private:
  const Scene* scene_;
  std::vector<float> initial_plastic_;         // per source
  float clamp_lo_[3] = {}, clamp_hi_[3] = {};  // m
  std::vector<std::vector<double>> times_;     // per source: emission times, s
  std::vector<std::size_t> next_;              // per source: first emission not yet taken
  // Per source that emits more than once: its sample, taken at the first emission and copied at
  // every later one (sampling is deterministic: the same points each time, minus the cost).
  std::vector<SourceSample> samples_;
  /// Source s's particles (one emission, or its sample) with positions clamped to the domain.
  SourceSample sample_of(std::size_t s) const;
  int next_id_ = 0;
};

}  // namespace silt::mpm
