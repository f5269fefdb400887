// SIMD across particles: svd3 on FloatPack lanes (float_pack.hpp) must give, in every lane, the
// bits svd3<float> gives for that lane's matrix, on the matrices the float suite uses (random,
// rotated and inverted with graded singular values, near-singular, repeated, zero, rank one) and
// on packs that mix them, so that lanes which skip a rotation, a swap or a Givens step sit beside
// lanes that take it. The host P2G relies on this for its bit-for-bit results (mpm/host/p2g.cpp).
// The same for log_lanes / exp_lanes (log_exp_lanes.hpp, with their accuracy) and for the
// Drucker-Prager model, which the host P2G runs on packs (mpm/host/p2g_packed.hpp).
#include <gtest/gtest.h>

// This unit is built for baseline x86-64 and instantiates 8- and 16-lane packs (log_exp_lanes.hpp
// returns their bits as raw vectors, always inlined): g++'s note that such returns change the ABI
// without AVX does not apply.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wpsabi"
#endif

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <vector>

#include "mpm_random_rotation.hpp"
#include "silt/core/math/float_pack.hpp"
#include "silt/core/math/mat.hpp"
#include "silt/core/math/svd3.hpp"
#include "silt/mpm/host/svd.hpp"
#include "silt/mpm/kernels/materials/drucker_prager_k.hpp"

