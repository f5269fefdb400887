// The material as a volume (io/particles/volume_vdb.hpp), in silt's VDB module
// (io/particles/vdb_module.hpp).
#include <fmt/format.h>
#include <openvdb/openvdb.h>

#include <cmath>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "silt/core/error.hpp"
#include "silt/io/particles/vdb_module.hpp"
#include "silt/modules/vdb/vdb_write.hpp"

namespace silt::io {

namespace {

// Quadratic B-spline weights of the three voxels from `base` along one axis, for a particle at
// r (in voxels, voxel centres at integers); the solver's bspline_k.hpp in double.
struct Axis {
  int base;
  float w[3];
};

Axis weights(double r) {
  Axis a;
  a.base = static_cast<int>(std::floor(r - 0.5));
  const double fx = r - a.base;  // in [0.5, 1.5)
  a.w[0] = float(0.5 * (1.5 - fx) * (1.5 - fx));
  a.w[1] = float(0.75 - (fx - 1.0) * (fx - 1.0));
  a.w[2] = float(0.5 * (fx - 0.5) * (fx - 0.5));
  return a;
}

// One OpenVDB leaf's worth of sums (8^3 voxels, x-major as in LeafNode::coordToOffset).
struct Tile {
  static constexpr int kVoxels = 512;
  static int offset(int i, int j, int k) { return ((i & 7) << 6) | ((j & 7) << 3) | (k & 7); }
  openvdb::Coord origin;
  float mass[kVoxels] = {}, vol[kVoxels] = {};
  float mom[kVoxels][3] = {};
  unsigned char touched[kVoxels] = {};
};

struct Tiles {
  std::vector<Tile> all;
  std::unordered_map<std::uint64_t, std::size_t> index;
  std::uint64_t last_key = ~std::uint64_t(0);
  std::size_t last = 0;

  Tile& at(int i, int j, int k) {
    // Tile coordinates offset into 21 bits each (voxel indices within +-2^23).
    const auto bits = [](int v) {
      return std::uint64_t(std::uint32_t((v >> 3) + (1 << 20)));
    };
    const std::uint64_t key = bits(i) << 42 | bits(j) << 21 | bits(k);
    if (key != last_key) {
      auto [it, added] = index.emplace(key, all.size());
      if (added) {
        all.emplace_back();
        all.back().origin = openvdb::Coord(i & ~7, j & ~7, k & ~7);
      }
      last_key = key;
      last = it->second;
    }
    return all[last];
  }
};

}  // namespace

void write_volume_vdb_file(const std::string& tmp, const std::string& path,
                           const mpm::ParticleFrame& f, const ParticleFileInfo& info,
                           const VolumeGrid& g) {
  const double h = g.voxel_size;
  openvdb::initialize();
  const std::size_t n = f.count();
  const bool fraction = g.density == VolumeDensity::fraction;
  // Sums per voxel in dense 8^3 tiles (OpenVDB's leaf size) found through a hash of the tile's
  // origin, the last tile kept at hand: a particle's 27 voxels lie in 1-8 tiles. Then one pass
  // copies each tile into the grids' leaves (a value accessor per voxel cost ~4x more).
  Tiles tiles;
  for (std::size_t p = 0; p < n; ++p) {
    const std::size_t k = static_cast<std::size_t>(f.material[p]);
    SILT_REQUIRE(f.material[p] >= 0 && k < g.particle_mass.size(),
                 fmt::format("'{}': particle {} has material {}, the scene has {}", path, p,
                             f.material[p], g.particle_mass.size()));
    const float m = float(g.particle_mass[k]), v0 = float(g.particle_volume[k]);
    const float mv[3] = {m * f.velocity[3 * p], m * f.velocity[3 * p + 1],
                         m * f.velocity[3 * p + 2]};
    const Axis ax = weights((f.position[3 * p] - g.origin[0]) / h);
    const Axis ay = weights((f.position[3 * p + 1] - g.origin[1]) / h);
    const Axis az = weights((f.position[3 * p + 2] - g.origin[2]) / h);
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b)
        for (int c = 0; c < 3; ++c) {
          const float w = ax.w[a] * ay.w[b] * az.w[c];
          const int i = ax.base + a, j = ay.base + b, l = az.base + c;
          Tile& t = tiles.at(i, j, l);
          const int o = Tile::offset(i, j, l);
          t.touched[o] = 1;
          t.mass[o] += w * m;
          for (int d = 0; d < 3; ++d) t.mom[o][d] += w * mv[d];
          t.vol[o] += w * v0;
        }
  }
  openvdb::FloatGrid::Ptr density = openvdb::FloatGrid::create(0.0f);
  openvdb::Vec3fGrid::Ptr mom = openvdb::Vec3fGrid::create(openvdb::Vec3f(0.0f));
  const float per_volume = float(1.0 / (h * h * h));
  for (const Tile& t : tiles.all) {
    auto* dl = density->tree().touchLeaf(t.origin);
    auto* vl = mom->tree().touchLeaf(t.origin);
    for (int o = 0; o < Tile::kVoxels; ++o) {
      if (!t.touched[o]) continue;
      const openvdb::Coord ijk = t.origin + openvdb::Coord(o >> 6, (o >> 3) & 7, o & 7);
      const float m = t.mass[o];
      dl->setValueOn(ijk, (fraction ? t.vol[o] : m) * per_volume);
      vl->setValueOn(ijk, m > 0 ? openvdb::Vec3f(t.mom[o][0] / m, t.mom[o][1] / m, t.mom[o][2] / m)
                                : openvdb::Vec3f(0.0f));
    }
  }

