// Mesh colliders (mesh_sdf_k.hpp, mpm/mesh/sdf.cpp): the sampled distance field against a box's
// exact one, the rigid keyframes' pose and velocity (v + w x r), a sequence's velocity from its
// vertex motion, sand held by a plate ten times thinner than a cell (no particle below it), a floor
// that carries sand along (its velocity reaches the material), the bad input the builder refuses,
// and the warning that names where a mesh passes through itself.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "mpm_scene_util.hpp"
#include "silt/mpm/mesh/sdf.hpp"
#include "silt/mpm/mesh/self_intersections.hpp"
#include "silt/mpm/scene_params.hpp"
#include "test_support.hpp"

namespace silt::test::mpm {
namespace {

using silt::Vec3f;
using silt::mpm::Collider;
using silt::mpm::ColliderKind;
using silt::mpm::MeshSdf;
using silt::mpm::Vec3d;

constexpr double kPi = 3.14159265358979323846;
/// Trilinear sampling of a distance field on voxels of h is exact for a plane and within ~h/4 of
/// a box's distance near its edges; the float field adds nothing at this size.
constexpr double kDistanceTolVoxels = 0.3;
/// The velocity of a rigid or piecewise linear motion is reproduced to float round-off.
constexpr double kVelocityTol = 1e-4;  // m/s

std::string temp_dir() {
  const std::string d = (std::filesystem::temp_directory_path() /
                         ("silt_mesh_collider_" + std::to_string(::getpid())))
                            .string();
  std::filesystem::create_directories(d);
  return d;
}

/// An axis-aligned box [lo, hi] as a closed, outward-oriented OBJ at path.
void write_box(const std::string& path, const Vec3d& lo, const Vec3d& hi, bool open = false,
               bool append_second = false, const Vec3d& shift = {0, 0, 0}) {
  std::ofstream o(path);
  auto box = [&](const Vec3d& s, int base) {
    for (int c = 0; c < 8; ++c)
      o << "v " << ((c & 1) ? hi[0] : lo[0]) + s[0] << ' ' << ((c & 2) ? hi[1] : lo[1]) + s[1]
        << ' ' << ((c & 4) ? hi[2] : lo[2]) + s[2] << '\n';
    // Faces outward (counter-clockwise seen from outside); vertex c = x + 2 y + 4 z.
    const int f[12][3] = {{0, 2, 3}, {0, 3, 1}, {4, 5, 7}, {4, 7, 6}, {0, 1, 5}, {0, 5, 4},
                          {2, 6, 7}, {2, 7, 3}, {0, 4, 6}, {0, 6, 2}, {1, 3, 7}, {1, 7, 5}};
    for (int t = 0; t < (open ? 11 : 12); ++t)
      o << "f " << base + f[t][0] + 1 << ' ' << base + f[t][1] + 1 << ' ' << base + f[t][2] + 1
        << '\n';
  };
  box({0, 0, 0}, 0);
  if (append_second) box(shift, 8);
}

Collider mesh_collider(const std::string& file) {
  Collider c;
  c.name = "m";
  c.kind = ColliderKind::mesh;
  c.mesh_files = {file};
  return c;
}

/// The field of c in scene s, sampled on the host as the kernels sample it on the device.
struct HostField {
  std::shared_ptr<const MeshSdf> sdf;
  silt::mpm::MeshColliderView view;
  HostField(const Collider& c, const Scene& s) : sdf(silt::mpm::build_mesh_sdf(c, s)) {
    view = silt::mpm::mesh_view(*sdf, sdf->frames.data(), sdf->bricks.data(), sdf->voxels.data(),
                                sdf->keys.empty() ? nullptr : sdf->keys.data());
  }
  double at(const Vec3f& x, float t, Vec3f& n, Vec3f& v) const {
    return silt::mpm::mesh_contact(view, x, t, n, v);
  }
};

Scene unit_scene(double dx = 0.02) {
  Scene s = box_scene("mesh", dx, {1, 1, 1});
  s.materials = {sand()};
  return s;
}

TEST(MpmMeshCollider, BoxDistanceMatchesTheExactOne) {
  if (!silt::mpm::mesh_colliders_available()) GTEST_SKIP() << "built without OpenVDB";
  const std::string f = temp_dir() + "/box.obj";
  write_box(f, {0.3, 0.3, 0.3}, {0.7, 0.6, 0.7});
  Collider c = mesh_collider(f);
  c.grow = 0;
  const Scene s = unit_scene();
  const HostField h(c, s);
  const double tol = kDistanceTolVoxels * h.sdf->voxel;
  Vec3f n, v;
  // Above the top face, inside below it, beside the x+ face: distance and normal.
  EXPECT_NEAR(h.at({0.5f, 0.63f, 0.5f}, 0, n, v), 0.03, tol);
  EXPECT_NEAR(n[1], 1.0, 1e-3);
  EXPECT_NEAR(h.at({0.5f, 0.58f, 0.5f}, 0, n, v), -0.02, tol);
  EXPECT_NEAR(h.at({0.74f, 0.45f, 0.5f}, 0, n, v), 0.04, tol);
  EXPECT_NEAR(n[0], 1.0, 1e-3);
  // Far away: the background, positive.
  EXPECT_GT(h.at({0.05f, 0.05f, 0.05f}, 0, n, v), 0.05);
  // grow moves the surface out by its value.
  c.grow = 0.01;
  const HostField g(c, s);
  EXPECT_NEAR(g.at({0.5f, 0.63f, 0.5f}, 0, n, v), 0.02, tol);
}

TEST(MpmMeshCollider, RigidKeysGivePoseAndVelocity) {
  if (!silt::mpm::mesh_colliders_available()) GTEST_SKIP() << "built without OpenVDB";
  // A bar along x about the origin, turned 90 degrees about y and moved by (0.5, 0.5, 0.5) over 1 s.
  const std::string f = temp_dir() + "/bar.obj";
  write_box(f, {-0.2, -0.05, -0.05}, {0.2, 0.05, 0.05});
  Collider c = mesh_collider(f);
  c.grow = 0;
  c.keys = {{0.0, {0.5, 0.5, 0.5}, {0, 1, 0}, 0.0}, {1.0, {0.5, 0.5, 0.6}, {0, 1, 0}, 90.0}};
  const Scene s = unit_scene();
  const HostField h(c, s);
  const double tol = kDistanceTolVoxels * h.sdf->voxel;
  Vec3f n, v;
  // t = 0: the bar's end at x = 0.7; t = 1: turned onto the z axis, centred at z = 0.6: its end
  // at z = 0.6 - 0.2 (rotation by +90 about y takes +x to -z).
  EXPECT_NEAR(h.at({0.72f, 0.5f, 0.5f}, 0.0f, n, v), 0.02, tol);
  EXPECT_NEAR(h.at({0.5f, 0.5f, 0.38f}, 1.0f, n, v), 0.02, tol);
  EXPECT_NEAR(n[2], -1.0, 1e-2);
  EXPECT_GT(h.at({0.72f, 0.5f, 0.6f}, 1.0f, n, v), 0.05);  // the band's far value
  // t = 0.5: turned 45 degrees; the velocity at a point is v + w x (x - T).
  const float w = float(kPi / 2);
  const Vec3f x{0.6f, 0.5f, 0.55f}, T{0.5f, 0.5f, 0.55f};
  h.at(x, 0.5f, n, v);
  const Vec3f expect = Vec3f{0, 0, 0.1f} + silt::cross(Vec3f{0, w, 0}, x - T);
  for (int a = 0; a < 3; ++a) EXPECT_NEAR(v[a], expect[a], kVelocityTol) << "axis " << a;
  // After the last key it holds still.
  h.at(x, 2.0f, n, v);
  EXPECT_NEAR(silt::norm(v), 0.0, kVelocityTol);
}

TEST(MpmMeshCollider, SequenceVelocityFromVertexMotion) {
  if (!silt::mpm::mesh_colliders_available()) GTEST_SKIP() << "built without OpenVDB";
  // Three frames of a box moving +x by 0.05 m per 0.1 s: 0.5 m/s at every surface point.
  const std::string d = temp_dir();
  Collider c;
  c.name = "seq";
  c.kind = ColliderKind::mesh;
  c.grow = 0;
  for (int k = 0; k < 3; ++k) {
    const std::string f = d + "/seq_" + std::to_string(k) + ".obj";
    write_box(f, {0.3 + 0.05 * k, 0.3, 0.3}, {0.5 + 0.05 * k, 0.5, 0.5});
    c.mesh_files.push_back(f);
    c.frame_times.push_back(0.1 * k);
  }
  const Scene s = unit_scene();
  const HostField h(c, s);
  const double tol = kDistanceTolVoxels * h.sdf->voxel;
  Vec3f n, v;
  // Halfway between frames 0 and 1 the x+ face is at 0.525.
  EXPECT_NEAR(h.at({0.545f, 0.4f, 0.4f}, 0.05f, n, v), 0.02, tol);
  EXPECT_NEAR(v[0], 0.5, 1e-3);
  EXPECT_NEAR(v[1], 0.0, 1e-3);
  EXPECT_NEAR(h.at({0.4f, 0.52f, 0.4f}, 0.15f, n, v), 0.02, tol);  // top face
  EXPECT_NEAR(v[0], 0.5, 1e-3);
}

/// Sand dropped on a plate a tenth of a cell thick spanning the box: every particle stays above.
TEST(MpmMeshCollider, ThinPlateHoldsSand) {
  if (!silt::mpm::mesh_colliders_available()) GTEST_SKIP() << "built without OpenVDB";
  const double dx = 0.02, y0 = 0.1, thick = 0.1 * dx;
  const std::string f = temp_dir() + "/plate.obj";
  write_box(f, {-0.05, y0 - 0.5 * thick, -0.05}, {0.25, y0 + 0.5 * thick, 0.25});
  Scene s = box_scene("plate", dx, {0.2, 0.3, 0.2});
  s.materials = {sand()};
  s.sources = {box_source({0.04, 0.16, 0.04}, {0.16, 0.24, 0.16})};
  s.frame_dt = 0.05;
  Collider c = mesh_collider(f);
  c.wall = silt::mpm::WallKind::separate;
  s.colliders = {c};
  std::vector<std::string> log;
  silt::mpm::SolverOptions o;
  o.log = [&](const std::string& w) {
    log.push_back(w);
  };
  silt::mpm::Solver solver(s, {exec()}, o);
  // One warning about the thin plate (and, in a build without CGAL, one saying that the mesh
  // was not checked for self-intersections).
  const std::size_t unchecked = silt::mpm::self_intersection_check_available() ? 0 : 1;
  ASSERT_EQ(log.size(), 1u + unchecked) << "expected one warning about the thin plate";
  const std::string& thin = log[unchecked ? (log[0].find("not checked") != std::string::npos) : 0];
  EXPECT_NE(thin.find("thinner than a cell"), std::string::npos) << thin;
  EXPECT_NE(thin.find("plate.obj"), std::string::npos) << thin;
  long long steps = 0;
  for (int k = 0; k < 8; ++k) steps += solver.advance_frame().steps;  // 0.4 s: fallen and settled
  const silt::mpm::ParticleFrame p = solver.particles();
  std::size_t below = 0;
  float lowest = 1e30f;
  for (std::size_t i = 0; i < p.count(); ++i) {
    lowest = std::min(lowest, p.position[3 * i + 1]);
    if (p.position[3 * i + 1] < y0 + 0.5 * thick) ++below;
  }
  std::printf(
      "thin plate: %zu particles, %lld steps, lowest y %.5f m (plate top %.5f m), %zu "
      "inside or below\n",
      p.count(), steps, lowest, y0 + 0.5 * thick, below);
  EXPECT_EQ(below, 0u) << "particles went through the plate";
  EXPECT_LT(lowest, y0 + 3 * dx) << "the sand did not reach the plate";
}

/// A sticky floor mesh translating at 0.2 m/s carries the sand on it at its speed.
TEST(MpmMeshCollider, MovingFloorCarriesSand) {
  if (!silt::mpm::mesh_colliders_available()) GTEST_SKIP() << "built without OpenVDB";
  const double dx = 0.02;
  const std::string f = temp_dir() + "/floor.obj";
  write_box(f, {-0.5, 0.0, -0.5}, {0.7, 0.06, 0.7});
  Scene s = box_scene("floor", dx, {0.2, 0.2, 0.2}, silt::mpm::WallKind::slip);
  s.materials = {sand()};
  s.sources = {box_source({0.06, 0.08, 0.06}, {0.14, 0.12, 0.14})};
  s.frame_dt = 0.05;
  s.gravity = {0, -9.81, 0};
  Collider c = mesh_collider(f);
  c.wall = silt::mpm::WallKind::sticky;
  c.keys = {{0.0, {0, 0, 0}, {0, 1, 0}, 0}, {1.0, {0.2, 0, 0}, {0, 1, 0}, 0}};
  s.colliders = {c};
  silt::mpm::Solver solver(s, exec());
  for (int k = 0; k < 3; ++k) solver.advance_frame();
  const silt::mpm::ParticleFrame p = solver.particles();
  double vx = 0;
  std::size_t n = 0;
  for (std::size_t i = 0; i < p.count(); ++i)
    if (p.position[3 * i + 1] < 0.06 + 1.01 * dx + dx) vx += p.velocity[3 * i], ++n;
  ASSERT_GT(n, 0u);
  vx /= double(n);
  std::printf("moving floor: %zu particles near it, mean vx %.4f m/s (floor 0.2)\n", n, vx);
  EXPECT_NEAR(vx, 0.2, 0.03) << "the floor's velocity did not reach the material on it";
}

// Bad input: every error names the file (and the frame of a sequence).
void expect_error(const Collider& c, const Scene& s, const std::string& a, const std::string& b) {
  try {
    silt::mpm::build_mesh_sdf(c, s);
    ADD_FAILURE() << "no error (expected one mentioning '" << a << "' and '" << b << "')";
  } catch (const silt::Error& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find(a), std::string::npos) << m;
    EXPECT_NE(m.find(b), std::string::npos) << m;
  }
}

TEST(MpmMeshCollider, BadInputIsNamed) {
  if (!silt::mpm::mesh_colliders_available()) {
    const std::string f = temp_dir() + "/nolib.obj";
    write_box(f, {0.3, 0.3, 0.3}, {0.6, 0.6, 0.6});
    expect_error(mesh_collider(f), unit_scene(), "needs OpenVDB", "'m'");
    return;
  }
  const std::string d = temp_dir();
  const Scene s = unit_scene();
  write_box(d + "/open.obj", {0.3, 0.3, 0.3}, {0.6, 0.6, 0.6}, true);
  expect_error(mesh_collider(d + "/open.obj"), s, "open.obj", "not closed");
  write_box(d + "/far.obj", {2.3, 0.3, 0.3}, {2.6, 0.6, 0.6});
  expect_error(mesh_collider(d + "/far.obj"), s, "far.obj", "outside the domain");
  // A key that moves the mesh out of the domain is named with its time.
  Collider k = mesh_collider(d + "/open.obj");
  write_box(d + "/ok.obj", {0.3, 0.3, 0.3}, {0.6, 0.6, 0.6});
  k.mesh_files = {d + "/ok.obj"};
  k.keys = {{0.0, {0, 0, 0}, {0, 1, 0}, 0}, {1.0, {0, 5, 0}, {0, 1, 0}, 0}};
  expect_error(k, s, "key 1 (t = 1 s)", "outside the domain");
  // A sequence whose second frame has another vertex count.
  Collider q;
  q.name = "seq";
  q.kind = ColliderKind::mesh;
  write_box(d + "/q0.obj", {0.3, 0.3, 0.3}, {0.6, 0.6, 0.6});
  write_box(d + "/q1.obj", {0.3, 0.3, 0.3}, {0.6, 0.6, 0.6}, false, true, {0.0, 0.31, 0.0});
  q.mesh_files = {d + "/q0.obj", d + "/q1.obj"};
  q.frame_times = {0.0, 0.1};
  expect_error(q, s, "frame 1, " + d + "/q1.obj", "vertex count");
  // A plate thinner than its voxels with no growth cannot hold anything.
  write_box(d + "/thin.obj", {0.2, 0.5, 0.2}, {0.8, 0.502, 0.8});
  Collider t = mesh_collider(d + "/thin.obj");
  t.grow = 0;
  expect_error(t, s, "thin.obj", "too thin");
}

/// The builder's warnings about self-intersections (none when there are none).
std::string self_intersection_warnings(const Collider& c, const Scene& s) {
  std::string all;
  const std::shared_ptr<const MeshSdf> sdf = silt::mpm::build_mesh_sdf(c, s);
  for (const std::string& w : sdf->warnings)
    if (w.find("intersect") != std::string::npos) all += w + "\n";
  return all;
}

TEST(MpmMeshCollider, SelfIntersectionsAreNamedWithTheirPlace) {
  if (!silt::mpm::mesh_colliders_available()) GTEST_SKIP() << "built without OpenVDB";
  const std::string d = temp_dir();
  const Scene s = unit_scene();
  write_box(d + "/one.obj", {0.3, 0.3, 0.3}, {0.5, 0.5, 0.5});
  // Two boxes apart in one file: closed, and no pair crosses.
  write_box(d + "/apart.obj", {0.2, 0.3, 0.3}, {0.4, 0.5, 0.5}, false, true, {0.3, 0, 0});
  // The second box overlaps the first by 0.1 m along x: its faces cross the first one's.
  write_box(d + "/cross.obj", {0.2, 0.3, 0.3}, {0.4, 0.5, 0.5}, false, true, {0.1, 0.05, 0.05});
  if (!silt::mpm::self_intersection_check_available()) {
    const std::string w = self_intersection_warnings(mesh_collider(d + "/cross.obj"), s);
    EXPECT_NE(w.find("not checked for self-intersections"), std::string::npos) << w;
    GTEST_SKIP() << "built without CGAL";
  }
  EXPECT_EQ(self_intersection_warnings(mesh_collider(d + "/one.obj"), s), "");
  EXPECT_EQ(self_intersection_warnings(mesh_collider(d + "/apart.obj"), s), "");
  const std::string w = self_intersection_warnings(mesh_collider(d + "/cross.obj"), s);
  EXPECT_NE(w.find("cross.obj"), std::string::npos) << w;
  EXPECT_NE(w.find("intersects itself"), std::string::npos) << w;
  // The first box's x = 0.4 face and y, z faces meet the second's: every pair found is one
  // triangle of each box, and the place named lies in the overlap's neighbourhood.
  const silt::mpm::TriangleMesh m =
      silt::mpm::TriangleMesh::load_obj(d + "/cross.obj", 1.0, {0, 0, 0}, "test");
  const silt::mpm::SelfIntersections x = silt::mpm::find_self_intersections(m);
  EXPECT_GT(x.pairs, 0u);
  EXPECT_NE(x.example[0] < 12, x.example[1] < 12);
  EXPECT_GT(x.where[0], 0.2);
  EXPECT_LT(x.where[0], 0.6);
  // A sequence names the frame that intersects.
  Collider q;
  q.name = "seq";
  q.kind = ColliderKind::mesh;
  q.mesh_files = {d + "/apart.obj", d + "/cross.obj"};
  q.frame_times = {0.0, 0.1};
  const std::string wq = self_intersection_warnings(q, s);
  EXPECT_NE(wq.find("frame 1, " + d + "/cross.obj"), std::string::npos) << wq;
  EXPECT_EQ(wq.find("frame 0"), std::string::npos) << wq;
}

}  // namespace
}  // namespace silt::test::mpm
