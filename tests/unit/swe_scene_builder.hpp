// Small helpers to build shallow-water scenes in tests (unit and verification).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "silt/swe/scene.hpp"

namespace silt::swe::scenes {

/// A scene of nx x ny cells of size dx with its lower-left corner at (x0, y0), flat bed at 0, dry,
/// walls all round, in the given precision.
inline Scene make_scene(const std::string& name, Index nx, Index ny, double dx, Precision p,
                        double x0 = 0.0, double y0 = 0.0) {
  Scene s;
  s.name = name;
  s.grid = Grid{nx, ny, dx, x0, y0};
  const size_t n = size_t(nx) * size_t(ny);
  s.bed.assign(n, 0.0);
  s.depth.assign(n, 0.0);
  s.precision = p;
  return s;
}

/// Calls f(i, j, x, y, k) for every cell (centre x, y; row-major index k).
inline void for_cells(const Scene& s,
                      const std::function<void(Index, Index, double, double, size_t)>& f) {
  for (Index j = 0; j < s.grid.ny; ++j)
    for (Index i = 0; i < s.grid.nx; ++i)
      f(i, j, s.grid.x0 + (i + 0.5) * s.grid.dx, s.grid.y0 + (j + 0.5) * s.grid.dx,
        size_t(j) * s.grid.nx + i);
}

inline Series constant_series(double v) {
  return Series{{0.0}, {v}};
}

}  // namespace silt::swe::scenes
