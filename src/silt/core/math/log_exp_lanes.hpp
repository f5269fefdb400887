// log and exp in float with the same bits for a scalar and for every lane of a host pack
// (FloatPack<W, Tag, float>, float_pack.hpp): one polynomial template, poly_log / poly_exp, written
// once for both and evaluated with the same IEEE operations in the same order (no FMA, no
// approximate reciprocals), so a material model templated on the scalar type gives in each lane
// of a pack exactly what it gives for that lane's float on the host (tests/unit/mpm_pack_test.cpp).
// The C library's logf and expf cannot be used for that: their vector forms (where a library has
// them) round differently from the scalar ones.
//
// The polynomials are Cephes' logf and expf (S. L. Moshier, Cephes Math Library 2.2, the forms
// also used by SSE and AVX math libraries such as sse_mathfun): log over [sqrt(1/2), sqrt(2))
// with the exponent split off, exp over [-ln2 / 2, ln2 / 2] after the Cody-Waite reduction by
// ln2 = 0.693359375 - 2.12194440e-4, then a scaling by 2^n in two halves. Errors against the
// double-precision functions, over every 251st float and a dense sweep of exp's range: 0.77 ulp
// for log, 0.96 ulp for exp (mpm_pack_test, LogExpLanes). Special values as the C library: log(0) = -inf, log(x < 0) = NaN,
// log(+inf) = +inf, subnormals scaled first; exp overflows to +inf above ~88.72 and underflows to 0
// below ~-103.9; NaN stays NaN.
//
// Entry points: log_lanes and exp_lanes. On the device pass they are the native __logf and
// __expf (as math::log and math::exp, scalar.hpp); in double the C library's (unit tests); on the
// host in float, and for float packs, poly_log and poly_exp.
#pragma once

#include <cmath>

#include "silt/core/config.hpp"
#include "silt/core/math/scalar.hpp"

