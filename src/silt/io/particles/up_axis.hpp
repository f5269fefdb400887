// The vertical axis of the files an MPM run writes. silt simulates with y up; Blender and
// Houdini-z scenes are z up. "z" turns every particle and volume output by +90 degrees about x,
// (x, y, z) -> (x, -z, y), a right-handed rotation (det +1, no mirror): positions, velocities and
// stresses (R S R^T) alike. The PNG preview keeps silt's axes (its camera is in scene
// coordinates).
#pragma once

#include <array>

#include "silt/mpm/particle_frame.hpp"

namespace silt::io {

enum class UpAxis { y, z };

/// A point or vector in the files' axes.
std::array<double, 3> to_up_axis(const std::array<double, 3>& v, UpAxis up);

/// The box [lo, hi] in the files' axes: its new lower and upper corners.
void box_to_up_axis(std::array<double, 3>& lo, std::array<double, 3>& hi, UpAxis up);

/// Rotates a frame's positions, velocities and stresses in place (ids, materials and the plastic
/// state are scalars and stay). No-op for UpAxis::y.
void frame_to_up_axis(mpm::ParticleFrame& frame, UpAxis up);

}  // namespace silt::io
