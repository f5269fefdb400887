// Mat3<T>: a row-major 3x3 matrix (aggregate: Mat3<float>{a00, a01, a02, a10, ...}), with the
// products, transposes, determinant, inverse and outer products MPM needs. SILT_HD, no allocation.
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/scalar.hpp"
#include "silt/core/math/vec.hpp"

namespace silt {

template <class T>
struct Mat3 {
  T m[3][3];  // m[row][column]

  SILT_HD SILT_FORCEINLINE T& operator()(int i, int j) { return m[i][j]; }
  SILT_HD SILT_FORCEINLINE const T& operator()(int i, int j) const { return m[i][j]; }

  SILT_HD static Mat3 zero() { return Mat3{T(0), T(0), T(0), T(0), T(0), T(0), T(0), T(0), T(0)}; }
  SILT_HD static Mat3 identity() { return diag(T(1)); }
  SILT_HD static Mat3 diag(T s) { return Mat3{s, T(0), T(0), T(0), s, T(0), T(0), T(0), s}; }
  SILT_HD static Mat3 diag(const Vec3<T>& d) {
    return Mat3{d[0], T(0), T(0), T(0), d[1], T(0), T(0), T(0), d[2]};
  }
  SILT_HD static Mat3 from_cols(const Vec3<T>& a, const Vec3<T>& b, const Vec3<T>& c) {
    return Mat3{a[0], b[0], c[0], a[1], b[1], c[1], a[2], b[2], c[2]};
  }
  SILT_HD static Mat3 from_rows(const Vec3<T>& a, const Vec3<T>& b, const Vec3<T>& c) {
    return Mat3{a[0], a[1], a[2], b[0], b[1], b[2], c[0], c[1], c[2]};
  }

  SILT_HD Vec3<T> row(int i) const { return Vec3<T>{m[i][0], m[i][1], m[i][2]}; }
  SILT_HD Vec3<T> col(int j) const { return Vec3<T>{m[0][j], m[1][j], m[2][j]}; }
  SILT_HD void set_col(int j, const Vec3<T>& c) { m[0][j] = c[0], m[1][j] = c[1], m[2][j] = c[2]; }
  SILT_HD Vec3<T> diagonal() const { return Vec3<T>{m[0][0], m[1][1], m[2][2]}; }

  template <class U>
  SILT_HD Mat3<U> cast() const {
    Mat3<U> r;
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) r.m[i][j] = U(m[i][j]);
    return r;
  }

  SILT_HD Mat3& operator+=(const Mat3& b) {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) m[i][j] += b.m[i][j];
    return *this;
  }
  SILT_HD Mat3& operator-=(const Mat3& b) {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) m[i][j] -= b.m[i][j];
    return *this;
  }
  SILT_HD Mat3& operator*=(T s) {
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) m[i][j] *= s;
    return *this;
  }
};

using Mat3f = Mat3<float>;

template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> operator+(Mat3<T> a, const Mat3<T>& b) {
  return a += b;
}
template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> operator-(Mat3<T> a, const Mat3<T>& b) {
  return a -= b;
}
template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> operator-(Mat3<T> a) {
  return a *= T(-1);
}
template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> operator*(Mat3<T> a, T s) {
  return a *= s;
}
template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> operator*(T s, Mat3<T> a) {
  return a *= s;
}

template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> operator*(const Mat3<T>& a, const Mat3<T>& b) {
  Mat3<T> r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      r.m[i][j] = a.m[i][0] * b.m[0][j] + a.m[i][1] * b.m[1][j] + a.m[i][2] * b.m[2][j];
  return r;
}
template <class T>
SILT_HD SILT_FORCEINLINE Vec3<T> operator*(const Mat3<T>& a, const Vec3<T>& x) {
  return Vec3<T>{a.m[0][0] * x[0] + a.m[0][1] * x[1] + a.m[0][2] * x[2],
                 a.m[1][0] * x[0] + a.m[1][1] * x[1] + a.m[1][2] * x[2],
                 a.m[2][0] * x[0] + a.m[2][1] * x[1] + a.m[2][2] * x[2]};
}

