// Particle sampling of MPM sources (src/silt/mpm/sampling/): counts against ppc * volume / dx^3,
// determinism for a seed, every point inside its shape (checked by independent formulas, not the
// sampler's own inside test), the Poisson-disk minimum distance, closed-OBJ-mesh inside tests.
#include <gtest/gtest.h>
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "silt/core/error.hpp"
#include "silt/mpm/mesh/obj_mesh.hpp"
#include "silt/mpm/sampling/poisson_tile.hpp"
#include "silt/mpm/sampling/sample_source.hpp"
#include "silt/mpm/sampling/tile_cache.hpp"
#include "silt/mpm/splitmix.hpp"
#include "test_support.hpp"

namespace {

using silt::mpm::Sampling;
using silt::mpm::Shape;
using silt::mpm::Source;
using silt::mpm::Vec3d;

constexpr double kPi = 3.14159265358979323846;
// Jittered counts: each lattice cell on the surface is kept with a probability equal to the
// fraction of it inside the shape, so the count is unbiased with a standard deviation of about
// sqrt(surface cells) / 2 (~40 for the shapes here, 0.1-0.3% of N). 1% is > 4 sigma and still
// catches a wrong lattice spacing (8 ppc vs 27 ppc differ by 3.4x) or a lost surface layer (~10%).
constexpr double kCountTolerance = 0.01;

double dot(const Vec3d& a, const Vec3d& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
Vec3d sub(const Vec3d& a, const Vec3d& b) {
  return {a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}

Source box(Vec3d lo, Vec3d hi) {
  Source s;
  s.name = "box";
  s.shape = Shape::box;
  s.box_min = lo;
  s.box_max = hi;
  return s;
}

double expected(const Source& s, double dx) {
  return s.particles_per_cell * silt::mpm::source_volume(s) / (dx * dx * dx);
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() /
          ("silt_mpm_sampling_" + std::to_string(::getpid()) + "_" + name))
      .string();
}

// A unit cube's 6 faces as 12 triangles (or 6 quads), written as OBJ with every corner form.
std::string cube_obj(Vec3d lo, Vec3d hi, bool quads, bool flip = false) {
  std::ostringstream o;
  o.precision(17);
  o << "# cube\nmtllib none.mtl\no cube\n";
  for (int k = 0; k < 8; ++k)
    o << "v " << ((k & 1) ? hi[0] : lo[0]) << ' ' << ((k & 2) ? hi[1] : lo[1]) << ' '
      << ((k & 4) ? hi[2] : lo[2]) << "\n";
  o << "vt 0 0\nvn 0 0 1\n";
  // Outward-facing quads by vertex bit pattern (1-based indices).
  const int q[6][4] = {{1, 3, 4, 2}, {5, 6, 8, 7}, {1, 2, 6, 5},
                       {3, 7, 8, 4}, {1, 5, 7, 3}, {2, 4, 8, 6}};
  for (int f = 0; f < 6; ++f) {
    int v[4] = {q[f][0], q[f][1], q[f][2], q[f][3]};
    if (flip) std::swap(v[1], v[3]);
    if (quads)
      o << "f " << v[0] << "/1/1 " << v[1] << "//1 " << v[2] << "/1 " << v[3] - 9
        << "\n";  // -9: relative
    else
      o << "f " << v[0] << ' ' << v[1] << ' ' << v[2] << "\nf " << v[0] << ' ' << v[2] << ' '
        << v[3] << "\n";
  }
  return o.str();
}

std::string write_file(const std::string& name, const std::string& text) {
  const std::string p = temp_path(name);
  std::ofstream(p) << text;
  return p;
}

TEST(MpmSampling, AlignedBoxGetsTheExactLatticeCount) {
  const double dx = 1.0 / 64;
  for (double ppc : {8.0, 27.0, 1.0}) {
    // Corners on multiples of h = dx / ppc^(1/3): every lattice cell lies wholly in or out.
    const double h = dx / std::round(std::cbrt(ppc));
    Source s = box({10 * h, 20 * h, 30 * h}, {40 * h, 44 * h, 61 * h});
    s.particles_per_cell = ppc;
    const auto p = silt::mpm::sample_source(s, dx);
    EXPECT_EQ(p.size(), 30u * 24u * 31u) << "ppc " << ppc;
    EXPECT_NEAR(double(p.size()), expected(s, dx), 1e-6 * expected(s, dx));
  }
}

TEST(MpmSampling, CountsMatchVolumeForEveryShape) {
  const double dx = 0.02;
  std::vector<Source> shapes;
  shapes.push_back(box({0.013, 0.021, 0.0}, {0.3071, 0.2, 0.177}));  // not lattice-aligned
  Source sphere;
  sphere.name = "sphere";
  sphere.shape = Shape::sphere;
  sphere.center = {0.5, 0.5, 0.5};
  sphere.radius = 0.2;
  shapes.push_back(sphere);
  Source cyl;
  cyl.name = "cylinder";
  cyl.shape = Shape::cylinder;
  cyl.center = {0.3, 0.2, 0.4};
  cyl.axis = {1, 2, 0.5};  // tilted, not unit length
  cyl.radius = 0.12;
  cyl.height = 0.35;
  shapes.push_back(cyl);
  for (Source s : shapes)
    for (double ppc : {8.0, 4.0}) {
      s.particles_per_cell = ppc;
      const double n = expected(s, dx);
      const double got = double(silt::mpm::sample_source(s, dx).size());
      EXPECT_NEAR(got, n, kCountTolerance * n) << s.name << " ppc " << ppc;
    }
  // Analytic volumes.
  EXPECT_NEAR(silt::mpm::source_volume(sphere), 4.0 / 3.0 * kPi * 0.008, 1e-12);
  EXPECT_NEAR(silt::mpm::source_volume(cyl), kPi * 0.0144 * 0.35, 1e-12);
}

TEST(MpmSampling, PointsLieInsideTheirShape) {
  const double dx = 0.02;
  Source s;
  s.shape = Shape::sphere;
  s.center = {0.1, -0.2, 0.3};
  s.radius = 0.15;
  for (const Vec3d& p : silt::mpm::sample_source(s, dx))
    ASSERT_LT(std::sqrt(dot(sub(p, s.center), sub(p, s.center))), s.radius);
  s.shape = Shape::cylinder;
  s.axis = {0, 0, -3};
  s.height = 0.2;
  const Vec3d a{0, 0, -1};
  for (const Vec3d& p : silt::mpm::sample_source(s, dx)) {
    const Vec3d r = sub(p, s.center);
    const double t = dot(r, a);
    ASSERT_GE(t, 0.0);
    ASSERT_LT(t, s.height);
    ASSERT_LT(dot(r, r) - t * t, s.radius * s.radius);
  }
  Source b = box({0.01, 0.02, 0.03}, {0.11, 0.13, 0.07});
  for (const Vec3d& p : silt::mpm::sample_source(b, dx))
    for (int d = 0; d < 3; ++d) {
      ASSERT_GE(p[d], b.box_min[d]);
      ASSERT_LT(p[d], b.box_max[d]);
    }
}

TEST(MpmSampling, SameSeedSamePointsOtherSeedOtherPoints) {
  for (Sampling mode : {Sampling::jittered, Sampling::poisson}) {
    Source s = box({0, 0, 0}, {0.2, 0.1, 0.15});
    s.sampling = mode;
    s.seed = 42;
    const auto a = silt::mpm::sample_source(s, 0.02);
    const auto b = silt::mpm::sample_source(s, 0.02);
    ASSERT_EQ(a, b) << "sampling " << int(mode);
    s.seed = 43;
    const auto c = silt::mpm::sample_source(s, 0.02);
    ASSERT_FALSE(c.empty());
    EXPECT_NE(a[0], c[0]) << "sampling " << int(mode);
  }
}

TEST(MpmSampling, RegularLatticeWhenJitterIsZero) {
  Source s = box({0, 0, 0}, {0.1, 0.1, 0.1});
  s.jitter = 0;
  const double dx = 0.05, h = dx / 2;
  for (const Vec3d& p : silt::mpm::sample_source(s, dx))
    for (int d = 0; d < 3; ++d) ASSERT_DOUBLE_EQ(std::fmod(p[d], h), 0.5 * h);
}

TEST(MpmSampling, PoissonDiskKeepsMinimumDistanceAndCount) {
  const double dx = 0.02;
  Source s;
  s.shape = Shape::sphere;
  s.center = {0.2, 0.2, 0.2};
  s.radius = 0.12;
  const std::size_t jittered = silt::mpm::sample_source(s, dx).size();
  s.sampling = Sampling::poisson;
  const auto p = silt::mpm::sample_source(s, dx);
  // The Poisson count is the jittered count for the same seed, by construction.
  EXPECT_EQ(p.size(), jittered);
  const double r = silt::mpm::poisson_radius(s.particles_per_cell, dx);
  double min2 = 1e300;
  for (std::size_t i = 0; i < p.size(); ++i)
    for (std::size_t j = i + 1; j < p.size(); ++j)
      min2 = std::min(min2, dot(sub(p[i], p[j]), sub(p[i], p[j])));
  // A radius 7% smaller would mean the first attempt saturated below the count (density constant
  // off); the sampler then retries with 0.93 r.
  EXPECT_GE(std::sqrt(min2), r) << "min distance vs radius";
  for (const Vec3d& q : p) ASSERT_LT(std::sqrt(dot(sub(q, s.center), sub(q, s.center))), s.radius);
}

TEST(MpmSampling, PoissonIsTheSameForAnyThreadCount) {
  // Three copies of the periodic tile along x, filled in parallel.
  Source s = box({0, 0, 0}, {0.3, 0.05, 0.05});
  s.sampling = Sampling::poisson;
  s.seed = 11;
  const int threads = omp_get_max_threads();
  ::setenv("SILT_TILE_CACHE", "off", 1);  // throw the tile both times (ctest sets it off too)
  omp_set_num_threads(1);
  const auto one = silt::mpm::sample_source(s, 0.004);
  omp_set_num_threads(3);
  const auto three = silt::mpm::sample_source(s, 0.004);
  omp_set_num_threads(threads);
  ASSERT_EQ(one.size(), three.size());
  for (std::size_t i = 0; i < one.size(); ++i)
    for (int d = 0; d < 3; ++d) ASSERT_EQ(one[i][d], three[i][d]) << "point " << i;
}

TEST(MpmSampling, PoissonHasNoSeamsBetweenCopies) {
  // A box two tiles long (the tile is 64 r wide): the points in every slab one dx thick, the one
  // across the tiles' border included, hold the same count to within the sampling's noise (~3%
  // for ~800 points, a Poisson-disk set being more even than a Poisson one). A seam (a layer one r
  // thick at half density) would cost its slab 20%; so would a denser layer at the box's faces.
  const double dx = 0.01;
  Source s = box({0, 0, 0}, {0.5, 0.1, 0.1});
  s.sampling = Sampling::poisson;
  const auto p = silt::mpm::sample_source(s, dx);
  ASSERT_GT(0.5, 64 * silt::mpm::poisson_radius(s.particles_per_cell, dx)) << "one tile only";
  std::vector<double> slab(50, 0.0);
  for (const Vec3d& q : p) slab[std::min<std::size_t>(49, std::size_t(q[0] / dx))] += 1;
  const double mean = double(p.size()) / 50;
  for (std::size_t k = 0; k < slab.size(); ++k)
    EXPECT_NEAR(slab[k] / mean, 1.0, 0.12) << "slab " << k << " of " << dx << " m";
  // Across the border the minimum distance holds too.
  const double r = silt::mpm::poisson_radius(s.particles_per_cell, dx), border = 64 * r;
  std::vector<Vec3d> near;
  for (const Vec3d& q : p)
    if (std::abs(q[0] - border) < r) near.push_back(q);
  ASSERT_GT(near.size(), 100u);
  for (std::size_t i = 0; i < near.size(); ++i)
    for (std::size_t j = i + 1; j < near.size(); ++j)
      ASSERT_GE(std::sqrt(dot(sub(near[i], near[j]), sub(near[i], near[j]))), r);
}

// The periodic tile itself: the minimum distance across its faces (the distance to the nearest
// copy), its density, and no lattice printed by the cells the darts are thrown in.
TEST(MpmSampling, PoissonTileKeepsDistanceAcrossFacesAndIsEven) {
  const double r = 1, L[3] = {32, 32, 24};
  const auto p = silt::mpm::periodic_poisson_tile(L, r, 5);
  // Density: the constant the radius is computed from. Over 14,000 points a Poisson-disk set's
  // count varies by well under 1%; 3% catches a changed dart count or pass schedule.
  constexpr double kDensityTolerance = 0.03;
  EXPECT_NEAR(double(p.size()) / (L[0] * L[1] * L[2]), silt::mpm::kPoissonTileDensity,
              kDensityTolerance * silt::mpm::kPoissonTileDensity);
  // Brute force over pairs, each at its nearest copy across the faces.
  double min2 = 1e300;
  for (std::size_t i = 0; i < p.size(); ++i) {
    for (int d = 0; d < 3; ++d) ASSERT_TRUE(p[i][d] >= 0 && p[i][d] < L[d]) << "point " << i;
    for (std::size_t j = i + 1; j < p.size(); ++j) {
      double d2 = 0;
      for (int d = 0; d < 3; ++d) {
        double e = std::abs(p[i][d] - p[j][d]);
        e = std::min(e, L[d] - e);
        d2 += e * e;
      }
      min2 = std::min(min2, d2);
    }
  }
  EXPECT_GE(std::sqrt(min2), r);
  // The darts' cells are L / ceil(L sqrt(3) / r) wide (0.571 r along x here). Points by their
  // place within a cell, in thirds along each axis (27 classes): an order of the darts tied to
  // the cells (phase groups of cells filled in turn) made these differ by +-60%; random ones
  // differ by the count's noise, 4.4% for ~530 points a class (0.2 is 4.5 sigma).
  constexpr double kClassTolerance = 0.2;
  std::vector<double> in_class(27, 0.0);
  for (const Vec3d& q : p) {
    int c = 0;
    for (int d = 2; d >= 0; --d) {
      const double cell = L[d] / std::ceil(L[d] * std::sqrt(3.0) / r);
      const double f = q[d] / cell - std::floor(q[d] / cell);
      c = 3 * c + std::min(2, int(3 * f));
    }
    in_class[std::size_t(c)] += 1;
  }
  for (std::size_t c = 0; c < in_class.size(); ++c)
    EXPECT_NEAR(in_class[c] / (double(p.size()) / 27), 1.0, kClassTolerance) << "class " << c;
}

TEST(MpmSampling, PoissonTileIsTheSameForAnyThreadCount) {
  const double L[3] = {12, 12, 12};
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const auto one = silt::mpm::periodic_poisson_tile(L, 1.0, 9);
  omp_set_num_threads(4);
  const auto four = silt::mpm::periodic_poisson_tile(L, 1.0, 9);
  omp_set_num_threads(threads);
  ASSERT_EQ(one, four);
  EXPECT_NE(one, silt::mpm::periodic_poisson_tile(L, 1.0, 10));
}

// The tile cache: what it returns is the thrown tile, from the file when one is there (a file with
// a point changed and its hash made good is believed: so it is read), and thrown again when the
// file is damaged, truncated or another key's; nothing is written when it is off.
TEST(MpmSampling, TileCacheReadsItsFileAndIgnoresABadOne) {
  namespace fs = std::filesystem;
  const std::string root = temp_path("cache");
  fs::remove_all(root);
  const char* old_xdg = std::getenv("XDG_CACHE_HOME");
  const std::string saved_xdg = old_xdg ? old_xdg : "";
  const char* old_switch = std::getenv("SILT_TILE_CACHE");
  const std::string saved_switch = old_switch ? old_switch : "";
  ::setenv("XDG_CACHE_HOME", root.c_str(), 1);
  ::unsetenv("SILT_TILE_CACHE");
  const double L[3] = {8, 8, 8};
  const auto thrown = silt::mpm::periodic_poisson_tile(L, 1.0, 21);
  EXPECT_EQ(silt::mpm::cached_poisson_tile(L, 1.0, 21), thrown);  // thrown and written
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(silt::mpm::tile_cache_dir()))
    files.push_back(e.path());
  ASSERT_EQ(files.size(), 1u);
  const std::string file = files[0].string();
  EXPECT_EQ(silt::mpm::cached_poisson_tile(L, 1.0, 21), thrown);  // read back
  // Another seed is another file.
  EXPECT_EQ(silt::mpm::cached_poisson_tile(L, 1.0, 22),
            silt::mpm::periodic_poisson_tile(L, 1.0, 22));
  // The header: magic, version, seed, r, L (8 bytes each, 7 of them), count, hash; then xyz.
  constexpr std::streamoff kCountAt = 56, kHashAt = 64, kPointsAt = 72;
  auto edited = thrown;
  edited[3][1] += 0.25;
  {
    std::uint64_t h = silt::mpm::mix64(edited.size());
    for (const Vec3d& p : edited)
      for (double v : p) {
        std::uint64_t b;
        std::memcpy(&b, &v, sizeof b);
        h = silt::mpm::mix64(h ^ b);
      }
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(kHashAt);
    f.write(reinterpret_cast<const char*>(&h), sizeof h);
    f.seekp(kPointsAt + std::streamoff(3 * sizeof(Vec3d) + sizeof(double)));
    f.write(reinterpret_cast<const char*>(&edited[3][1]), sizeof(double));
  }
  EXPECT_EQ(silt::mpm::cached_poisson_tile(L, 1.0, 21), edited) << "the file is read";
  {  // A point changed without its hash: damaged, thrown again (and written again).
    std::fstream f(file, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(kPointsAt + 8);
    f.put('x');
  }
  EXPECT_EQ(silt::mpm::cached_poisson_tile(L, 1.0, 21), thrown);
  EXPECT_EQ(silt::mpm::cached_poisson_tile(L, 1.0, 21), thrown);
  fs::resize_file(file, kCountAt + 4);  // truncated
  EXPECT_EQ(silt::mpm::cached_poisson_tile(L, 1.0, 21), thrown);
  ::setenv("SILT_TILE_CACHE", "off", 1);
  fs::remove_all(root);
  EXPECT_EQ(silt::mpm::cached_poisson_tile(L, 1.0, 21), thrown);
  EXPECT_FALSE(fs::exists(root)) << "off writes nothing";
  if (old_switch)
    ::setenv("SILT_TILE_CACHE", saved_switch.c_str(), 1);
  else
    ::unsetenv("SILT_TILE_CACHE");
  if (old_xdg)
    ::setenv("XDG_CACHE_HOME", saved_xdg.c_str(), 1);
  else
    ::unsetenv("XDG_CACHE_HOME");
}

TEST(MpmSampling, PoissonCoversDisconnectedMeshParts) {
  // Two cubes 0.1 m apart in one OBJ: the dart throwing must seed both.
  const std::string text =
      cube_obj({0, 0, 0}, {0.1, 0.1, 0.1}, false) + cube_obj({0.2, 0, 0}, {0.3, 0.1, 0.1}, false);
  // Second cube's faces must index its own vertices: shift them by 8.
  std::istringstream in(text);
  std::string line, fixed;
  int cube = -1;
  while (std::getline(in, line)) {
    if (line.rfind("o cube", 0) == 0) ++cube;
    if (line.rfind("f ", 0) == 0 && cube == 1) {
      std::istringstream ls(line.substr(2));
      int a, b, c;
      ls >> a >> b >> c;
      line =
          "f " + std::to_string(a + 8) + " " + std::to_string(b + 8) + " " + std::to_string(c + 8);
    }
    fixed += line + "\n";
  }
  Source s;
  s.shape = Shape::mesh;
  s.mesh_path = write_file("two_cubes.obj", fixed);
  s.sampling = Sampling::poisson;
  const auto p = silt::mpm::sample_source(s, 0.02);
  std::size_t left = 0, right = 0;
  for (const Vec3d& q : p) (q[0] < 0.15 ? left : right)++;
  // 8 ppc * 125 cells each. The random thinning splits the 2,000 between the cubes with a spread
  // of ~10; an unseeded cube would hold none, so 10% separates the cases by far.
  constexpr double kSplitTolerance = 100;
  EXPECT_NEAR(double(left), 1000.0, kSplitTolerance);
  EXPECT_NEAR(double(right), 1000.0, kSplitTolerance);
  EXPECT_EQ(p.size(), 2000u);
  std::filesystem::remove(s.mesh_path);
}

TEST(MpmSampling, MeshCubeMatchesBoxPointForPoint) {
  // Points never lie on a face (probability zero with jitter), so the mesh's ray-parity test and
  // the box's half-open test must keep exactly the same points, quads or triangles, either winding.
  const Vec3d lo{0.013, 0.021, 0.03}, hi{0.2071, 0.15, 0.177};
  Source b = box(lo, hi);
  const auto want = silt::mpm::sample_source(b, 0.02);
  for (bool quads : {false, true})
    for (bool flip : {false, true}) {
      Source m = b;
      m.shape = Shape::mesh;
      m.mesh_path = write_file("cube.obj", cube_obj(lo, hi, quads, flip));
      EXPECT_EQ(silt::mpm::sample_source(m, 0.02), want) << "quads " << quads << " flip " << flip;
      EXPECT_NEAR(silt::mpm::source_volume(m), silt::mpm::source_volume(b), 1e-12);
      std::filesystem::remove(m.mesh_path);
    }
}

TEST(MpmSampling, MeshRaysThroughSharedEdgesCountOnce) {
  // Regular lattice (jitter 0) and a cube whose triangulated faces have their diagonals exactly on
  // lattice rows (y == z): the +x rays pass through shared edges and must cross each face once.
  const double dx = 1.0 / 32, h = dx / 2;
  const Vec3d lo{4 * h, 4 * h, 4 * h}, hi{20 * h, 20 * h, 20 * h};
  // Shift the cube by half a lattice spacing so the faces lie on lattice points' coordinates in
  // y and z (rays graze edges) but not in x.
  const Vec3d lo2{lo[0], lo[1] + 0.5 * h, lo[2] + 0.5 * h},
      hi2{hi[0], hi[1] + 0.5 * h, hi[2] + 0.5 * h};
  Source m;
  m.shape = Shape::mesh;
  m.jitter = 0;
  m.mesh_path = write_file("edge_cube.obj", cube_obj(lo2, hi2, false));
  const auto p = silt::mpm::sample_source(m, dx);
  // Lattice points with y, z strictly inside count 16 x 15 x 15; those on the y or z faces are
  // split by the tie rule so that each face row goes to exactly one side: 16 x 16 x 16 in all.
  EXPECT_EQ(p.size(), 16u * 16u * 16u);
  std::filesystem::remove(m.mesh_path);
}

TEST(MpmSampling, OpenMeshIsRejectedNamingTheFile) {
  std::string text = cube_obj({0, 0, 0}, {1, 1, 1}, true);
  text = text.substr(0, text.rfind("f "));  // drop the last face
  Source m;
  m.name = "lid";
  m.shape = Shape::mesh;
  m.mesh_path = write_file("open.obj", text);
  try {
    silt::mpm::sample_source(m, 0.1);
    FAIL() << "an open mesh was accepted";
  } catch (const silt::Error& e) {
    const std::string w = e.what();
    EXPECT_NE(w.find("not closed"), std::string::npos) << w;
    EXPECT_NE(w.find("open.obj"), std::string::npos) << w;
    EXPECT_NE(w.find("lid"), std::string::npos) << w;
  }
  std::filesystem::remove(m.mesh_path);
}

TEST(MpmSampling, ObjParseErrorsNameFileAndLine) {
  std::istringstream bad("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n");
  try {
    silt::mpm::TriangleMesh::parse_obj(bad, "tri.obj", 1.0, {0, 0, 0}, "source 's'");
    FAIL() << "index 7 of 3 vertices was accepted";
  } catch (const silt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("tri.obj:4"), std::string::npos) << e.what();
  }
  std::istringstream nonum("v 0 zero 0\n");
  EXPECT_THROW(silt::mpm::TriangleMesh::parse_obj(nonum, "x.obj", 1.0, {0, 0, 0}, "s"),
               silt::Error);
  Source missing;
  missing.shape = Shape::mesh;
  missing.mesh_path = "/nonexistent/dir/x.obj";
  EXPECT_THROW(silt::mpm::sample_source(missing, 0.1), silt::Error);
}

TEST(MpmSampling, DegenerateShapesAreErrors) {
  Source s = box({0, 0, 0}, {0, 1, 1});
  EXPECT_THROW(silt::mpm::sample_source(s, 0.1), silt::Error);
  Source sp;
  sp.shape = Shape::sphere;
  sp.radius = 0;
  EXPECT_THROW(silt::mpm::sample_source(sp, 0.1), silt::Error);
  Source tiny = box({0, 0, 0}, {1e-4, 1e-4, 1e-4});  // holds no particle at dx = 0.1
  EXPECT_THROW(silt::mpm::sample_source(tiny, 0.1), silt::Error);
  Source ok = box({0, 0, 0}, {1, 1, 1});
  EXPECT_THROW(silt::mpm::sample_source(ok, 0.0), silt::Error);
}

TEST(MpmSampling, EmissionTimesIncludeTheLastOne) {
  Source s;
  EXPECT_EQ(silt::mpm::emission_times(s), std::vector<double>{0.0});
  s.emit_interval = 0.1;
  s.emit_start = 0.2;
  s.emit_end = 0.5;  // 0.3 / 0.1 is 2.9999999999999996 in double
  const auto t = silt::mpm::emission_times(s);
  ASSERT_EQ(t.size(), 4u);
  EXPECT_DOUBLE_EQ(t.back(), 0.5);
}

}  // namespace
