// Particles as OpenVDB points (io/particles/vdb.hpp), in silt's VDB module
// (io/particles/vdb_module.hpp).
#include <fmt/format.h>
#include <openvdb/points/PointConversion.h>
#include <openvdb/points/PointDataGrid.h>
#include <openvdb/tools/PointIndexGrid.h>

#include <vector>

#include "silt/core/error.hpp"
#include "silt/io/particles/vdb_module.hpp"
#include "silt/modules/vdb/vdb_write.hpp"

namespace silt::io {

namespace {

namespace vp = openvdb::points;
using openvdb::Vec3f;

// One attribute's values, one per particle, handed to OpenVDB's point conversion, which
// reorders them into the grid's voxel order through the point index grid.
template <class T>
void add_attribute(vp::PointDataGrid& grid, const openvdb::tools::PointIndexGrid& index,
                   const std::string& name, const std::vector<T>& values) {
  vp::appendAttribute<T>(grid.tree(), name);
  vp::populateAttribute(grid.tree(), index.tree(), name, vp::PointAttributeVector<T>(values));
}

std::vector<Vec3f> vec3s(const std::vector<float>& xyz, std::size_t n) {
  std::vector<Vec3f> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = Vec3f(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]);
  return v;
}

}  // namespace

void write_particles_vdb_file(const std::string& tmp, const std::string& path,
                              const mpm::ParticleFrame& f, const ParticleFileInfo& info,
                              double voxel_size) {
  openvdb::initialize();
  const std::size_t n = f.count();
  const std::vector<Vec3f> pos = vec3s(f.position, n);
  const vp::PointAttributeVector<Vec3f> positions(pos);
  const openvdb::math::Transform::Ptr xf =
      openvdb::math::Transform::createLinearTransform(voxel_size);
  const auto index =
      openvdb::tools::createPointIndexGrid<openvdb::tools::PointIndexGrid>(positions, *xf);
  // Positions without quantisation (NullCodec): the file holds the simulated float32 values.
  vp::PointDataGrid::Ptr grid =
      vp::createPointDataGrid<vp::NullCodec, vp::PointDataGrid>(*index, positions, *xf);
  add_attribute(*grid, *index, "v", vec3s(f.velocity, n));
  add_attribute(*grid, *index, "material", f.material);
  if (!f.id.empty()) add_attribute(*grid, *index, "id", f.id);
  if (!f.stress.empty()) {
    std::vector<openvdb::math::Mat3s> s(n);
    std::vector<float> pressure(n);
    for (std::size_t i = 0; i < n; ++i) {
      s[i] = openvdb::math::Mat3s(&f.stress[9 * i]);  // row-major, as the frame holds it
      pressure[i] = -(f.stress[9 * i] + f.stress[9 * i + 4] + f.stress[9 * i + 8]) / 3.0f;
    }
    add_attribute(*grid, *index, "stress", s);
    add_attribute(*grid, *index, "pressure", pressure);
  }
  if (!f.plastic.empty()) add_attribute(*grid, *index, "plastic", f.plastic);
  grid->setName("points");
  detail::insert_frame_meta(*grid, info);
  grid->insertMeta("silt_points", openvdb::Int64Metadata(static_cast<std::int64_t>(n)));
  detail::write_vdb_file(tmp, path, openvdb::GridCPtrVec{grid});
}

}  // namespace silt::io