  const openvdb::math::Transform::Ptr xf = openvdb::math::Transform::createLinearTransform(h);
  xf->postTranslate(openvdb::Vec3d(g.origin[0], g.origin[1], g.origin[2]));
  density->setTransform(xf);
  mom->setTransform(xf);
  density->setName("density");
  density->setGridClass(openvdb::GRID_FOG_VOLUME);
  density->insertMeta("silt_units", openvdb::StringMetadata(fraction ? "-" : "kg/m^3"));
  mom->setName("velocity");
  mom->setVectorType(openvdb::VEC_CONTRAVARIANT_RELATIVE);
  mom->insertMeta("silt_units", openvdb::StringMetadata("m/s"));
  for (openvdb::GridBase* grid :
       {static_cast<openvdb::GridBase*>(density.get()), static_cast<openvdb::GridBase*>(mom.get())})
    detail::insert_frame_meta(*grid, info);
  detail::write_vdb_file(tmp, path, openvdb::GridCPtrVec{density, mom});
}

VolumeSamples read_volume_vdb_file(const std::string& path) {
  openvdb::initialize();
  VolumeSamples out;
  try {
    openvdb::io::File file(path);
    file.open();
    const auto density = openvdb::gridPtrCast<openvdb::FloatGrid>(file.readGrid("density"));
    const auto velocity = openvdb::gridPtrCast<openvdb::Vec3fGrid>(file.readGrid("velocity"));
    file.close();
    SILT_REQUIRE(
        density && velocity,
        fmt::format("'{}': grids 'density' (float) and 'velocity' (Vec3f) expected", path));
    const auto va = velocity->getConstAccessor();
    for (auto it = density->cbeginValueOn(); it; ++it) {
      const openvdb::Coord c = it.getCoord();
      const openvdb::Vec3f v = va.getValue(c);
      out.voxel.push_back({c.x(), c.y(), c.z()});
      out.density.push_back(*it);
      out.velocity.push_back({v.x(), v.y(), v.z()});
    }
  } catch (const openvdb::Exception& e) {
    throw Error(fmt::format("cannot read '{}': {}", path, e.what()));
  }
  return out;
}

}  // namespace silt::io
