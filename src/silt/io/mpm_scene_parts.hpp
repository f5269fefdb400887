// The pieces of mpm_scene.cpp's loader: vectors, names, and the lists (materials, sources,
// colliders) read in mpm_scene_objects.cpp. Internal to silt::io.
#pragma once

#include <string>

#include "silt/io/json_keys.hpp"
#include "silt/io/mpm_scene.hpp"

namespace silt::io::mpm_detail {

/// [x, y, z] of three finite numbers; `units` goes into the message ("m", "m/s").
mpm::Vec3d read_vec3(Keys& k, const std::string& key, const char* units);
mpm::Vec3d read_vec3(Keys& k, const std::string& key, const mpm::Vec3d& fallback,
                     const char* units);

/// "materials": [{"name", "kind", parameters...}] into scene.materials.
void read_materials(Keys& root, mpm::Scene& scene);
/// "sources": [...] into scene.sources (materials already read; mesh paths resolved).
void read_sources(Keys& root, mpm::Scene& scene);
/// "colliders": [...] into scene.colliders.
void read_colliders(Keys& root, mpm::Scene& scene);

}  // namespace silt::io::mpm_detail
