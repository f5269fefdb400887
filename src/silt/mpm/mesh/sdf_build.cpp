// build_mesh_sdf (mpm/mesh/sdf.hpp): OBJ -> OpenVDB narrow-band SDF -> silt's bricks. OpenVDB's
// part (add_mesh_frame) lives in silt's VDB module, opened on the first mesh collider
// (mpm/mesh/vdb_module.hpp), so that runs without one never load OpenVDB. Compiled by the host
// compiler only (src/silt/mpm/CMakeLists.txt).
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cmath>

#include "silt/core/error.hpp"
#include "silt/mpm/mesh/obj_mesh.hpp"
#include "silt/mpm/mesh/sdf.hpp"
#include "silt/mpm/mesh/self_intersections.hpp"

#if SILT_WITH_VDB
#include "silt/core/module_loader.hpp"
#include "silt/mpm/mesh/vdb_module.hpp"
#endif

namespace silt::mpm {

namespace {
/// The band reaches this many cells beyond the grown surface on both sides: the grid update
/// needs the distance and its gradient for every node within a cell or so of the surface, and G2P
/// for particles a step (at most cfl dx) inside it.
constexpr double kBandCells = 2.0;
std::string frame_name(const Collider& c, std::size_t f) {
  if (c.mesh_files.size() == 1) return fmt::format("collider '{}' ({})", c.name, c.mesh_files[0]);
  return fmt::format("collider '{}' (frame {}, {}, t = {} s)", c.name, f, c.mesh_files[f],
                     c.frame_times[f]);
}

/// Corners of the mesh's box moved by key k (rigid) into the world.
void world_bounds(const TriangleMesh& m, const RigidSegment& g, Vec3d& lo, Vec3d& hi) {
  lo = {1e300, 1e300, 1e300}, hi = {-1e300, -1e300, -1e300};
  for (int c = 0; c < 8; ++c) {
    const double p[3] = {(c & 1) ? m.upper()[0] : m.lower()[0],
                         (c & 2) ? m.upper()[1] : m.lower()[1],
                         (c & 4) ? m.upper()[2] : m.lower()[2]};
    for (int r = 0; r < 3; ++r) {
      const double x = g.rotation[3 * r] * p[0] + g.rotation[3 * r + 1] * p[1] +
                       g.rotation[3 * r + 2] * p[2] + g.translation[r];
      lo[std::size_t(r)] = std::min(lo[std::size_t(r)], x);
      hi[std::size_t(r)] = std::max(hi[std::size_t(r)], x);
    }
  }
}

void require_inside_domain(const Scene& s, const Vec3d& lo, const Vec3d& hi,
                           const std::string& what) {
  for (std::size_t a = 0; a < 3; ++a)
    if (hi[a] < s.domain_min[a] || lo[a] > s.domain_max[a])
      throw Error(fmt::format(
          "MPM scene '{}': {} lies outside the domain: the mesh spans [{:.4g}, {:.4g}] m along {}, "
          "the domain [{:.4g}, {:.4g}] m (check scale, offset and translation)",
          s.name, what, lo[a], hi[a], "xyz"[a], s.domain_min[a], s.domain_max[a]));
}

#if SILT_WITH_VDB
/// Where a mesh passes through itself the field's sign there is the flood fill's guess: a warning
/// names the frame, the count and the first pair (OBJ vertex numbers, 1-based) and where it is.
void warn_self_intersections(MeshSdf& m, const TriangleMesh& mesh, const std::string& what) {
  const SelfIntersections x = find_self_intersections(mesh);
  if (x.pairs == 0) return;
  const auto& t = mesh.triangles();
  const auto corners = [&](std::size_t i) {
    return fmt::format("{}/{}/{}", t[i][0] + 1, t[i][1] + 1, t[i][2] + 1);
  };
  m.warnings.push_back(fmt::format(
      "{} intersects itself: {} pair{} of triangles cross, e.g. the triangles of vertices {} and "
      "{} near ({:.4g}, {:.4g}, {:.4g}) m; inside and outside are uncertain there (the field's "
      "sign comes from a flood fill): repair the mesh (e.g. a boolean union of its parts)",
      what, x.pairs, x.pairs == 1 ? "" : "s", corners(x.example[0]), corners(x.example[1]),
      x.where[0], x.where[1], x.where[2]));
}
#endif
}  // namespace

double mesh_band_width(const Collider& c, const Scene& s) {
  const double voxel = c.voxel > 0 ? c.voxel : 0.5 * s.dx;
  const double grow = c.grow >= 0 ? c.grow : s.dx;
  return (std::ceil((grow + kBandCells * s.dx) / voxel) + 1.0) * voxel;
}

std::vector<TriangleMesh> load_collider_meshes(const Collider& c, const Scene& s) {
  const bool sequence = c.mesh_files.size() > 1;
  std::vector<TriangleMesh> meshes;
  for (std::size_t f = 0; f < c.mesh_files.size(); ++f) {
    const std::string what = frame_name(c, f);
    meshes.push_back(TriangleMesh::load_obj(c.mesh_files[f], c.mesh_scale, c.mesh_offset, what));
    const TriangleMesh& me = meshes.back();
    // The field between two frames blends their vertices triangle by triangle: the frames must
    // share the triangle list as well as the vertex count.
    if (f > 0 && (me.vertex_count() != meshes[0].vertex_count() ||
                  me.triangle_count() != meshes[0].triangle_count()))
      throw Error(fmt::format(
          "MPM scene '{}': {} has {} vertices and {} triangles, frame 0 ({}) {} and {}: the "
          "frames of a mesh sequence share one vertex count and one triangle list",
          s.name, what, me.vertex_count(), me.triangle_count(), c.mesh_files[0],
          meshes[0].vertex_count(), meshes[0].triangle_count()));
    if (f > 0 && me.triangles() != meshes[0].triangles()) {
      std::size_t t = 0;
      while (me.triangles()[t] == meshes[0].triangles()[t]) ++t;
      const auto corners = [](const std::array<int, 3>& x) {
        return fmt::format("{}/{}/{}", x[0] + 1, x[1] + 1, x[2] + 1);
      };
      throw Error(fmt::format(
          "MPM scene '{}': {} connects its vertices differently from frame 0 ({}): its triangle "
          "{} has the vertices {}, frame 0's {}; the frames of a mesh sequence share one "
          "triangle list (export them with the same topology)",
          s.name, what, c.mesh_files[0], t + 1, corners(me.triangles()[t]),
          corners(meshes[0].triangles()[t])));
    }
    if (sequence) require_inside_domain(s, me.lower(), me.upper(), what);
  }
  if (!sequence) {
    const std::vector<RigidSegment> keys = rigid_segments(c);
    for (std::size_t k = 0; k < keys.size(); ++k) {
      Vec3d lo, hi;
      world_bounds(meshes[0], keys[k], lo, hi);
      require_inside_domain(s, lo, hi,
                            c.keys.empty() ? frame_name(c, 0)
                                           : fmt::format("{} at key {} (t = {} s)",
                                                         frame_name(c, 0), k, c.keys[k].time));
    }
  }
  return meshes;
}

double mesh_sdf_voxels(const Collider& c, const Scene& s, const std::vector<TriangleMesh>& meshes) {
  const double voxel = c.voxel > 0 ? c.voxel : 0.5 * s.dx;
  const double w = mesh_band_width(c, s);
  double total = 0;
  for (const TriangleMesh& m : meshes) {
    // The band's box, and the band itself: within w of a surface of area A is at most 2 w A plus
    // the caps at its edges and corners (4/3 pi w^3 per ball; a few allowed for).
    double box = 1, area = 0;
    for (std::size_t a = 0; a < 3; ++a) box *= (m.upper()[a] - m.lower()[a] + 2 * w) / voxel;
    const auto& v = m.vertices();
    for (const auto& t : m.triangles()) {
      const Vec3d &p = v[std::size_t(t[0])], &q = v[std::size_t(t[1])], &r = v[std::size_t(t[2])];
      const double u[3] = {q[0] - p[0], q[1] - p[1], q[2] - p[2]};
      const double x[3] = {r[0] - p[0], r[1] - p[1], r[2] - p[2]};
      const double n[3] = {u[1] * x[2] - u[2] * x[1], u[2] * x[0] - u[0] * x[2],
                           u[0] * x[1] - u[1] * x[0]};
      area += 0.5 * std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
    }
    const double band = (2 * w * area + 8 * 4.19 * w * w * w) / (voxel * voxel * voxel);
    total += std::min(box, band);
  }
  return total;
}

#if SILT_WITH_VDB

bool mesh_colliders_available() {
  return true;
}

namespace {
// The VDB module's table, loaded on the first mesh collider; throws the loader's Error (the
// module's path and dlerror()) when the module cannot be loaded.
const MeshSdfVdb& vdb() {
  static const MeshSdfVdb& table =
      module_table<MeshSdfVdb>(kVdbModuleName, kMeshSdfVdbEntry, kMeshSdfVdbAbi);
  return table;
}
}  // namespace

std::shared_ptr<const MeshSdf> build_mesh_sdf(const Collider& c, const Scene& s,
                                              const StopCheck& stop) {
  const std::string during = fmt::format("the distance field of collider '{}'", c.name);
  auto m = std::make_shared<MeshSdf>();
  m->voxel = float(c.voxel > 0 ? c.voxel : 0.5 * s.dx);
  m->grow = float(c.grow >= 0 ? c.grow : s.dx);
  const double band = std::ceil((m->grow + kBandCells * s.dx) / m->voxel) + 1.0;
  const bool sequence = c.mesh_files.size() > 1;
  if (!sequence) m->keys = rigid_segments(c);
  const std::vector<TriangleMesh> meshes = load_collider_meshes(c, s);
  for (std::size_t f = 0; f < meshes.size(); ++f) {
    poll_stop(stop, during);
    warn_self_intersections(*m, meshes[f], frame_name(c, f));
  }
  if (!self_intersection_check_available())
    m->warnings.push_back(fmt::format(
        "MPM scene '{}': collider '{}' was not checked for self-intersections: this build of silt "
        "lacks CGAL (install libcgal-dev and configure again; SILT_CGAL in the CMake summary)",
        s.name, c.name));
  const MeshSdfVdb& module = vdb();
  double thinnest = 1e300;
  for (std::size_t f = 0; f < meshes.size(); ++f) {
    std::vector<Vec3d> vel;
    if (sequence) {
      // Vertex velocities by central differences of the frames (one-sided at the ends).
      const std::size_t a = f > 0 ? f - 1 : 0, b = std::min(f + 1, meshes.size() - 1);
      const double span = c.frame_times[b] - c.frame_times[a];
      const auto& va = meshes[a].vertices();
      const auto& vb = meshes[b].vertices();
      vel.resize(va.size());
      for (std::size_t i = 0; i < va.size(); ++i)
        for (std::size_t e = 0; e < 3; ++e) vel[i][e] = (vb[i][e] - va[i][e]) / span;
    }
    poll_stop(stop, during);
    const double thick =
        module.add_mesh_frame(*m, meshes[f], vel, band, frame_name(c, f), s.name, stop);
    poll_stop(stop, during);
    if (sequence) m->frames.back().time = float(c.frame_times[f]);
    // A part the voxels cannot resolve (no voxel a voxel deep) is held only by the growth, which
    // must reach past the sampling's chord over it (docs/NOTES.md, mesh colliders).
    if (thick < 2.0 * m->voxel && m->grow < m->voxel)
      throw Error(fmt::format(
          "MPM scene '{}': {} is at most {:.3g} m thick, too thin for its voxels ({:.3g} m) with "
          "grow {:.3g} m: material would pass through it. Set grow >= voxel (the default, one "
          "dx, holds it) or a smaller voxel",
          s.name, frame_name(c, f), thick, m->voxel, m->grow));
    thinnest = std::min(thinnest, thick);
    if (thick < s.dx)
      m->warnings.push_back(fmt::format(
          "MPM scene '{}': {} is at most {:.3g} m thick, thinner than a cell (dx = {:.3g} m): it "
          "acts {:.3g} m thick (grown by grow = {:.3g} m on each side)",
          s.name, frame_name(c, f), thick, s.dx, thick + 2.0 * m->grow, m->grow));
  }
  m->min_thickness = thinnest;
  return m;
}

#else

bool mesh_colliders_available() {
  return false;
}

std::shared_ptr<const MeshSdf> build_mesh_sdf(const Collider& c, const Scene& s, const StopCheck&) {
  throw Error(fmt::format(
      "MPM scene '{}': colliders '{}'.kind = \"mesh\" needs OpenVDB, which this build of silt "
      "lacks (install libopenvdb-dev and configure again; SILT_VDB in the CMake summary)",
      s.name, c.name));
}

#endif

}  // namespace silt::mpm
