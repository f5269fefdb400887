// A quick look at a particle frame without a 3D package: each particle is a small shaded sphere
// impostor seen by a pinhole camera, coloured by material, darkened with depth, with the colliders
// as grey surface points and the outline of the simulation box. Pure software (no libpng here, see
// io/image/splat_png.hpp); a few ms per 100K particles.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "silt/mpm/particle_frame.hpp"
#include "silt/mpm/scene.hpp"

namespace silt::io {

using Rgb = std::array<std::uint8_t, 3>;

struct SplatImage {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;  // row-major, top row first, 3 bytes per pixel
  Rgb at(int x, int y) const {
    const std::size_t k = 3 * (std::size_t(y) * width + x);
    return {rgb[k], rgb[k + 1], rgb[k + 2]};
  }
};

struct SplatCamera {
  mpm::Vec3d eye{0, 0, 1}, target{0, 0, 0}, up{0, 1, 0};  // m
  double fov_deg = 40;                                    // vertical field of view
};

struct SplatSettings {
  int width = 960, height = 540;  // pixels
  double radius = 0.0;            // particle splat radius, m (0: 0.35 dx of the scene)
  std::vector<Rgb> palette;       // colour per material index
  bool draw_domain = true;        // outline of the domain box
  bool draw_colliders = true;     // collider surfaces as grey points
  double time = 0.0;              // s: moving colliders are drawn where they are at this time
};

/// The default view: from the front (+z), a little right and above (against gravity), far enough
/// that the whole domain box fits the frame.
SplatCamera default_camera(const mpm::Scene& scene, double aspect);

/// Colour by material kind (sand tan, water blue, jelly red, snow white), varied by index so that
/// two materials of one kind differ.
Rgb material_colour(mpm::MaterialKind kind, int index);
std::vector<Rgb> material_palette(const mpm::Scene& scene);

/// Renders `frame`. Particles of unknown material index are grey.
SplatImage render_splats(const mpm::ParticleFrame& frame, const mpm::Scene& scene,
                         const SplatCamera& camera, const SplatSettings& settings);

}  // namespace silt::io
