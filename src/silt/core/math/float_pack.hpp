// FloatPack<W, Tag, S>: W floating-point values of type S (float by default, or double), one per
// particle or edge, for SIMD across particles or edges on the host (GCC vector extensions: SSE2's 4
// float or 2 double lanes on baseline x86-64, wider where the caller's target has them). Every
// operation is the scalar IEEE operation lane by lane (add, multiply, divide, square root, sign
// flips, comparisons and selections of whole values), so a function templated on the scalar type
// computes in each lane exactly what it computes for that lane's value: svd3<FloatPack<W>> gives
// the bits of svd3<float> (tests/unit/mpm_pack_test.cpp), the shallow-water edge flux on
// FloatPack<W, Tag, double> those of its double form (tests/unit/swe_pack_test.cpp). No fused
// multiply-add, no approximate reciprocals. Branches of the scalar code become select() on a
// PackMask; any() and all() keep the scalar early exits where no lane, or every lane, takes them
// (scalar.hpp has both for bool, so the scalar code is unchanged).
//
// Host only (g++ translation units): nvcc never sees it, the device code stays scalar. sqrt is
// written lane by lane; with -fno-math-errno (the host P2G's translation unit) g++ turns it into
// one vector square root, without it each lane calls sqrtf (the same values, slower).
#pragma once

#include "silt/core/config.hpp"

#if !SILT_HAS_CUDA
#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include <cmath>
#include <utility>

#include "silt/core/math/log_exp_lanes.hpp"
#include "silt/core/math/scalar.hpp"

namespace silt {

namespace detail {
/// The vector types (g++ ignores vector_size with a size that depends on a template parameter):
/// W lanes of S, and the integer lanes of the same width that comparisons give (and, for float,
/// the unsigned ones of log_exp_lanes.hpp's bit operations).
template <class S, int W>
struct PackTypes;
template <>
struct PackTypes<float, 4> {
  typedef float F __attribute__((vector_size(16)));
  typedef int I __attribute__((vector_size(16)));
  typedef unsigned int U __attribute__((vector_size(16)));
};
template <>
struct PackTypes<float, 8> {
  typedef float F __attribute__((vector_size(32)));
  typedef int I __attribute__((vector_size(32)));
  typedef unsigned int U __attribute__((vector_size(32)));
};
template <>
struct PackTypes<float, 16> {
  typedef float F __attribute__((vector_size(64)));
  typedef int I __attribute__((vector_size(64)));
  typedef unsigned int U __attribute__((vector_size(64)));
};
template <>
struct PackTypes<double, 2> {
  typedef double F __attribute__((vector_size(16)));
  typedef long long I __attribute__((vector_size(16)));
};
template <>
struct PackTypes<double, 4> {
  typedef double F __attribute__((vector_size(32)));
  typedef long long I __attribute__((vector_size(32)));
};
template <>
struct PackTypes<double, 8> {
  typedef double F __attribute__((vector_size(64)));
  typedef long long I __attribute__((vector_size(64)));
};
}  // namespace detail

/// Per-lane truth values of a FloatPack comparison (all bits set or clear per lane), combined
/// lane by lane with !, && and || so that the scalar code's conditions read the same for bools and
/// masks. For masks both operands are always evaluated (no short circuit): the scalar code only
/// combines comparisons and calls without side effects this way. Tag: see FloatPack.
template <int W, class Tag = void, class S = float>
struct PackMask {
  typename detail::PackTypes<S, W>::I v;

  friend PackMask operator!(const PackMask& a) { return PackMask{~a.v}; }
  friend PackMask operator&&(const PackMask& a, const PackMask& b) { return PackMask{a.v & b.v}; }
  friend PackMask operator||(const PackMask& a, const PackMask& b) { return PackMask{a.v | b.v}; }
};

/// Tag: a type of the translation unit's own (in an anonymous namespace) gives every function
/// instantiated for the pack internal linkage: a unit built for another instruction set
/// (mpm/host/svd_isa.cpp) then shares no inline code with the others.
template <int W, class Tag = void, class S = float>
struct FloatPack {
  using V = typename detail::PackTypes<S, W>::F;
  using Mask = PackMask<W, Tag, S>;
  V v;

