// Vec3<T>: a 3-vector of plain storage (an aggregate, so Vec3<float>{1, 2, 3} works and device
// registers hold it after unrolling). All operations are SILT_HD and allocation-free.
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/float_pack.hpp"  // the packs' math (norm of a Vec3 of packs; host only)
#include "silt/core/math/scalar.hpp"

namespace silt {

template <class T>
struct Vec3 {
  T v[3];

  SILT_HD SILT_FORCEINLINE T& operator[](int i) { return v[i]; }
  SILT_HD SILT_FORCEINLINE const T& operator[](int i) const { return v[i]; }

  SILT_HD static Vec3 zero() { return Vec3{T(0), T(0), T(0)}; }
  SILT_HD static Vec3 constant(T s) { return Vec3{s, s, s}; }
  /// Unit vector along axis a (0, 1, 2).
  SILT_HD static Vec3 unit(int a) {
    Vec3 r = zero();
    r[a] = T(1);
    return r;
  }
  template <class U>
  SILT_HD Vec3<U> cast() const {
    return Vec3<U>{U(v[0]), U(v[1]), U(v[2])};
  }

  SILT_HD Vec3& operator+=(const Vec3& b) {
    v[0] += b[0], v[1] += b[1], v[2] += b[2];
    return *this;
  }
  SILT_HD Vec3& operator-=(const Vec3& b) {
    v[0] -= b[0], v[1] -= b[1], v[2] -= b[2];
    return *this;
  }
  SILT_HD Vec3& operator*=(T s) {
    v[0] *= s, v[1] *= s, v[2] *= s;
    return *this;
  }
};

using Vec3f = Vec3<float>;

template <class T>
SILT_HD SILT_FORCEINLINE Vec3<T> operator+(const Vec3<T>& a, const Vec3<T>& b) {
  return Vec3<T>{a[0] + b[0], a[1] + b[1], a[2] + b[2]};
}
template <class T>
SILT_HD SILT_FORCEINLINE Vec3<T> operator-(const Vec3<T>& a, const Vec3<T>& b) {
  return Vec3<T>{a[0] - b[0], a[1] - b[1], a[2] - b[2]};
}
template <class T>
SILT_HD SILT_FORCEINLINE Vec3<T> operator-(const Vec3<T>& a) {
  return Vec3<T>{-a[0], -a[1], -a[2]};
}
template <class T>
SILT_HD SILT_FORCEINLINE Vec3<T> operator*(const Vec3<T>& a, T s) {
  return Vec3<T>{a[0] * s, a[1] * s, a[2] * s};
}
template <class T>
SILT_HD SILT_FORCEINLINE Vec3<T> operator*(T s, const Vec3<T>& a) {
  return Vec3<T>{a[0] * s, a[1] * s, a[2] * s};
}
template <class T>
SILT_HD SILT_FORCEINLINE Vec3<T> operator/(const Vec3<T>& a, T s) {
  const T inv = math::rcp(s);
  return Vec3<T>{a[0] * inv, a[1] * inv, a[2] * inv};
}

/// Component-wise product.
template <class T>
SILT_HD SILT_FORCEINLINE Vec3<T> cwise_mul(const Vec3<T>& a, const Vec3<T>& b) {
  return Vec3<T>{a[0] * b[0], a[1] * b[1], a[2] * b[2]};
}
template <class T>
SILT_HD SILT_FORCEINLINE T dot(const Vec3<T>& a, const Vec3<T>& b) {
  return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
template <class T>
SILT_HD SILT_FORCEINLINE Vec3<T> cross(const Vec3<T>& a, const Vec3<T>& b) {
  return Vec3<T>{a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
template <class T>
SILT_HD SILT_FORCEINLINE T norm2(const Vec3<T>& a) {
  return dot(a, a);
}
template <class T>
SILT_HD SILT_FORCEINLINE T norm(const Vec3<T>& a) {
  return math::sqrt(dot(a, a));
}
/// a / |a|, or the zero vector when |a|^2 is below the type's tiny value (no NaN from 0/0).
template <class T>
SILT_HD SILT_FORCEINLINE Vec3<T> normalized(const Vec3<T>& a) {
  const T n2 = dot(a, a);
  return n2 > math::Tiny<T>::value ? a * math::rsqrt(n2) : Vec3<T>::zero();
}
template <class T>
SILT_HD SILT_FORCEINLINE T sum(const Vec3<T>& a) {
  return a[0] + a[1] + a[2];
}
template <class T>
SILT_HD SILT_FORCEINLINE T max_abs(const Vec3<T>& a) {
  return math::max(math::abs(a[0]), math::max(math::abs(a[1]), math::abs(a[2])));
}

}  // namespace silt
