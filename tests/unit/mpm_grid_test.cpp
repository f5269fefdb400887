// Grid update (gravity, damping, domain walls face by face, moving analytic colliders with friction),
// the particle projection out of colliders, and the CFL dt.
#include <gtest/gtest.h>

#include "silt/mpm/kernels/cfl_k.hpp"
#include "silt/mpm/kernels/grid_update_k.hpp"
#include "test_support.hpp"

namespace silt::mpm {
namespace {

using V = Vec3<double>;

// Each check is a handful of flops on O(1) velocities: round-off only.
constexpr double kTol = 1e-14;

GridUpdateParams<double> box_params(WallKind wall, double friction) {
  GridUpdateParams<double> g{};
  g.dt = 1e-3;
  g.time = 0;
  g.gravity = V{0, -9.81, 0};
  g.domain_min = V{0, 0, 0};
  g.domain_max = V{1, 1, 1};
  g.face_tolerance = 1e-3 / 64;
  for (auto& w : g.walls) w = WallParams<double>{wall, friction};
  g.dims = 3;
  g.damping = 0;
  g.min_mass = 1e-12;
  return g;
}

// Node on the floor (the face y = 0), away from the other faces; the node one cell above it is an
// interior node: the walls act on the nodes at and beyond each face, no band of cells inside it.
const V kFloorNode{0.5, 0.0, 0.5};
const V kBelowFloorNode{0.5, -1.0 / 64, 0.5};
const V kAboveFloorNode{0.5, 1.0 / 64, 0.5};
const V kInteriorNode{0.5, 0.5, 0.5};

V update(const GridUpdateParams<double>& g, const V& v, const V& x,
         const ColliderParams<double>* cs = nullptr, int n = 0) {
  const double mass = 2.0;
  // Momentum chosen so that after gravity the node moves with v.
  const V momentum = (v - g.gravity * g.dt) * mass;
  return grid_update_node(mass, momentum, momentum, x, g, cs, n);
}

TEST(GridUpdate, GravityAndEmptyNodes) {
  const GridUpdateParams<double> g = box_params(WallKind::sticky, 0);
  const V v = grid_update_node(2.0, V{2, 4, 6}, V{2, 4, 6}, kInteriorNode, g,
                               static_cast<const ColliderParams<double>*>(nullptr), 0);
  EXPECT_LE(norm(v - V{1, 2 - 9.81e-3, 3}), kTol);
  EXPECT_LE(norm(grid_update_node(0.0, V{1, 1, 1}, V{1, 1, 1}, kInteriorNode, g,
                                  static_cast<const ColliderParams<double>*>(nullptr), 0)),
            0.0);
  EXPECT_LE(norm(node_velocity(0.0, V{1, 1, 1}, 1e-12)), 0.0);
}

TEST(GridUpdate, StickyWallZeroesVelocity) {
  const GridUpdateParams<double> g = box_params(WallKind::sticky, 0);
  EXPECT_LE(norm(update(g, V{1, 2, -3}, kFloorNode)), kTol);
  EXPECT_LE(norm(update(g, V{1, 2, -3}, kBelowFloorNode)), kTol);  // beyond the face too
  EXPECT_LE(norm(update(g, V{1, 2, -3}, kAboveFloorNode) - V{1, 2, -3}), kTol);  // one cell in
  EXPECT_LE(norm(update(g, V{1, 2, -3}, kInteriorNode) - V{1, 2, -3}), kTol);
  EXPECT_LE(norm(update(g, V{1, 2, -3}, V{1.0, 0.5, 0.5})), kTol);  // x-max face too
  EXPECT_LE(norm(update(g, V{1, 2, -3}, V{63.0 / 64, 0.5, 0.5}) - V{1, 2, -3}), kTol);
}

TEST(GridUpdate, EachFaceHasItsOwnCondition) {
  GridUpdateParams<double> g = box_params(WallKind::slip, 0);
  g.walls[2] = WallParams<double>{WallKind::separate, 0.5};  // y-: a rough floor
  g.walls[0] = WallParams<double>{WallKind::sticky, 0};      // x-
  // Floor: friction, |v_t| = 5 -> 4.
  EXPECT_LE(norm(update(g, V{3, -2, 4}, kFloorNode) - V{3, 0, 4} * (4.0 / 5.0)), kTol);
  // The x+ face is a frictionless slip wall: only the normal part goes.
  EXPECT_LE(norm(update(g, V{3, -2, 4}, V{1.0, 0.5, 0.5}) - V{0, -2, 4}), kTol);
  // The x- face is sticky.
  EXPECT_LE(norm(update(g, V{3, -2, 4}, V{0.0, 0.5, 0.5})), kTol);
}

TEST(GridUpdate, PlaneStrainHasNoWallsAlongZ) {
  GridUpdateParams<double> g = box_params(WallKind::sticky, 0);
  g.dims = 2;
  // A 2D scene's nodes lie in the plane z = domain_min.z: they are on both z faces, and no wall
  // may act there.
  EXPECT_LE(norm(update(g, V{1, 2, 0}, V{0.5, 0.5, 0.0}) - V{1, 2, 0}), kTol);
  EXPECT_LE(norm(update(g, V{1, 2, 0}, V{0.5, 0.0, 0.0})), kTol);  // the floor still holds
}

TEST(GridUpdate, LocalDampingOpposesTheVelocity) {
  GridUpdateParams<double> g = box_params(WallKind::separate, 0);
  g.gravity = V::zero();
  g.damping = 0.25;
  const double mass = 2.0;
  const V v0{1, -1, 0};       // before forces
  const V dv{0.4, 0.4, 0.2};  // the forces' velocity change
  const V v = grid_update_node(mass, (v0 + dv) * mass, v0 * mass, kInteriorNode, g,
                               static_cast<const ColliderParams<double>*>(nullptr), 0);
  // f_c -= alpha |f_c| sign(v0_c): x accelerates along v0 (less), y decelerates against it (more),
  // z has no velocity (undamped).
  EXPECT_LE(norm(v - V{1 + 0.4 * 0.75, -1 + 0.4 * 1.25, 0.2}), kTol);
}

TEST(GridUpdate, SlipRemovesOnlyTheNormalComponent) {
  const GridUpdateParams<double> g = box_params(WallKind::slip, 0);
  EXPECT_LE(norm(update(g, V{1, -2, 3}, kFloorNode) - V{1, 0, 3}), kTol);
  EXPECT_LE(norm(update(g, V{1, 2, 3}, kFloorNode) - V{1, 0, 3}), kTol);  // also leaving
}

TEST(GridUpdate, SeparateKeepsTangentialAndOutwardMotion) {
  const GridUpdateParams<double> g = box_params(WallKind::separate, 0);
  EXPECT_LE(norm(update(g, V{1, -2, 3}, kFloorNode) - V{1, 0, 3}), kTol);
  EXPECT_LE(norm(update(g, V{1, 2, 3}, kFloorNode) - V{1, 2, 3}), kTol);  // leaving: untouched
  // Upper face: outward normal is -y there, so moving up is into the wall.
  EXPECT_LE(norm(update(g, V{1, 2, 3}, V{0.5, 1.0, 0.5}) - V{1, 0, 3}), kTol);
}

TEST(GridUpdate, CoulombFrictionReducesTangentialByMuTimesNormal) {
  const double mu = 0.5;
  const GridUpdateParams<double> g = box_params(WallKind::separate, mu);
  // |v_t| = 5 (3, 4 in x, z), v_n = -2: |v_t| -> 5 - 0.5 * 2 = 4 along the same direction.
  EXPECT_LE(norm(update(g, V{3, -2, 4}, kFloorNode) - V{3, 0, 4} * (4.0 / 5.0)), kTol);
  // Static friction: mu |v_n| >= |v_t| stops it.
  EXPECT_LE(norm(update(g, V{0.3, -2, 0.4}, kFloorNode)), kTol);
  // Separating: no friction.
  EXPECT_LE(norm(update(g, V{3, 2, 4}, kFloorNode) - V{3, 2, 4}), kTol);
  // Slip walls apply the same friction when pressed.
  const GridUpdateParams<double> gs = box_params(WallKind::slip, mu);
  EXPECT_LE(norm(update(gs, V{3, -2, 4}, kFloorNode) - V{3, 0, 4} * (4.0 / 5.0)), kTol);
}

ColliderParams<double> plane(WallKind wall, const V& velocity, double friction = 0) {
  ColliderParams<double> c{};
  c.shape = ColliderKind::plane;
  c.wall = wall;
  c.friction = friction;
  c.point = V{0, 0.3, 0};
  c.normal = V{0, 1, 0};
  c.velocity = velocity;
  return c;
}

TEST(GridUpdate, MovingColliderResolvedInItsFrame) {
  GridUpdateParams<double> g = box_params(WallKind::separate, 0);
  g.gravity = V::zero();
  const V vc{0.5, 1.0, 0};  // plane rising at 1 m/s, sliding at 0.5 m/s
  // At t = 0.1 the plane is at y = 0.4: a node at y = 0.35 is inside it.
  g.time = 0.1;
  const V x{0.5, 0.35, 0.5};
  ColliderParams<double> c = plane(WallKind::sticky, vc);
  EXPECT_LE(norm(update(g, V{3, -2, 1}, x, &c, 1) - vc), kTol);
  c = plane(WallKind::slip, vc);
  // Relative (2.5, -3, 1): normal part removed -> v = vc + (2.5, 0, 1).
  EXPECT_LE(norm(update(g, V{3, -2, 1}, x, &c, 1) - V{3, 1, 1}), kTol);
  c = plane(WallKind::separate, vc);
  // Moving up at 1.5 m/s relative +0.5: separating in the plane's frame, untouched.
  EXPECT_LE(norm(update(g, V{3, 1.5, 1}, x, &c, 1) - V{3, 1.5, 1}), kTol);
  // Moving up at 0.5 m/s is still approaching a plane that rises at 1 m/s.
  EXPECT_LE(norm(update(g, V{3, 0.5, 1}, x, &c, 1) - V{3, 1, 1}), kTol);
  c = plane(WallKind::separate, vc, 0.5);
  // Relative (2.5, -0.5, 1) with friction: |v_t| -> |v_t| - 0.25.
  const V rel_t{2.5, 0, 1};
  const V expect = vc + rel_t * (1 - 0.25 / norm(rel_t));
  EXPECT_LE(norm(update(g, V{3, 0.5, 1}, x, &c, 1) - expect), kTol);
  // At t = 0 the plane is at y = 0.3: the same node is outside, untouched.
  g.time = 0;
  c = plane(WallKind::sticky, vc);
  EXPECT_LE(norm(update(g, V{3, -2, 1}, x, &c, 1) - V{3, -2, 1}), kTol);
}

TEST(GridUpdate, ColliderShapesDistanceAndNormal) {
  V n;
  ColliderParams<double> s{};
  s.shape = ColliderKind::sphere;
  s.center = V{0.5, 0.5, 0.5};
  s.radius = 0.2;
  EXPECT_NEAR(collider_distance(s, V{0.5, 0.6, 0.5}, 0.0, n), -0.1, kTol);
  EXPECT_LE(norm(n - V{0, 1, 0}), kTol);
  EXPECT_NEAR(collider_distance(s, V{0.9, 0.5, 0.5}, 0.0, n), 0.2, kTol);

  ColliderParams<double> cyl{};
  cyl.shape = ColliderKind::cylinder;
  cyl.center = V{0.5, 0, 0.5};
  cyl.axis = V{0, 1, 0};
  cyl.radius = 0.1;
  EXPECT_NEAR(collider_distance(cyl, V{0.55, 7.0, 0.5}, 0.0, n), -0.05, kTol);  // infinite
  EXPECT_LE(norm(n - V{1, 0, 0}), kTol);

  ColliderParams<double> b{};
  b.shape = ColliderKind::box;
  b.box_min = V{0.2, 0.2, 0.2};
  b.box_max = V{0.6, 0.4, 0.8};
  b.velocity = V{0.1, 0, 0};
  EXPECT_NEAR(collider_distance(b, V{0.3, 0.39, 0.5}, 0.0, n), -0.01, kTol);  // nearest: top
  EXPECT_LE(norm(n - V{0, 1, 0}), kTol);
  EXPECT_GT(collider_distance(b, V{0.65, 0.3, 0.5}, 0.0, n), 0.0);
  EXPECT_LT(collider_distance(b, V{0.65, 0.3, 0.5}, 1.0, n), 0.0);  // box moved +0.1 in x
  EXPECT_LE(norm(n - V{1, 0, 0}), kTol);
}

TEST(GridUpdate, ParticlesAreMovedOutOfColliders) {
  ColliderParams<double> c = plane(WallKind::separate, V{0, 1, 0}, 0.5);  // rising from y = 0.3
  // At t = 0.1 the plane is at y = 0.4: a particle at y = 0.35 goes to its surface, x and z kept.
  const V x = project_out_of_colliders(V{0.2, 0.35, 0.7}, 0.1, &c, 1);
  EXPECT_LE(norm(x - V{0.2, 0.4, 0.7}), kTol);
  // Outside: untouched.
  EXPECT_LE(norm(project_out_of_colliders(V{0.2, 0.45, 0.7}, 0.1, &c, 1) - V{0.2, 0.45, 0.7}),
            kTol);
  ColliderParams<double> s{};
  s.shape = ColliderKind::sphere;
  s.center = V{0.5, 0.5, 0.5};
  s.radius = 0.2;
  EXPECT_LE(norm(project_out_of_colliders(V{0.5, 0.6, 0.5}, 0.0, &s, 1) - V{0.5, 0.7, 0.5}), kTol);
}

TEST(Cfl, DtFromSpeedAndWaveSpeed) {
  const double dx = 0.01;
  EXPECT_DOUBLE_EQ(cfl_dt(dx, 0.0, 0.0, 0.5, 0.5, 1e-3), 1e-3);               // no limit
  EXPECT_DOUBLE_EQ(cfl_dt(dx, 10.0, 0.0, 0.5, 0.5, 1e-3), 0.5 * dx / 10);     // particle CFL
  EXPECT_DOUBLE_EQ(cfl_dt(dx, 10.0, 100.0, 0.5, 0.4, 1e-3), 0.4 * dx / 100);  // elastic
  EXPECT_DOUBLE_EQ(cfl_dt(dx, 1.0, 1.0, 0.5, 0.5, 1e-3), 1e-3);               // cap
}

}  // namespace
}  // namespace silt::mpm