  FloatPack() = default;
  /// Broadcast (exact, -0 and NaN included). One initializer of W equal elements, which g++ makes
  /// one broadcast: set lane by lane, g++ 12 built 16-lane constants with a masked move per lane.
  FloatPack(S s)  // NOLINT: implicit, so that T(2) * x reads as in the scalar code
      : FloatPack(s, std::make_integer_sequence<int, W>{}) {}
  static FloatPack of(const V& x) {
    FloatPack p;
    p.v = x;
    return p;
  }
  /// W values from p[0..W) (no alignment needed), and back.
  static FloatPack load(const S* p) {
    FloatPack r;
    __builtin_memcpy(&r.v, p, sizeof(V));
    return r;
  }
  void store(S* p) const { __builtin_memcpy(p, &v, sizeof(V)); }
  S operator[](int l) const { return v[l]; }
  void set(int l, S x) { v[l] = x; }

  friend FloatPack operator+(const FloatPack& a, const FloatPack& b) { return of(a.v + b.v); }
  friend FloatPack operator-(const FloatPack& a, const FloatPack& b) { return of(a.v - b.v); }
  friend FloatPack operator*(const FloatPack& a, const FloatPack& b) { return of(a.v * b.v); }
  friend FloatPack operator/(const FloatPack& a, const FloatPack& b) { return of(a.v / b.v); }
  friend FloatPack operator-(const FloatPack& a) { return of(-a.v); }
  FloatPack& operator+=(const FloatPack& b) { return v += b.v, *this; }
  FloatPack& operator-=(const FloatPack& b) { return v -= b.v, *this; }
  FloatPack& operator*=(const FloatPack& b) { return v *= b.v, *this; }
  friend Mask operator<(const FloatPack& a, const FloatPack& b) { return Mask{a.v < b.v}; }
  friend Mask operator>(const FloatPack& a, const FloatPack& b) { return Mask{a.v > b.v}; }
  friend Mask operator<=(const FloatPack& a, const FloatPack& b) { return Mask{a.v <= b.v}; }
  friend Mask operator>=(const FloatPack& a, const FloatPack& b) { return Mask{a.v >= b.v}; }
  friend Mask operator==(const FloatPack& a, const FloatPack& b) { return Mask{a.v == b.v}; }
  friend Mask operator!=(const FloatPack& a, const FloatPack& b) { return Mask{a.v != b.v}; }

