// FloatPack<W>: W floats, one per particle, for SIMD across particles on the host (GCC vector
// extensions: SSE2's 4 lanes on baseline x86-64, wider where the caller's target has them). Every
// operation is the scalar IEEE operation lane by lane (add, multiply, divide, square root, sign
// flips and selections of whole values), so a function templated on the scalar type computes in
// each lane exactly what it computes for that lane's float: svd3<FloatPack<W>> gives the bits of
// svd3<float> (tests/unit/mpm_pack_test.cpp). No fused multiply-add, no approximate reciprocals.
// Branches of the scalar code become select() on a PackMask; any() keeps the scalar early exits
// where no lane takes them (scalar.hpp has both for bool, so the scalar code is unchanged).
//
// Host only (g++ translation units): nvcc never sees it, the device code stays scalar. sqrt is
// written lane by lane; with -fno-math-errno (the host P2G's translation unit) g++ turns it into
// one vector square root, without it each lane calls sqrtf (the same values, slower).
#pragma once

#include "silt/core/config.hpp"

#if !SILT_HAS_CUDA
#include <cmath>

#include "silt/core/math/scalar.hpp"

namespace silt {

namespace detail {
/// The vector types (g++ ignores vector_size with a size that depends on a template parameter).
template <int W>
struct PackTypes;
template <>
struct PackTypes<4> {
  typedef float F __attribute__((vector_size(16)));
  typedef int I __attribute__((vector_size(16)));
};
template <>
struct PackTypes<8> {
  typedef float F __attribute__((vector_size(32)));
  typedef int I __attribute__((vector_size(32)));
};
template <>
struct PackTypes<16> {
  typedef float F __attribute__((vector_size(64)));
  typedef int I __attribute__((vector_size(64)));
};
}  // namespace detail

/// Per-lane truth values of a FloatPack comparison (all bits set or clear per lane). Tag: see
/// FloatPack.
template <int W, class Tag = void>
struct PackMask {
  typename detail::PackTypes<W>::I v;
};

/// Tag: a type of the translation unit's own (in an anonymous namespace) gives every function
/// instantiated for the pack internal linkage: a unit built for another instruction set
/// (host_svd_avx.cpp) then shares no inline code with the others.
template <int W, class Tag = void>
struct FloatPack {
  using V = typename detail::PackTypes<W>::F;
  V v;

  FloatPack() = default;
  /// Broadcast (exact, -0 and NaN included).
  FloatPack(float s) {  // NOLINT: implicit, so that T(2) * x reads as in the scalar code
    for (int l = 0; l < W; ++l) v[l] = s;
  }
  static FloatPack of(const V& x) {
    FloatPack p;
    p.v = x;
    return p;
  }
  float operator[](int l) const { return v[l]; }
  void set(int l, float x) { v[l] = x; }

