// The contact condition of multi-field MPM (kernels/contact_k.hpp): the surface offset inverts the
// quadratic B-spline's integral, the gap of two touching half-spaces is 0, and the contact impulse
// conserves momentum, stops the normal approach, caps the tangential part by Coulomb friction and
// leaves separating bodies alone.
#include <gtest/gtest.h>

#include <cmath>

#include "silt/mpm/kernels/contact_k.hpp"

namespace silt::mpm {
namespace {

using V3 = Vec3<double>;

/// The integral of the quadratic B-spline from -1.5 to d (cells), by the midpoint rule.
double spline_fraction(double d) {
  double f = 0;
  const int n = 20000;
  const double h = (d + 1.5) / n;
  for (int i = 0; i < n; ++i) {
    const double u = std::abs(-1.5 + (i + 0.5) * h);
    f += h * (u < 0.5 ? 0.75 - u * u : (u < 1.5 ? 0.5 * (1.5 - u) * (1.5 - u) : 0.0));
  }
  return f;
}

TEST(MpmContactKernel, SurfaceOffsetInvertsTheSplineIntegral) {
  for (double d = -1.45; d < 1.5; d += 0.05) {
    const double f = spline_fraction(d);
    EXPECT_NEAR(surface_offset(f), d, 1e-6) << "fraction " << f;
    EXPECT_NEAR(surface_offset(float(f)), d, 2e-4) << "fraction " << f;
    // Two half-spaces touching at d: their fractions sum to 1 and the gap is 0.
    EXPECT_NEAR(contact_gap(f, 1.0 - f), 0.0, 1e-6);
  }
  EXPECT_EQ(surface_offset(0.0), -1.5);
  EXPECT_EQ(surface_offset(1.2), 1.5);
}

TEST(MpmContactKernel, ImpulseConservesMomentumAndStopsTheApproach) {
  const V3 n{0, 1, 0};  // out of A into B
  V3 va{0.3, 2.0, 0}, vb{0, -1.0, 0};
  const double ma = 2, mb = 1;
  const V3 p0 = va * ma + vb * mb;
  ASSERT_TRUE(contact_pair(ma, va, mb, vb, n, 0.0));
  const V3 p1 = va * ma + vb * mb;
  for (int d = 0; d < 3; ++d) EXPECT_NEAR(p1[d], p0[d], 1e-12);
  EXPECT_NEAR(va[1], vb[1], 1e-12);  // no normal approach left
  EXPECT_NEAR(va[0], 0.3, 1e-12);    // frictionless: the tangential velocities are kept
  EXPECT_NEAR(vb[0], 0.0, 1e-12);
}

TEST(MpmContactKernel, FrictionCapsTheTangentialImpulse) {
  const V3 n{0, 1, 0};
  // Sticking: mu large enough to stop the sliding too (both get the centre-of-mass velocity).
  V3 va{0.1, 1.0, 0}, vb{0, -1.0, 0};
  ASSERT_TRUE(contact_pair(1.0, va, 1.0, vb, n, 10.0));
  EXPECT_NEAR(va[0], vb[0], 1e-12);
  // Sliding: the tangential impulse is mu times the normal one (here 0.5 * 1 kg m/s).
  va = V3{4.0, 1.0, 0}, vb = V3{0, -1.0, 0};
  ASSERT_TRUE(contact_pair(1.0, va, 1.0, vb, n, 0.5));
  EXPECT_NEAR(va[0], 4.0 - 0.5, 1e-12);
  EXPECT_NEAR(vb[0], 0.5, 1e-12);
}

TEST(MpmContactKernel, SeparatingOrDistantBodiesAreFree) {
  const V3 n{0, 1, 0};
  V3 va{0, -1.0, 0}, vb{0, 1.0, 0};  // moving apart
  EXPECT_FALSE(contact_pair(1.0, va, 1.0, vb, n, 0.5));
  EXPECT_EQ(va[1], -1.0);
  const ContactParams<double> c{0.0, 0.5};
  V3 wa{0, 1.0, 0}, wb{0, -1.0, 0};  // approaching, but the surfaces are a cell apart
  const double fa = spline_fraction(-0.5), fb = 1.0 - spline_fraction(0.5);
  EXPECT_FALSE(contact_node(1.0, wa, fa, V3{0, 1, 0}, 1.0, wb, fb, V3{0, -1, 0}, c));
  EXPECT_TRUE(contact_node(1.0, wa, fa, V3{0, 1, 0}, 1.0, wb, 1.0 - fa, V3{0, -1, 0}, c));
  EXPECT_NEAR(wa[1], 0.0, 1e-12);
}

}  // namespace
}  // namespace silt::mpm
