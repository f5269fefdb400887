// Robust 3x3 singular value decomposition for SILT_HD code: F = U diag(sigma) V^T.
//
// Method: one-sided (Hestenes) Jacobi on the columns of B = F V, then a Givens QR of B.
//   1. Cyclic sweeps over the column pairs (0,1), (0,2), (1,2): each exact Jacobi rotation makes
//      two columns of B orthogonal (t = sign(tau) / (|tau| + sqrt(1 + tau^2)), the stable root of
//      the symmetric 2x2 Schur rotation; Golub & Van Loan, Matrix Computations, Jacobi methods)
//      and is accumulated into V. Unlike two-sided Jacobi on F^T F (McAdams et al. 2011) the dot
//      products come from B itself, so small singular values keep their relative accuracy (Demmel
//      & Veselic 1992) instead of losing eps * sigma_max^2.
//   2. Columns sorted by decreasing norm; a swap negates one column so V stays a rotation.
//   3. Givens QR of B (the same step as McAdams et al. 2011): U a product of plane rotations,
//      diag(R) = sigma. Zero columns (rank-deficient F) give the identity rotation, never 0/0.
// A fixed number of sweeps (no data-dependent loop) keeps GPU warps convergent.
// T is float, double or a host FloatPack<W> (float_pack.hpp: W particles at once, each lane the
// float result bit for bit): the branches are any()/select() pairs, which for a scalar fold back
// to the plain branch.
//
// Convention (McAdams et al. 2011): U and V are proper rotations (det = +1),
// sigma[0] >= sigma[1] >= |sigma[2]|, and sigma[2] < 0 exactly when det F < 0 (inverted
// elements). Material models that need log(sigma) clamp it themselves.
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/float_pack.hpp"
#include "silt/core/math/mat.hpp"
#include "silt/core/math/scalar.hpp"
#include "silt/core/math/vec.hpp"

