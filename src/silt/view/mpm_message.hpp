// An MPM frame for the page: positions quantised to uint16 in the domain box (a step of
// 1/65535 of the box, 15 um in a 1 m box), the material index, and every other attribute the
// frame holds (speed, pressure, von Mises stress, the plastic measure) quantised to uint16 over
// the frame's [lo, hi], so that the page colours by any of them and reads a particle's value. Large frames are decimated on the host to a budget: a
// particle is kept when a hash of its stable id falls under budget / count, so the same particles
// stay on screen from frame to frame (no flicker) and the subset is uniform in space.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

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

/// One particle attribute of a frame, a value per particle.
struct Attribute {
  std::string name;   // "speed", "pressure", "von_mises", "plastic"
  std::string units;  // "m/s", "Pa", "-"
  std::vector<float> values;
};

/// The attributes `p` holds besides position and material: speed (with velocities), pressure
/// (-trace / 3) and von Mises stress (with stress), plastic (log J_p or alpha).
std::vector<Attribute> mpm_attributes(const mpm::ParticleFrame& p);

/// Encodes `p` with at most about `budget` particles (budget >= p.count(): all of them).
/// Header: type "mpm", frame, time, steps, total (particles in the run), count (sent), box
/// [min, max] (m), speed_max (m/s), full (nothing left out), attributes [{name, units, lo, hi}].
/// Payload: count x 3 uint16 (x y z), count uint8 material, then count uint16 per attribute
/// (v = lo + q / 65535 x (hi - lo); a value that is not finite is sent as hi).
std::string encode_mpm(const mpm::ParticleFrame& p, const mpm::Scene& scene, const FrameInfo& info,
                       std::size_t budget);

/// Whether particle `id` is in the subset that keeps `fraction` (0..1) of them.
bool keeps(std::int32_t id, double fraction);

}  // namespace silt::view