namespace silt {

template <int W, class Tag, class S>
struct FloatPack;

namespace math {

/// What poly_log and poly_exp need of a float type beyond arithmetic and comparisons: its bits as
/// unsigned integers (U) and signed integers of the same width (I), conversions of small integers
/// to float, and a selection by a comparison's result. Here for float; float_pack.hpp has the
/// same for packs (lane by lane).
template <class T>
struct FloatLanes;

template <>
struct FloatLanes<float> {
  using U = unsigned int;
  using I = int;
  SILT_HD static SILT_FORCEINLINE U bits(float x) {
    U u;
    __builtin_memcpy(&u, &x, sizeof u);
    return u;
  }
  SILT_HD static SILT_FORCEINLINE float of_bits(U u) {
    float x;
    __builtin_memcpy(&x, &u, sizeof x);
    return x;
  }
  SILT_HD static SILT_FORCEINLINE I to_signed(U u) { return I(u); }
  SILT_HD static SILT_FORCEINLINE U to_unsigned(I i) { return U(i); }
  SILT_HD static SILT_FORCEINLINE float to_float(I i) { return float(i); }
  SILT_HD static SILT_FORCEINLINE float select(bool c, float a, float b) { return c ? a : b; }
};

/// Natural logarithm (Cephes logf) of a float or of each lane of a float pack.
template <class T>
SILT_HD SILT_FORCEINLINE T poly_log(T x) {
  using L = FloatLanes<T>;
  using U = typename L::U;
  // Subnormals (and zero and negatives, fixed below) are scaled by 2^23 into the normal range.
  const auto small = x < T(1.17549435e-38f);
  const T xs = L::select(small, x * T(8388608.0f), x);
  // x = m 2^k with m in [sqrt(1/2), sqrt(2)): the bits are offset so that the exponent field
  // steps up where the mantissa passes sqrt(1/2) (0x3f3504f3), then the offset is undone.
  U ix = L::bits(xs) + (0x3f800000u - 0x3f3504f3u);
  const T k = L::to_float(L::to_signed(ix >> 23) - 127);
  ix = (ix & 0x007fffffu) + 0x3f3504f3u;
  const T e = k - L::select(small, T(23.0f), T(0.0f));
  const T f = L::of_bits(ix) - T(1.0f);
  const T z = f * f;
  T y = T(7.0376836292e-2f);
  y = y * f - T(1.1514610310e-1f);
  y = y * f + T(1.1676998740e-1f);
  y = y * f - T(1.2420140846e-1f);
  y = y * f + T(1.4249322787e-1f);
  y = y * f - T(1.6668057665e-1f);
  y = y * f + T(2.0000714765e-1f);
  y = y * f - T(2.4999993993e-1f);
  y = y * f + T(3.3333331174e-1f);
  y = y * f * z;
  y = y + T(-2.12194440e-4f) * e;
  y = y + T(-0.5f) * z;
  T r = f + y;
  r = r + T(0.693359375f) * e;
  const T inf = T(__builtin_huge_valf());
  r = L::select(x == T(0.0f), -inf, r);
  r = L::select(x == inf, inf, r);
  return L::select(!(x >= T(0.0f)), T(__builtin_nanf("")), r);  // x < 0 or NaN
}

/// Exponential (Cephes expf) of a float or of each lane of a float pack.
template <class T>
SILT_HD SILT_FORCEINLINE T poly_exp(T x) {
  using L = FloatLanes<T>;
  using I = typename L::I;
  // Past these bounds the result is +inf or 0 anyway; the clamps keep 2^n in range. NaN passes.
  x = L::select(x < T(-104.0f), T(-104.0f), x);
  x = L::select(T(89.0f) < x, T(89.0f), x);
  // n = round(x / ln2) (to nearest, ties to even): adding 1.5 2^23 leaves n in the low bits.
  const T t = x * T(1.44269504088896341f) + T(12582912.0f);
  const T n = t - T(12582912.0f);
  const I ni = L::to_signed(L::bits(t) - 0x4b400000u);
  T r = x - n * T(0.693359375f);
  r = r - n * T(-2.12194440e-4f);
  const T z = r * r;
  T p = T(1.9875691500e-4f);
  p = p * r + T(1.3981999507e-3f);
  p = p * r + T(8.3334519073e-3f);
  p = p * r + T(4.1665795894e-2f);
  p = p * r + T(1.6666665459e-1f);
  p = p * r + T(5.0000001201e-1f);
  p = p * z + r + T(1.0f);
  // p 2^n as p 2^n1 2^n2 (n1 + n2 = n, both in [-75, 64]): each factor a normal float.
  const I n1 = ni >> 1;
  const I n2 = ni - n1;
  p = p * L::of_bits(L::to_unsigned(n1 + 127) << 23);
  return p * L::of_bits(L::to_unsigned(n2 + 127) << 23);
}

/// log for code that may run on packs (the MPM material models): the native __logf on the device,
/// poly_log on the host (the same bits for a float and for each lane of a pack), the C library in
/// double.
SILT_HD SILT_FORCEINLINE float log_lanes(float x) {
#if SILT_DEVICE_PASS
  return log(x);  // scalar.hpp: __logf
#else
  return poly_log(x);
#endif
}
SILT_HD SILT_FORCEINLINE double log_lanes(double x) {
  return log(x);
}
template <int W, class Tag>
SILT_FORCEINLINE FloatPack<W, Tag, float> log_lanes(const FloatPack<W, Tag, float>& x) {
  return poly_log(x);
}

/// exp as log_lanes: __expf on the device, poly_exp on the host, the C library in double.
SILT_HD SILT_FORCEINLINE float exp_lanes(float x) {
#if SILT_DEVICE_PASS
  return exp(x);  // scalar.hpp: __expf
#else
  return poly_exp(x);
#endif
}
SILT_HD SILT_FORCEINLINE double exp_lanes(double x) {
  return exp(x);
}
template <int W, class Tag>
SILT_FORCEINLINE FloatPack<W, Tag, float> exp_lanes(const FloatPack<W, Tag, float>& x) {
  return poly_exp(x);
}

}  // namespace math
}  // namespace silt