namespace silt {

template <class T>
struct Svd3 {
  Mat3<T> u;      // rotation
  Vec3<T> sigma;  // singular values, sigma[0] >= sigma[1] >= |sigma[2]|
  Mat3<T> v;      // rotation
};

/// Jacobi sweeps: the fewest that reach round-off on random and graded matrices (docs/NOTES.md),
/// one more in double for margin.
template <class T>
struct Svd3Sweeps {
  static constexpr int value = 5;
};
template <>
struct Svd3Sweeps<float> {
  static constexpr int value = 4;
};
#if !SILT_HAS_CUDA
template <int W, class Tag>
struct Svd3Sweeps<FloatPack<W, Tag>> : Svd3Sweeps<float> {};
#endif

namespace detail {

/// Rotates columns p and q of b and v so that b_p . b_q = 0 (p, q compile-time: registers only).
template <int p, int q, class T>
SILT_HD SILT_FORCEINLINE void svd3_jacobi_rotate(Mat3<T>& b, Mat3<T>& v) {
  const T app = b(0, p) * b(0, p) + b(1, p) * b(1, p) + b(2, p) * b(2, p);
  const T aqq = b(0, q) * b(0, q) + b(1, q) * b(1, q) + b(2, q) * b(2, q);
  const T apq = b(0, p) * b(0, q) + b(1, p) * b(1, q) + b(2, p) * b(2, q);
  const auto rotate = math::abs(apq) > math::Tiny<T>::value;
  if (!math::any(rotate)) return;  // already orthogonal (or zero column)
  const T tau = math::div(aqq - app, T(2) * apq);
  // |tau| -> inf gives t -> 0 (no rotation), so overflow of tau^2 is harmless.
  const T t = math::div(math::sign_nonzero(tau), math::abs(tau) + math::sqrt(T(1) + tau * tau));
  const T c = math::rsqrt(T(1) + t * t);
  const T s = t * c;
  for (int i = 0; i < 3; ++i) {
    const T bp = b(i, p), bq = b(i, q);
    b(i, p) = math::select(rotate, c * bp - s * bq, bp);
    b(i, q) = math::select(rotate, s * bp + c * bq, bq);
    const T vp = v(i, p), vq = v(i, q);
    v(i, p) = math::select(rotate, c * vp - s * vq, vp);
    v(i, q) = math::select(rotate, s * vp + c * vq, vq);
  }
}

/// Where np < nq: swaps columns p and q of b and v, negating the new column q so det(v) is
/// unchanged, and swaps the norms.
template <class T>
SILT_HD SILT_FORCEINLINE void svd3_sort_columns(Mat3<T>& b, Mat3<T>& v, T& np, T& nq, int p,
                                                int q) {
  const auto swap = np < nq;
  if (!math::any(swap)) return;
  for (int i = 0; i < 3; ++i) {
    const T bp = b(i, p), bq = b(i, q);
    b(i, p) = math::select(swap, bq, bp);
    b(i, q) = math::select(swap, -bp, bq);
    const T vp = v(i, p), vq = v(i, q);
    v(i, p) = math::select(swap, vq, vp);
    v(i, q) = math::select(swap, -vp, vq);
  }
  const T n = np;
  np = math::select(swap, nq, np);
  nq = math::select(swap, n, nq);
}

/// Givens rotation in rows (p, q) that zeroes b(q, col); accumulated into u as u <- u G^T.
template <class T>
SILT_HD SILT_FORCEINLINE void svd3_givens_qr(Mat3<T>& b, Mat3<T>& u, int p, int q, int col) {
  const T a = b(p, col), d = b(q, col);
  const T r2 = a * a + d * d;
  T c = T(1), s = T(0);
  const auto nonzero = r2 > math::Tiny<T>::value;
  if (math::any(nonzero)) {
    const T inv = math::rsqrt(r2);
    c = math::select(nonzero, a * inv, c);
    s = math::select(nonzero, d * inv, s);
  }
  for (int j = 0; j < 3; ++j) {
    const T bp = b(p, j), bq = b(q, j);
    b(p, j) = c * bp + s * bq;
    b(q, j) = -s * bp + c * bq;
  }
  for (int i = 0; i < 3; ++i) {
    const T up = u(i, p), uq = u(i, q);
    u(i, p) = c * up + s * uq;
    u(i, q) = -s * up + c * uq;
  }
}

}  // namespace detail

/// F = U diag(sigma) V^T with the convention in the header comment.
template <class T, int kSweeps = Svd3Sweeps<T>::value>
SILT_HD inline Svd3<T> svd3(const Mat3<T>& f) {
  Mat3<T> b = f;
  Mat3<T> v = Mat3<T>::identity();
  for (int sweep = 0; sweep < kSweeps; ++sweep) {
    detail::svd3_jacobi_rotate<0, 1>(b, v);
    detail::svd3_jacobi_rotate<0, 2>(b, v);
    detail::svd3_jacobi_rotate<1, 2>(b, v);
  }
  T n0 = b(0, 0) * b(0, 0) + b(1, 0) * b(1, 0) + b(2, 0) * b(2, 0);
  T n1 = b(0, 1) * b(0, 1) + b(1, 1) * b(1, 1) + b(2, 1) * b(2, 1);
  T n2 = b(0, 2) * b(0, 2) + b(1, 2) * b(1, 2) + b(2, 2) * b(2, 2);
  detail::svd3_sort_columns(b, v, n0, n1, 0, 1);
  detail::svd3_sort_columns(b, v, n0, n2, 0, 2);
  detail::svd3_sort_columns(b, v, n1, n2, 1, 2);

  Mat3<T> u = Mat3<T>::identity();
  detail::svd3_givens_qr(b, u, 0, 1, 0);
  detail::svd3_givens_qr(b, u, 0, 2, 0);
  detail::svd3_givens_qr(b, u, 1, 2, 1);
  return Svd3<T>{u, Vec3<T>{b(0, 0), b(1, 1), b(2, 2)}, v};
}

}  // namespace silt
