// Scalar math for SILT_HD code. On the device pass the float overloads map to native hardware
// intrinsics (rsqrtf, __logf, __expf, __powf: single MUFU instructions, no IEEE fix-up sequences;
// paper 000, on non-native intrinsics, measured the stress error of fast-math at <= 0.12 dyn/cm^2
// over 60 frames). Double overloads exist for host unit tests and never run on the device path of a
// float build.
#pragma once

#include <cmath>

#include "silt/core/config.hpp"

namespace silt::math {

/// sqrt; on the device PTX's sqrt.approx (one MUFU.SQRT on sm_75 and later; x * rsqrt(x) took a
/// zero test, MUFU.RSQ, a multiply and a select) instead of the IEEE sequence. 0 maps to 0 and
/// negative inputs to NaN as with sqrtf; subnormals flush to zero as in the rest of the device
/// code (fast math).
SILT_HD SILT_FORCEINLINE float sqrt(float x) {
#if SILT_DEVICE_PASS
  float r;
  asm("sqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
  return r;
#else
  return std::sqrt(x);
#endif
}
SILT_HD SILT_FORCEINLINE double sqrt(double x) {
#if SILT_DEVICE_PASS
  return ::sqrt(x);
#else
  return std::sqrt(x);
#endif
}

/// 1/sqrt(x); one MUFU.RSQ on the device (max 2 ulp error).
SILT_HD SILT_FORCEINLINE float rsqrt(float x) {
#if SILT_DEVICE_PASS
  return ::rsqrtf(x);
#else
  return 1.0f / std::sqrt(x);
#endif
}
SILT_HD SILT_FORCEINLINE double rsqrt(double x) {
#if SILT_DEVICE_PASS
  return ::rsqrt(x);
#else
  return 1.0 / std::sqrt(x);
#endif
}

/// a / b; on the device the native approximate division (__fdividef: MUFU.RCP and a multiply,
/// 2 ulp for |b| in [2^-126, 2^126]) instead of the IEEE div.rn sequence.
SILT_HD SILT_FORCEINLINE float div(float a, float b) {
#if SILT_DEVICE_PASS
  return __fdividef(a, b);
#else
  return a / b;
#endif
}
SILT_HD SILT_FORCEINLINE double div(double a, double b) {
  return a / b;
}
/// 1 / x with div's accuracy.
template <class T>
SILT_HD SILT_FORCEINLINE T rcp(T x) {
  return div(T(1), x);
}

/// a / b within one ulp, without the IEEE fix-up branches on the device in double. float, and
/// the host: a / b (the unit's own division: IEEE, or approximate under fast math). Device double:
/// the MUFU.RCP64H estimate r of 1 / b (about 20 good bits: relative error e0 well below 2^-14),
/// two Newton steps r <- r + r (1 - b r) without branches (error e0^2, then e0^4 < 2^-56, plus
/// the steps' rounding: r = (1 / b)(1 + d), |d| < 2^-52), q = a r (within one ulp of a / b), and
/// one correction q + r (a - b q). The FMA gives the remainder a - b q exactly (q is within one
/// ulp), so before the last rounding the error is |d| |a / b - q| < 2^-52 ulp: the result is
/// within (1/2 + 2^-52) ulp, correctly rounded but within 2^-52 ulp of a tie. Domain (device
/// double): b normal and finite (b = 0, a subnormal or an infinite b give NaN or 0 where IEEE
/// gives inf or a subnormal). The shallow-water fluxes divide by depths above the dry depth, by
/// sums of their square roots and by positive wave speeds (bench/results/
/// swe-sass-2026-12-01-cpu.md: the instructions it saves).
SILT_HD SILT_FORCEINLINE float fdiv(float a, float b) {
  return a / b;
}
SILT_HD SILT_FORCEINLINE double fdiv(double a, double b) {
#if SILT_DEVICE_PASS
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(b));
  r = ::fma(r, ::fma(-b, r, 1.0), r);
  r = ::fma(r, ::fma(-b, r, 1.0), r);
  const double q = a * r;
  return ::fma(r, ::fma(-b, q, a), q);
#else
  return a / b;
#endif
}
SILT_HD SILT_FORCEINLINE float log(float x) {
#if SILT_DEVICE_PASS
  return __logf(x);
#else
  return std::log(x);
#endif
}
SILT_HD SILT_FORCEINLINE double log(double x) {
#if SILT_DEVICE_PASS
  return ::log(x);
#else
  return std::log(x);
#endif
}

SILT_HD SILT_FORCEINLINE float exp(float x) {
#if SILT_DEVICE_PASS
  return __expf(x);
#else
  return std::exp(x);
#endif
}
SILT_HD SILT_FORCEINLINE double exp(double x) {
#if SILT_DEVICE_PASS
  return ::exp(x);
#else
  return std::exp(x);
#endif
}

/// x^y for x > 0 (exp2(y log2 x) on the device).
SILT_HD SILT_FORCEINLINE float pow(float x, float y) {
#if SILT_DEVICE_PASS
  return __powf(x, y);
#else
  return std::pow(x, y);
#endif
}
SILT_HD SILT_FORCEINLINE double pow(double x, double y) {
#if SILT_DEVICE_PASS
  return ::pow(x, y);
#else
  return std::pow(x, y);
#endif
}

SILT_HD SILT_FORCEINLINE float sinh(float x) {
  const float e = exp(x);
  return 0.5f * (e - rcp(e));
}
SILT_HD SILT_FORCEINLINE double sinh(double x) {
#if SILT_DEVICE_PASS
  return ::sinh(x);
#else
  return std::sinh(x);
#endif
}

SILT_HD SILT_FORCEINLINE float floor(float x) {
#if SILT_DEVICE_PASS
  return ::floorf(x);
#else
  return std::floor(x);
#endif
}
/// sin and cos in float with the accurate library forms (the rotation of a mesh collider: an
/// intrinsic's error grows with the angle).
SILT_HD SILT_FORCEINLINE float sin(float x) {
#if SILT_DEVICE_PASS
  return ::sinf(x);
#else
  return std::sin(x);
#endif
}
SILT_HD SILT_FORCEINLINE float cos(float x) {
#if SILT_DEVICE_PASS
  return ::cosf(x);
#else
  return std::cos(x);
#endif
}

/// |x| as x < 0 ? -x : x, so that -0 and NaN keep their sign bit (float_pack.hpp's packs do the
/// same, and the host's scalar and pack paths give the same bits). On the device the float and
/// double overloads take fabs: the instruction's operand modifier, free where the value feeds an
/// arithmetic instruction, instead of a compare and a negation; it differs only in the sign of a
/// zero or NaN, which no comparison sees.
template <class T>
SILT_HD SILT_FORCEINLINE T abs(T x) {
  return x < T(0) ? -x : x;
}
SILT_HD SILT_FORCEINLINE float abs(float x) {
#if SILT_DEVICE_PASS
  return ::fabsf(x);
#else
  return x < 0.0f ? -x : x;
#endif
}
SILT_HD SILT_FORCEINLINE double abs(double x) {
#if SILT_DEVICE_PASS
  return ::fabs(x);
#else
  return x < 0.0 ? -x : x;
#endif
}
template <class T>
SILT_HD SILT_FORCEINLINE T min(T a, T b) {
  return b < a ? b : a;
}
template <class T>
SILT_HD SILT_FORCEINLINE T max(T a, T b) {
  return a < b ? b : a;
}
template <class T>
SILT_HD SILT_FORCEINLINE T clamp(T x, T lo, T hi) {
  return x < lo ? lo : (hi < x ? hi : x);
}
/// Lane-generic forms of a branch (float_pack.hpp has them for packs): whether the condition holds
/// anywhere, or everywhere, and the value it picks. For a bool, inside `if (any(c))` the compiler
/// knows c and select(c, a, b) folds to a: the scalar code keeps its branch.
SILT_HD SILT_FORCEINLINE bool any(bool c) {
  return c;
}
SILT_HD SILT_FORCEINLINE bool all(bool c) {
  return c;
}
/// The type of a comparison of two T: bool for a scalar, a lane mask for a pack.
template <class T>
using MaskOf = decltype(T() < T());
template <class T>
SILT_HD SILT_FORCEINLINE T select(bool c, T a, T b) {
  return c ? a : b;
}
/// +1 for x >= 0, -1 otherwise (never 0: used to pick a branch of a root).
template <class T>
SILT_HD SILT_FORCEINLINE T sign_nonzero(T x) {
  return x < T(0) ? T(-1) : T(1);
}
/// Real cube root for x > 0 through exp/log (native on the device).
template <class T>
SILT_HD SILT_FORCEINLINE T cbrt_pos(T x) {
  return exp(log(x) * (T(1) / T(3)));
}

/// Real cube root for x > 0 at the least cost per backend: cbrt_pos() on the host (the same
/// results there) and for float (MUFU.LG2 + MUFU.EX2 on the device); CUDA's cbrt in double on the
/// device, within one ulp and ~96 instructions per cell update fewer in the SWE tile kernel than
/// cbrt_pos's double exp and log (bench/results/swe-sass-2026-12-01-cpu.md).
SILT_HD SILT_FORCEINLINE float cbrt_fast(float x) {
  return cbrt_pos(x);
}
SILT_HD SILT_FORCEINLINE double cbrt_fast(double x) {
#if SILT_DEVICE_PASS
  return ::cbrt(x);
#else
  return cbrt_pos(x);
#endif
}

/// Smallest normal-range magnitude we treat as non-zero in divisions of the type's own size.
template <class T>
struct Tiny;
template <>
struct Tiny<float> {
  static constexpr float value = 1.0e-30f;
};
template <>
struct Tiny<double> {
  static constexpr double value = 1.0e-280;
};

}  // namespace silt::math
