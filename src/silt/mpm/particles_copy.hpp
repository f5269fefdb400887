// A frame's particles on their way to the host (mpm::Solver::particles_async): the copies were
// queued on the parts' streams behind the steps before, and the steps after do not wait for them
// to reach the host; get() does (an event per part, no device-wide wait), on whichever thread
// calls it (`silt run`'s writer thread), and orders the particles by id there.
#pragma once

#include <memory>
#include <utility>

#include "silt/mpm/particle_frame.hpp"

namespace silt::mpm {

/// Move-only; get() once. Dropped unread, it still waits for its copies (their host memory is
/// reused only then). An empty handle's get() is an empty frame.
class ParticlesCopy {
 public:
  /// What a solver fills in: waits for its copies and reads them out, in id order or as stored.
  struct Pending {
    virtual ~Pending() = default;
    virtual ParticleFrame get(bool id_order) = 0;
  };
  ParticlesCopy() = default;
  /// A frame already on the host (MPI: gathered to rank 0), ordered by get() when id_order.
  ParticlesCopy(ParticleFrame ready, bool id_order)
      : ready_(std::move(ready)), id_order_(id_order) {}
  ParticlesCopy(std::unique_ptr<Pending> pending, bool id_order)
      : pending_(std::move(pending)), id_order_(id_order) {}

  /// The frame: in stable id order (id_order) or part after part as stored.
  ParticleFrame get();

 private:
  ParticleFrame ready_;
  std::unique_ptr<Pending> pending_;
  bool id_order_ = false;
};

}  // namespace silt::mpm
