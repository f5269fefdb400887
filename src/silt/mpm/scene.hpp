// The MPM problem as plain, validated data: what io/ parses from a scene file and what the solver
// consumes. SI units throughout (the paper 000 scenes are in cgs; convert when reproducing them).
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "silt/mpm/kernels/kinds_k.hpp"

namespace silt::mpm {

using Vec3d = std::array<double, 3>;

struct Material {
  std::string name;
  MaterialKind kind = MaterialKind::fixed_corotated;
  double density = 1000.0;        // kg/m^3
  double youngs_modulus = 1.0e5;  // Pa (fixed_corotated, drucker_prager)
  double poisson_ratio = 0.3;     // - (fixed_corotated, drucker_prager, nacc)
  // fluid
  double bulk_modulus = 1.0e5;  // Pa
  double gamma = 7.0;           // Tait exponent
  double viscosity = 0.0;       // Pa s (dynamic)
  // drucker_prager
  double friction_angle = 30.0;  // degrees
  double cohesion = 0.0;         // - (Klár et al. eq. 27 shift of the yield surface in log strain)
  // nacc (Wolper et al. 2019 notation)
  double nacc_kappa = 5.0e5;   // Pa, bulk modulus
  double nacc_m = 0.8;         // friction coefficient M
  double nacc_beta = 0.9;      // cohesion coefficient beta
  double nacc_xi = 5.0;        // hardening coefficient xi
  double nacc_alpha0 = -0.04;  // initial log(-p0 / kappa)-type hardening state (alpha), see docs
};

/// points: particles given by the caller (Python's NumPy arrays), not sampled.
enum class Shape { box, sphere, cylinder, mesh, points };
enum class Sampling { jittered, poisson };

/// Particles filling a shape, one material, one initial velocity.
struct Source {
  std::string name;
  Shape shape = Shape::box;
  Vec3d box_min{0, 0, 0}, box_max{0, 0, 0};  // m (box)
  Vec3d center{0, 0, 0};                     // m (sphere; cylinder base centre)
  double radius = 0.0;                       // m (sphere, cylinder)
  Vec3d axis{0, 1, 0};                       // unit axis (cylinder)
  double height = 0.0;                       // m (cylinder)
  std::string mesh_path;                     // closed OBJ mesh (mesh)
  double mesh_scale = 1.0;                   // -
  Vec3d mesh_offset{0, 0, 0};                // m
  int material = 0;                          // index into Scene::materials
  Vec3d velocity{0, 0, 0};                   // m/s
  double particles_per_cell = 8.0;           // per dx^3
  Sampling sampling = Sampling::jittered;
  double jitter = 1.0;  // jittered: displacement as a fraction of the lattice spacing (0: regular)
  std::uint64_t seed = 1;
  // Emitters add the shape's particles again every `emit_interval` s between emit_start and
  // emit_end (0 interval: sampled once at t = 0).
  double emit_interval = 0.0, emit_start = 0.0, emit_end = 0.0;
  // points: x, y, z per particle (m; box_min/box_max hold their bounding box) and, when not null,
  // a velocity each (m/s; null: `velocity` for all). Shared, not copied, with the scene's copies
  // (every part keeps one).
  std::shared_ptr<const std::vector<double>> points, point_velocities;
  std::size_t point_count() const { return points ? points->size() / 3 : 0; }
};

/// The boundary condition of one face of the domain box (or of a collider's surface).
struct Wall {
  WallKind kind = WallKind::separate;
  double friction = 0.0;  // Coulomb coefficient (slip / separate), -
};

/// A keyframe of a mesh collider's rigid motion: x = R x_mesh + translation at `time`, R the
/// rotation by `angle` about `axis` (right-handed). Between keys the translation is linear and the
/// rotation turns at a constant rate about one axis (slerp); before the first key and after the
/// last the mesh holds its pose.
struct RigidKey {
  double time = 0;             // s
  Vec3d translation{0, 0, 0};  // m
  Vec3d axis{0, 1, 0};         // -
  double angle = 0;            // degrees
};

struct MeshSdf;  // mpm/mesh/sdf.hpp: the distance field built from a mesh collider's files

struct Collider {
  using Kind = ColliderKind;
  std::string name;
  Kind kind = Kind::plane;
  WallKind wall = WallKind::separate;
  double friction = 0.0;                     // Coulomb coefficient (slip / separate)
  Vec3d point{0, 0, 0}, normal{0, 1, 0};     // plane: point on it and outward normal
  Vec3d center{0, 0, 0};                     // sphere, cylinder (axis point)
  double radius = 0.0;                       // sphere, cylinder
  Vec3d axis{0, 1, 0};                       // cylinder (infinite)
  Vec3d box_min{0, 0, 0}, box_max{0, 0, 0};  // box (solid)
  Vec3d velocity{0, 0, 0};                   // m/s, prescribed rigid translation
  // mesh: one closed OBJ moved by `keys`, or a sequence of OBJ files with one vertex count at
  // `frame_times`; vertices scaled by mesh_scale, then mesh_offset added (m).
  std::vector<std::string> mesh_files;
  std::vector<double> frame_times;  // s, one per file of a sequence (increasing)
  std::vector<RigidKey> keys;
  double mesh_scale = 1.0;     // -
  Vec3d mesh_offset{0, 0, 0};  // m
  double voxel = 0.0;          // m, SDF voxel size (0: dx / 2)
  double grow = -1.0;          // m, the mesh grown by this (< 0: one dx)
  /// The distance field, built once from the files by build_mesh_sdf (solver setup) and shared by
  /// every part and copy of the scene.
  std::shared_ptr<const MeshSdf> sdf;
};

enum class Transfer { apic, asflip };

/// Contact between two bodies with a velocity field each where they meet (multi-field MPM,
/// Bardenhagen et al. 2000; docs/scenes-mpm.md, "Contact between bodies"). A body is a set of
/// sources: `first_body[s]` is 1 for the sources of the first named body; every other source is in
/// the second. Off when `bodies` is empty (one velocity per node, the default).
struct Contact {
  std::vector<std::string> bodies;  // the two names as the scene gives them (sources or materials)
  std::vector<int> first_body;      // per source: 1 in the first body, 0 in the second
  double friction = 0.0;            // Coulomb coefficient between the bodies, -
  double gap = 0.5;                 // cells: surfaces closer than this are in contact
  bool enabled() const { return !bodies.empty(); }
};

/// performance.deterministic when the scene leaves it out. The lead flips it to true once the GPU
/// cost table (bench/deterministic_cost.sh) shows the mode under ~10% (docs/NOTES.md).
inline constexpr bool kDeterministicDefault = false;

struct Scene {
  std::string name;
  /// 3, or 2: plane strain in the x-y plane. A 2D scene's particles and nodes lie in the plane z =
  /// domain_min.z (= domain_max.z); its sources are boxes and discs (spheres) there, sampled
  /// particles_per_cell per dx^2, each particle standing for a slab dx deep; z components are 0.
  int dimensions = 3;
  double dx = 1.0 / 128;        // m, grid spacing
  Vec3d domain_min{0, 0, 0};    // m, the faces of the simulation box: material stops there
  Vec3d domain_max{1, 1, 1};    // m
  std::array<Wall, 6> walls{};  // x-, x+, y-, y+, z-, z+: walls[2 axis + (upper face ? 1 : 0)]
  Vec3d gravity{0, -9.81, 0};   // m/s^2
  /// Local non-viscous damping coefficient alpha in [0, 1) (grid_update_k.hpp): 0 for dynamics;
  /// 0.05-0.8 to reach a static state (deposits, settling) sooner.
  double damping = 0.0;
  std::vector<Material> materials;
  std::vector<Source> sources;
  std::vector<Collider> colliders;

