// The VFX outputs (issue 18): particles as OpenVDB points read back with OpenVDB's own point API
// (every attribute of every particle, by id), the density and velocity grids against what the
// splat must conserve, the z-up rotation, and the scene keys' errors.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <set>

#include <unistd.h>

#include "io_test_util.hpp"
#include "silt/io/mpm/scene_file.hpp"
#include "silt/io/particles/up_axis.hpp"
#include "silt/io/particles/vdb.hpp"
#include "silt/io/particles/volume_vdb.hpp"

#ifdef SILT_WITH_VDB
#include <openvdb/openvdb.h>
#include <openvdb/points/PointAttribute.h>
#include <openvdb/points/PointCount.h>
#include <openvdb/points/PointDataGrid.h>
#endif

namespace {

namespace fs = std::filesystem;
using silt::io::parse_mpm_job;
using silt::io::UpAxis;
using silt::mpm::ParticleFrame;
using silt::test::throws_with;

// Float sums of ~10^4 splat weights: relative round-off well below this.
constexpr double kSumTol = 1e-5;

const std::string kScene = R"({
  "solver": "mpm",
  "domain": { "min": [0, 0, 0], "max": [1, 1, 1], "dx": 0.05 },
  "materials": [ { "name": "sand", "kind": "sand" } ],
  "sources": [ { "material": "sand", "shape": "box", "min": [0.2, 0.2, 0.2], "max": [0.5, 0.4, 0.5] } ],
  "run": { "frames": 1 }
})";

