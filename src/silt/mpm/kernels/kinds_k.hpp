// The kinds of material, wall and collider, one set of enums shared by the scene (scene.hpp) and
// the kernels: the scene's values reach the device as they are, with no mirror to keep in step.
// int32 so that the device parameter structs have the same layout on every compiler.
#pragma once

#include <cstdint>

namespace silt::mpm {

/// Constitutive model of a material (material_k.hpp dispatches on it).
enum class MaterialKind : std::int32_t {
  fixed_corotated,  // elastic solid (jelly): Stomakhin et al. 2012
  fluid,            // weakly compressible fluid (water): Tait equation of state on J
  drucker_prager,   // sand: Klar et al. 2016, plasticity on the Hencky strain
  nacc              // snow: non-associated Cam-Clay, Wolper et al. 2019
};

/// Boundary condition of a wall (grid_update_k.hpp: apply_wall).
enum class WallKind : std::int32_t { sticky, slip, separate };

/// Shape of a collider: analytic (grid_update_k.hpp) or a triangle mesh's distance field
/// (mesh_sdf_k.hpp).
enum class ColliderKind : std::int32_t { plane, sphere, box, cylinder, mesh };

/// The scene file's name of a collider kind ("plane", ..., "mesh").
inline const char* collider_kind_name(ColliderKind k) {
  switch (k) {
    case ColliderKind::plane:
      return "plane";
    case ColliderKind::sphere:
      return "sphere";
    case ColliderKind::box:
      return "box";
    case ColliderKind::cylinder:
      return "cylinder";
    case ColliderKind::mesh:
      return "mesh";
  }
  return "unknown";
}

}  // namespace silt::mpm