  friend FloatPack operator+(const FloatPack& a, const FloatPack& b) { return of(a.v + b.v); }
  friend FloatPack operator-(const FloatPack& a, const FloatPack& b) { return of(a.v - b.v); }
  friend FloatPack operator*(const FloatPack& a, const FloatPack& b) { return of(a.v * b.v); }
  friend FloatPack operator/(const FloatPack& a, const FloatPack& b) { return of(a.v / b.v); }
  friend FloatPack operator-(const FloatPack& a) { return of(-a.v); }
  FloatPack& operator+=(const FloatPack& b) { return v += b.v, *this; }
  FloatPack& operator-=(const FloatPack& b) { return v -= b.v, *this; }
  FloatPack& operator*=(const FloatPack& b) { return v *= b.v, *this; }
  friend PackMask<W, Tag> operator<(const FloatPack& a, const FloatPack& b) {
    return PackMask<W, Tag>{a.v < b.v};
  }
  friend PackMask<W, Tag> operator>(const FloatPack& a, const FloatPack& b) {
    return PackMask<W, Tag>{a.v > b.v};
  }
  friend PackMask<W, Tag> operator<=(const FloatPack& a, const FloatPack& b) {
    return PackMask<W, Tag>{a.v <= b.v};
  }
  friend PackMask<W, Tag> operator>=(const FloatPack& a, const FloatPack& b) {
    return PackMask<W, Tag>{a.v >= b.v};
  }
};

/// Four lanes from four 16-byte rows: out[c] holds element c of row l in lane l (c < 3; the
/// rows' fourth elements are dropped). Four vector loads and a transpose in place of twelve loads
/// into lanes; the values move unchanged.
#if defined(__clang__)
#define SILT_PACK_SHUFFLE4(a, b, i, j, k, l) __builtin_shufflevector(a, b, i, j, k, l)
#else
#define SILT_PACK_SHUFFLE4(a, b, i, j, k, l) __builtin_shuffle(a, b, I{i, j, k, l})
#endif
template <class Tag>
SILT_FORCEINLINE void load_columns3(const float* const (&row)[4], FloatPack<4, Tag> (&out)[3]) {
  using V = typename FloatPack<4, Tag>::V;
  using I [[maybe_unused]] = typename detail::PackTypes<4>::I;  // g++'s shuffle masks
  V r[4];
  for (int l = 0; l < 4; ++l) __builtin_memcpy(&r[l], row[l], sizeof(V));
  const V t0 = SILT_PACK_SHUFFLE4(r[0], r[1], 0, 4, 1, 5);  // x0 x1 y0 y1
  const V t1 = SILT_PACK_SHUFFLE4(r[2], r[3], 0, 4, 1, 5);  // x2 x3 y2 y3
  const V t2 = SILT_PACK_SHUFFLE4(r[0], r[1], 2, 6, 3, 7);  // z0 z1 w0 w1
  const V t3 = SILT_PACK_SHUFFLE4(r[2], r[3], 2, 6, 3, 7);  // z2 z3 w2 w3
  out[0] = FloatPack<4, Tag>::of(SILT_PACK_SHUFFLE4(t0, t1, 0, 1, 4, 5));
  out[1] = FloatPack<4, Tag>::of(SILT_PACK_SHUFFLE4(t0, t1, 2, 3, 6, 7));
  out[2] = FloatPack<4, Tag>::of(SILT_PACK_SHUFFLE4(t2, t3, 0, 1, 4, 5));
}
#undef SILT_PACK_SHUFFLE4

namespace math {

template <int W, class Tag>
SILT_FORCEINLINE bool any(const PackMask<W, Tag>& m) {
  int r = 0;
  for (int l = 0; l < W; ++l) r |= m.v[l];
  return r != 0;
}
template <int W, class Tag>
SILT_FORCEINLINE FloatPack<W, Tag> select(const PackMask<W, Tag>& m, const FloatPack<W, Tag>& a,
                                          const FloatPack<W, Tag>& b) {
  return FloatPack<W, Tag>::of(m.v ? a.v : b.v);
}

template <int W, class Tag>
SILT_FORCEINLINE FloatPack<W, Tag> sqrt(const FloatPack<W, Tag>& x) {
  float t[W];
  for (int l = 0; l < W; ++l) t[l] = x.v[l];
  for (int l = 0; l < W; ++l) t[l] = std::sqrt(t[l]);
  FloatPack<W, Tag> r;
  for (int l = 0; l < W; ++l) r.v[l] = t[l];
  return r;
}
/// As rsqrt(float) on the host: 1 / sqrt(x), both IEEE.
template <int W, class Tag>
SILT_FORCEINLINE FloatPack<W, Tag> rsqrt(const FloatPack<W, Tag>& x) {
  return FloatPack<W, Tag>(1.0f) / sqrt(x);
}
template <int W, class Tag>
SILT_FORCEINLINE FloatPack<W, Tag> div(const FloatPack<W, Tag>& a, const FloatPack<W, Tag>& b) {
  return a / b;
}
/// As abs<T>: x < 0 ? -x : x (so -0 and NaN keep their sign bit, as in the scalar code).
template <int W, class Tag>
SILT_FORCEINLINE FloatPack<W, Tag> abs(const FloatPack<W, Tag>& x) {
  return select(x < FloatPack<W, Tag>(0.0f), -x, x);
}
template <int W, class Tag>
SILT_FORCEINLINE FloatPack<W, Tag> sign_nonzero(const FloatPack<W, Tag>& x) {
  return select(x < FloatPack<W, Tag>(0.0f), FloatPack<W, Tag>(-1.0f), FloatPack<W, Tag>(1.0f));
}

template <int W, class Tag>
struct Tiny<FloatPack<W, Tag>> : Tiny<float> {};

}  // namespace math
}  // namespace silt

#endif  // !SILT_HAS_CUDA