namespace silt {
namespace {

std::uint32_t bits(float x) {
  std::uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

/// The test matrices, in an order that mixes kinds within every pack.
std::vector<Mat3f> test_matrices() {
  std::mt19937 rng(4242);
  std::uniform_real_distribution<float> u(-2, 2);
  std::uniform_real_distribution<double> logs(-6, 1);
  const auto rotation = [&] {
    return random_rotation<float>(rng);
  };
  std::vector<Mat3f> fs;
  for (int i = 0; i < 3000; ++i) {
    switch (i % 7) {
      case 0: {  // random dense
        Mat3f f;
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c) f(r, c) = u(rng);
        fs.push_back(f);
        break;
      }
      case 1:
      case 2: {  // graded singular values, every other one inverted
        Vec3f s{float(std::pow(10.0, logs(rng))), float(std::pow(10.0, logs(rng))),
                float(std::pow(10.0, logs(rng)))};
        if (i % 2) s[i % 3] = -s[i % 3];
        fs.push_back(u_diag_vt(rotation(), s, rotation()));
        break;
      }
      case 3:  // near-singular
        fs.push_back(u_diag_vt(
            rotation(), (i % 2) ? Vec3f{1.3f, 0.7f, 1e-7f} : Vec3f{2.0f, 1e-6f, 0.0f}, rotation()));
        break;
      case 4:  // repeated singular values
        fs.push_back(u_diag_vt(rotation(), Vec3f{1.5f, 1.5f, -0.2f}, rotation()));
        break;
      case 5: {  // already diagonal, sorted or not (no rotation, or swaps only)
        const float s[3] = {u(rng), u(rng), u(rng)};
        fs.push_back(Mat3f::diag(Vec3f{s[0], s[1], s[2]}));
        break;
      }
      default:  // degenerate: zero, identity, rank one, a zero column
        if (i % 4 == 0) fs.push_back(Mat3f::zero());
        if (i % 4 == 1) fs.push_back(Mat3f::identity());
        if (i % 4 == 2) fs.push_back(outer(Vec3f{1, 2, 3}, Vec3f{-1, 0.5f, 2}));
        if (i % 4 == 3) fs.push_back(Mat3f{u(rng), 0, u(rng), u(rng), 0, u(rng), u(rng), 0, 1});
        break;
    }
  }
  return fs;
}

template <int W>
void expect_lanes_match_scalar() {
  const std::vector<Mat3f> fs = test_matrices();
  int mismatches = 0;
  for (std::size_t i0 = 0; i0 + W <= fs.size(); i0 += W) {
    Mat3<FloatPack<W>> f;
    for (int l = 0; l < W; ++l)
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) f.m[r][c].set(l, fs[i0 + l](r, c));
    const Svd3<FloatPack<W>> d = svd3(f);
    for (int l = 0; l < W; ++l) {
      const Svd3<float> s = svd3(fs[i0 + l]);
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
          const bool same = bits(d.u.m[r][c][l]) == bits(s.u(r, c)) &&
                            bits(d.v.m[r][c][l]) == bits(s.v(r, c)) &&
                            (c > 0 || bits(d.sigma[r][l]) == bits(s.sigma[r]));
          if (!same && mismatches++ < 10)
            ADD_FAILURE() << "matrix " << i0 + l << " (lane " << l << " of " << W << "), entry ("
                          << r << ", " << c << "): pack u " << d.u.m[r][c][l] << " v "
                          << d.v.m[r][c][l] << " sigma " << d.sigma[r][l] << ", scalar u "
                          << s.u(r, c) << " v " << s.v(r, c) << " sigma " << s.sigma[r];
        }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(FloatPackSvd3, FourLanesGiveTheScalarBits) {
  expect_lanes_match_scalar<4>();
}
TEST(FloatPackSvd3, EightLanesGiveTheScalarBits) {
  expect_lanes_match_scalar<8>();
}

/// The host P2G's batches: two SSE2 packs, and on a CPU with AVX the 8-lane pack built for it
/// (host_svd_avx.cpp), both the scalar bits.
TEST(HostSvd3, BatchesGiveTheScalarBits) {
  const std::vector<Mat3f> fs = test_matrices();
  const int k = mpm::detail::kHostSvdLanes;
  for (const bool avx : {false, mpm::detail::host_svd_has_avx()}) {
    int mismatches = 0;
    for (std::size_t i0 = 0; i0 + k <= fs.size(); i0 += k) {
      Svd3<float> d[mpm::detail::kHostSvdLanes];
      mpm::detail::host_svd3(&fs[i0], d, avx);
      for (int l = 0; l < k; ++l) {
        const Svd3<float> s = svd3(fs[i0 + l]);
        bool same = true;
        for (int r = 0; r < 3; ++r) {
          same = same && bits(d[l].sigma[r]) == bits(s.sigma[r]);
          for (int c = 0; c < 3; ++c)
            same = same && bits(d[l].u(r, c)) == bits(s.u(r, c)) &&
                   bits(d[l].v(r, c)) == bits(s.v(r, c));
        }
        if (!same && mismatches++ < 10)
          ADD_FAILURE() << "matrix " << i0 + l << (avx ? " (AVX batch)" : " (SSE2 batch)")
                        << ": sigma " << d[l].sigma[0] << " " << d[l].sigma[1] << " "
                        << d[l].sigma[2] << ", scalar " << s.sigma[0] << " " << s.sigma[1] << " "
                        << s.sigma[2];
      }
    }
    EXPECT_EQ(mismatches, 0) << (avx ? "AVX" : "SSE2");
  }
}

/// A NaN lane stays NaN and leaves its neighbours' bits alone.
TEST(FloatPackSvd3, NanLaneStaysInItsLane) {
  const Mat3f good = u_diag_vt(Mat3f::identity(), Vec3f{1.2f, 0.9f, 0.8f},
                               Mat3f{0.6f, 0.8f, 0, -0.8f, 0.6f, 0, 0, 0, 1});
  Mat3<FloatPack<4>> f;
  for (int l = 0; l < 4; ++l)
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) f.m[r][c].set(l, l == 2 ? std::nanf("") : good(r, c));
  const Svd3<FloatPack<4>> d = svd3(f);
  const Svd3<float> s = svd3(good);
  EXPECT_TRUE(std::isnan(d.sigma[0][2]));
  for (int l : {0, 1, 3})
    for (int r = 0; r < 3; ++r) {
      EXPECT_EQ(bits(d.sigma[r][l]), bits(s.sigma[r])) << "lane " << l << " sigma " << r;
      for (int c = 0; c < 3; ++c)
        EXPECT_EQ(bits(d.u.m[r][c][l]), bits(s.u(r, c))) << "lane " << l << " u " << r << c;
    }
}

/// The host transfers' transposes (float_pack.hpp): load_columns3 puts element c of row l in lane
/// l of column c, store_rows4 writes lane l of the four packs to row l; both move the values
/// unchanged (NaN payloads and -0 included) and leave the rows' other floats alone.
template <int W>
void expect_transposes_move_values() {
  std::mt19937 rng(99 + W);
  std::uniform_real_distribution<float> u(-3, 3);
  std::vector<float> rows(8 * W);  // row l at 8 l (16 bytes, then 16 bytes that must stay)
  for (float& x : rows) x = u(rng);
  rows[1] = -0.0f, rows[8 * (W - 1) + 2] = std::nanf("7");
  const std::vector<float> before = rows;
  const float* in[W];
  float* out[W];
  for (int l = 0; l < W; ++l) in[l] = out[l] = &rows[std::size_t(8 * l)];
  FloatPack<W> col[3];
  load_columns3(in, col);
  for (int l = 0; l < W; ++l)
    for (int c = 0; c < 3; ++c)
      EXPECT_EQ(bits(col[c][l]), bits(before[std::size_t(8 * l + c)]))
          << "lane " << l << " c " << c;
  FloatPack<W> four[4];
  for (int c = 0; c < 4; ++c)
    for (int l = 0; l < W; ++l) four[c].set(l, float(100 * c + l) + 0.5f);
  four[3].set(W - 1, -0.0f);
  store_rows4(four, out);
  for (int l = 0; l < W; ++l)
    for (int k = 0; k < 8; ++k) {
      const float want = k < 4 ? four[k][l] : before[std::size_t(8 * l + k)];
      EXPECT_EQ(bits(rows[std::size_t(8 * l + k)]), bits(want)) << "row " << l << " float " << k;
    }
}

TEST(FloatPackTranspose, FourLanesMoveValuesUnchanged) {
  expect_transposes_move_values<4>();
}
TEST(FloatPackTranspose, EightLanesMoveValuesUnchanged) {
  expect_transposes_move_values<8>();
}
TEST(FloatPackTranspose, SixteenLanesMoveValuesUnchanged) {
  expect_transposes_move_values<16>();
}

/// Floats for the log/exp checks: every 251st bit pattern (both signs, subnormals, infinities and
/// NaNs among them), a dense sweep of exp's range and the special values.
std::vector<float> log_exp_inputs() {
  std::vector<float> xs;
  for (std::uint64_t b = 0; b < (std::uint64_t(1) << 32); b += 251) {
    const std::uint32_t u = std::uint32_t(b);
    float x;
    std::memcpy(&x, &u, sizeof x);
    xs.push_back(x);
  }
  for (int i = 0; i <= 2000000; ++i) xs.push_back(-110.0f + 205.0f * float(i) / 2000000.0f);
  for (float x : {0.0f, -0.0f, 1.0f, -1.0f, 1e-45f, 1.17549435e-38f, 88.72283f, 88.72284f,
                  -87.33654f, -103.97208f, -104.0f, 89.0f, HUGE_VALF, -HUGE_VALF, std::nanf("")})
    xs.push_back(x);
  return xs;
}

bool same_or_both_nan(float a, float b) {
  return bits(a) == bits(b) || (std::isnan(a) && std::isnan(b));
}

/// Each lane of log_lanes / exp_lanes on a pack gives the bits of the float call for its value.
template <int W>
void expect_log_exp_lanes_match_scalar() {
  const std::vector<float> xs = log_exp_inputs();
  int mismatches = 0;
  for (std::size_t i0 = 0; i0 + W <= xs.size(); i0 += W) {
    FloatPack<W> x;
    for (int l = 0; l < W; ++l) x.set(l, xs[i0 + std::size_t(l)]);
    const FloatPack<W> lg = math::log_lanes(x), ex = math::exp_lanes(x);
    for (int l = 0; l < W; ++l) {
      const float xl = xs[i0 + std::size_t(l)];
      const bool same = same_or_both_nan(lg[l], math::log_lanes(xl)) &&
                        same_or_both_nan(ex[l], math::exp_lanes(xl));
      if (!same && mismatches++ < 10)
        ADD_FAILURE() << "x " << xl << ": log " << lg[l] << " vs " << math::log_lanes(xl)
                      << ", exp " << ex[l] << " vs " << math::exp_lanes(xl);
    }
  }
  EXPECT_EQ(mismatches, 0);
}

TEST(LogExpLanes, FourLanesGiveTheScalarBits) {
  expect_log_exp_lanes_match_scalar<4>();
}
TEST(LogExpLanes, EightLanesGiveTheScalarBits) {
  expect_log_exp_lanes_match_scalar<8>();
}
TEST(LogExpLanes, SixteenLanesGiveTheScalarBits) {
  expect_log_exp_lanes_match_scalar<16>();
}

/// Error of a float result r against the exact value e (double), in units of the float's last
/// place at e.
double ulps(float r, double e) {
  const double ulp = std::ldexp(1.0, std::max(std::ilogb(e), -126) - 23);
  return std::fabs(double(r) - e) / ulp;
}

/// Host float log_lanes / exp_lanes (Cephes' polynomials) against the C library in double: within
/// 1 ulp over every tested finite value (0.77 for log, 0.96 for exp when written); the C
/// library's special values; subnormal results within one step of the subnormal grid.
TEST(LogExpLanes, AccurateAgainstDouble) {
  double worst_log = 0, worst_exp = 0;
  for (const float x : log_exp_inputs()) {
    if (std::isfinite(x) && x > 0)
      worst_log = std::max(worst_log, ulps(math::log_lanes(x), std::log(double(x))));
    const double e = std::exp(double(x));
    if (std::isfinite(x) && e < 3.4e38 && e > 1.1754943508222875e-38)
      worst_exp = std::max(worst_exp, ulps(math::exp_lanes(x), e));
  }
  EXPECT_LT(worst_log, 1.0);
  EXPECT_LT(worst_exp, 1.0);
  std::printf("log_lanes: %.3f ulp, exp_lanes: %.3f ulp (worst)\n", worst_log, worst_exp);
  EXPECT_EQ(math::log_lanes(0.0f), -HUGE_VALF);
  EXPECT_EQ(math::log_lanes(-0.0f), -HUGE_VALF);
  EXPECT_EQ(math::log_lanes(HUGE_VALF), HUGE_VALF);
  EXPECT_TRUE(std::isnan(math::log_lanes(-1.0f)));
  EXPECT_TRUE(std::isnan(math::log_lanes(std::nanf(""))));
  EXPECT_EQ(math::log_lanes(1.0f), 0.0f);
  EXPECT_EQ(math::exp_lanes(0.0f), 1.0f);
  EXPECT_EQ(math::exp_lanes(89.0f), HUGE_VALF);
  EXPECT_EQ(math::exp_lanes(HUGE_VALF), HUGE_VALF);
  EXPECT_EQ(math::exp_lanes(-HUGE_VALF), 0.0f);
  EXPECT_EQ(math::exp_lanes(-104.0f), 0.0f);
  EXPECT_TRUE(std::isnan(math::exp_lanes(std::nanf(""))));
  // Subnormal inputs and results keep their size.
  EXPECT_NEAR(math::log_lanes(1e-40f), std::log(1e-40), 1e-5);
  for (const float x : {-88.0f, -95.0f, -100.0f, -103.0f})  // within one subnormal step
    EXPECT_LE(ulps(math::exp_lanes(x), std::exp(double(x))), 1.0) << x;
}

/// drucker_prager_update on packs: each lane the bits of the float model for its particle (F,
/// volume-correction state, stress), on deformations that mix the model's cases within packs:
/// elastic, flow onto the cone, tension to the apex (with and without cohesion and with a stored
/// volume correction), inverted and crushed F. Every case occurs (counted on the scalar path).
template <int W>
void expect_drucker_prager_lanes_match_scalar() {
  std::mt19937 rng(31 + W);
  std::uniform_real_distribution<float> u(-1, 1);
  const float mu = float(mpm::lame_mu(3.5e5, 0.3)), lambda = float(mpm::lame_lambda(3.5e5, 0.3));
  const float alpha = float(mpm::dp_alpha_from_friction_angle(30.0));
  const auto rotation = [&] {
    return random_rotation<float>(rng);
  };
  struct Case {
    Mat3f f;
    float vc, cohesion, correction;
  };
  std::vector<Case> cases;
  for (int i = 0; i < 4000; ++i) {
    Vec3f s{1.0f + 0.002f * u(rng), 1.0f + 0.002f * u(rng), 1.0f + 0.002f * u(rng)};
    switch (i % 6) {
      case 1:  // sheared and compressed: flows onto the cone
        s = Vec3f{1.0f + 0.05f * u(rng), 0.97f + 0.02f * u(rng), 0.9f + 0.05f * u(rng)};
        break;
      case 2:  // stretched: tension, to the apex
        s = Vec3f{1.05f + 0.05f * u(rng), 1.02f + 0.02f * u(rng), 1.01f + 0.01f * u(rng)};
        break;
      case 3:  // inverted
        s[2] = -s[2];
        break;
      case 4:  // crushed below the floor
        s[2] = 1e-6f * (1.0f + u(rng));
        break;
      default:
        break;
    }
    const Mat3f f = u_diag_vt(rotation(), s, rotation());
    const float vc = i % 5 == 0 ? -0.01f * (1.0f + u(rng)) : 0.0f;
    cases.push_back(Case{f, vc, i % 4 == 0 ? 0.002f : 0.0f, i % 3 == 0 ? 0.5f : 1.0f});
  }
  int mismatches = 0, tension = 0, flow = 0, elastic = 0, rebuilt = 0;
  for (std::size_t i0 = 0; i0 + W <= cases.size(); i0 += W) {
    Svd3<FloatPack<W>> d;
    Mat3<FloatPack<W>> f;
    FloatPack<W> vc, coh, corr;
    for (int l = 0; l < W; ++l) {
      const Case& c = cases[i0 + std::size_t(l)];
      const Svd3<float> s = svd3(c.f);
      for (int r = 0; r < 3; ++r) {
        d.sigma[r].set(l, s.sigma[r]);
        for (int k = 0; k < 3; ++k) {
          d.u.m[r][k].set(l, s.u(r, k));
          d.v.m[r][k].set(l, s.v(r, k));
          f.m[r][k].set(l, c.f(r, k));
        }
      }
      vc.set(l, c.vc), coh.set(l, c.cohesion), corr.set(l, c.correction);
    }
    const Mat3<FloatPack<W>> tau = mpm::drucker_prager_update(
        d, f, vc, FloatPack<W>(mu), FloatPack<W>(lambda), FloatPack<W>(alpha), coh, corr);
    for (int l = 0; l < W; ++l) {
      const Case& c = cases[i0 + std::size_t(l)];
      Mat3f fs = c.f;
      float vs = c.vc;
      const Svd3<float> s = svd3(c.f);
      const Mat3f ts =
          mpm::drucker_prager_update(s, fs, vs, mu, lambda, alpha, c.cohesion, c.correction);
      bool same = bits(vc[l]) == bits(vs);
      for (int r = 0; r < 3; ++r)
        for (int k = 0; k < 3; ++k)
          same = same && bits(f.m[r][k][l]) == bits(fs(r, k)) &&
                 bits(tau.m[r][k][l]) == bits(ts(r, k));
      if (!same && mismatches++ < 10)
        ADD_FAILURE() << "case " << i0 + std::size_t(l) << " lane " << l << ": vc " << vc[l]
                      << " vs " << vs << ", tau00 " << tau.m[0][0][l] << " vs " << ts(0, 0);
      // Which case the scalar model took.
      Vec3f eps{std::log(std::max(std::fabs(s.sigma[0]), 1e-4f)),
                std::log(std::max(std::fabs(s.sigma[1]), 1e-4f)),
                std::log(std::max(std::fabs(s.sigma[2]), 1e-4f))};
      const Vec3f e = eps - Vec3f::constant(c.cohesion);
      if (e[0] + e[1] + e[2] + c.vc >= 0)
        ++tension;
      else if (s.sigma[2] >= 1e-4f && (fs(0, 0) != c.f(0, 0) || fs(1, 1) != c.f(1, 1)))
        ++flow;
      else
        ++elastic;
      rebuilt += !(s.sigma[2] >= 1e-4f);
    }
  }
  EXPECT_EQ(mismatches, 0);
  EXPECT_GT(tension, 100);
  EXPECT_GT(flow, 100);
  EXPECT_GT(elastic, 100);
  EXPECT_GT(rebuilt, 100);
}

TEST(DruckerPragerPacks, FourLanesGiveTheScalarBits) {
  expect_drucker_prager_lanes_match_scalar<4>();
}
TEST(DruckerPragerPacks, EightLanesGiveTheScalarBits) {
  expect_drucker_prager_lanes_match_scalar<8>();
}
TEST(DruckerPragerPacks, SixteenLanesGiveTheScalarBits) {
  expect_drucker_prager_lanes_match_scalar<16>();
}

}  // namespace
}  // namespace silt
