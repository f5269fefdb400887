// The pieces of io/mpm/scene_file.cpp's loader: vectors, names, and the lists (materials, sources,
// colliders) read in io/mpm/scene_objects.cpp. Internal to silt::io.
#pragma once

#include <string>

#include "silt/io/json_keys.hpp"
#include "silt/io/mpm/scene_file.hpp"

namespace silt::io::mpm_detail {

/// [x, y, z] of three finite numbers; `units` goes into the message ("m", "m/s"). dims = 2: [x, y]
/// of a 2D scene, z = 0.
mpm::Vec3d read_vec3(Keys& k, const std::string& key, const char* units, int dims = 3);
mpm::Vec3d read_vec3(Keys& k, const std::string& key, const mpm::Vec3d& fallback, const char* units,
                     int dims = 3);
/// The Coulomb coefficient of a domain wall or collider whose scene gives none: 0.5, a rough box
/// (dry sand on wood or painted steel is 0.4-0.6, tan of a 22-31 degree wall friction angle). A
/// frictionless default let a sand pile spread along the floor like a liquid (35-degree sand: 0.03 m
/// high after 0.5 s, 0.078 m with 0.5); fluids' scenes give 0.
constexpr double kDefaultWallFriction = 0.5;

/// A wall condition: "sticky", "slip", "separate" or "friction" (separate with Coulomb friction),
/// as a string or {"type": ..., "friction": mu}; `friction` is the coefficient when none is given.
mpm::Wall read_wall(Keys& k, const std::string& key, double friction);

/// "materials": [{"name", "kind", parameters...}] into scene.materials.
void read_materials(Keys& root, mpm::Scene& scene);
/// "sources": [...] into scene.sources (materials already read; mesh paths resolved).
void read_sources(Keys& root, mpm::Scene& scene);
/// "colliders": [...] into scene.colliders.
void read_colliders(Keys& root, mpm::Scene& scene);
/// "contact": {"bodies": [a, b], "friction", "gap"} into scene.contact (sources already read).
void read_contact(Keys& root, mpm::Scene& scene);

}  // namespace silt::io::mpm_detail
