// A mesh collider's distance field through OpenVDB, in silt's VDB module (libsilt_vdb.so, loaded
// by build_mesh_sdf on the first mesh collider, mpm/mesh/vdb_module.hpp): OBJ triangles ->
// tools::meshToVolume's narrow-band SDF and closest triangles -> silt's bricks.
#include <fmt/format.h>
#include <openvdb/openvdb.h>
#include <openvdb/tools/MeshToVolume.h>
#include <openvdb/util/NullInterrupter.h>

#include <algorithm>
#include <cmath>

#include "silt/core/error.hpp"
#include "silt/mpm/mesh/vdb_module.hpp"

namespace silt::mpm {

namespace {
/// OpenVDB asks this between its pieces of work; a yes ends the conversion early (its result is
/// then thrown away: add_mesh_frame throws Stopped).
struct StopInterrupter : openvdb::util::NullInterrupter {
  explicit StopInterrupter(const StopCheck& s) : stop(s) {}
  bool wasInterrupted(int = -1) override { return stop && stop(); }
  const StopCheck& stop;
};
}  // namespace

/// Appends one frame's bricks and voxels to m. vel: per-vertex velocities (sequences) or empty.
double add_mesh_frame(MeshSdf& m, const TriangleMesh& mesh, const std::vector<Vec3d>& vel,
                      double band_voxels, const std::string& what, const std::string& scene,
                      const StopCheck& stop) {
  openvdb::initialize();
  const double h = m.voxel;
  std::vector<openvdb::Vec3s> points;
  for (const Vec3d& p : mesh.vertices())
    points.emplace_back(float(p[0] / h), float(p[1] / h), float(p[2] / h));
  std::vector<openvdb::Vec3I> tris;
  for (const auto& t : mesh.triangles())
    tris.emplace_back(openvdb::Index32(t[0]), openvdb::Index32(t[1]), openvdb::Index32(t[2]));
  const openvdb::tools::QuadAndTriangleDataAdapter<openvdb::Vec3s, openvdb::Vec3I> adapter(points,
                                                                                           tris);
  const openvdb::math::Transform::Ptr xf = openvdb::math::Transform::createLinearTransform(h);
  openvdb::Int32Grid closest(0);
  StopInterrupter interrupter(stop);
  const openvdb::FloatGrid::Ptr grid = openvdb::tools::meshToVolume<openvdb::FloatGrid>(
      interrupter, adapter, *xf, float(band_voxels), float(band_voxels), 0, &closest);
  poll_stop(stop, what + "'s distance field");
  if (grid->tree().leafCount() == 0)
    throw Error(
        fmt::format("MPM scene '{}': {}: the mesh gives an empty distance field", scene, what));

  openvdb::CoordBBox box;
  grid->tree().evalLeafBoundingBox(box);
  SdfFrame f{};
  int lo[3], hi[3];
  for (int a = 0; a < 3; ++a) {
    // One brick of margin: samples near the table's edge read explicit "outside" bricks.
    lo[a] = (box.min()[a] >> kSdfBrickLog2) - 1;
    hi[a] = (box.max()[a] >> kSdfBrickLog2) + 1;
    f.brick_origin[a] = lo[a];
    f.brick_dims[a] = hi[a] - lo[a] + 1;
  }
  f.table = int(m.bricks.size());
  const auto acc = grid->getConstAccessor();
  const auto cacc = closest.getConstAccessor();
  const auto& verts = mesh.vertices();
  const auto& tris_in = mesh.triangles();
  double deepest = 0;
  for (int bz = lo[2]; bz <= hi[2]; ++bz)
    for (int by = lo[1]; by <= hi[1]; ++by)
      for (int bx = lo[0]; bx <= hi[0]; ++bx) {
        const openvdb::Coord o(bx << kSdfBrickLog2, by << kSdfBrickLog2, bz << kSdfBrickLog2);
        const openvdb::FloatTree::LeafNodeType* leaf = grid->tree().probeConstLeaf(o);
        if (!leaf) {
          m.bricks.push_back(acc.getValue(o) < 0 ? kBrickInside : kBrickOutside);
          continue;
        }
        const int brick = int(m.voxels.size() / (4 * kSdfBrickVoxels));
        m.bricks.push_back(brick);
        for (int k = 0; k < kSdfBrickEdge; ++k)
          for (int j = 0; j < kSdfBrickEdge; ++j)
            for (int i = 0; i < kSdfBrickEdge; ++i) {
              const openvdb::Coord c = o.offsetBy(i, j, k);
              const float phi = leaf->getValue(c);
              deepest = std::max(deepest, -double(phi));
              float v[3] = {0, 0, 0};
              openvdb::Int32 tri;
              if (!vel.empty() && cacc.probeValue(c, tri) && tri >= 0 &&
                  std::size_t(tri) < tris_in.size()) {
                // The velocity of the closest point of the closest triangle (barycentric).
                const auto& t = tris_in[std::size_t(tri)];
                const openvdb::Vec3d p(c.x() * h, c.y() * h, c.z() * h);
                const openvdb::Vec3d a(verts[std::size_t(t[0])].data()),
                    b(verts[std::size_t(t[1])].data()), d(verts[std::size_t(t[2])].data());
                openvdb::Vec3d uvw;
                const openvdb::Vec3d q =
                    openvdb::math::closestPointOnTriangleToPoint(a, b, d, p, uvw);
                // Barycentric weights of q from the areas (independent of uvw's ordering).
                const openvdb::Vec3d n = (b - a).cross(d - a);
                const double n2 = n.lengthSqr();
                double w1 = 1.0 / 3, w2 = 1.0 / 3;
                if (n2 > 0) {
                  w1 = (q - a).cross(d - a).dot(n) / n2;
                  w2 = (b - a).cross(q - a).dot(n) / n2;
                }
                const double w0 = 1.0 - w1 - w2;
                for (std::size_t e = 0; e < 3; ++e)
                  v[e] = float(w0 * vel[std::size_t(t[0])][e] + w1 * vel[std::size_t(t[1])][e] +
                               w2 * vel[std::size_t(t[2])][e]);
              }
              m.voxels.push_back(phi);
              m.voxels.push_back(v[0]);
              m.voxels.push_back(v[1]);
              m.voxels.push_back(v[2]);
            }
      }
  m.far_value = grid->background();
  m.frames.push_back(f);
  return 2.0 * deepest;
}

}  // namespace silt::mpm
