// The material as a volume for rendering: OpenVDB float grid "density" and Vec3 grid "velocity",
// one volume_NNNN.vdb per frame (Blender: Import > OpenVDB; Houdini: File SOP).
//
// How they are computed: each particle p (mass m_p, initial volume V_p, velocity v_p) is splatted
// onto voxel centres x_i = origin + i h with the quadratic B-spline weights w_ip that the solver's
// P2G uses (3 voxels per axis, sum_i w_ip = 1, so no mass is lost or made):
//   density  "mass":     rho_i = sum_p w_ip m_p / h^3                  (kg/m^3)
//            "fraction": phi_i = sum_p w_ip V_p / h^3                  (-, ~1 inside material)
//   velocity             v_i   = sum_p w_ip m_p v_p / sum_p w_ip m_p    (m/s, mass-weighted)
// Voxels touched by no particle are inactive (background 0). m_p = rho dx^3 / ppc and V_p =
// dx^3 / ppc, with the particles-per-cell of the first source of the particle's material.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "silt/io/particles/file.hpp"

namespace silt::io {

enum class VolumeDensity { mass, fraction };

struct VolumeGrid {
  double voxel_size = 0;                  // h, m
  std::array<double, 3> origin{0, 0, 0};  // m, the centre of voxel (0, 0, 0)
  VolumeDensity density = VolumeDensity::mass;
  std::vector<double> particle_mass;    // kg, per material index
  std::vector<double> particle_volume;  // m^3, per material index
};

/// The splat in plain arrays (what write_volume_vdb stores), for tests and benchmarks: active
/// voxels' integer coordinates, density and velocity.
struct VolumeSamples {
  std::vector<std::array<int, 3>> voxel;
  std::vector<float> density;
  std::vector<std::array<float, 3>> velocity;
};

/// Writes grids "density" (class fog volume) and "velocity" to one .vdb atomically. Errors name
/// the file (and the particle whose material has no mass).
void write_volume_vdb(const std::string& path, const mpm::ParticleFrame& frame,
                      const ParticleFileInfo& info, const VolumeGrid& grid);

/// Reads a volume file written by write_volume_vdb back (OpenVDB's reader), for tests.
VolumeSamples read_volume_vdb(const std::string& path);

}  // namespace silt::io