fs::path temp_dir(const std::string& name) {
  const fs::path d = fs::temp_directory_path() / ("silt_vfx_" + name + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// Five particles with every attribute, values distinct per particle and per component.
ParticleFrame five_particles() {
  ParticleFrame f;
  for (int i = 0; i < 5; ++i) {
    for (int d = 0; d < 3; ++d) {
      f.position.push_back(0.1f * i + 0.013f * d + 0.2f);
      f.velocity.push_back(-1.5f + i + 0.25f * d);
    }
    f.material.push_back(i % 2);
    f.id.push_back(100 + 7 * i);
    for (int k = 0; k < 9; ++k) f.stress.push_back(float(1000 * i + 10 * k + 1));
    f.plastic.push_back(-0.01f * i);
  }
  return f;
}

// R = [[1,0,0],[0,0,-1],[0,1,0]] written out, the test's own copy of the rotation.
const double kR[3][3] = {{1, 0, 0}, {0, 0, -1}, {0, 1, 0}};

TEST(UpAxis, TurnsYUpIntoZUpRightHanded) {
  ParticleFrame f = five_particles();
  const ParticleFrame g = f;
  silt::io::frame_to_up_axis(f, UpAxis::z);
  for (std::size_t p = 0; p < g.count(); ++p) {
    for (int i = 0; i < 3; ++i) {
      double x = 0, v = 0;
      for (int k = 0; k < 3; ++k) {
        x += kR[i][k] * g.position[3 * p + k];
        v += kR[i][k] * g.velocity[3 * p + k];
      }
      EXPECT_EQ(f.position[3 * p + i], float(x)) << "particle " << p << " axis " << i;
      EXPECT_EQ(f.velocity[3 * p + i], float(v)) << "particle " << p << " axis " << i;
      for (int j = 0; j < 3; ++j) {
        double s = 0;  // (R S R^T)_ij
        for (int k = 0; k < 3; ++k)
          for (int l = 0; l < 3; ++l) s += kR[i][k] * g.stress[9 * p + 3 * k + l] * kR[j][l];
        EXPECT_EQ(f.stress[9 * p + 3 * i + j], float(s)) << "particle " << p << " " << i << j;
      }
    }
    EXPECT_EQ(f.id[p], g.id[p]);
    EXPECT_EQ(f.plastic[p], g.plastic[p]);
  }
  // Up is up: silt's +y is the files' +z; and the frame stays right-handed (x cross y = z).
  EXPECT_EQ(silt::io::to_up_axis({0, 1, 0}, UpAxis::z), (std::array<double, 3>{0, 0, 1}));
  const auto x = silt::io::to_up_axis({1, 0, 0}, UpAxis::z);
  const auto y = silt::io::to_up_axis({0, 1, 0}, UpAxis::z);
  const auto z = silt::io::to_up_axis({0, 0, 1}, UpAxis::z);
  EXPECT_EQ(x[1] * y[2] - x[2] * y[1], z[0]);
  EXPECT_EQ(x[2] * y[0] - x[0] * y[2], z[1]);
  EXPECT_EQ(x[0] * y[1] - x[1] * y[0], z[2]);
  std::array<double, 3> lo{0, 0, 0}, hi{1, 2, 3};
  silt::io::box_to_up_axis(lo, hi, UpAxis::z);
  EXPECT_EQ(lo, (std::array<double, 3>{0, -3, 0}));
  EXPECT_EQ(hi, (std::array<double, 3>{1, 0, 2}));
}

TEST(VfxScene, UpAxisAndVolumeKeys) {
  const auto job = parse_mpm_job(kScene, "vfx.json", "");
  EXPECT_EQ(job.outputs.up_axis, UpAxis::y);
  EXPECT_FALSE(job.outputs.volume);
  EXPECT_EQ(job.resolved["outputs"]["up_axis"], "y");
  EXPECT_TRUE(throws_with([] { parse_mpm_job(kScene, "vfx.json", "", {"outputs.up_axis=x"}); },
                          {"vfx.json", "outputs.up_axis", "\"y\", \"z\"", "\"x\""}));
  EXPECT_TRUE(
      throws_with([] { parse_mpm_job(kScene, "vfx.json", "", {"outputs.formats=[\"abc\"]"}); },
                  {"vfx.json", "outputs.formats[0]", "\"vdb\""}));
  if (!silt::io::vdb_available()) {
    EXPECT_TRUE(
        throws_with([] { parse_mpm_job(kScene, "vfx.json", "", {"outputs.formats=[\"vdb\"]"}); },
                    {"vfx.json", "outputs.formats[0]", "OpenVDB"}));
    EXPECT_TRUE(throws_with([] { parse_mpm_job(kScene, "vfx.json", "", {"outputs.volume={}"}); },
                            {"vfx.json", "outputs.volume", "OpenVDB"}));
    return;
  }
  const auto z = parse_mpm_job(
      kScene, "vfx.json", "",
      {"outputs.up_axis=z", "outputs.formats=[\"vdb\",\"ply\"]", "outputs.volume={}"});
  EXPECT_EQ(z.outputs.up_axis, UpAxis::z);
  ASSERT_EQ(z.outputs.formats.size(), 2u);
  EXPECT_EQ(z.outputs.formats[0], silt::io::ParticleFormat::vdb);
  EXPECT_TRUE(z.outputs.volume);
  EXPECT_DOUBLE_EQ(z.outputs.volume_voxel, 0.05);  // dx
  EXPECT_EQ(z.resolved["outputs"]["volume"]["density"], "mass");
  // The resolved scene loads back as it stands.
  const auto back = parse_mpm_job(z.resolved.dump(), "resolved.json", "");
  EXPECT_TRUE(back.outputs.volume);
  EXPECT_EQ(back.outputs.up_axis, UpAxis::z);
  EXPECT_TRUE(
      throws_with([] { parse_mpm_job(kScene, "vfx.json", "", {"outputs.volume.voxel_size=-1"}); },
                  {"vfx.json", "outputs.volume.voxel_size"}));
  EXPECT_TRUE(
      throws_with([] { parse_mpm_job(kScene, "vfx.json", "", {"outputs.volume.density=\"kg\""}); },
                  {"vfx.json", "outputs.volume.density", "\"mass\", \"fraction\""}));
  EXPECT_TRUE(
      throws_with([] { parse_mpm_job(kScene, "vfx.json", "", {"outputs.volume.voxels=3"}); },
                  {"vfx.json", "outputs.volume.voxels"}));
}

#ifdef SILT_WITH_VDB

struct ReadParticle {
  openvdb::Vec3f p, v;
  int material = -1;
  openvdb::math::Mat3s stress;
  float pressure = 0, plastic = 0;
};

// Every point of the file, keyed by id, through OpenVDB's attribute handles; `names` gets the
// attribute names the file declares.
std::map<int, ReadParticle> read_points(const std::string& path, std::set<std::string>& names,
                                        long& meta_count) {
  openvdb::initialize();
  openvdb::io::File file(path);
  file.open();
  auto grid = openvdb::gridPtrCast<openvdb::points::PointDataGrid>(file.readGrid("points"));
  file.close();
  EXPECT_TRUE(grid) << path << ": no point grid named 'points'";
  std::map<int, ReadParticle> out;
  if (!grid) return out;
  meta_count = long(grid->metaValue<openvdb::Int64>("silt_points"));
  const auto leaf0 = grid->tree().cbeginLeaf();
  if (!leaf0) return out;
  for (const auto& [name, pos] : leaf0->attributeSet().descriptor().map()) names.insert(name);
  const auto& desc = leaf0->attributeSet().descriptor();
  for (auto leaf = grid->tree().cbeginLeaf(); leaf; ++leaf) {
    using openvdb::points::AttributeHandle;
    AttributeHandle<openvdb::Vec3f> P(leaf->constAttributeArray("P"));
    AttributeHandle<openvdb::Vec3f> v(leaf->constAttributeArray("v"));
    AttributeHandle<int> mat(leaf->constAttributeArray("material"));
    AttributeHandle<int> id(leaf->constAttributeArray("id"));
    AttributeHandle<openvdb::math::Mat3s> s(leaf->constAttributeArray("stress"));
    AttributeHandle<float> pr(leaf->constAttributeArray("pressure"));
    AttributeHandle<float> pl(leaf->constAttributeArray("plastic"));
    EXPECT_NE(desc.find("P"), openvdb::points::AttributeSet::INVALID_POS);
    for (auto it = leaf->beginIndexOn(); it; ++it) {
      ReadParticle r;
      const openvdb::Vec3d world =
          grid->transform().indexToWorld(it.getCoord().asVec3d() + openvdb::Vec3d(P.get(*it)));
      r.p = openvdb::Vec3f(world);
      r.v = v.get(*it);
      r.material = mat.get(*it);
      r.stress = s.get(*it);
      r.pressure = pr.get(*it);
      r.plastic = pl.get(*it);
      out[id.get(*it)] = r;
    }
  }
  return out;
}

// Positions are stored voxel-relative in float: back to world within a few float ulps of 1 m.
constexpr float kPositionTol = 1e-6f;

TEST(VdbPoints, EveryAttributeOfEveryParticleReadsBack) {
  const fs::path dir = temp_dir("points");
  const ParticleFrame f = five_particles();
  const std::string path = (dir / "particles_0003.vdb").string();
  silt::io::write_particles_vdb(path, f, {"five", 3, 0.125}, 0.05);
  std::set<std::string> names;
  long count = -1;
  const auto got = read_points(path, names, count);
  EXPECT_EQ(names,
            (std::set<std::string>{"P", "v", "material", "id", "stress", "pressure", "plastic"}));
  EXPECT_EQ(count, 5);
  ASSERT_EQ(got.size(), 5u);
  for (std::size_t i = 0; i < f.count(); ++i) {
    SCOPED_TRACE("particle id " + std::to_string(f.id[i]));
    ASSERT_TRUE(got.count(f.id[i]));
    const ReadParticle& r = got.at(f.id[i]);
    for (int d = 0; d < 3; ++d) {
      EXPECT_NEAR(r.p[d], f.position[3 * i + d], kPositionTol);
      EXPECT_EQ(r.v[d], f.velocity[3 * i + d]);
      for (int e = 0; e < 3; ++e) EXPECT_EQ(r.stress(d, e), f.stress[9 * i + 3 * d + e]);
    }
    EXPECT_EQ(r.material, f.material[i]);
    EXPECT_FLOAT_EQ(r.pressure, -(f.stress[9 * i] + f.stress[9 * i + 4] + f.stress[9 * i + 8]) / 3);
    EXPECT_EQ(r.plastic, f.plastic[i]);
  }
  // No temporary file is left behind.
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 1);
  fs::remove_all(dir);
}

TEST(VdbPoints, WithoutOptionalAttributesAndErrors) {
  const fs::path dir = temp_dir("plain");
  ParticleFrame f = five_particles();
  f.stress.clear();
  f.plastic.clear();
  f.id.clear();
  const std::string path = (dir / "p.vdb").string();
  silt::io::write_particles_vdb(path, f, {}, 0.05);
  openvdb::io::File file(path);
  file.open();
  auto grid = openvdb::gridPtrCast<openvdb::points::PointDataGrid>(file.readGrid("points"));
  std::set<std::string> names;
  for (const auto& [name, pos] : grid->tree().cbeginLeaf()->attributeSet().descriptor().map())
    names.insert(name);
  EXPECT_EQ(names, (std::set<std::string>{"P", "v", "material"}));
  EXPECT_EQ(openvdb::points::pointCount(grid->tree()), 5u);
  f.velocity.pop_back();
  EXPECT_TRUE(throws_with([&] { silt::io::write_particles_vdb(path, f, {}, 0.05); }, {path}));
  EXPECT_TRUE(throws_with(
      [&] {
        silt::io::write_particles_vdb((dir / "none" / "p.vdb").string(), five_particles(), {},
                                      0.05);
      },
      {"none/p.vdb"}));
  fs::remove_all(dir);
}

silt::io::VolumeGrid grid_of(double h, double mass, double volume) {
  silt::io::VolumeGrid g;
  g.voxel_size = h;
  g.origin = {0, 0, 0};
  g.particle_mass = {mass, 2 * mass};
  g.particle_volume = {volume, volume};
  return g;
}

TEST(VdbVolume, SplatConservesMassAndAveragesVelocity) {
  const fs::path dir = temp_dir("volume");
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> u(0.1f, 0.9f), w(-2.0f, 3.0f);
  ParticleFrame f;
  double total = 0;
  float vmin[3] = {1e9f, 1e9f, 1e9f}, vmax[3] = {-1e9f, -1e9f, -1e9f};
  const auto g = grid_of(0.04, 0.001, 0.5e-6);
  for (int p = 0; p < 3000; ++p) {
    for (int d = 0; d < 3; ++d) {
      f.position.push_back(u(rng));
      const float v = w(rng);
      f.velocity.push_back(v);
      vmin[d] = std::min(vmin[d], v);
      vmax[d] = std::max(vmax[d], v);
    }
    f.material.push_back(p % 2);
    total += g.particle_mass[std::size_t(p % 2)];
  }
  const std::string path = (dir / "volume_0000.vdb").string();
  silt::io::write_volume_vdb(path, f, {"splat", 0, 0}, g);
  const silt::io::VolumeSamples s = silt::io::read_volume_vdb(path);
  ASSERT_FALSE(s.density.empty());
  double sum = 0;
  for (float d : s.density) sum += d * std::pow(g.voxel_size, 3);
  EXPECT_NEAR(sum / total, 1.0, kSumTol)
      << "mass in the grid " << sum << " kg, particles " << total;
  // A mass-weighted average lies within the particles' range (per component), where mass > 0.
  for (std::size_t i = 0; i < s.density.size(); ++i) {
    if (s.density[i] <= 0) continue;
    for (int d = 0; d < 3; ++d) {
      ASSERT_GE(s.velocity[i][d], vmin[d] - 1e-5f) << "voxel " << i;
      ASSERT_LE(s.velocity[i][d], vmax[d] + 1e-5f) << "voxel " << i;
    }
  }
  fs::remove_all(dir);
}

TEST(VdbVolume, UniformLatticeGivesTheMaterialDensityAndOneFraction) {
  // 8 particles per cell on a regular lattice (spacing dx/2) at rest density rho: the quadratic
  // B-spline sums to exactly 2 per axis over a half-spacing lattice, so interior voxels hold rho
  // (mass) or 1 (fraction), and every voxel the lattice's velocity.
  const double dx = 0.05, rho = 1600, cell = dx * dx * dx;
  ParticleFrame f;
  for (int i = 0; i < 16; ++i)
    for (int j = 0; j < 16; ++j)
      for (int k = 0; k < 16; ++k) {
        for (int a : {i, j, k}) f.position.push_back(float(0.2 + (a + 0.25) * dx / 2));
        for (float v : {0.5f, -1.0f, 2.0f}) f.velocity.push_back(v);
        f.material.push_back(0);
      }
  const fs::path dir = temp_dir("lattice");
  for (auto kind : {silt::io::VolumeDensity::mass, silt::io::VolumeDensity::fraction}) {
    auto g = grid_of(dx, rho * cell / 8, cell / 8);
    g.density = kind;
    const std::string path = (dir / "v.vdb").string();
    silt::io::write_volume_vdb(path, f, {}, g);
    const auto s = silt::io::read_volume_vdb(path);
    const double expect = kind == silt::io::VolumeDensity::mass ? rho : 1.0;
    int interior = 0;
    for (std::size_t i = 0; i < s.voxel.size(); ++i) {
      bool inside = true;  // voxel centres 2+ voxels inside the block [0.2, 0.6]
      for (int d = 0; d < 3; ++d) inside = inside && s.voxel[i][d] >= 6 && s.voxel[i][d] <= 10;
      if (inside) {
        ++interior;
        EXPECT_NEAR(s.density[i] / expect, 1.0, kSumTol)
            << "voxel " << s.voxel[i][0] << "," << s.voxel[i][1] << "," << s.voxel[i][2];
      }
      if (s.density[i] > 0) {
        EXPECT_NEAR(s.velocity[i][0], 0.5f, 1e-5f);
        EXPECT_NEAR(s.velocity[i][1], -1.0f, 1e-5f);
        EXPECT_NEAR(s.velocity[i][2], 2.0f, 1e-5f);
      }
    }
    EXPECT_EQ(interior, 125);
  }
  fs::remove_all(dir);
}

#endif

}  // namespace