  Transfer transfer = Transfer::apic;
  double asflip_flip = 0.95;   // ASFLIP blend (Fei et al. 2021)
  double asflip_advect = 1.0;  // ASFLIP position correction weight
  double cfl = 0.5;            // particle-velocity CFL: dt <= cfl dx / |v|max
  double elastic_cfl = 0.5;    // dt <= elastic_cfl dx / c, c the material wave speed
  double max_dt = 1.0e-3;      // s
  double fixed_dt = 0.0;       // s; > 0 disables the adaptive dt
  double frame_dt = 1.0 / 60;  // s per output frame
  int rebuild_period = 8;      // steps between particle-block rebuilds (1: every step)
  bool g2p2g = false;          // fused G2P2G kernel (small counts, no emitters)
  /// CUDA: each frame as one CUDA graph per part (the default); false: plain launches, the same
  /// kernels in the same order, which a profiler can time one by one (SolverOptions::cuda_graph).
  bool cuda_graphs = true;
  /// P2G sums in 64-bit fixed point (fixed_sums.hpp): the same bits whatever the order of the
  /// adds (threads, GPU scheduling, part count, restarts). Default: kDeterministicDefault.
  bool deterministic = kDeterministicDefault;
  std::int64_t max_particles = 0;  // 0: sized from the sources; else a hard capacity
  Contact contact;                 // off unless the scene has "contact"
};

}  // namespace silt::mpm