template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> transpose(const Mat3<T>& a) {
  return Mat3<T>{a.m[0][0], a.m[1][0], a.m[2][0], a.m[0][1], a.m[1][1],
                 a.m[2][1], a.m[0][2], a.m[1][2], a.m[2][2]};
}
/// a^T b without forming the transpose.
template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> transpose_mul(const Mat3<T>& a, const Mat3<T>& b) {
  Mat3<T> r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      r.m[i][j] = a.m[0][i] * b.m[0][j] + a.m[1][i] * b.m[1][j] + a.m[2][i] * b.m[2][j];
  return r;
}
/// a b^T without forming the transpose.
template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> mul_transpose(const Mat3<T>& a, const Mat3<T>& b) {
  Mat3<T> r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      r.m[i][j] = a.m[i][0] * b.m[j][0] + a.m[i][1] * b.m[j][1] + a.m[i][2] * b.m[j][2];
  return r;
}

template <class T>
SILT_HD SILT_FORCEINLINE T trace(const Mat3<T>& a) {
  return a.m[0][0] + a.m[1][1] + a.m[2][2];
}
template <class T>
SILT_HD SILT_FORCEINLINE T determinant(const Mat3<T>& a) {
  return a.m[0][0] * (a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1]) -
         a.m[0][1] * (a.m[1][0] * a.m[2][2] - a.m[1][2] * a.m[2][0]) +
         a.m[0][2] * (a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0]);
}
/// Cofactor matrix: cof(A) = det(A) A^{-T}, defined (and smooth) also for singular A. J F^{-T}
/// in hyperelastic stresses is cofactor(F), which needs no division.
template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> cofactor(const Mat3<T>& a) {
  return Mat3<T>{
      a.m[1][1] * a.m[2][2] - a.m[1][2] * a.m[2][1], a.m[1][2] * a.m[2][0] - a.m[1][0] * a.m[2][2],
      a.m[1][0] * a.m[2][1] - a.m[1][1] * a.m[2][0], a.m[0][2] * a.m[2][1] - a.m[0][1] * a.m[2][2],
      a.m[0][0] * a.m[2][2] - a.m[0][2] * a.m[2][0], a.m[0][1] * a.m[2][0] - a.m[0][0] * a.m[2][1],
      a.m[0][1] * a.m[1][2] - a.m[0][2] * a.m[1][1], a.m[0][2] * a.m[1][0] - a.m[0][0] * a.m[1][2],
      a.m[0][0] * a.m[1][1] - a.m[0][1] * a.m[1][0]};
}
/// A^{-1} = cof(A)^T / det(A). The caller guarantees det(A) != 0 (MPM's F never needs it: use
/// cofactor() for J F^{-T}).
template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> inverse(const Mat3<T>& a) {
  const Mat3<T> c = cofactor(a);
  const T det = a.m[0][0] * c.m[0][0] + a.m[0][1] * c.m[0][1] + a.m[0][2] * c.m[0][2];
  return transpose(c) * math::rcp(det);
}

/// a b^T.
template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> outer(const Vec3<T>& a, const Vec3<T>& b) {
  return Mat3<T>{a[0] * b[0], a[0] * b[1], a[0] * b[2], a[1] * b[0], a[1] * b[1],
                 a[1] * b[2], a[2] * b[0], a[2] * b[1], a[2] * b[2]};
}
/// Frobenius inner product A : B = sum_ij A_ij B_ij.
template <class T>
SILT_HD SILT_FORCEINLINE T ddot(const Mat3<T>& a, const Mat3<T>& b) {
  T s = T(0);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) s += a.m[i][j] * b.m[i][j];
  return s;
}
template <class T>
SILT_HD SILT_FORCEINLINE T frobenius_norm2(const Mat3<T>& a) {
  return ddot(a, a);
}
/// Symmetric part (A + A^T) / 2.
template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> sym(const Mat3<T>& a) {
  return (a + transpose(a)) * T(0.5);
}
/// U diag(d) V^T, the product the SVD-based material models rebuild matrices with.
template <class T>
SILT_HD SILT_FORCEINLINE Mat3<T> u_diag_vt(const Mat3<T>& u, const Vec3<T>& d, const Mat3<T>& v) {
  Mat3<T> r;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j)
      r.m[i][j] = u.m[i][0] * d[0] * v.m[j][0] + u.m[i][1] * d[1] * v.m[j][1] +
                  u.m[i][2] * d[2] * v.m[j][2];
  return r;
}

}  // namespace silt
