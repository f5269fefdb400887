// 3x3 math for MPM: Mat3 algebra, the SVD (float and double) on random, near-singular, rotated,
// inverted and degenerate matrices, and the polar decomposition.
#include <gtest/gtest.h>

#include <random>

#include "mpm_random_rotation.hpp"
#include "silt/core/math/mat.hpp"
#include "silt/core/math/polar.hpp"
#include "silt/core/math/svd3.hpp"
#include "test_support.hpp"

namespace silt {
namespace {

// Float SVD: ~20 rotations and a QR in float accumulate a few ulp each; 1e-5 relative to |F| is
// ~80 ulp of slack yet 100x below any error that would bias the stresses.
constexpr double kFloatSvdTol = 1e-5;
// Double SVD: 5 sweeps reach round-off; 1e-12 leaves ~4000 ulp for the same accumulation.
constexpr double kDoubleSvdTol = 1e-12;

template <class T>
double max_abs_diff(const Mat3<T>& a, const Mat3<T>& b) {
  double m = 0;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m = std::max(m, std::abs(double(a(i, j)) - double(b(i, j))));
  return m;
}
template <class T>
double max_abs(const Mat3<T>& a) {
  return max_abs_diff(a, Mat3<T>::zero());
}

/// Checks every property of the SVD convention for one matrix; returns a failure naming it.
template <class T>
::testing::AssertionResult svd_ok(const Mat3<T>& f, double tol, const char* what, int idx) {
  const Svd3<T> d = svd3(f);
  const double scale = std::max(max_abs(f), 1e-30);
  const Mat3<T> rec = u_diag_vt(d.u, d.sigma, d.v);
  const double rec_err = max_abs_diff(rec, f) / scale;
  const double u_orth = max_abs_diff(transpose_mul(d.u, d.u), Mat3<T>::identity());
  const double v_orth = max_abs_diff(transpose_mul(d.v, d.v), Mat3<T>::identity());
  const double du = double(determinant(d.u)), dv = double(determinant(d.v));
  const auto fail = [&]() {
    return ::testing::AssertionFailure()
           << what << " #" << idx << ": reconstruction " << rec_err << ", U^T U - I " << u_orth
           << ", V^T V - I " << v_orth << ", det U " << du << ", det V " << dv << ", sigma "
           << d.sigma[0] << " " << d.sigma[1] << " " << d.sigma[2] << ", det F " << determinant(f);
  };
  if (!(rec_err <= tol) || !(u_orth <= tol) || !(v_orth <= tol)) return fail();
  if (!(std::abs(du - 1) <= tol) || !(std::abs(dv - 1) <= tol)) return fail();
  // Ordering sigma0 >= sigma1 >= |sigma2| (up to round-off of the largest).
  const double slack = tol * scale;
  if (!(d.sigma[0] + slack >= d.sigma[1]) || !(d.sigma[1] + slack >= std::abs(d.sigma[2])) ||
      !(d.sigma[1] >= -slack))
    return fail();
  // Sign convention: sigma2 < 0 exactly for inverted F (when det F is clearly non-zero).
  const double det = double(determinant(f));
  if (std::abs(det) > 1e3 * tol * scale * scale * scale && ((d.sigma[2] < 0) != (det < 0)))
    return fail();
  return ::testing::AssertionSuccess();
}

template <class T>
void svd_suite(double tol) {
  std::mt19937 rng(12345);
  std::uniform_real_distribution<double> u(-2, 2);
  std::uniform_real_distribution<double> logs(-6, 1);
  for (int i = 0; i < 2000; ++i) {  // random dense
    Mat3<T> f;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) f(r, c) = T(u(rng));
    EXPECT_TRUE(svd_ok(f, tol, "random", i));
  }
  for (int i = 0; i < 2000; ++i) {  // rotated with spread singular values, some inverted
    Vec3<T> s{T(std::pow(10.0, logs(rng))), T(std::pow(10.0, logs(rng))),
              T(std::pow(10.0, logs(rng)))};
    if (i % 2) s[i % 3] = -s[i % 3];
    const Mat3<T> f = u_diag_vt(random_rotation<T>(rng), s, random_rotation<T>(rng));
    EXPECT_TRUE(svd_ok(f, tol, "rotated/inverted", i));
    // Singular values recovered (sorted magnitudes), relative to the largest.
    double m[3] = {std::abs(double(s[0])), std::abs(double(s[1])), std::abs(double(s[2]))};
    std::sort(m, m + 3);
    const Svd3<T> d = svd3(f);
    EXPECT_NEAR(std::abs(double(d.sigma[2])), m[0], 4 * tol * m[2]) << i;
    EXPECT_NEAR(double(d.sigma[1]), m[1], 4 * tol * m[2]) << i;
    EXPECT_NEAR(double(d.sigma[0]), m[2], 4 * tol * m[2]) << i;
  }
  for (int i = 0; i < 500; ++i) {  // near-singular: rank 2 and rank 1 plus tiny noise
    const Mat3<T> r1 = random_rotation<T>(rng), r2 = random_rotation<T>(rng);
    const Vec3<T> s = (i % 2) ? Vec3<T>{T(1.3), T(0.7), T(1e-7)} : Vec3<T>{T(2), T(1e-6), T(0)};
    EXPECT_TRUE(svd_ok(u_diag_vt(r1, s, r2), tol, "near-singular", i));
  }
  for (int i = 0; i < 500; ++i) {  // repeated singular values (degenerate V)
    const Mat3<T> r1 = random_rotation<T>(rng), r2 = random_rotation<T>(rng);
    const Vec3<T> s = (i % 3 == 0)   ? Vec3<T>{T(1), T(1), T(1)}
                      : (i % 3 == 1) ? Vec3<T>{T(1.5), T(1.5), T(-0.2)}
                                     : Vec3<T>{T(0.9), T(0.3), T(0.3)};
    EXPECT_TRUE(svd_ok(u_diag_vt(r1, s, r2), tol, "repeated", i));
  }
  EXPECT_TRUE(svd_ok(Mat3<T>::zero(), tol, "zero", 0));
  EXPECT_TRUE(svd_ok(Mat3<T>::identity(), tol, "identity", 0));
  EXPECT_TRUE(svd_ok(Mat3<T>::diag(Vec3<T>{T(1), T(-1), T(1)}), tol, "reflection", 0));
  EXPECT_TRUE(svd_ok(Mat3<T>::diag(Vec3<T>{T(-1), T(-1), T(-1)}), tol, "point inversion", 0));
  EXPECT_TRUE(
      svd_ok(outer(Vec3<T>{T(1), T(2), T(3)}, Vec3<T>{T(-1), T(0.5), T(2)}), tol, "rank one", 0));
}

TEST(Svd3, FloatMeetsConventionAndReconstructs) {
  svd_suite<float>(kFloatSvdTol);
}
TEST(Svd3, DoubleMeetsConventionAndReconstructs) {
  svd_suite<double>(kDoubleSvdTol);
}

TEST(Svd3, IdentityGivesIdentityFactors) {
  const Svd3<double> d = svd3(Mat3<double>::identity());
  EXPECT_LE(max_abs_diff(d.u, Mat3<double>::identity()), kDoubleSvdTol);
  EXPECT_LE(max_abs_diff(d.v, Mat3<double>::identity()), kDoubleSvdTol);
}

TEST(Polar3, RotationTimesSymmetric) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int i = 0; i < 200; ++i) {
    Mat3<double> f = Mat3<double>::identity();
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) f(r, c) += 0.5 * u(rng);
    const Polar3<double> p = polar3(f);
    EXPECT_LE(max_abs_diff(p.r * p.s, f), kDoubleSvdTol) << i;
    EXPECT_LE(max_abs_diff(p.s, transpose(p.s)), kDoubleSvdTol) << i;
    EXPECT_LE(max_abs_diff(transpose_mul(p.r, p.r), Mat3<double>::identity()), kDoubleSvdTol);
    EXPECT_NEAR(determinant(p.r), 1.0, kDoubleSvdTol) << i;
  }
  // A pure rotation is its own polar factor with S = I.
  const Mat3<double> q = random_rotation<double>(rng);
  const Polar3<double> p = polar3(q);
  EXPECT_LE(max_abs_diff(p.r, q), kDoubleSvdTol);
  EXPECT_LE(max_abs_diff(p.s, Mat3<double>::identity()), kDoubleSvdTol);
}

