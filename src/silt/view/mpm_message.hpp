// An MPM frame for the page: positions quantised to uint16 in the domain box (a step of
// 1/65535 of the box, 15 um in a 1 m box), the material index and the speed quantised to uint8
// over [0, the frame's largest speed]. Large frames are decimated on the host to a budget: a
// particle is kept when a hash of its stable id falls under budget / count, so the same particles
// stay on screen from frame to frame (no flicker) and the subset is uniform in space.
#pragma once

#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "silt/mpm/particle_frame.hpp"
#include "silt/mpm/scene.hpp"

namespace silt::view {

struct FrameInfo {
  long frame = 0;       // output frame index
  double time = 0;      // simulated time, s
  long long steps = 0;  // steps so far
};

/// The scene as the page draws it: domain box, colliders, material names and colours.
nlohmann::json describe_mpm(const mpm::Scene& scene);

/// Encodes `p` with at most about `budget` particles (budget >= p.count(): all of them).
/// Header: type "mpm", frame, time, steps, total (particles in the run), count (sent), box
/// [min, max] (m), speed_max (m/s), full (nothing left out). Payload: count x 3 uint16 (x y z),
/// count uint8 material, count uint8 speed.
std::string encode_mpm(const mpm::ParticleFrame& p, const mpm::Scene& scene, const FrameInfo& info,
                       std::size_t budget);

/// Whether particle `id` is in the subset that keeps `fraction` (0..1) of them.
bool keeps(std::int32_t id, double fraction);

}  // namespace silt::view
