// SIMD across particles: svd3 on FloatPack lanes (float_pack.hpp) must give, in every lane, the
// bits svd3<float> gives for that lane's matrix, on the matrices the float suite uses (random,
// rotated and inverted with graded singular values, near-singular, repeated, zero, rank one) and
// on packs that mix them, so that lanes which skip a rotation, a swap or a Givens step sit beside
// lanes that take it. The host P2G relies on this for its bit-for-bit results (host_p2g.cpp).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <vector>

#include "mpm_random_rotation.hpp"
#include "silt/core/math/float_pack.hpp"
#include "silt/core/math/mat.hpp"
#include "silt/core/math/svd3.hpp"
#include "silt/mpm/host_svd.hpp"

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

}  // namespace
}  // namespace silt