// Exact algebra in double; 1e-13 is round-off for entries of order 1.
constexpr double kAlgebraTol = 1e-13;

TEST(Mat3, InverseCofactorDeterminant) {
  const Mat3<double> a{2, -1, 0.5, 0.3, 1.7, -2, 1, 0.2, 3};
  EXPECT_LE(max_abs_diff(a * inverse(a), Mat3<double>::identity()), kAlgebraTol);
  EXPECT_LE(max_abs_diff(cofactor(a), transpose(inverse(a)) * determinant(a)), kAlgebraTol);
  EXPECT_NEAR(determinant(a), 2 * (1.7 * 3 + 2 * 0.2) + 1 * (0.3 * 3 + 2) + 0.5 * (0.06 - 1.7),
              kAlgebraTol);
  EXPECT_NEAR(trace(a), 6.7, kAlgebraTol);
  const Mat3<double> b{1, 2, 3, 4, 5, 6, 7, 8, 10};
  EXPECT_LE(max_abs_diff(transpose_mul(a, b), transpose(a) * b), kAlgebraTol);
  EXPECT_LE(max_abs_diff(mul_transpose(a, b), a * transpose(b)), kAlgebraTol);
  const Vec3<double> x{1, -2, 0.5}, y{0.3, 4, -1};
  EXPECT_NEAR(dot(outer(x, y) * y, x), dot(x, x) * dot(y, y), kAlgebraTol);
  const Vec3<double> c = cross(x, y);
  EXPECT_NEAR(dot(c, x), 0, kAlgebraTol);
  EXPECT_NEAR(dot(c, y), 0, kAlgebraTol);
  EXPECT_NEAR(norm(normalized(c)), 1, kAlgebraTol);
  EXPECT_EQ(norm(normalized(Vec3<double>::zero())), 0.0);
}

}  // namespace
}  // namespace silt
