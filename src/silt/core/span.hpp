// Non-owning views passed by value into kernels: Span<T> (1D), Grid2<T> and Grid3<T> (row-major
// with an optional halo ring). Bounds are checked in debug builds on host and device.
#pragma once

#include <cassert>
#include <type_traits>

#include "silt/core/config.hpp"

namespace silt {

template <class T>
struct Span {
  T* ptr = nullptr;
  Index n = 0;

  SILT_HD T& operator[](Index i) const {
    assert(i >= 0 && i < n);
    return ptr[i];
  }
  SILT_HD Index size() const { return n; }
  SILT_HD T* data() const { return ptr; }
  template <class U = T, class = std::enable_if_t<!std::is_const_v<U>>>
  SILT_HD operator Span<const U>() const {
    return Span<const U>{ptr, n};
  }
};

/// 2D view, x fastest: element (i, j) for i in [-halo, nx + halo), j in [-halo, ny + halo).
template <class T>
struct Grid2 {
  T* ptr = nullptr;
  Index nx = 0, ny = 0, halo = 0;

  static constexpr Index alloc_size(Index nx, Index ny, Index halo) {
    return (nx + 2 * halo) * (ny + 2 * halo);
  }
  SILT_HD Index stride() const { return nx + 2 * halo; }
  SILT_HD Index offset(Index i, Index j) const {
    assert(i >= -halo && i < nx + halo && j >= -halo && j < ny + halo);
    return (j + halo) * stride() + (i + halo);
  }
  SILT_HD T& operator()(Index i, Index j) const { return ptr[offset(i, j)]; }
  // Only for a mutable T: Grid2<const T> converting to itself would be a no-op operator.
  template <class U = T, class = std::enable_if_t<!std::is_const_v<U>>>
  SILT_HD operator Grid2<const U>() const {
    return Grid2<const U>{ptr, nx, ny, halo};
  }
};

/// 3D view, x fastest.
template <class T>
struct Grid3 {
  T* ptr = nullptr;
  Index nx = 0, ny = 0, nz = 0;

  SILT_HD Index offset(Index i, Index j, Index k) const {
    assert(i >= 0 && i < nx && j >= 0 && j < ny && k >= 0 && k < nz);
    return (k * ny + j) * nx + i;
  }
  SILT_HD T& operator()(Index i, Index j, Index k) const { return ptr[offset(i, j, k)]; }
};

}  // namespace silt
