// Quadratic B-spline interpolation for MPM (Steffen et al. 2008; Jiang et al. 2016 MPM course
// notes): a particle touches the 3x3x3 nodes from `base`; node (base + (i,j,k)) sits at origin + dx
// * (base + (i,j,k)). Per axis, with fx = (x - origin)/dx - base in [0.5, 1.5):
//   w0 = 0.5 (1.5 - fx)^2,  w1 = 0.75 - (fx - 1)^2,  w2 = 0.5 (fx - 0.5)^2.
// For quadratic splines the MLS/APIC inertia tensor is D = dx^2/4 I (Jiang et al. 2015, APIC), so
// D^{-1} = 4 / dx^2 (mls_dinv).
//
// In 2D (plane strain in x-y) the stencil is 3x3x1: every particle and node lies in the plane z =
// origin, the z weight is 1 with no gradient and no offset, so the same 3D arithmetic (weights,
// MLS force, APIC affine terms, F with F_zz = 1) gives the plane-strain result with 9 nodes.
#pragma once

#include "silt/core/config.hpp"
#include "silt/core/math/scalar.hpp"
#include "silt/core/math/vec.hpp"

namespace silt::mpm {

template <class T>
struct BSplineQ {
  int base[3];  // lower-corner node index of the stencil, per axis
  T fx[3];      // particle offset from the base node in cells, in [0.5, 1.5)
  T w[3][3];    // w[axis][k]: 1-D weights, k = 0..2
  T dw[3][3];   // dw[axis][k]: 1-D weight derivatives d w / d x, 1/m

  /// Weight of node base + (i, j, k).
  SILT_HD SILT_FORCEINLINE T weight(int i, int j, int k) const {
    return w[0][i] * w[1][j] * w[2][k];
  }
  /// Gradient of node (i, j, k)'s basis function at the particle, grad N_i(x_p), 1/m.
  SILT_HD SILT_FORCEINLINE Vec3<T> gradient(int i, int j, int k) const {
    return Vec3<T>{dw[0][i] * w[1][j] * w[2][k], w[0][i] * dw[1][j] * w[2][k],
                   w[0][i] * w[1][j] * dw[2][k]};
  }
  /// x_node - x_p in metres for node base + (i, j, k).
  SILT_HD SILT_FORCEINLINE Vec3<T> dpos(int i, int j, int k, T dx) const {
    return Vec3<T>{(T(i) - fx[0]) * dx, (T(j) - fx[1]) * dx, (T(k) - fx[2]) * dx};
  }
};

/// Stencil nodes per particle in D dimensions (3^D).
template <int D>
inline constexpr int kStencilNodes = D == 3 ? 27 : 9;

/// Weights and gradients for a particle at x (m), grid origin (m, position of node 0), inv_dx =
/// 1/dx, in D = 3 or 2 dimensions (2: the z axis is the plane's single node, see above).
template <int D = 3, class T>
SILT_HD SILT_FORCEINLINE BSplineQ<T> bspline_quadratic(const Vec3<T>& x, const Vec3<T>& origin,
                                                       T inv_dx) {
  static_assert(D == 2 || D == 3, "MPM runs in 2 or 3 dimensions");
  BSplineQ<T> s;
  if (D == 2) {
    s.base[2] = 0;
    s.fx[2] = T(0);
    s.w[2][0] = T(1), s.w[2][1] = T(0), s.w[2][2] = T(0);
    s.dw[2][0] = T(0), s.dw[2][1] = T(0), s.dw[2][2] = T(0);
  }
  for (int a = 0; a < D; ++a) {
    const T xc = (x[a] - origin[a]) * inv_dx;  // position in cells
    // floor(xc - 0.5) without std::floor: the cast truncates towards zero, so fix negatives.
    const T shifted = xc - T(0.5);
    int b = static_cast<int>(shifted);
    if (T(b) > shifted) --b;
    s.base[a] = b;
    const T f = xc - T(b);
    s.fx[a] = f;
    const T d0 = T(1.5) - f, d1 = f - T(1), d2 = f - T(0.5);
    s.w[a][0] = T(0.5) * d0 * d0;
    s.w[a][1] = T(0.75) - d1 * d1;
    s.w[a][2] = T(0.5) * d2 * d2;
    s.dw[a][0] = -d0 * inv_dx;
    s.dw[a][1] = T(-2) * d1 * inv_dx;
    s.dw[a][2] = d2 * inv_dx;
  }
  return s;
}

/// MLS-MPM / APIC D^{-1} for quadratic B-splines: 4 / dx^2 (1/m^2).
template <class T>
SILT_HD SILT_FORCEINLINE T mls_dinv(T dx) {
  return T(4) / (dx * dx);
}

}  // namespace silt::mpm