 private:
  template <int... L>
  FloatPack(S s, std::integer_sequence<int, L...>) : v{((void)L, s)...} {}
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
  using I [[maybe_unused]] = typename detail::PackTypes<float, 4>::I;  // g++'s shuffle masks
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

/// Eight lanes from eight 16-byte rows (load_columns3 for AVX packs): rows l and l + 4 share a
/// 32-byte register (one 16-byte load and one insert), then the same transpose within each
/// 16-byte half, so lane l of out[c] is element c of row l. The values move unchanged. Written
/// with __builtin_shufflevector (g++ 12 and later, clang), which joins and splits vectors of two
/// widths: element by element g++ 12 left the rows in scalar loads and inserts.
#define SILT_PACK_SHUFFLE8(a, b, i, j, k, l) \
  __builtin_shufflevector(a, b, i, j, k, l, i + 4, j + 4, k + 4, l + 4)
template <class Tag>
SILT_FORCEINLINE void load_columns3(const float* const (&row)[8], FloatPack<8, Tag> (&out)[3]) {
  using V = typename FloatPack<8, Tag>::V;
  using H = typename detail::PackTypes<float, 4>::F;
  V r[4];
  for (int l = 0; l < 4; ++l) {
    H lo, hi;
    __builtin_memcpy(&lo, row[l], sizeof(H));
    __builtin_memcpy(&hi, row[l + 4], sizeof(H));
    r[l] = __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7);
  }
  // In each half (lanes 0-3 from rows 0-3, lanes 4-7 from rows 4-7), as load_columns3 above.
  const V t0 = SILT_PACK_SHUFFLE8(r[0], r[1], 0, 8, 1, 9);
  const V t1 = SILT_PACK_SHUFFLE8(r[2], r[3], 0, 8, 1, 9);
  const V t2 = SILT_PACK_SHUFFLE8(r[0], r[1], 2, 10, 3, 11);
  const V t3 = SILT_PACK_SHUFFLE8(r[2], r[3], 2, 10, 3, 11);
  out[0] = FloatPack<8, Tag>::of(SILT_PACK_SHUFFLE8(t0, t1, 0, 1, 8, 9));
  out[1] = FloatPack<8, Tag>::of(SILT_PACK_SHUFFLE8(t0, t1, 2, 3, 10, 11));
  out[2] = FloatPack<8, Tag>::of(SILT_PACK_SHUFFLE8(t2, t3, 0, 1, 8, 9));
}

/// The reverse for four channels: row[l] receives lane l of in[0..4) (16 bytes, no alignment
/// needed). A 4x4 transpose per 16-byte half and one 16-byte store per row; the values move
/// unchanged.
template <class Tag>
SILT_FORCEINLINE void store_rows4(const FloatPack<4, Tag> (&in)[4], float* const (&row)[4]) {
  using V = typename FloatPack<4, Tag>::V;
  using I [[maybe_unused]] = typename detail::PackTypes<float, 4>::I;  // g++'s shuffle masks
  const V t0 = SILT_PACK_SHUFFLE4(in[0].v, in[1].v, 0, 4, 1, 5);       // a0 b0 a1 b1
  const V t1 = SILT_PACK_SHUFFLE4(in[2].v, in[3].v, 0, 4, 1, 5);       // c0 d0 c1 d1
  const V t2 = SILT_PACK_SHUFFLE4(in[0].v, in[1].v, 2, 6, 3, 7);       // a2 b2 a3 b3
  const V t3 = SILT_PACK_SHUFFLE4(in[2].v, in[3].v, 2, 6, 3, 7);       // c2 d2 c3 d3
  const V r[4] = {SILT_PACK_SHUFFLE4(t0, t1, 0, 1, 4, 5), SILT_PACK_SHUFFLE4(t0, t1, 2, 3, 6, 7),
                  SILT_PACK_SHUFFLE4(t2, t3, 0, 1, 4, 5), SILT_PACK_SHUFFLE4(t2, t3, 2, 3, 6, 7)};
  for (int l = 0; l < 4; ++l) __builtin_memcpy(row[l], &r[l], sizeof(V));
}
template <class Tag>
SILT_FORCEINLINE void store_rows4(const FloatPack<8, Tag> (&in)[4], float* const (&row)[8]) {
  using V = typename FloatPack<8, Tag>::V;
  using H = typename detail::PackTypes<float, 4>::F;
  const V t0 = SILT_PACK_SHUFFLE8(in[0].v, in[1].v, 0, 8, 1, 9);
  const V t1 = SILT_PACK_SHUFFLE8(in[2].v, in[3].v, 0, 8, 1, 9);
  const V t2 = SILT_PACK_SHUFFLE8(in[0].v, in[1].v, 2, 10, 3, 11);
  const V t3 = SILT_PACK_SHUFFLE8(in[2].v, in[3].v, 2, 10, 3, 11);
  const V r[4] = {SILT_PACK_SHUFFLE8(t0, t1, 0, 1, 8, 9), SILT_PACK_SHUFFLE8(t0, t1, 2, 3, 10, 11),
                  SILT_PACK_SHUFFLE8(t2, t3, 0, 1, 8, 9), SILT_PACK_SHUFFLE8(t2, t3, 2, 3, 10, 11)};
  // r[l] holds row l in its low half and row l + 4 in its high half.
  for (int l = 0; l < 4; ++l) {
    const H lo = __builtin_shufflevector(r[l], r[l], 0, 1, 2, 3);
    const H hi = __builtin_shufflevector(r[l], r[l], 4, 5, 6, 7);
    __builtin_memcpy(row[l], &lo, sizeof(H));
    __builtin_memcpy(row[l + 4], &hi, sizeof(H));
  }
}
#undef SILT_PACK_SHUFFLE8

/// Sixteen lanes (AVX-512 packs): rows l, l + 4, l + 8 and l + 12 share a 64-byte register, then
/// the same transpose within each 16-byte quarter, as for eight lanes.
#define SILT_PACK_SHUFFLE16(a, b, i, j, k, l)                                                \
  __builtin_shufflevector(a, b, i, j, k, l, i + 4, j + 4, k + 4, l + 4, i + 8, j + 8, k + 8, \
                          l + 8, i + 12, j + 12, k + 12, l + 12)
template <class Tag>
SILT_FORCEINLINE void load_columns3(const float* const (&row)[16], FloatPack<16, Tag> (&out)[3]) {
  using V = typename FloatPack<16, Tag>::V;
  using H = typename detail::PackTypes<float, 4>::F;
  using Q = typename detail::PackTypes<float, 8>::F;
  V r[4];
  for (int l = 0; l < 4; ++l) {
    H h[4];
    for (int q = 0; q < 4; ++q) __builtin_memcpy(&h[q], row[l + 4 * q], sizeof(H));
    const Q lo = __builtin_shufflevector(h[0], h[1], 0, 1, 2, 3, 4, 5, 6, 7);
    const Q hi = __builtin_shufflevector(h[2], h[3], 0, 1, 2, 3, 4, 5, 6, 7);
    r[l] = __builtin_shufflevector(lo, hi, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  }
  const V t0 = SILT_PACK_SHUFFLE16(r[0], r[1], 0, 16, 1, 17);
  const V t1 = SILT_PACK_SHUFFLE16(r[2], r[3], 0, 16, 1, 17);
  const V t2 = SILT_PACK_SHUFFLE16(r[0], r[1], 2, 18, 3, 19);
  const V t3 = SILT_PACK_SHUFFLE16(r[2], r[3], 2, 18, 3, 19);
  out[0] = FloatPack<16, Tag>::of(SILT_PACK_SHUFFLE16(t0, t1, 0, 1, 16, 17));
  out[1] = FloatPack<16, Tag>::of(SILT_PACK_SHUFFLE16(t0, t1, 2, 3, 18, 19));
  out[2] = FloatPack<16, Tag>::of(SILT_PACK_SHUFFLE16(t2, t3, 0, 1, 16, 17));
}
template <class Tag>
SILT_FORCEINLINE void store_rows4(const FloatPack<16, Tag> (&in)[4], float* const (&row)[16]) {
  using V = typename FloatPack<16, Tag>::V;
  using H = typename detail::PackTypes<float, 4>::F;
  const V t0 = SILT_PACK_SHUFFLE16(in[0].v, in[1].v, 0, 16, 1, 17);
  const V t1 = SILT_PACK_SHUFFLE16(in[2].v, in[3].v, 0, 16, 1, 17);
  const V t2 = SILT_PACK_SHUFFLE16(in[0].v, in[1].v, 2, 18, 3, 19);
  const V t3 = SILT_PACK_SHUFFLE16(in[2].v, in[3].v, 2, 18, 3, 19);
  const V r[4] = {
      SILT_PACK_SHUFFLE16(t0, t1, 0, 1, 16, 17), SILT_PACK_SHUFFLE16(t0, t1, 2, 3, 18, 19),
      SILT_PACK_SHUFFLE16(t2, t3, 0, 1, 16, 17), SILT_PACK_SHUFFLE16(t2, t3, 2, 3, 18, 19)};
  // Quarter q of r[l] holds row l + 4 q.
  for (int l = 0; l < 4; ++l) {
    const H h[4] = {__builtin_shufflevector(r[l], r[l], 0, 1, 2, 3),
                    __builtin_shufflevector(r[l], r[l], 4, 5, 6, 7),
                    __builtin_shufflevector(r[l], r[l], 8, 9, 10, 11),
                    __builtin_shufflevector(r[l], r[l], 12, 13, 14, 15)};
    for (int q = 0; q < 4; ++q) __builtin_memcpy(row[l + 4 * q], &h[q], sizeof(H));
  }
}
#undef SILT_PACK_SHUFFLE16
#undef SILT_PACK_SHUFFLE4

namespace math {

/// any() and all() of a mask (each lane all bits set or clear) with one test of the whole register
/// where the unit's instruction set has it (SSE2 pmovmskb, AVX vptest, AVX-512F vptestmd):
/// written lane by lane, g++ 12 extracted and combined every lane (31 instructions for 16).
template <int W, class Tag, class S>
SILT_FORCEINLINE bool any(const PackMask<W, Tag, S>& m) {
  if constexpr (false) {
#if defined(__SSE2__)
  } else if constexpr (sizeof(m.v) == 16) {
    return _mm_movemask_epi8(reinterpret_cast<__m128i>(m.v)) != 0;
#endif
#if defined(__AVX__)
  } else if constexpr (sizeof(m.v) == 32) {
    const __m256i x = reinterpret_cast<__m256i>(m.v);
    return !_mm256_testz_si256(x, x);
#endif
#if defined(__AVX512F__)
  } else if constexpr (sizeof(m.v) == 64) {
    const __m512i x = reinterpret_cast<__m512i>(m.v);
    return _mm512_test_epi32_mask(x, x) != 0;
#endif
  } else {
    auto r = m.v[0];
    for (int l = 1; l < W; ++l) r |= m.v[l];
    return r != 0;
  }
}
template <int W, class Tag, class S>
SILT_FORCEINLINE bool all(const PackMask<W, Tag, S>& m) {
  if constexpr (false) {
#if defined(__SSE2__)
  } else if constexpr (sizeof(m.v) == 16) {
    return _mm_movemask_epi8(reinterpret_cast<__m128i>(m.v)) == 0xffff;
#endif
#if defined(__AVX__)
  } else if constexpr (sizeof(m.v) == 32) {
    const __m256i x = reinterpret_cast<__m256i>(m.v);
    return _mm256_testc_si256(x, _mm256_set1_epi32(-1)) != 0;
#endif
#if defined(__AVX512F__)
  } else if constexpr (sizeof(m.v) == 64) {
    const __m512i x = reinterpret_cast<__m512i>(m.v);
    return _mm512_test_epi32_mask(x, x) == 0xffff;
#endif
  } else {
    auto r = m.v[0];
    for (int l = 1; l < W; ++l) r &= m.v[l];
    return r != 0;
  }
}
template <int W, class Tag, class S>
SILT_FORCEINLINE FloatPack<W, Tag, S> select(const PackMask<W, Tag, S>& m,
                                             const FloatPack<W, Tag, S>& a,
                                             const FloatPack<W, Tag, S>& b) {
  return FloatPack<W, Tag, S>::of(m.v ? a.v : b.v);
}

template <int W, class Tag, class S>
SILT_FORCEINLINE FloatPack<W, Tag, S> sqrt(const FloatPack<W, Tag, S>& x) {
  S t[W];
  for (int l = 0; l < W; ++l) t[l] = x.v[l];
  for (int l = 0; l < W; ++l) t[l] = std::sqrt(t[l]);
  FloatPack<W, Tag, S> r;
  for (int l = 0; l < W; ++l) r.v[l] = t[l];
  return r;
}
/// As rsqrt(float) on the host: 1 / sqrt(x), both IEEE.
template <int W, class Tag, class S>
SILT_FORCEINLINE FloatPack<W, Tag, S> rsqrt(const FloatPack<W, Tag, S>& x) {
  return FloatPack<W, Tag, S>(S(1)) / sqrt(x);
}
template <int W, class Tag, class S>
SILT_FORCEINLINE FloatPack<W, Tag, S> div(const FloatPack<W, Tag, S>& a,
                                          const FloatPack<W, Tag, S>& b) {
  return a / b;
}
/// As fdiv on the host: the IEEE quotient.
template <int W, class Tag, class S>
SILT_FORCEINLINE FloatPack<W, Tag, S> fdiv(const FloatPack<W, Tag, S>& a,
                                           const FloatPack<W, Tag, S>& b) {
  return a / b;
}
/// As abs<T>: x < 0 ? -x : x (so -0 and NaN keep their sign bit, as in the scalar code).
template <int W, class Tag, class S>
SILT_FORCEINLINE FloatPack<W, Tag, S> abs(const FloatPack<W, Tag, S>& x) {
  return select(x < FloatPack<W, Tag, S>(S(0)), -x, x);
}
/// As min<T> and max<T> (b < a ? b : a, a < b ? b : a): the same operand wins ties and NaNs.
template <int W, class Tag, class S>
SILT_FORCEINLINE FloatPack<W, Tag, S> min(const FloatPack<W, Tag, S>& a,
                                          const FloatPack<W, Tag, S>& b) {
  return select(b < a, b, a);
}
template <int W, class Tag, class S>
SILT_FORCEINLINE FloatPack<W, Tag, S> max(const FloatPack<W, Tag, S>& a,
                                          const FloatPack<W, Tag, S>& b) {
  return select(a < b, b, a);
}
template <int W, class Tag, class S>
SILT_FORCEINLINE FloatPack<W, Tag, S> sign_nonzero(const FloatPack<W, Tag, S>& x) {
  using P = FloatPack<W, Tag, S>;
  return select(x < P(S(0)), P(S(-1)), P(S(1)));
}

template <int W, class Tag, class S>
struct Tiny<FloatPack<W, Tag, S>> : Tiny<S> {};

/// exp and log lane by lane through the C library (std::exp, std::log of S): each lane the bits
/// of the scalar call, at the scalar call's cost (a vector form would round differently). The lanes
/// go through memory whole (inserted one by one, g++ 12 spent a masked move on each). Code that
/// runs on float packs in earnest calls log_lanes / exp_lanes (log_exp_lanes.hpp): one polynomial
/// for floats and packs.
template <int W, class Tag, class S>
SILT_FORCEINLINE FloatPack<W, Tag, S> exp(const FloatPack<W, Tag, S>& x) {
  S t[W];
  x.store(t);
  for (int l = 0; l < W; ++l) t[l] = std::exp(t[l]);
  return FloatPack<W, Tag, S>::load(t);
}
template <int W, class Tag, class S>
SILT_FORCEINLINE FloatPack<W, Tag, S> log(const FloatPack<W, Tag, S>& x) {
  S t[W];
  x.store(t);
  for (int l = 0; l < W; ++l) t[l] = std::log(t[l]);
  return FloatPack<W, Tag, S>::load(t);
}
/// log_exp_lanes.hpp's bit access for float packs, lane by lane: the same integer and float
/// operations as FloatLanes<float> in each lane.
template <int W, class Tag>
struct FloatLanes<FloatPack<W, Tag, float>> {
  using P = FloatPack<W, Tag, float>;
  using I = typename silt::detail::PackTypes<float, W>::I;
  using U = typename silt::detail::PackTypes<float, W>::U;
  using V = typename P::V;
  // Casts between vector types of one size keep the bits (GCC/Clang vector extensions).
  static SILT_FORCEINLINE U bits(const P& x) { return (U)x.v; }
  static SILT_FORCEINLINE P of_bits(const U& u) { return P::of((V)u); }
  static SILT_FORCEINLINE I to_signed(const U& u) { return (I)u; }
  static SILT_FORCEINLINE U to_unsigned(const I& i) { return (U)i; }
  static SILT_FORCEINLINE P to_float(const I& i) { return P::of(__builtin_convertvector(i, V)); }
  static SILT_FORCEINLINE P select(const typename P::Mask& m, const P& a, const P& b) {
    return math::select(m, a, b);
  }
};

/// As cbrt_fast on the host (cbrt_pos): exp(log(x) * (1 / 3)), the same operations lane by lane.
template <int W, class Tag, class S>
SILT_FORCEINLINE FloatPack<W, Tag, S> cbrt_fast(const FloatPack<W, Tag, S>& x) {
  using P = FloatPack<W, Tag, S>;
  return exp(log(x) * (P(S(1)) / P(S(3))));
}

}  // namespace math
}  // namespace silt

#endif  // !SILT_HAS_CUDA
